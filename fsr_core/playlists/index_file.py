"""Playlist index files (``fsr-viewer-index/1``): read, write, recognise, check.

An index is a JSON document listing recordings with what ``batch index``
learnt of each: source kind, size, SHA-256, duration, validity and the key
facts of ``inspect``. The schema is in ``docs/index-format.md``. Paths are
relative to the index's folder and may not leave it; :func:`read_index`
refuses the whole index when one entry does, reads at most
:data:`MAX_INDEX_BYTES` bytes before parsing, and raises only
:class:`~fsr_core.errors.IndexFileError`. :func:`write_index` publishes a new
index atomically and never replaces an existing file. :func:`check_digest`
says whether a recording is still the one the index recorded.
"""

from __future__ import annotations

import contextlib
import errno as errno_codes
import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Final

from fsr_core.budgets import format_amount
from fsr_core.errors import (
    DigestMismatchError,
    FsrError,
    IndexFileError,
    TargetExistsError,
    WriteFailedError,
)
from fsr_core.format.safe_open import open_source
from fsr_core.playlists.digests import Digest

__all__ = [
    "INDEX_SCHEMA",
    "MAX_INDEX_BYTES",
    "IndexEntry",
    "PlaylistIndex",
    "check_digest",
    "indexed_entries",
    "json_head",
    "looks_like_index",
    "read_index",
    "write_index",
]

INDEX_SCHEMA: Final = "fsr-viewer-index/1"
"""The ``schema`` value of the indexes this version writes and reads."""
MAX_INDEX_BYTES: Final = 64 << 20
"""The largest index file read (64 MiB); a bigger one is refused unread."""

_SCHEMA_PREFIX: Final = "fsr-viewer-index/"
_SNIFF_BYTES: Final = 4096
_SHA256: Final = re.compile(r"^[0-9a-f]{64}$")
_DIGEST_KINDS: Final = ("file", "folder")


@dataclass(frozen=True)
class IndexEntry:
    """One recording of an index; ``path`` is absolute (the index's folder joined)."""

    path: Path
    relative: str
    size_bytes: int
    sha256: str
    digest_of: str = "file"
    source: str | None = None
    description: str | None = None
    duration_s: float | None = None
    valid: bool = False
    integrity: str = "invalid"
    reason: str = ""
    facts: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return the entry as the index stores it (``path`` relative)."""
        return {
            "path": self.relative,
            "source": self.source,
            "description": self.description,
            "digest_of": self.digest_of,
            "size_bytes": self.size_bytes,
            "sha256": self.sha256,
            "duration_s": self.duration_s,
            "valid": self.valid,
            "integrity": self.integrity,
            "reason": self.reason,
            "facts": dict(self.facts),
        }


@dataclass(frozen=True)
class PlaylistIndex:
    """A read index: where it is, who wrote it, and its recordings in order."""

    path: Path
    generator: str
    created_utc: str
    entries: tuple[IndexEntry, ...]


def json_head(path: Path) -> bytes:
    """Return the first 4 KiB of a regular ``*.json`` file (``b""`` for anything else).

    Playlist files are told apart by the schema their writers put first; a
    FIFO, device or symbolic link is never read.
    """
    if not path.name.lower().endswith(".json"):
        return b""
    try:
        source = open_source(path)
    except FsrError:
        return b""
    try:
        return source.read_at(0, min(_SNIFF_BYTES, source.size), section="index")
    except FsrError:
        return b""
    finally:
        source.close()


def looks_like_index(path: Path) -> bool:
    """Say whether ``path`` is a regular ``*.json`` file that names this schema."""
    head = json_head(path)
    return b'"schema"' in head and _SCHEMA_PREFIX.encode() in head


def read_index(path: Path) -> PlaylistIndex:
    """Read and check the index at ``path``.

    Raises
    ------
    IndexFileError
        The file cannot be read, is larger than :data:`MAX_INDEX_BYTES`, is not
        JSON, has another schema, or an entry is malformed or names a path
        outside the index's folder (the message names the entry).
    """
    document = _parse(path, _read_bounded(path))
    schema = document.get("schema")
    if schema != INDEX_SCHEMA:
        raise IndexFileError(_schema_problem(schema), path=path)
    recordings = document.get("recordings")
    if not isinstance(recordings, list):
        raise IndexFileError("'recordings' must be a list", path=path)
    folder = path.parent
    entries = tuple(
        _entry(path, folder, number, item)
        for number, item in enumerate(recordings, start=1)
    )
    return PlaylistIndex(
        path=path,
        generator=_text(document.get("generator")),
        created_utc=_text(document.get("created_utc")),
        entries=entries,
    )


def indexed_entries(paths: Iterable[Path]) -> dict[Path, IndexEntry]:
    """Return the entries of every index among ``paths``, by absolute path.

    Raises
    ------
    IndexFileError
        As :func:`read_index`.
    """
    found: dict[Path, IndexEntry] = {}
    for path in paths:
        if looks_like_index(path):
            found.update((entry.path, entry) for entry in read_index(path).entries)
    return found


def check_digest(entry: IndexEntry, found: Digest) -> None:
    """Refuse a recording that is no longer the one ``entry`` recorded.

    Raises
    ------
    DigestMismatchError
        Its size or SHA-256 differs from the index's (the message says which).
    """
    if found.size_bytes != entry.size_bytes:
        raise DigestMismatchError(
            f"changed since it was indexed: {found.size_bytes} bytes, the index "
            f"says {entry.size_bytes}",
            path=entry.path,
        )
    if found.sha256 != entry.sha256:
        raise DigestMismatchError(
            f"changed since it was indexed: SHA-256 {found.sha256[:12]}…, the "
            f"index says {entry.sha256[:12]}…",
            path=entry.path,
        )


def write_index(
    path: Path,
    entries: Sequence[IndexEntry],
    *,
    generator: str,
    created_utc: str,
) -> None:
    """Publish a new index at ``path``: complete, or not at all, never over a file.

    Each entry's ``relative`` path is what is written; it must stay below
    ``path``'s folder.

    Raises
    ------
    TargetExistsError
        Something named ``path`` exists already (it is never replaced).
    IndexFileError
        An entry's path leaves the index's folder.
    WriteFailedError
        Writing, syncing or publishing failed; nothing is left behind.
    """
    folder = path.parent
    for number, entry in enumerate(entries, start=1):
        _check_relative(path, folder, number, entry.relative)
    document = {
        "schema": INDEX_SCHEMA,
        "generator": generator,
        "created_utc": created_utc,
        "recordings": [entry.to_json() for entry in entries],
    }
    text = json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False)
    _publish(path, (text + "\n").encode("utf-8"))


def _schema_problem(schema: object) -> str:
    if isinstance(schema, str) and schema.startswith(_SCHEMA_PREFIX):
        return (
            f"index schema {schema!r} is not supported; this viewer reads "
            f"{INDEX_SCHEMA!r}"
        )
    return f"not a playlist index: 'schema' is {schema!r}, expected {INDEX_SCHEMA!r}"


def _read_bounded(path: Path) -> bytes:
    try:
        source = open_source(path)
    except FsrError as exc:
        raise IndexFileError(f"cannot read the index: {exc.reason}", path=path) from exc
    try:
        _check_size(path, source.size)
        return source.read_at(0, source.size, section="index")
    except IndexFileError:
        raise
    except FsrError as exc:
        raise IndexFileError(f"cannot read the index: {exc.reason}", path=path) from exc
    finally:
        source.close()


def _check_size(path: Path, size: int) -> None:
    if size > MAX_INDEX_BYTES:
        raise IndexFileError(
            f"index of {format_amount(size, in_bytes=True)} is larger than the "
            f"{format_amount(MAX_INDEX_BYTES, in_bytes=True)} an index may be",
            path=path,
        )


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _parse(path: Path, data: bytes) -> dict[str, Any]:
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as exc:
        raise IndexFileError(f"not UTF-8 text at byte {exc.start}", path=path) from exc
    except RecursionError as exc:
        raise IndexFileError("JSON nested too deeply", path=path) from exc
    except ValueError as exc:
        raise IndexFileError(f"not valid JSON: {exc}", path=path) from exc
    if not isinstance(document, dict):
        raise IndexFileError("not a playlist index: not a JSON object", path=path)
    return document


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _entry(index: Path, folder: Path, number: int, item: object) -> IndexEntry:
    if not isinstance(item, dict):
        raise _bad(index, number, "is not a JSON object")
    relative = item.get("path")
    if not isinstance(relative, str):
        raise _bad(index, number, "has no 'path' string")
    target = _check_relative(index, folder, number, relative)
    size = item.get("size_bytes")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise _bad(index, number, "has no whole, non-negative 'size_bytes'")
    sha256 = item.get("sha256")
    if not isinstance(sha256, str) or not _SHA256.match(sha256):
        raise _bad(index, number, "has no 'sha256' of 64 lowercase hex digits")
    digest_of = item.get("digest_of", "file")
    if digest_of not in _DIGEST_KINDS:
        raise _bad(index, number, "has a 'digest_of' other than file or folder")
    facts = item.get("facts")
    duration = item.get("duration_s")
    return IndexEntry(
        path=target,
        relative=relative,
        size_bytes=size,
        sha256=sha256,
        digest_of=str(digest_of),
        source=_optional_text(item.get("source")),
        description=_optional_text(item.get("description")),
        duration_s=float(duration) if isinstance(duration, int | float) else None,
        valid=item.get("valid") is True,
        integrity=_text(item.get("integrity")) or "invalid",
        reason=_text(item.get("reason")),
        facts=facts if isinstance(facts, dict) else {},
    )


def _optional_text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _bad(index: Path, number: int, problem: str) -> IndexFileError:
    return IndexFileError(f"entry {number} {problem}", path=index)


def _check_relative(index: Path, folder: Path, number: int, relative: str) -> Path:
    """Return ``folder / relative`` once sure that it stays inside ``folder``."""
    parts = PurePosixPath(relative).parts
    if (
        not relative
        or "\0" in relative
        or "\\" in relative
        or relative.startswith("/")
        or any(part in ("", ".", "..") for part in relative.split("/"))
    ):
        raise _bad(
            index,
            number,
            f"path {relative!r} is not a plain relative path below the index's "
            "folder ('/' separated, no '..')",
        )
    target = folder.joinpath(*parts)
    home = os.path.realpath(folder)
    if not os.path.realpath(target).startswith(home.rstrip(os.sep) + os.sep):
        raise _bad(
            index, number, f"path {relative!r} leaves the index's folder (a link)"
        )
    return target


def _publish(path: Path, data: bytes) -> None:
    """Write ``data`` to a staging name, sync it, link it to ``path``, sync."""
    folder = path.parent
    staging = folder / f".{path.name}.{secrets.token_hex(6)}.partial"
    if os.path.lexists(path):
        raise TargetExistsError(
            "an index already exists here; it is never overwritten", path=path
        )
    try:
        fd = os.open(
            staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644
        )
    except OSError as exc:
        raise WriteFailedError.from_os_error(
            "cannot write the index", exc, path
        ) from exc
    try:
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.link(staging, path)
        except FileExistsError as exc:
            raise TargetExistsError(
                "an index already exists here; it is never overwritten", path=path
            ) from exc
        except OSError as exc:
            raise WriteFailedError.from_os_error(
                "cannot write the index", exc, path
            ) from exc
        _sync_folder(folder)
    finally:
        with contextlib.suppress(OSError):
            staging.unlink()


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno_codes.EINVAL, errno_codes.EBADF):
            raise WriteFailedError.from_os_error(
                "cannot sync the index's folder", exc, folder
            ) from exc
    finally:
        os.close(fd)
