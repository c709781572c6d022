"""Safe reading of a skelarm ``.npz`` archive: limits, zip directory, ``.npy`` headers.

The zip directory is checked (member count, compression method, total
uncompressed size against the memory budget, ``.npy`` names, no duplicates, no
encryption) and each member's ``.npy`` header is read and bounded before numpy
loads anything: the memory the model will hold once every channel is float64
is computed from the headers and checked against
:data:`fsr_core.budgets.MEMORY`. The arrays are then loaded with
``allow_pickle=False``. Every problem raises an :class:`~fsr_core.errors.FsrError`
subclass whose message names the file.
"""

from __future__ import annotations

import lzma
import math
import os
import struct
import tokenize
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from fsr_core.budgets import MEMORY, check_budget
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
from fsr_core.logs.npy_header import read_npy_header

__all__ = [
    "FILE_SLACK_BYTES",
    "MAX_MEMBERS",
    "MAX_META_BYTES",
    "META_MEMBER",
    "read_file",
]

FILE_SLACK_BYTES = 64 << 20
"""A log file may exceed the memory budget by this much (zip and ``.npy`` headers)."""
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
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
"""The compression methods numpy writes; any other is refused by name."""
_OTHER_METHODS = {
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "lzma",
    9: "deflate64",
    93: "zstandard",
    95: "xz",
    98: "ppmd",
}
_FLOAT_BYTES = 8
_TIME = "time"
_READ_ERRORS = (
    OSError,
    lzma.LZMAError,
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
    tokenize.TokenError,  # a .npy header numpy cannot tokenize
    MemoryError,  # only as a last line: every size is budgeted first
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


def _method_name(method: int) -> str:
    return _OTHER_METHODS.get(method, f"method {method}")


def _check_member(info: zipfile.ZipInfo, seen: set[str], name: str) -> None:
    if not info.filename.endswith(".npy") or info.is_dir():
        raise SchemaError(
            f"not an npz archive: member {info.filename!r} is not a .npy array",
            path=name,
        )
    if info.filename in seen:
        raise SchemaError(f"duplicate member {info.filename!r}", path=name)
    if info.flag_bits & 0x1:
        raise SchemaError(f"member {info.filename!r} is encrypted", path=name)
    if info.compress_type not in _METHODS:
        raise SchemaError(
            f"member {info.filename!r} is compressed with "
            f"{_method_name(info.compress_type)}; skelarm logs (numpy's savez) "
            "use only stored or deflate",
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
        _check_member(info, seen, name)
        seen.add(info.filename)
    if not members:
        raise SchemaError("empty zip archive, not a skelarm log", path=name)
    total = sum(info.file_size for info in members)
    check_budget(MEMORY, total, "inflating the archive's members", path=name)
    return members


def _check_ratio(info: zipfile.ZipInfo, name: str) -> None:
    """Refuse a member whose inflated size its compression cannot produce."""
    if info.compress_type == zipfile.ZIP_STORED:
        possible = info.compress_size
    else:  # deflate: the only other method _check_member lets through
        possible = _DEFLATE_MAX_RATIO * info.compress_size + 1024
    if info.file_size > possible:
        raise CorruptRecordError(
            f"member {info.filename!r} claims {info.file_size} bytes from "
            f"{info.compress_size} compressed",
            path=name,
        )


@dataclass(frozen=True)
class _Header:
    """One member's ``.npy`` header: what loading it will allocate."""

    stem: str
    shape: tuple[int, ...]
    dtype: np.dtype[Any]

    @property
    def raw_bytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    @property
    def float_bytes(self) -> int:
        """Bytes the model holds once the member is float64 (meta: its text)."""
        if self.stem == META_MEMBER:
            return self.raw_bytes
        return math.prod(self.shape) * _FLOAT_BYTES


def _check_header(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str
) -> _Header:
    """Bound one member by its ``.npy`` header: kind, shape and declared size."""
    stem = info.filename[:-4]
    _check_ratio(info, name)
    with archive.open(info) as member:
        shape, _, dtype = read_npy_header(member)
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
    if any(size < 0 for size in shape):
        raise SchemaError(
            f"member {info.filename!r} has a negative size in its shape {shape}",
            path=name,
        )
    header = _Header(stem, shape, dtype)
    if header.raw_bytes > info.file_size:
        raise CorruptRecordError(
            f"member {info.filename!r} declares {header.raw_bytes} bytes of data "
            f"(shape {shape}, {dtype}) but inflates to {info.file_size}",
            path=name,
        )
    if stem == META_MEMBER and info.file_size > MAX_META_BYTES:
        raise LimitExceededError(
            f"__meta__ is {info.file_size} bytes, limit {MAX_META_BYTES}", path=name
        )
    return header


def _check_memory(headers: list[_Header], name: str) -> None:
    """Refuse a log whose model would not fit the memory budget, from its headers.

    The model holds every channel as float64, plus the play times and the
    derived tip speed (one float64 per frame each); a member stored in another
    dtype is held twice while it converts.
    """
    frames = next(
        (h.shape[0] for h in headers if h.stem == _TIME and len(h.shape) == 1), 0
    )
    needed = sum(h.float_bytes for h in headers) + 2 * frames * _FLOAT_BYTES
    needed += sum(
        h.raw_bytes
        for h in headers
        if h.stem != META_MEMBER and h.dtype != np.dtype(np.float64)
    )
    largest = max(headers, key=lambda h: h.float_bytes)
    shape = "x".join(map(str, largest.shape)) or "scalar"
    check_budget(
        MEMORY,
        needed,
        f"loading the log as float64 ({len(headers)} members, largest "
        f"{largest.stem!r} {shape} {largest.dtype})",
        path=name,
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
            headers = [_check_header(archive, info, name) for info in members]
        _check_memory(headers, name)
        handle.seek(0)
        with np.load(handle, allow_pickle=False) as npz:
            return {info.filename[:-4]: npz[info.filename[:-4]] for info in members}
    except FsrError:
        raise
    except _READ_ERRORS as exc:
        raise CorruptRecordError(
            f"cannot read an npz member: {_describe(exc)}", path=name
        ) from exc


def _describe(exc: BaseException) -> str:
    """``exc`` in a few words (a ``MemoryError`` has no message of its own)."""
    if isinstance(exc, MemoryError):
        return "out of memory"
    return str(exc) or type(exc).__name__


def read_file(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Read every member of the archive at ``path``, checked, by member name."""
    name = str(path)
    source = open_source(path)  # refuses symlinks, FIFOs, devices, directories
    try:
        if not isinstance(source, FdSource):  # pragma: no cover - paths give fds
            raise OpenFailedError("not a file on disk", path=name)
        # A zip is never much larger than its members inflated: refuse a file
        # whose size alone is over the budget before zipfile reads its directory.
        if source.size > MEMORY.limit() + FILE_SLACK_BYTES:
            check_budget(MEMORY, source.size, "a log file of this size", path=name)
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
