"""The container of a Genesis trajectory: magic, manifest, description, records.

:func:`index_file` reads the header (magic, manifest, the scene description's
place) and walks the records as Genesis's own reader does
(docs/genesis_trajectory.md, section 13): a record is kept when its tag is
known, its header and payload are whole and the CRC-32 of its payload matches;
the first record that fails any of these ends the walk ("cut at byte N after
frame M: reason"), and everything before it stays readable. Payloads are read
in bounded pieces for the CRC and never decompressed here.

Every length, offset, shape and count the file states is checked against the
file size and the memory budget (:data:`fsr_core.budgets.MEMORY`) before
anything is allocated from it. A manifest that is not what a released Genesis
writes is refused with a :class:`~fsr_core.errors.SchemaError` naming the file.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.checksums import crc32
from fsr_core.errors import (
    FsrError,
    SchemaError,
    TruncatedFileError,
    UnsupportedVersionError,
)
from fsr_core.format.safe_open import ByteSource, open_source
from fsr_core.logs.genesis.field_rows import FieldRow

__all__ = [
    "MAGIC_PREFIX",
    "SUPPORTED_MAGICS",
    "ChunkRecord",
    "Cut",
    "Field",
    "InfoRecord",
    "LastRecord",
    "Manifest",
    "TrajectoryIndex",
    "index_file",
    "parse_manifest",
]

MAGIC_PREFIX: Final = b"GSTRAJ"
SUPPORTED_MAGICS: Final = {b"GSTRAJ1\n": 1, b"GSTRAJ4\n": 4}
_MAX_MANIFEST_BYTES: Final = 64 << 20
_MAX_NDIM: Final = 8
_MAX_INTEGER: Final = 1 << 62
_CRC_PIECE: Final = 1 << 20
_DTYPES: Final = frozenset(
    {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"}
)
_ITEMSIZES: Final = {name: np.dtype(name).itemsize for name in _DTYPES}
_KINDS: Final = {
    1: frozenset(
        {"CONFIG", "CONSTANT", "INFO", "STATE", "WARMSTART", "DERIVED", "SCRATCH"}
    ),
    4: frozenset({"CONSTANT", "INFO", "STATE", "DERIVED", "SCRATCH"}),
}
_HEADERS: Final = {b"CHNK": ("<IQI", 16), b"INFO": ("<QQI", 20), b"LAST": ("<QI", 12)}
_LONGEST_HEADER: Final = max(size for _, size in _HEADERS.values())
STEPS_FIELDS: Final = ("Simulator.steps", "steps")
"""The step-count field of GSTRAJ4 and of GSTRAJ1."""


@dataclass(frozen=True)
class Field(FieldRow):
    """One row of a manifest's ``fields``, ``info_fields`` or ``last_fields``.

    With the row's name, kind, canonical shape and dtype, where its bytes lie
    in a frame.
    """

    offset: int
    nbytes: int
    axes: tuple[int, ...]
    """Memory order of the stored bytes, slowest first (GSTRAJ1: C order)."""


@dataclass(frozen=True)
class Manifest:
    """The checked manifest of a trajectory."""

    version: int
    raw: dict[str, Any]
    genesis: str
    source_digest: str
    backend: str
    precision: str
    mode: str
    """``exact``, ``minimal`` (GSTRAJ4) or ``compressed`` (GSTRAJ1 non-exact)."""
    chunk_size: int
    dt: float
    n_envs: int
    batch: int
    """Environments in every array: ``n_envs``, or 1 for an unbatched scene."""
    fields: tuple[Field, ...]
    info_fields: tuple[Field, ...]
    last_fields: tuple[Field, ...]
    frame_size: int
    info_size: int
    last_frame_size: int

    @property
    def steps_field(self) -> str:
        """The name of the step-count field."""
        return STEPS_FIELDS[0] if self.version == 4 else STEPS_FIELDS[1]


@dataclass(frozen=True)
class ChunkRecord:
    """A CHNK record: where its payload is and which frames it holds."""

    offset: int
    """Byte offset of the record's tag."""
    payload_offset: int
    payload_length: int
    crc: int
    first_frame: int
    frame_count: int


@dataclass(frozen=True)
class InfoRecord:
    """An INFO record (GSTRAJ4): model parameters valid from ``first_frame`` on."""

    offset: int
    payload_offset: int
    payload_length: int
    crc: int
    first_frame: int


@dataclass(frozen=True)
class LastRecord:
    """The LAST record: the final state, one frame."""

    offset: int
    payload_offset: int
    payload_length: int
    crc: int


@dataclass(frozen=True)
class Cut:
    """Where the walk stopped trusting the file, and why."""

    offset: int
    frames_before: int
    reason: str

    def describe(self) -> str:
        """Return ``cut at byte N after frame M: reason`` (M: last frame kept)."""
        if self.frames_before == 0:
            return f"cut at byte {self.offset} before any frame: {self.reason}"
        return (
            f"cut at byte {self.offset} after frame {self.frames_before - 1}: "
            f"{self.reason}"
        )


@dataclass
class TrajectoryIndex:
    """What :func:`index_file` found in a file."""

    path: Path
    size: int
    manifest: Manifest
    description_offset: int
    description_length: int
    chunks: list[ChunkRecord] = field(default_factory=list)
    infos: list[InfoRecord] = field(default_factory=list)
    last: LastRecord | None = None
    cut: Cut | None = None
    order: list[str] = field(default_factory=list)
    """Tags of the kept records in file order."""

    @property
    def chunk_frames(self) -> int:
        """Frames held by the kept chunks (they follow each other)."""
        if not self.chunks:
            return 0
        last = self.chunks[-1]
        return last.first_frame + last.frame_count

    @property
    def n_frames(self) -> int:
        """Frames in total: chunk frames, plus one when LAST was kept."""
        return self.chunk_frames + (1 if self.last is not None else 0)

    def cut_chunks_from(self, index: int, reason: str) -> None:
        """Drop chunk ``index`` and everything after it (it does not decode)."""
        chunk = self.chunks[index]
        self.chunks = self.chunks[:index]
        self.infos = [info for info in self.infos if info.offset < chunk.offset]
        if self.last is not None and self.last.offset > chunk.offset:
            self.last = None
        self.cut = Cut(chunk.offset, self.n_frames, reason)


def _refuse(path: Path, reason: str) -> SchemaError:
    return SchemaError(f"not a usable Genesis trajectory manifest: {reason}", path=path)


def _integer(value: Any, what: str, path: Path, *, minimum: int = 0) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not minimum <= value < _MAX_INTEGER
    ):
        shown = str(value)[:40]
        raise _refuse(path, f"{what} is {shown}, not an integer >= {minimum}")
    return value


def _text(raw: dict[str, Any], key: str, path: Path) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        raise _refuse(path, f"{key!r} is missing or not text")
    return value


def _field(row: Any, version: int, table: str, path: Path, limit: float) -> Field:
    width = 6 if version == 1 else 7
    if not isinstance(row, list) or len(row) != width:
        raise _refuse(path, f"a row of {table!r} is not a list of {width} items")
    name, kind, shape, dtype, offset, nbytes = row[:6]
    if not isinstance(name, str) or not name:
        raise _refuse(path, f"a row of {table!r} has no name")
    what = f"{table!r} row {name[:120]!r}"
    if not isinstance(kind, str) or kind not in _KINDS[version]:
        raise _refuse(path, f"{what} has the unknown kind {str(kind)[:40]!r}")
    if not isinstance(dtype, str) or dtype not in _DTYPES:
        raise _refuse(path, f"{what} has the unknown dtype {str(dtype)[:40]!r}")
    if not isinstance(shape, list) or len(shape) > _MAX_NDIM:
        raise _refuse(path, f"{what} has an impossible shape")
    dims = tuple(_integer(d, f"{what} dimension", path) for d in shape)
    offset = _integer(offset, f"{what} offset", path)
    nbytes = _integer(nbytes, f"{what} nbytes", path)
    size = math.prod(dims) * _ITEMSIZES[dtype]
    if size > limit:  # said by the budget's own check, with its numbers
        check_budget(MEMORY, size, f"field {name[:120]!r}", path=path)
    if size != nbytes:
        raise _refuse(
            path, f"{what}: shape {list(dims)} of {dtype} is not {nbytes} bytes"
        )
    if version == 4:
        axes = row[6]
        if not isinstance(axes, list) or sorted(axes) != list(range(len(dims))):
            raise _refuse(path, f"{what}: axes {str(axes)[:60]} are not a permutation")
        order = tuple(int(a) for a in axes)
    else:
        order = tuple(range(len(dims)))
    return Field(name, kind, dims, dtype, offset, nbytes, order)


def _fields(
    raw: dict[str, Any], key: str, version: int, path: Path
) -> tuple[Field, ...]:
    rows = raw.get(key)
    if not isinstance(rows, list):
        raise _refuse(path, f"{key!r} is missing or not a list")
    limit = MEMORY.limit()  # read once: a manifest lists hundreds of fields
    found = tuple(_field(row, version, key, path, limit) for row in rows)
    if len({f.name for f in found}) != len(found):
        raise _refuse(path, f"{key!r} names a field twice")
    return found


def _check_layout(fields: tuple[Field, ...], size: int, table: str, path: Path) -> None:
    """Every field inside ``size`` bytes, none overlapping (empty ones anywhere)."""
    end = 0
    for item in sorted(fields, key=lambda f: (f.offset, f.nbytes)):
        if item.nbytes == 0:
            if item.offset > size:
                raise _refuse(path, f"{table!r} row {item.name[:120]!r} lies outside")
            continue
        if item.offset < end:
            raise _refuse(path, f"{table!r} row {item.name[:120]!r} overlaps another")
        end = item.offset + item.nbytes
        if end > size:
            raise _refuse(
                path,
                f"{table!r} row {item.name[:120]!r} ends past the frame ({size} bytes)",
            )


def _mode(raw: dict[str, Any], version: int, path: Path) -> str:
    if version == 4:
        mode = _text(raw, "mode", path)
        if mode not in ("exact", "minimal"):
            raise _refuse(path, f"unknown mode {mode[:40]!r}")
        return mode
    exact = raw.get("exact")
    if not isinstance(exact, bool):
        raise _refuse(path, "'exact' is missing or not a boolean")
    return "exact" if exact else "compressed"


def _dt(raw: dict[str, Any], path: Path) -> float:
    dt = raw.get("dt")
    if isinstance(dt, bool) or not isinstance(dt, int | float) or not math.isfinite(dt):
        raise _refuse(path, f"'dt' is {str(dt)[:40]}, not a number")
    if dt <= 0:
        raise _refuse(path, f"'dt' is {dt}, not positive")
    return float(dt)


def _frame_sizes(
    raw: dict[str, Any],
    version: int,
    tables: tuple[tuple[Field, ...], tuple[Field, ...]],
    path: Path,
) -> tuple[int, int]:
    """Return the sizes of a chunk frame and of the LAST frame, within budget."""
    if version == 4:
        frame_size = _integer(raw.get("frame_size"), "'frame_size'", path, minimum=1)
        last_size = _integer(raw.get("last_frame_size"), "'last_frame_size'", path)
        for what, value in (("frame_size", frame_size), ("last_frame_size", last_size)):
            if value % 2048:
                raise _refuse(path, f"{what!r} {value} is not a multiple of 2048")
    else:
        frame_size = sum(f.nbytes for f in tables[0])
        last_size = sum(f.nbytes for f in tables[1])
    check_budget(MEMORY, frame_size, "a frame of the trajectory", path=path)
    check_budget(MEMORY, last_size, "the LAST frame of the trajectory", path=path)
    return frame_size, last_size


def _check_steps(fields: tuple[Field, ...], name: str, batch: int, path: Path) -> None:
    for item in fields:
        if item.name == name and (item.shape != (batch,) or item.dtype != "<i4"):
            raise _refuse(path, f"{name!r} is not {batch} int32 step counts")
    if not any(item.name == name for item in fields):
        raise _refuse(path, f"no {name!r} field: the frames cannot be timed")


def parse_manifest(raw: Any, version: int, path: Path) -> Manifest:
    """Check a decoded manifest and return it.

    Raises
    ------
    SchemaError
        A key is missing or impossible, a row has an unknown kind or dtype, or
        fields overlap or leave their frame.
    LimitExceededError
        A frame or a field would need more than the memory budget.
    """
    if not isinstance(raw, dict):
        raise _refuse(path, "the manifest is not a JSON object")
    precision = _text(raw, "precision", path)
    if precision not in ("float32", "float64"):
        raise _refuse(path, f"unknown precision {precision[:40]!r}")
    mode = _mode(raw, version, path)
    dt = _dt(raw, path)
    layout = raw.get("layout")
    if not isinstance(layout, dict):
        raise _refuse(path, "'layout' is missing or not an object")
    n_envs = _integer(layout.get("n_envs"), "'layout.n_envs'", path)
    chunk_size = _integer(raw.get("chunk_size"), "'chunk_size'", path, minimum=1)
    if not isinstance(raw.get("configs", {}), dict):
        raise _refuse(path, "'configs' is not an object")
    fields = _fields(raw, "fields", version, path)
    last_fields = _fields(raw, "last_fields", version, path)
    info_fields = _fields(raw, "info_fields", version, path) if version == 4 else ()
    info_size = sum(f.nbytes for f in info_fields)
    check_budget(MEMORY, info_size, "an INFO record of the trajectory", path=path)
    frame_size, last_size = _frame_sizes(raw, version, (fields, last_fields), path)
    _check_layout(fields, frame_size, "fields", path)
    _check_layout(last_fields, last_size, "last_fields", path)
    _check_layout(info_fields, info_size, "info_fields", path)
    batch = max(n_envs, 1)
    steps_name = STEPS_FIELDS[0] if version == 4 else STEPS_FIELDS[1]
    _check_steps(fields + last_fields, steps_name, batch, path)
    return Manifest(
        version=version,
        raw=raw,
        genesis=_text(raw, "genesis", path),
        source_digest=str(raw.get("source", "")),
        backend=str(raw.get("backend", "")),
        precision=precision,
        mode=mode,
        chunk_size=chunk_size,
        dt=dt,
        n_envs=n_envs,
        batch=batch,
        fields=fields,
        info_fields=info_fields,
        last_fields=last_fields,
        frame_size=frame_size,
        info_size=info_size,
        last_frame_size=last_size,
    )


def _read_magic(source: ByteSource, path: Path) -> int:
    if source.size < 8:
        raise TruncatedFileError(
            f"{source.size} bytes: too short for a Genesis trajectory", path=path
        )
    magic = source.read_at(0, 8, section="header")
    version = SUPPORTED_MAGICS.get(magic)
    if version is None:
        found = magic[6:].rstrip(b"\n").decode("utf-8", "replace") or "?"
        raise UnsupportedVersionError(
            f"Genesis trajectory format version {found[:8]!r}; this reader reads "
            "GSTRAJ1 and GSTRAJ4",
            path=path,
        )
    return version


def _read_block(
    source: ByteSource, offset: int, what: str, path: Path
) -> tuple[int, int]:
    """Return ``(start, length)`` of a u64-length-prefixed block at ``offset``."""
    if offset + 8 > source.size:
        raise TruncatedFileError(
            f"the file ends before the length of the {what}", path=path, offset=offset
        )
    (length,) = struct.unpack("<Q", source.read_at(offset, 8, section=what))
    return offset + 8, length


def _crc(source: ByteSource, offset: int, length: int) -> int:
    crc = 0
    done = 0
    while done < length:
        piece = min(_CRC_PIECE, length - done)
        crc = crc32(source.read_at(offset + done, piece, section="record"), crc)
        done += piece
    return crc


class _Walk:
    """The record walk of :func:`index_file`."""

    def __init__(
        self, source: ByteSource, index: TrajectoryIndex, *, verify: bool = True
    ) -> None:
        self.source = source
        self.index = index
        self.version = index.manifest.version
        self.verify = verify

    def stop(self, offset: int, reason: str) -> None:
        self.index.cut = Cut(offset, self.index.n_frames, reason)

    def run(self, offset: int) -> None:
        size = self.source.size
        while True:
            if offset == size:
                if self.index.last is None:
                    self.stop(offset, "the file ends without its LAST record")
                return
            if offset + 4 > size:
                self.stop(offset, "the file ends inside a record tag")
                return
            # The tag and the longest header at once: one read a record.
            head = self.source.read_at(
                offset, min(4 + _LONGEST_HEADER, size - offset), section="record"
            )
            tag = head[:4]
            if tag not in _HEADERS or (tag == b"INFO" and self.version != 4):
                self.stop(offset, f"unknown record tag {tag!r}")
                return
            layout, header_size = _HEADERS[tag]
            start = offset + 4 + header_size
            if start > size:
                self.stop(offset, f"the file ends inside a {tag.decode()} header")
                return
            header = struct.unpack_from(layout, head, 4)
            if not self.take(tag, header, offset, start):
                return
            offset = start + int(header[-2])

    def take(
        self, tag: bytes, header: tuple[int, ...], offset: int, start: int
    ) -> bool:
        name = tag.decode()
        length, crc = int(header[-2]), int(header[-1])
        if start + length > self.source.size:
            self.stop(
                offset, f"the file ends inside a {name} payload of {length} bytes"
            )
            return False
        manifest = self.index.manifest
        if tag == b"CHNK":
            count = int(header[0])
            if count == 0:
                self.stop(offset, "a CHNK record of 0 frames")
                return False
            try:
                check_budget(
                    MEMORY,
                    2.0 * count * manifest.frame_size,
                    f"a chunk of {count} frames",
                    path=self.index.path,
                )
            except FsrError as exc:
                self.stop(offset, exc.reason)
                return False
        if tag == b"LAST" and manifest.last_frame_size == 0:
            self.stop(offset, "a LAST record but the manifest has no LAST frame")
            return False
        if self.verify and _crc(self.source, start, length) != crc:
            self.stop(offset, f"the CRC-32 of a {name} payload does not match")
            return False
        self.index.order.append(name)
        if tag == b"CHNK":
            self.index.chunks.append(
                ChunkRecord(
                    offset, start, length, crc, self.index.chunk_frames, int(header[0])
                )
            )
        elif tag == b"INFO":
            self.index.infos.append(
                InfoRecord(offset, start, length, crc, int(header[0]))
            )
        else:
            self.index.last = LastRecord(offset, start, length, crc)
        return True


def index_file(path: Path, *, verify: bool = True) -> TrajectoryIndex:
    """Read the header of ``path`` and walk its records' headers.

    Each record's payload is read and its CRC-32 checked, unless ``verify`` is
    false: then only the headers are read (a quick first look; the sizes
    are still checked against the file and the budgets).

    Raises
    ------
    FsrError
        Not a supported Genesis trajectory (version named), a manifest that is
        cut, not JSON or impossible, a claim over the memory budget, or no
        frame at all (the reason of the cut says why).
    """
    source = open_source(path)
    try:
        return _index(source, path, verify)
    finally:
        source.close()


def _index(source: ByteSource, path: Path, verify: bool) -> TrajectoryIndex:
    version = _read_magic(source, path)
    start, length = _read_block(source, 8, "manifest", path)
    if start + length > source.size:
        raise TruncatedFileError(
            f"the manifest of {length} bytes is cut by the end of the file",
            path=path,
            offset=start,
        )
    check_budget(MEMORY, length * 16, "the manifest", path=path)
    if length > _MAX_MANIFEST_BYTES:
        raise _refuse(path, f"a manifest of {length} bytes")
    text = source.read_at(start, length, section="manifest")
    try:
        raw = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _refuse(path, f"the manifest is not JSON: {str(exc)[:160]}") from None
    manifest = parse_manifest(raw, version, path)
    offset = start + length
    description_start, description_length = _read_block(
        source, offset, "scene description", path
    )
    if description_start + description_length > source.size:
        raise TruncatedFileError(
            f"holds no frame: the scene description of {description_length} bytes "
            "is cut by the end of the file",
            path=path,
            offset=description_start,
        )
    index = TrajectoryIndex(
        path, source.size, manifest, description_start, description_length
    )
    _Walk(source, index, verify=verify).run(description_start + description_length)
    if index.n_frames == 0:
        reason = index.cut.describe() if index.cut is not None else "no record"
        raise TruncatedFileError(f"holds no frame ({reason})", path=path)
    return index
