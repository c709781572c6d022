"""Safe reading of a skelarm ``.npz`` archive: limits, zip directory, ``.npy`` headers.

The zip directory is checked (member count, total uncompressed size, ``.npy``
names, no duplicates, no encryption) and each member's ``.npy`` header is read
and bounded before numpy loads anything; the arrays are then loaded with
``allow_pickle=False``. Every problem raises an :class:`~fsr_core.errors.FsrError`
subclass whose message names the file.
"""

from __future__ import annotations

import math
import os
import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from fsr_core.errors import (
    BadMagicError,
    CorruptRecordError,
    FormatError,
    FsrError,
    LimitExceededError,
    OpenFailedError,
    SchemaError,
    TruncatedFileError,
)
from fsr_core.format.safe_open import FdSource, open_source

__all__ = [
    "MAX_MEMBERS",
    "MAX_META_BYTES",
    "MAX_UNCOMPRESSED_BYTES",
    "META_MEMBER",
    "read_file",
]

MAX_UNCOMPRESSED_BYTES = 2 << 30
"""Refuse archives whose members add up to more than this when inflated (2 GiB)."""
MAX_MEMBERS = 4096
"""Refuse archives with more members than this."""
MAX_META_BYTES = 16 << 20
"""Refuse a ``__meta__`` member larger than this (16 MiB inflated)."""
META_MEMBER = "__meta__"
"""The member holding the TOML metadata (without its ``.npy`` suffix)."""

_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"
_NUMERIC_KINDS = "biuf"
_DEFLATE_MAX_RATIO = 1032  # deflate cannot expand data more than about 1032:1
_READ_ERRORS = (
    OSError,
    EOFError,
    ValueError,
    KeyError,
    TypeError,
    OverflowError,
    RuntimeError,  # an encrypted member; RecursionError
    NotImplementedError,  # an unsupported compression method
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    struct.error,
)


def _check_magic(handle: IO[bytes], name: str) -> None:
    head = handle.read(4)
    handle.seek(0)
    if not head:
        raise TruncatedFileError("empty file, not a skelarm log", path=name)
    if head == _EMPTY_ZIP_MAGIC:
        raise SchemaError("empty zip archive, not a skelarm log", path=name)
    if head != _ZIP_MAGIC:
        raise BadMagicError(
            f"not a zip archive (starts with {head!r}); skelarm logs are .npz zips",
            path=name,
        )


def _check_directory(archive: zipfile.ZipFile, name: str) -> list[zipfile.ZipInfo]:
    """Check the zip directory before anything is inflated."""
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise LimitExceededError(
            f"{len(members)} archive members, limit {MAX_MEMBERS}", path=name
        )
    seen: set[str] = set()
    for info in members:
        if not info.filename.endswith(".npy") or info.is_dir():
            raise SchemaError(
                f"not an npz archive: member {info.filename!r} is not a .npy array",
                path=name,
            )
        if info.filename in seen:
            raise SchemaError(f"duplicate member {info.filename!r}", path=name)
        if info.flag_bits & 0x1:
            raise SchemaError(f"member {info.filename!r} is encrypted", path=name)
        seen.add(info.filename)
    total = sum(info.file_size for info in members)
    if total > MAX_UNCOMPRESSED_BYTES:
        raise LimitExceededError(
            f"members inflate to {total} bytes, limit {MAX_UNCOMPRESSED_BYTES}",
            path=name,
        )
    if not members:
        raise SchemaError("empty zip archive, not a skelarm log", path=name)
    return members


def _read_header(member: IO[bytes]) -> tuple[tuple[int, ...], np.dtype[Any]]:
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    return tuple(int(size) for size in shape), dtype


def _check_ratio(info: zipfile.ZipInfo, name: str) -> None:
    """Refuse a member whose inflated size its compression cannot produce."""
    if info.compress_type == zipfile.ZIP_STORED:
        possible = info.compress_size
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        possible = _DEFLATE_MAX_RATIO * info.compress_size + 1024
    else:
        return
    if info.file_size > possible:
        raise CorruptRecordError(
            f"member {info.filename!r} claims {info.file_size} bytes from "
            f"{info.compress_size} compressed",
            path=name,
        )


def _check_header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> None:
    """Bound one member by its ``.npy`` header: kind, shape and declared size."""
    stem = info.filename[:-4]
    with archive.open(info) as member:
        shape, dtype = _read_header(member)
    if dtype.hasobject:
        raise SchemaError(
            f"member {info.filename!r} is an object array (it would need pickle)",
            path=name,
        )
    wanted = "U" if stem == META_MEMBER else _NUMERIC_KINDS
    if dtype.kind not in wanted or dtype.fields is not None:
        raise SchemaError(
            f"member {info.filename!r} has dtype {dtype}, expected "
            + ("a unicode string" if stem == META_MEMBER else "numbers"),
            path=name,
        )
    _check_ratio(info, name)
    declared = math.prod(shape) * dtype.itemsize
    if declared > info.file_size:
        raise CorruptRecordError(
            f"member {info.filename!r} declares {declared} bytes of data but "
            f"inflates to {info.file_size}",
            path=name,
        )
    if stem == META_MEMBER and info.file_size > MAX_META_BYTES:
        raise LimitExceededError(
            f"__meta__ is {info.file_size} bytes, limit {MAX_META_BYTES}", path=name
        )


def _read_archive(handle: IO[bytes], name: str) -> dict[str, npt.NDArray[Any]]:
    _check_magic(handle, name)
    try:
        archive = zipfile.ZipFile(handle)
    except _READ_ERRORS as exc:
        raise FormatError(
            f"not a valid zip archive (truncated, or not a zip): {exc}", path=name
        ) from exc
    try:
        with archive:
            members = _check_directory(archive, name)
            for info in members:
                _check_header(archive, info, name)
        handle.seek(0)
        with np.load(handle, allow_pickle=False) as npz:
            return {info.filename[:-4]: npz[info.filename[:-4]] for info in members}
    except FsrError:
        raise
    except _READ_ERRORS as exc:
        raise CorruptRecordError(
            f"cannot read an npz member: {exc}", path=name
        ) from exc


def read_file(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Read every member of the archive at ``path``, checked, by member name."""
    name = str(path)
    source = open_source(path)  # refuses symlinks, FIFOs, devices, directories
    try:
        if not isinstance(source, FdSource):  # pragma: no cover - paths give fds
            raise OpenFailedError("not a file on disk", path=name)
        if source.size > MAX_UNCOMPRESSED_BYTES + (64 << 20):
            raise LimitExceededError(
                f"file is {source.size} bytes, limit {MAX_UNCOMPRESSED_BYTES}",
                path=name,
            )
        try:
            handle = os.fdopen(os.dup(source.fd), "rb")
        except OSError as exc:
            raise OpenFailedError(
                f"cannot open: {exc.strerror}", errno=exc.errno, path=name
            ) from exc
        with handle:
            return _read_archive(handle, name)
    finally:
        source.close()
