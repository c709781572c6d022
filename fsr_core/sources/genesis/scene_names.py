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
from typing import Final

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import FsrError
from fsr_core.format.safe_open import open_source
from fsr_core.logs.genesis.naming import SceneNames, scene_names_of
from fsr_core.sources.genesis.container import TrajectoryIndex

__all__ = ["MAX_SCENE_JSON_BYTES", "SceneNames", "description_bytes", "scene_names"]

MAX_SCENE_JSON_BYTES: Final = 32 << 20


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
        return scene_names_of(json.loads(text.decode("utf-8")))
    except FsrError:
        return SceneNames()
    except Exception:  # noqa: BLE001 - any damage in an optional part means no names
        return SceneNames()
