"""Files of a dataset root: paths that stay inside it, metadata read within budget.

Every path the metadata gives (templates filled with indices, file names in
a table) is joined to the root here: an absolute path, a ``..`` part or a
symbolic link that leads out of the root is refused, so a dataset can never
make the viewer read elsewhere. JSON metadata over :data:`MAX_METADATA_BYTES`
is refused before it is read.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any, Final

from fsr_core.errors import (
    DecodeError,
    FsrError,
    LimitExceededError,
    SchemaError,
    SymlinkRefusedError,
)
from fsr_core.format.safe_open import open_source
from fsr_core.sources.head import read_head

__all__ = [
    "MAX_METADATA_BYTES",
    "PathGuard",
    "inside",
    "read_head_text",
    "read_json",
    "read_json_lines",
    "read_text",
]

MAX_METADATA_BYTES: Final = 64 << 20
"""Largest JSON or JSON-lines metadata file read (64 MiB)."""


def inside(root: Path, relative: str) -> Path:
    """Return ``root / relative``, refusing a path that leaves the root.

    Raises
    ------
    SchemaError
        ``relative`` is empty, absolute or has a ``..`` part.
    SymlinkRefusedError
        A symbolic link on the way leads out of the root.
    """
    pure = PurePosixPath(relative.replace("\\", "/"))
    if not pure.parts or pure.is_absolute() or ".." in pure.parts:
        raise SchemaError(
            f"the metadata names the path {relative[:200]!r}, which leaves the "
            "dataset folder",
            path=root,
        )
    target = root.joinpath(*pure.parts)
    try:
        resolved = target.resolve()
        home = root.resolve()
    except (OSError, RuntimeError) as exc:
        raise SymlinkRefusedError(
            f"cannot resolve {relative[:200]!r}: {exc}", path=root
        ) from exc
    if not resolved.is_relative_to(home):
        raise SymlinkRefusedError(
            f"{relative[:200]!r} is a symbolic link out of the dataset folder",
            path=root,
        )
    return target


class PathGuard:
    """:func:`inside` for many paths of one root, each path checked once.

    Episodes of a packed dataset share files: the check (which resolves
    symbolic links) runs once per distinct path.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._checked: dict[str, Path] = {}

    def __call__(self, relative: str) -> Path:
        """Return ``root / relative`` (see :func:`inside`)."""
        found = self._checked.get(relative)
        if found is None:
            found = inside(self.root, relative)
            self._checked[relative] = found
        return found


def read_text(path: Path, limit: int = MAX_METADATA_BYTES) -> str:
    """Return the UTF-8 text of a metadata file of at most ``limit`` bytes.

    Raises
    ------
    LimitExceededError
        The file is larger than ``limit``.
    DecodeError
        It is not UTF-8.
    FsrError
        It cannot be opened (missing, not a regular file, a symbolic link).
    """
    source = open_source(path)
    try:
        if source.size > limit:
            raise LimitExceededError(
                f"metadata of {source.size:,} bytes, more than the {limit:,} "
                "read at most",
                path=path,
            )
        data = source.read_at(0, source.size, section="metadata")
    finally:
        source.close()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"metadata is not UTF-8 text ({exc.reason})", path=path
        ) from exc


def read_head_text(path: Path, size: int) -> str:
    """Return the first ``size`` bytes of a file as text (bad bytes replaced)."""
    return read_head(path, size).decode("utf-8", "replace")


def _parse(text: str, path: Path, line: int | None = None) -> Any:
    where = "" if line is None else f" (line {line})"
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise SchemaError(f"JSON nested too deeply{where}", path=path) from exc
    except ValueError as exc:
        raise SchemaError(f"not valid JSON{where}: {exc}", path=path) from exc


def read_json(path: Path) -> Any:
    """Return the JSON value of a metadata file (see :func:`read_text`).

    Raises
    ------
    SchemaError
        The text is not JSON.
    """
    return _parse(read_text(path), path)


def read_json_lines(path: Path) -> list[dict[str, Any]]:
    """Return the objects of a JSON-lines metadata file, one per non-empty line.

    Raises
    ------
    SchemaError
        A line is not a JSON object.
    """
    found: list[dict[str, Any]] = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        value = _parse(line, path, number)
        if not isinstance(value, dict):
            raise SchemaError(f"line {number} is not a JSON object", path=path)
        found.append(value)
    return found


def readable(path: Path) -> FsrError | None:
    """Return why the file at ``path`` cannot be read (``None`` when it can)."""
    try:
        open_source(path).close()
    except FsrError as exc:
        return exc
    return None
