"""Mesh and texture paths of a robosuite scene, found in a local robosuite install.

robosuite writes a scene's MJCF (an HDF5 demo's ``model_file``) with the
absolute paths of the machine that recorded it
(``/.../site-packages/robosuite/models/assets/robots/panda/meshes/link0.stl``).
As robomimic's ``postprocess_model_xml`` does, a path that does not exist
here is looked up by its part after ``robosuite/models/assets/`` in a
robosuite installed on this machine: the ``robosuite`` package this Python
would import (found by :mod:`importlib` without importing it), else the one
beside the Python ``FSR_VIEWER_ROBOSUITE_PYTHON`` names (its
``lib/python*/site-packages``, or that Python asked once where its robosuite
is). Only the ``file`` attributes of the text change; everything else stays
as recorded.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final
from xml.sax.saxutils import escape

from fsr_core.errors import RobotModelError
from fsr_core.python_answer import answer_of

__all__ = [
    "ASSETS_MARKER",
    "INSTALL_HINT",
    "PYTHON_VARIABLE",
    "ResolvedPaths",
    "assets_suffix",
    "file_references",
    "local_assets_roots",
    "resolve_robosuite_paths",
]

PYTHON_VARIABLE: Final = "FSR_VIEWER_ROBOSUITE_PYTHON"
"""The variable naming a Python that has robosuite (when this one has not)."""
INSTALL_HINT: Final = "pip install 'fsr-viewer[robosuite]'"
"""The extra that installs robosuite 1.5.2 with a MuJoCo it runs on."""
ASSETS_MARKER: Final = "robosuite/models/assets/"
"""What a robosuite asset path holds before its part inside the assets folder."""
#: ``file="..."`` and a cube texture's six ``fileright="..."`` ... attributes.
_FILE_ATTRIBUTE: Final = re.compile(
    rb"""(\sfile(?:right|left|up|down|front|back)?\s*=\s*)(["'])(.*?)\2""", re.DOTALL
)
_PROBE: Final = (
    "import importlib.util as u\n"
    "s = u.find_spec('robosuite')\n"
    "print(s.origin if s is not None and s.origin else '')\n"
)
_PROBE_TIMEOUT_S: Final = 30.0


def file_references(text: bytes) -> list[str]:
    """Return the file names an MJCF text's ``file`` attributes hold, in order."""
    return [
        match.group(3).decode("utf-8", "replace")
        for match in _FILE_ATTRIBUTE.finditer(text)
    ]


def assets_suffix(name: str) -> str | None:
    """Return the part of ``name`` inside robosuite's assets folder, or ``None``."""
    posix = name.replace("\\", "/")
    _, found, suffix = posix.rpartition(ASSETS_MARKER)
    if not found or not suffix:
        return None
    parts = PurePosixPath(suffix).parts
    if ".." in parts or PurePosixPath(suffix).is_absolute():
        return None
    return suffix


def _assets_of_package(origin: str | None) -> Path | None:
    """Return the assets folder of the robosuite whose ``__init__`` is ``origin``."""
    if not origin:
        return None
    folder = Path(origin).parent / "models" / "assets"
    return folder if folder.is_dir() else None


@functools.lru_cache(maxsize=8)
def _assets_beside(python: str, stamp: tuple[int, int]) -> Path | None:
    """Return the robosuite assets of ``python``: beside it, else asked once."""
    del stamp  # part of the cache key: a reinstalled interpreter is looked at again
    environment = Path(python).parent.parent
    for site in sorted(environment.glob("lib/python*/site-packages")):
        folder = site / "robosuite" / "models" / "assets"
        if folder.is_dir():
            return folder
    try:
        answer = answer_of(python, _PROBE, timeout_s=_PROBE_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    return _assets_of_package(answer or None)


def local_assets_roots() -> tuple[Path, ...]:
    """Return the robosuite assets folders of this machine, first the preferred.

    The ``robosuite`` this Python would import, then the one of the Python
    ``FSR_VIEWER_ROBOSUITE_PYTHON`` names; neither is imported.
    """
    roots: list[Path] = []
    try:
        spec = importlib.util.find_spec("robosuite")
    except (ImportError, ValueError):
        spec = None
    here = _assets_of_package(spec.origin if spec is not None else None)
    if here is not None:
        roots.append(here)
    python = os.environ.get(PYTHON_VARIABLE, "").strip()
    if python:
        try:
            info = Path(python).stat()
        except OSError:
            info = None
        if info is not None:
            beside = _assets_beside(python, (info.st_ino, int(info.st_mtime)))
            if beside is not None and beside not in roots:
                roots.append(beside)
    return tuple(roots)


@dataclass(frozen=True)
class ResolvedPaths:
    """An MJCF text with its missing robosuite paths pointed at a local install."""

    text: bytes
    root: Path | None
    """The assets folder the missing files were found in (``None``: none was)."""
    resolved: tuple[str, ...]
    """The missing files found there, by their part inside the assets folder."""

    def note(self) -> str:
        """Say which files were read from the local robosuite (empty: none)."""
        if not self.resolved or self.root is None:
            return ""
        folders = Counter(str(PurePosixPath(name).parent) for name in self.resolved)
        listed = ", ".join(f"{folder} ({count})" for folder, count in folders.items())
        return (
            f"{len(self.resolved)} robosuite mesh and texture file(s) missing where "
            f"the recording names them, read from {self.root}: {listed}"
        )


def _missing(names: list[str]) -> list[str]:
    """Return the robosuite asset names of ``names`` that do not exist as named."""
    missing = []
    for name in dict.fromkeys(names):
        if assets_suffix(name) is None or not PurePosixPath(name).is_absolute():
            continue
        if not Path(name).is_file():
            missing.append(name)
    return missing


def resolve_robosuite_paths(
    text: bytes, where: str, roots: tuple[Path, ...] | None = None
) -> ResolvedPaths:
    """Point the robosuite files ``text`` names but this machine lacks at ``roots``.

    ``roots`` defaults to :func:`local_assets_roots`; the first that holds
    every missing file is used. A text whose files all exist (or that names
    none of robosuite's) is returned as it is.

    Raises
    ------
    RobotModelError
        Files are missing and no robosuite here holds them (the message
        names the extra, or the first file the local robosuite lacks).
    """
    missing = _missing(file_references(text))
    if not missing:
        return ResolvedPaths(text, None, ())
    suffixes = {name: str(assets_suffix(name)) for name in missing}
    folder = PurePosixPath(missing[0]).as_posix().rpartition(ASSETS_MARKER)[0]
    found_roots = local_assets_roots() if roots is None else roots
    if not found_roots:
        raise RobotModelError(
            f"no robosuite here to read its {len(missing)} mesh and texture file(s) "
            f"from: {INSTALL_HINT} or set {PYTHON_VARIABLE} to a Python that has "
            f"it (they are named under {folder}{ASSETS_MARKER}, missing here)",
            path=where,
        )
    lacking = ""
    for root in found_roots:
        absent = [s for s in suffixes.values() if not (root / s).is_file()]
        if absent:
            lacking = lacking or f"{root} has no {absent[0]}"
            continue
        paths = {name: str(root / suffix) for name, suffix in suffixes.items()}

        def local(match: re.Match[bytes], paths: dict[str, str] = paths) -> bytes:
            name = match.group(3).decode("utf-8", "replace")
            if name not in paths:
                return match.group(0)
            value = escape(paths[name], {'"': "&quot;", "'": "&apos;"}).encode()
            return match.group(1) + match.group(2) + value + match.group(2)

        rewritten = _FILE_ATTRIBUTE.sub(local, text)
        return ResolvedPaths(rewritten, root, tuple(suffixes.values()))
    raise RobotModelError(
        f"the robosuite here lacks some of its {len(missing)} mesh and texture "
        f"file(s) (named under {folder}{ASSETS_MARKER}, missing here): {lacking}",
        path=where,
    )
