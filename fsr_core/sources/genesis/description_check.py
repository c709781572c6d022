"""Check the scene description of a trajectory byte for byte (``inspect --verify``).

The description (docs/genesis_trajectory.md, section 4) is a zip archive of
``scene.json`` and ``arrays.npz``, and ``arrays.npz`` is itself a zip archive
of ``.npy`` members. The trajectory's records carry CRC-32s, the description
does not: its only checks are zip's own. Every member of both archives holds
the CRC-32 of its uncompressed bytes, and zip states a member's CRC, sizes,
compression method and time twice, in its local header and in the central
directory. :func:`description_problems` reads every member of both archives
to its end, so that its CRC-32 is checked, and compares the two copies of
those fields.

What no check can see: the bytes zip states once and nothing repeats or
covers (in the central directory, a member's "version made by", its file
attributes and the disk numbers). Flipping such a byte leaves an archive that
reads exactly as before.

Reading is bounded: every member's stated size is checked against the memory
budget (:data:`fsr_core.budgets.MEMORY`) before it is read, and zip stops a
member at its stated size. Nothing but :class:`~fsr_core.errors.FsrError`
leaves this module; a problem with the archive is a line of the result.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Final

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import FsrError
from fsr_core.sources.genesis.scene_geometry import DAMAGE_ERRORS

__all__ = ["DescriptionCheck", "description_problems"]

_LOCAL_HEADER: Final = struct.Struct("<4sHHHHHIIIHH")
_LOCAL_SIGNATURE: Final = b"PK\x03\x04"
_DATA_DESCRIPTOR_FLAG: Final = 0x08
_ZIP64_EXTRA: Final = 0x0001
_IN_ZIP64: Final = 0xFFFFFFFF
_EXTRA_HEADER: Final = struct.Struct("<HH")
_END_RECORD: Final = struct.Struct("<4sHHHHIIH")
_END_SIGNATURE: Final = b"PK\x05\x06"
_MAX_COMMENT: Final = 0xFFFF
_ENTRY: Final = struct.Struct("<4s24xHHH12x")
_ENTRY_SIGNATURE: Final = b"PK\x01\x02"
_ZIP64_END_SIGNATURE: Final = b"PK\x06\x06"
_IN_ZIP64_COUNT: Final = 0xFFFF
_READ_BYTES: Final = 1 << 20
_OUTER: Final = ("scene.json", "arrays.npz")
_WHERE: Final = "scene description"


class DescriptionCheck:
    """What checking a description found: members read and problems."""

    def __init__(self) -> None:
        self.members = 0
        self.problems: list[str] = []


def _dos_time(member: zipfile.ZipInfo) -> tuple[int, int]:
    """Return the (time, date) words zip stores for ``member.date_time``."""
    year, month, day, hour, minute, second = member.date_time
    return (
        hour << 11 | minute << 5 | second // 2,
        (year - 1980) << 9 | month << 5 | day,
    )


def _zip64_sizes(extra: bytes, size: int, packed: int) -> tuple[int, int]:
    """Return (size, compressed size), those set to 0xFFFFFFFF read from ZIP64.

    The ZIP64 extra field (id 1) holds, as 8-byte numbers in this order, the
    size and then the compressed size, each only where the header's own field
    is 0xFFFFFFFF (numpy's ``savez`` writes every member so).
    """
    while len(extra) >= _EXTRA_HEADER.size:
        kind, length = _EXTRA_HEADER.unpack_from(extra)
        body = extra[_EXTRA_HEADER.size : _EXTRA_HEADER.size + length]
        extra = extra[_EXTRA_HEADER.size + length :]
        if kind != _ZIP64_EXTRA:
            continue
        values = list(struct.unpack_from(f"<{len(body) // 8}Q", body))
        if size == _IN_ZIP64 and values:
            size = values.pop(0)
        if packed == _IN_ZIP64 and values:
            packed = values.pop(0)
    return size, packed


def _header_problem(archive: bytes, member: zipfile.ZipInfo) -> str | None:
    """Return how the local header of ``member`` disagrees with the directory."""
    start = member.header_offset
    raw = archive[start : start + _LOCAL_HEADER.size]
    if len(raw) < _LOCAL_HEADER.size:
        return "its local header is cut short"
    fields = _LOCAL_HEADER.unpack(raw)
    signature, version, flags, method, time, date, crc, packed, size = fields[:9]
    if signature != _LOCAL_SIGNATURE:
        return "its local header has no zip signature"
    extra_start = start + _LOCAL_HEADER.size + fields[9]
    extra = archive[extra_start : extra_start + fields[10]]
    size, packed = _zip64_sizes(extra, size, packed)
    stated = {
        "version needed": (version, member.extract_version | member.reserved << 8),
        "flags": (flags, member.flag_bits),
        "compression method": (method, member.compress_type),
        "time": ((time, date), _dos_time(member)),
    }
    if not flags & _DATA_DESCRIPTOR_FLAG:  # else the three follow the data
        stated["CRC-32"] = (crc, member.CRC)
        stated["compressed size"] = (packed, member.compress_size)
        stated["size"] = (size, member.file_size)
    for field, (local, central) in stated.items():
        if local != central:
            return f"its local header's {field} differs from the central directory's"
    return None


def _end_problem(archive: bytes, members: int) -> str | None:
    """Return how the end record disagrees with the directory and the length.

    The archive's length is known exactly (the trajectory states it), so its
    end record and comment must end it; the record's entry counts must be
    the members the directory lists, on one disk.
    """
    earliest = len(archive) - _MAX_COMMENT - _END_RECORD.size
    start = archive.rfind(_END_SIGNATURE, max(0, earliest))
    if start < 0 or len(archive) - start < _END_RECORD.size:
        return "its end record is missing"
    fields = _END_RECORD.unpack_from(archive, start)
    _, disk, directory_disk, on_disk, total = fields[:5]
    if fields[7] != len(archive) - start - _END_RECORD.size:
        return "its end record's comment length does not end the archive"
    counts = {on_disk, total} - {_IN_ZIP64_COUNT}  # else in the ZIP64 record
    if (disk, directory_disk) != (0, 0) or counts - {members}:
        return "its end record's disk numbers or entry counts are wrong"
    return None


def _directory_problem(archive: bytes, start: int, members: int) -> str | None:
    """Return how the central directory's entries fail to fill it exactly.

    Each entry's name, extra and comment lengths say where the next starts;
    the last must end where the end record (or the ZIP64 one) begins. Zip
    readers cut the last entry's fields at the directory's end instead, so a
    wrong length there would go unseen.
    """
    for _ in range(members):
        if archive[start : start + 4] != _ENTRY_SIGNATURE:
            return "its central directory's entries do not follow each other"
        names, extra, comment = _ENTRY.unpack_from(archive, start)[1:]
        start += _ENTRY.size + names + extra + comment
    if archive[start : start + 4] not in (_END_SIGNATURE, _ZIP64_END_SIGNATURE):
        return "its central directory's entries do not end where its end record starts"
    return None


def _member_bytes(
    archive: zipfile.ZipFile, member: zipfile.ZipInfo, path: Path | None
) -> bytes:
    """Return a member's bytes read to their end (zip checks the CRC-32 there)."""
    check_budget(MEMORY, member.file_size, f"member {member.filename}", path=path)
    parts = []
    with archive.open(member) as handle:
        while part := handle.read(_READ_BYTES):
            parts.append(part)
    return b"".join(parts)


def _why(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, zipfile.BadZipFile) and text.startswith("Bad CRC-32"):
        return "its bytes fail their CRC-32 check"
    if isinstance(exc, zlib.error | EOFError):
        return f"its compressed bytes do not decompress ({text or type(exc).__name__})"
    detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return f"it does not read ({detail})"


def _check_archive(
    blob: bytes, name: str, check: DescriptionCheck, path: Path | None
) -> dict[str, bytes]:
    """Check every member of the zip ``blob`` (named ``name``); return their bytes."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(blob))
        members = archive.infolist()
    except DAMAGE_ERRORS as exc:
        check.problems.append(f"{name}: not a readable zip archive ({exc})")
        return {}
    found: dict[str, bytes] = {}
    problem = _end_problem(blob, len(members)) or _directory_problem(
        blob, archive.start_dir, len(members)
    )
    if problem is not None:
        check.problems.append(f"{name}: {problem}")
    for member in members:
        label = f"{name}: member '{member.filename}'"
        problem = _header_problem(blob, member)
        if problem is None:
            try:
                found[member.filename] = _member_bytes(archive, member, path)
            except FsrError as exc:
                problem = exc.reason
            except DAMAGE_ERRORS as exc:
                problem = _why(exc)
        check.members += 1
        if problem is not None:
            check.problems.append(f"{label}: {problem}")
    return found


def description_problems(blob: bytes, path: Path | None = None) -> DescriptionCheck:
    """Check the description ``blob`` and the ``arrays.npz`` archive inside it.

    Every member of both archives is read to its end (its CRC-32 checked) and
    its local header compared with the central directory. A member the
    description must hold (``scene.json``, ``arrays.npz``) and lacks is a
    problem too. Problems are plain sentences starting with
    ``scene description``.
    """
    check = DescriptionCheck()
    found = _check_archive(blob, _WHERE, check, path)
    if not check.problems:
        missing = [name for name in _OUTER if name not in found]
        check.problems.extend(f"{_WHERE}: no member '{name}'" for name in missing)
    arrays = found.get("arrays.npz")
    if arrays is not None:
        _check_archive(arrays, f"{_WHERE}: arrays.npz", check, path)
    return check
