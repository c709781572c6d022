"""Which HDF5 layout a file follows, and the episodes it holds.

Three layouts are read:

* **robomimic** (what robosuite's ``gather_demonstrations_as_hdf5``,
  robomimic, LIBERO, MimicGen, RoboCasa and Isaac Lab's recorder write):
  ``data/demo_N`` groups holding ``obs/*``, ``next_obs/*``, ``actions``,
  ``states``, ``rewards``, ``dones``; ``env_args`` (JSON) an attribute of
  ``data``; ``model_file`` (MJCF) an attribute of each demo.
* **ManiSkill** (its ``RecordEpisode`` wrapper): ``traj_N`` groups holding
  ``obs``, ``actions``, ``env_states``, ``rewards``, ``success``...; the
  episode metadata in a JSON file of the same name beside it.
* **ALOHA/ACT** (``record_sim_episodes``): one episode per file,
  ``observations/qpos``, ``observations/qvel``, ``observations/images/<cam>``
  and ``action`` at the top.

Episodes are numbered by the number in their group's name, in natural order
(``demo_2`` before ``demo_10``). Time is the step index over the control
frequency: ``env_kwargs.control_freq`` of ``env_args`` (robomimic), the
JSON's ``env_kwargs`` (ManiSkill) or ACT's 50 Hz.

What ManiSkill's ``RecordEpisode`` writes (``tests/data/maniskill``): ``obs``
(one array in the ``state`` mode, a group of ``agent``, ``extra``,
``sensor_param`` and ``sensor_data/<camera>/{rgb, depth}`` otherwise) and
``env_states/{actors, articulations}/<name>`` hold one row more than
``actions``: the reset's, before any action. ``rewards``, ``success``,
``fail``, ``terminated`` and ``truncated`` are what each step led to. The
JSON's ``env_kwargs`` holds what the recording passed to ``gym.make`` (no
control frequency unless a ``sim_config`` names it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import SchemaError, StreamNotFoundError
from fsr_core.sources.hdf5.library import h5_errors

__all__ = [
    "LAYOUTS",
    "DatasetLayout",
    "EpisodeRef",
    "read_layout",
]

LAYOUTS: Final = (
    "robomimic (data/demo_N/{obs, actions, states, ...})",
    "ManiSkill (traj_N/{obs, actions, env_states, ...} beside a JSON)",
    "ALOHA/ACT (observations/qpos, observations/images/<cam>, action)",
)
"""The layouts this source reads, as messages name them."""

DEFAULT_RATE_HZ: Final = 20.0
"""The control frequency assumed when a file names none (robosuite's and
ManiSkill's default)."""

ACT_RATE_HZ: Final = 50.0
"""ACT's simulated ALOHA steps at DT = 0.02 s."""

MAX_JSON_BYTES: Final = 64 << 20
"""Largest JSON text (an attribute or the ManiSkill metadata file) read."""

_DEMO: Final = re.compile(r"^demo_([0-9]{1,9})$")
_TRAJ: Final = re.compile(r"^traj_([0-9]{1,9})$")


@dataclass(frozen=True)
class EpisodeRef:
    """One episode of a file: its number, group and length in steps."""

    index: int
    group: str
    """The episode's group in the file (``data/demo_2``, ``traj_0``, ``/``)."""
    name: str
    """What the file calls it (``demo_2``)."""
    steps: int
    """Rows of its actions (0 when it records none)."""
    rows: int = -1
    """Rows of its longest series: ``steps`` unless the observations also hold
    the one before the first action (ManiSkill: one more). ``-1``: ``steps``."""

    @property
    def samples(self) -> int:
        """Rows of its longest series (what the timeline spans)."""
        return self.steps if self.rows < 0 else self.rows


@dataclass(frozen=True)
class DatasetLayout:
    """What a file's layout says of it, read from its groups and attributes."""

    kind: str
    """``robomimic``, ``maniskill`` or ``aloha``."""
    episodes: tuple[EpisodeRef, ...]
    rate_hz: float | None
    """The control frequency the file names, ``None`` when it names none."""
    rate_from: str
    """Where :attr:`rate_hz` comes from, for people."""
    env_args: dict[str, Any] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    """JSON metadata beside or inside the file (ManiSkill's ``env_info``)."""
    episode_metadata: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Per-episode JSON metadata (ManiSkill's ``episodes`` list), by index."""
    single: bool = False
    """Whether the file is one episode (ALOHA), not a playlist."""

    def find(self, index: int, path: Path) -> EpisodeRef:
        """Return episode ``index``.

        Raises
        ------
        StreamNotFoundError
            The file has no such episode.
        """
        for episode in self.episodes:
            if episode.index == index:
                return episode
        names = ", ".join(e.name for e in self.episodes[:5])
        more = ", ..." if len(self.episodes) > 5 else ""
        raise StreamNotFoundError(
            f"no episode {index}; the file has {len(self.episodes)} ({names}{more})",
            path=path,
        )


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        return _text(value.item())
    return str(value)


def json_attribute(value: Any, what: str, path: Path) -> dict[str, Any] | None:
    """Return a JSON attribute as a dict (``None`` when it is not JSON of one).

    Raises
    ------
    LimitExceededError
        The text is larger than :data:`MAX_JSON_BYTES`.
    """
    text = _text(value)
    check_budget(MEMORY, len(text), what, path=path)
    if len(text) > MAX_JSON_BYTES:
        raise SchemaError(f"{what} is larger than 64 MiB", path=path)
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def find_rate(kwargs: Any) -> float | None:
    """Return a ``control_freq`` found in ``kwargs`` (or a dict inside it)."""
    if not isinstance(kwargs, dict):
        return None
    value = kwargs.get("control_freq")
    if isinstance(value, int | float) and 0 < float(value) < 1e6:
        return float(value)
    for item in kwargs.values():
        found = find_rate(item)
        if found is not None:
            return found
    return None


def _steps(group: Any, names: tuple[str, ...]) -> int:
    for name in names:
        try:
            item = group[name]
        except KeyError:
            continue
        shape = getattr(item, "shape", None)
        if shape:
            return int(shape[0])
    return 0


def _rows(group: Any, name: str) -> int:
    """Return the rows of the dataset ``name`` below ``group`` (0 when none).

    Through h5py's low-level API: one lookup of the whole path, no Python
    objects for the groups on the way (listing 200 episodes costs 200 of them).
    """
    import h5py

    try:
        dataset = h5py.h5d.open(group.id, name.encode())
    except (KeyError, ValueError, OSError):
        return 0
    shape = dataset.shape
    return int(shape[0]) if shape else 0


def _numbered(group: Any, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    found = []
    for key in group:
        match = pattern.match(str(key))
        if match is not None:
            found.append((int(match.group(1)), str(key)))
    return sorted(found)


def _robomimic(handle: Any, path: Path) -> DatasetLayout:
    data = handle["data"]
    env_args = None
    if "env_args" in data.attrs:
        env_args = json_attribute(data.attrs["env_args"], "env_args", path)
    kwargs = (env_args or {}).get("env_kwargs")
    rate = find_rate(kwargs)
    episodes = []
    for number, key in _numbered(data, _DEMO):
        steps = _rows(data, f"{key}/actions")
        if not steps:
            steps = int(data[key].attrs.get("num_samples", 0))
        episodes.append(EpisodeRef(number, f"data/{key}", key, steps))
    metadata = {str(k): _text(v) for k, v in data.attrs.items() if str(k) != "env_args"}
    return DatasetLayout(
        kind="robomimic",
        episodes=tuple(episodes),
        rate_hz=rate,
        rate_from="env_args env_kwargs.control_freq" if rate else "",
        env_args=env_args,
        metadata=metadata,
    )


def _maniskill_json(path: Path) -> dict[str, Any]:
    beside = path.with_suffix(".json")
    if not beside.is_file() or beside.is_symlink():
        return {}
    size = beside.stat().st_size
    if size > MAX_JSON_BYTES:
        raise SchemaError(
            f"{beside.name} is {size:,} bytes, more than 64 MiB of metadata", path=path
        )
    try:
        found = json.loads(beside.read_text("utf-8", "replace"))
    except (OSError, ValueError) as exc:
        raise SchemaError(f"{beside.name} is not JSON: {exc}", path=path) from None
    return found if isinstance(found, dict) else {}


def _maniskill(handle: Any, path: Path) -> DatasetLayout:
    meta = _maniskill_json(path)
    env_info = meta.get("env_info") if isinstance(meta.get("env_info"), dict) else {}
    rate = find_rate((env_info or {}).get("env_kwargs"))
    listed: dict[int, dict[str, Any]] = {}
    for entry in meta.get("episodes") or []:
        if isinstance(entry, dict) and isinstance(entry.get("episode_id"), int):
            listed[int(entry["episode_id"])] = entry
    episodes = []
    for number, key in _numbered(handle, _TRAJ):
        steps = _rows(handle, f"{key}/actions")
        # RecordEpisode keeps the observation and state of the reset too.
        episodes.append(EpisodeRef(number, key, key, steps, steps + 1 if steps else 0))
    return DatasetLayout(
        kind="maniskill",
        episodes=tuple(episodes),
        rate_hz=rate,
        rate_from="the JSON's env_kwargs control_freq" if rate else "",
        env_args=env_info or None,
        metadata={k: v for k, v in meta.items() if k != "episodes"},
        episode_metadata=listed,
    )


def _aloha(handle: Any, path: Path) -> DatasetLayout:
    steps = _steps(handle, ("action",))
    episode = EpisodeRef(0, "/", path.stem, steps)
    return DatasetLayout(
        kind="aloha",
        episodes=(episode,),
        rate_hz=ACT_RATE_HZ,
        rate_from="ACT's control period (DT = 0.02 s)",
        metadata={str(k): _text(v) for k, v in handle.attrs.items()},
        single=True,
    )


def _is_aloha(handle: Any) -> bool:
    observations = handle.get("observations")
    return (
        observations is not None
        and hasattr(observations, "keys")
        and "qpos" in observations
        and "action" in handle
    )


def _found(handle: Any) -> str:
    keys = [str(key) for key in list(handle.keys())[:8]]
    if not keys:
        return "an empty file"
    more = ", ..." if len(handle) > 8 else ""
    return "top-level " + ", ".join(keys) + more


def read_layout(handle: Any, path: Path) -> DatasetLayout:
    """Return the layout of the open file ``handle``.

    Raises
    ------
    SchemaError
        The file follows none of :data:`LAYOUTS` (the message says which were
        expected and what was found).
    FsrError
        The HDF5 library cannot read its groups (a damaged file).
    """
    with h5_errors(path, "cannot read the file's groups"):
        data = handle.get("data")
        if data is not None and hasattr(data, "keys") and _numbered(data, _DEMO):
            return _robomimic(handle, path)
        if _numbered(handle, _TRAJ):
            return _maniskill(handle, path)
        if _is_aloha(handle):
            return _aloha(handle, path)
        found = _found(handle)
    raise SchemaError(
        f"unexpected HDF5 layout: expected {'; or '.join(LAYOUTS)}; found {found}",
        path=path,
    )
