"""Names of links, joints, dofs and positions from a trajectory's scene description.

The description is a zip archive holding ``scene.json`` (docs/genesis_trajectory.md,
section 4); only that member is read, within :data:`MAX_SCENE_JSON_BYTES`, and
only the entities' link and joint names are taken. Anything unexpected gives
no names (columns then fall back to indices): the names are a convenience.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from typing import Any, Final

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import FsrError
from fsr_core.format.safe_open import open_source
from fsr_core.sources.genesis.container import TrajectoryIndex

__all__ = ["MAX_SCENE_JSON_BYTES", "SceneNames", "description_bytes", "scene_names"]

MAX_SCENE_JSON_BYTES: Final = 32 << 20
_FREE_Q: Final = ("x", "y", "z", "qw", "qx", "qy", "qz")
_FREE_DOF: Final = ("x", "y", "z", "rx", "ry", "rz")


@dataclass(frozen=True)
class SceneNames:
    """Names in solver order (empty when the description did not give them)."""

    links: tuple[str, ...] = ()
    joints: tuple[str, ...] = ()
    dofs: tuple[str, ...] = ()
    qs: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()


def _joint_names(joint: dict[str, Any]) -> tuple[list[str], list[str]]:
    name = str(joint.get("name", "joint"))
    n_qs = joint.get("n_qs", 0)
    n_dofs = joint.get("n_dofs", 0)
    if not isinstance(n_qs, int) or not isinstance(n_dofs, int):
        raise TypeError("joint sizes are not integers")
    if n_qs == 7 and n_dofs == 6:
        return [f"{name}.{q}" for q in _FREE_Q], [f"{name}.{d}" for d in _FREE_DOF]
    qs = [name] if n_qs == 1 else [f"{name}.{k}" for k in range(n_qs)]
    dofs = [name] if n_dofs == 1 else [f"{name}.{k}" for k in range(n_dofs)]
    return qs, dofs


def _names(scene: Any) -> SceneNames:
    entities = scene["held"]["scene"]["entities"]
    links: list[str] = []
    joints: list[str] = []
    dofs: list[str] = []
    qs: list[str] = []
    entity_names: list[str] = []
    for number, entity in enumerate(entities):
        entity_name = str(entity.get("name") or f"entity{number}")
        entity_names.append(entity_name)
        for link in entity.get("links") or []:
            links.append(str(link.get("name", f"link{len(links)}")))
            for joint in link.get("joints") or []:
                joints.append(str(joint.get("name", f"joint{len(joints)}")))
                joint_qs, joint_dofs = _joint_names(joint)
                qs.extend(joint_qs)
                dofs.extend(joint_dofs)
    return SceneNames(
        tuple(links), tuple(joints), tuple(dofs), tuple(qs), tuple(entity_names)
    )


def description_bytes(index: TrajectoryIndex, *, expansion: float = 1.0) -> bytes:
    """Return the scene description's bytes (a zip archive).

    Raises
    ------
    FsrError
        ``expansion`` times its length is over the memory budget, or it
        cannot be read.
    """
    length = index.description_length
    check_budget(MEMORY, expansion * length, "the scene description", path=index.path)
    source = open_source(index.path)
    try:
        return source.read_at(
            index.description_offset, length, section="scene description"
        )
    finally:
        source.close()


def scene_names(index: TrajectoryIndex) -> SceneNames:
    """Return the names the description gives (empty ones when it cannot be read)."""
    try:
        blob = description_bytes(index, expansion=4.0)
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            member = archive.getinfo("scene.json")
            if member.file_size > MAX_SCENE_JSON_BYTES:
                return SceneNames()
            with archive.open(member) as handle:
                text = handle.read(MAX_SCENE_JSON_BYTES + 1)
        return _names(json.loads(text.decode("utf-8")))
    except FsrError:
        return SceneNames()
    except Exception:  # noqa: BLE001 - any damage in an optional part means no names
        return SceneNames()
