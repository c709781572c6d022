"""Which recorded joint drives which joint of a robot model.

Recorded names are matched to the model's moving joints, in order of trust:

1. the user's joint map (``--joint-map FILE.json``: ``{"recorded": "model"}``);
2. the same name exactly;
3. the same *normalised* name: case and separators (``_ - . / :`` and spaces)
   ignored, and a prefix or suffix that every recorded name shares (or every
   model joint shares) taken off: ``panda_joint1`` is ``joint1``,
   ``shoulder_pan.pos`` is ``shoulder_pan``.

A normalised name that two joints share matches neither: joints are listed
as unmatched, never guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fsr_core.errors import RobotModelError
from fsr_core.robots.description import RobotModel

__all__ = ["MAX_JOINT_MAP_BYTES", "JointMatch", "match_joints", "read_joint_map"]

#: Largest joint map file read.
MAX_JOINT_MAP_BYTES: Final = 1 << 20
_SEPARATORS: Final = re.compile(r"[\s_\-./:]+")


@dataclass(frozen=True)
class JointMatch:
    """The outcome of matching recorded joints to a model's moving joints."""

    pairs: tuple[tuple[int, int], ...]
    """``(recorded index, moving-joint index)`` of each match."""
    how: tuple[str, ...]
    """Per pair: ``map``, ``exact`` or ``normalised``."""
    unmatched_recorded: tuple[str, ...]
    """Recorded joints that drive nothing."""
    unmatched_model: tuple[str, ...]
    """Moving joints no recording drives (drawn at rest)."""
    fixed: tuple[str, ...]
    """The model's joints that never move (fixed, or following another)."""
    followers: tuple[tuple[int, str], ...] = ()
    """``(recorded index, model joint)`` of recorded joints whose model joint
    follows another (a mimic finger): shown, never driving the model."""

    def report(self, recorded: Sequence[str], robot: RobotModel) -> dict[str, object]:
        """Return the match as the inspector lists it."""
        moving = robot.moving_joints
        return {
            "matched": [
                {"recorded": recorded[r], "model": moving[m].name, "by": how}
                for (r, m), how in zip(self.pairs, self.how, strict=True)
            ],
            "follow_another": [
                {"recorded": recorded[r], "model": name} for r, name in self.followers
            ],
            "unmatched_recorded": list(self.unmatched_recorded),
            "unmatched_model": list(self.unmatched_model),
            "fixed": list(self.fixed),
        }


def _normalised(names: Sequence[str]) -> list[str]:
    """Lower case, no separators, the shared prefix and suffix taken off."""
    plain = [_SEPARATORS.sub("", name.lower()) for name in names]
    if len(plain) < 2:
        return plain
    prefix = _shared_start(plain)
    suffix = _shared_start([item[::-1] for item in plain])[::-1]
    shortest = min(len(item) for item in plain)
    # Never strip a whole name away: keep at least one character of each.
    prefix = prefix[: max(0, shortest - 1)]
    suffix = suffix[: max(0, shortest - len(prefix) - 1)]
    return [item[len(prefix) : len(item) - len(suffix)] for item in plain]


def _shared_start(texts: Sequence[str]) -> str:
    """Return the characters every text starts with."""
    first = min(texts, default="")
    for index, character in enumerate(first):
        if any(text[index] != character for text in texts):
            return first[:index]
    return first


def _unique(keys: Sequence[str]) -> dict[str, int]:
    seen: dict[str, int] = {}
    twice: set[str] = set()
    for index, key in enumerate(keys):
        if key in seen:
            twice.add(key)
        seen[key] = index
    return {key: index for key, index in seen.items() if key not in twice}


def match_joints(
    recorded: Sequence[str],
    robot: RobotModel,
    joint_map: Mapping[str, str] | None = None,
) -> JointMatch:
    """Match ``recorded`` joint names to ``robot``'s moving joints."""
    moving = [joint.name for joint in robot.moving_joints]
    taken_recorded: dict[int, tuple[int, str]] = {}
    taken_model: set[int] = set()

    def take(r: int, m: int, how: str) -> None:
        if r not in taken_recorded and m not in taken_model:
            taken_recorded[r] = (m, how)
            taken_model.add(m)

    model_index = {name: index for index, name in enumerate(moving)}
    for r, name in enumerate(recorded):
        target = (joint_map or {}).get(name)
        if target is not None and target in model_index:
            take(r, model_index[target], "map")
    for r, name in enumerate(recorded):
        if name in model_index:
            take(r, model_index[name], "exact")
    for keys_recorded, keys_model in (
        (_normalised(recorded), _normalised(moving)),
        ([_SEPARATORS.sub("", n.lower()) for n in recorded], _normalised(moving)),
        (_normalised(recorded), [_SEPARATORS.sub("", n.lower()) for n in moving]),
    ):
        unique_model = _unique(keys_model)
        unique_recorded = _unique(keys_recorded)
        for key, r in unique_recorded.items():
            if key in unique_model:
                take(r, unique_model[key], "normalised")
    pairs = sorted((r, m_how[0]) for r, m_how in taken_recorded.items())
    mimics = {j.name: j.name for j in robot.joints if j.mimic is not None}
    followers = tuple(
        (r, mimics[name])
        for r, name in enumerate(recorded)
        if r not in taken_recorded and name in mimics
    )
    following = {r for r, _ in followers}
    return JointMatch(
        pairs=tuple(pairs),
        how=tuple(taken_recorded[r][1] for r, _ in pairs),
        unmatched_recorded=tuple(
            name
            for r, name in enumerate(recorded)
            if r not in taken_recorded and r not in following
        ),
        unmatched_model=tuple(
            name for m, name in enumerate(moving) if m not in taken_model
        ),
        fixed=tuple(
            joint.name
            for joint in robot.joints
            if not joint.type.moves or joint.mimic is not None
        ),
        followers=followers,
    )


def read_joint_map(path: Path, robot: RobotModel | None = None) -> dict[str, str]:
    """Read a joint map: one JSON object of recorded name to model joint name.

    Raises
    ------
    RobotModelError
        The file is missing, too big, not such an object, or (given
        ``robot``) names a joint the model does not have.
    """
    try:
        size = path.stat().st_size
        if size > MAX_JOINT_MAP_BYTES:
            raise RobotModelError(
                f"joint map is {size:,} bytes, over the {MAX_JOINT_MAP_BYTES:,} budget",
                path=path,
            )
        document = json.loads(path.read_bytes())
    except OSError as error:
        raise RobotModelError(
            f"cannot read the joint map ({error.strerror})", path=path
        ) from None
    except (ValueError, RecursionError) as error:
        raise RobotModelError(f"joint map is not JSON: {error}", path=path) from None
    if not isinstance(document, dict) or not all(
        isinstance(key, str) and isinstance(value, str)
        for key, value in document.items()
    ):
        raise RobotModelError(
            'a joint map is one JSON object of names: {"recorded": "model joint"}',
            path=path,
        )
    if robot is not None:
        known = {joint.name for joint in robot.moving_joints}
        unknown = sorted(set(document.values()) - known)
        if unknown:
            raise RobotModelError(
                f"joint map names {len(unknown)} joint(s) the model {robot.name!r} "
                f"does not move: {', '.join(repr(n) for n in unknown[:5])}",
                path=path,
            )
    return dict(document)
