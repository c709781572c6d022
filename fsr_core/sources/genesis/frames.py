"""Decode the frames of a Genesis trajectory into arrays.

A chunk is decompressed within the bytes it can hold (GSTRAJ1: zlib to
exactly ``n * F``; GSTRAJ4: a streaming zstd frame read to at most
``n * (m + F)`` bytes, the bound Genesis uses, since the frame states no
content size), its deltas are undone (GSTRAJ1: running XOR of whole frames;
GSTRAJ4: block-sparse 256-byte blocks behind a bitmap, then the running XOR)
and its CRC-32 is checked again. A frame becomes a dict of arrays in their
canonical shapes, un-permuting the stored ``axes`` order, exactly as
Genesis's ``Trajectory.frame(i)`` returns them (with, in GSTRAJ4, the INFO
arrays in force). The last decoded chunk is kept, so scrubbing inside a chunk
costs nothing; the cache is shared between threads under a lock.
"""

from __future__ import annotations

import functools
import threading
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.checksums import crc32
from fsr_core.errors import CorruptRecordError, DecodeError, SourceUnavailableError
from fsr_core.format.safe_open import open_source
from fsr_core.sources.genesis.container import (
    ChunkRecord,
    Field,
    InfoRecord,
    Manifest,
    TrajectoryIndex,
)
from fsr_core.zstd_bounded import zstd_bounded

__all__ = ["FrameDecoder", "decode_chunk_payload", "field_array"]

Bytes = npt.NDArray[np.uint8]
_BLOCK: Final = 256


@functools.lru_cache(maxsize=4096)
def _placing(item: Field) -> tuple[np.dtype[Any], tuple[int, ...], tuple[int, ...]]:
    """Return ``item``'s dtype, its shape as stored, and the axes to the canonical."""
    stored = tuple(item.shape[axis] for axis in item.axes)
    order = tuple(int(axis) for axis in np.argsort(item.axes))
    return np.dtype(item.dtype), stored, order


def field_array(buffer: Bytes, item: Field) -> npt.NDArray[Any]:
    """Return ``item``'s array cut from a frame ``buffer`` (a copy, canonical shape)."""
    dtype, stored, order = _placing(item)
    raw = buffer[item.offset : item.offset + item.nbytes]
    # One copy: viewed in place (numpy reads unaligned data), then laid out.
    return raw.view(dtype).reshape(stored).transpose(order).copy(order="C")


def _zstd_bounded(payload: bytes, bound: int, what: str) -> bytes:
    """Decompress one zstd frame, refusing more than ``bound`` bytes of output."""
    try:
        return zstd_bounded(payload, bound, what)
    except ImportError:
        raise SourceUnavailableError(
            "reading GSTRAJ4 trajectories needs the 'zstandard' package "
            "(pip install zstandard)"
        ) from None


def _zlib_exact(payload: bytes, size: int, what: str) -> bytes:
    """Decompress a zlib stream that must give exactly ``size`` bytes."""
    decompressor = zlib.decompressobj()
    try:
        data = decompressor.decompress(payload, size)
        if not decompressor.eof and decompressor.decompress(
            decompressor.unconsumed_tail, 1
        ):
            raise DecodeError(f"{what} decompresses to more than {size} bytes")
    except zlib.error as exc:
        raise DecodeError(f"{what} does not decompress: {exc}") from None
    if not decompressor.eof:
        raise DecodeError(f"{what}: the zlib stream is cut")
    if len(data) != size:
        raise DecodeError(f"{what} decompresses to {len(data)} bytes, not {size}")
    return data


def _undo_block_sparse(
    data: bytes,
    count: int,
    frame_size: int,
    what: str,
    keep: npt.NDArray[np.int64] | None = None,
) -> Bytes:
    """Rebuild the ``count`` XOR deltas of a GSTRAJ4 chunk from block-sparse bytes.

    With ``keep`` (sorted block numbers), only those blocks: shape
    ``(count, len(keep) * 256)``; every frame's bitmap and length is checked
    all the same.
    """
    blocks = frame_size // _BLOCK
    bitmap_bytes = frame_size // 2048
    source = np.frombuffer(data, dtype=np.uint8)
    kept = blocks if keep is None else len(keep)
    deltas = np.zeros((count, kept, _BLOCK), dtype=np.uint8)
    position = 0
    for k in range(count):
        if position + bitmap_bytes > source.size:
            raise DecodeError(f"{what}: frame {k}'s bitmap lies past the data")
        flags = np.unpackbits(
            source[position : position + bitmap_bytes], bitorder="little"
        ).view(np.bool_)
        position += bitmap_bytes
        changed = int(np.count_nonzero(flags))
        end = position + changed * _BLOCK
        if end > source.size:
            raise DecodeError(f"{what}: frame {k}'s blocks lie past the data")
        stored = source[position:end].reshape(changed, _BLOCK)
        if keep is None:
            deltas[k, flags] = stored
        else:
            # The changed blocks are stored in block order: a kept block's
            # place among them is the count of changed blocks before it.
            rank = np.cumsum(flags) - 1
            hit = flags[keep]
            deltas[k, hit] = stored[rank[keep[hit]]]
        position = end
    if position != source.size:
        raise DecodeError(
            f"{what}: {source.size - position} bytes left over after {count} frames"
        )
    return deltas.reshape(count, kept * _BLOCK)


def _running_xor(deltas: Bytes) -> Bytes:
    """Return frame ``k`` = delta ``k`` XOR frame ``k - 1`` down the rows.

    Row by row, in 8-byte words where the frame size allows:
    ``numpy.bitwise_xor.accumulate`` over the rows of a uint8 array walks it
    byte by byte and took a second for a 62 MB chunk, this 30 ms.
    """
    # In place when the deltas are a fresh array of our own (GSTRAJ4's).
    frames = (
        deltas
        if deltas.flags.writeable and deltas.flags.c_contiguous
        else (np.array(deltas, dtype=np.uint8, order="C"))
    )
    words = frames.view(np.uint64) if frames.shape[1] % 8 == 0 else frames
    for row in range(1, len(words)):
        np.bitwise_xor(words[row], words[row - 1], out=words[row])
    return frames


def decode_chunk_payload(
    manifest: Manifest, payload: bytes, count: int, what: str, path: Path
) -> Bytes:
    """Return a chunk payload's ``count`` frames as an ``(n, frame_size)`` array.

    The caller checked the payload's CRC and the memory budget of the frames.

    Raises
    ------
    DecodeError
        The payload does not decompress to its frames (named by ``what``).
    """
    size = manifest.frame_size
    try:
        if manifest.version == 1:
            data = _zlib_exact(payload, count * size, what)
            deltas: Bytes = np.frombuffer(data, dtype=np.uint8).reshape(count, size)
        else:
            bound = count * (size // 2048 + size)
            data = _zstd_bounded(payload, bound, what)
            deltas = _undo_block_sparse(data, count, size, what)
    except DecodeError as exc:
        raise exc.with_path(path) from None
    return _running_xor(deltas)


class FrameDecoder:
    """Frames of one indexed trajectory, decoded on request (thread-safe)."""

    def __init__(self, index: TrajectoryIndex) -> None:
        self.index = index
        self.manifest = index.manifest
        self._lock = threading.Lock()
        self._chunk: tuple[int, Bytes] | None = None
        self._infos: dict[int, dict[str, npt.NDArray[Any]]] = {}
        self._last: dict[str, npt.NDArray[Any]] | None = None
        self._chunk_starts = np.asarray(
            [chunk.first_frame for chunk in index.chunks], dtype=np.int64
        )

    @property
    def path(self) -> Path:
        """The file."""
        return self.index.path

    def __len__(self) -> int:
        """Frames in the file (LAST included)."""
        return self.index.n_frames

    def _payload(self, offset: int, length: int, crc: int, what: str) -> bytes:
        source = open_source(self.path)
        try:
            payload = source.read_at(offset, length, section=what)
        finally:
            source.close()
        if crc32(payload) != crc:
            raise CorruptRecordError(
                f"the CRC-32 of the {what} does not match (the file changed?)",
                path=self.path,
                offset=offset,
            )
        return payload

    def decode_chunk(self, number: int) -> Bytes:
        """Return chunk ``number``'s frames as an ``(n, frame_size)`` uint8 array."""
        with self._lock:
            if self._chunk is not None and self._chunk[0] == number:
                return self._chunk[1]
        chunk = self.index.chunks[number]
        frames = self._decode(chunk, number)
        frames.setflags(write=False)
        with self._lock:
            self._chunk = (number, frames)
        return frames

    def _chunk_payload(
        self, chunk: ChunkRecord, number: int, copies: float
    ) -> tuple[bytes, str]:
        """Return chunk ``number``'s CRC-checked payload and how errors name it.

        Decoding it must fit ``copies`` frame arrays of the chunk in the
        memory budget.
        """
        what = f"chunk {number} at byte {chunk.offset}"
        frames_bytes = chunk.frame_count * self.manifest.frame_size
        check_budget(MEMORY, copies * frames_bytes, what, path=self.path)
        payload = self._payload(
            chunk.payload_offset, chunk.payload_length, chunk.crc, what
        )
        return payload, what

    def _decode(self, chunk: ChunkRecord, number: int) -> Bytes:
        payload, what = self._chunk_payload(chunk, number, 3.0)
        return decode_chunk_payload(
            self.manifest, payload, chunk.frame_count, what, self.path
        )

    def decode_fields(self, number: int, items: Sequence[Field]) -> Bytes:
        """Return chunk ``number``'s frames with only ``items``' bytes rebuilt.

        The chunk is read, CRC-checked and decompressed, and every frame's
        framing checked, as :meth:`decode_chunk` does (so a chunk that does
        not decode fails here too); but only the 256-byte blocks (GSTRAJ4) or
        bytes (GSTRAJ1) of ``items`` are carried down the chunk's running
        XOR. The other bytes of the ``(n, frame_size)`` result are zeros.
        Not cached.
        """
        chunk = self.index.chunks[number]
        payload, what = self._chunk_payload(chunk, number, 2.0)
        size = self.manifest.frame_size
        count = chunk.frame_count
        ranges = [np.arange(i.offset, i.offset + i.nbytes) for i in items if i.nbytes]
        wanted = np.unique(np.concatenate(ranges)) if ranges else np.zeros(0, int)
        frames: Bytes = np.zeros((count, size), dtype=np.uint8)
        try:
            if self.manifest.version == 1:
                data = _zlib_exact(payload, count * size, what)
                deltas: Bytes = np.frombuffer(data, dtype=np.uint8).reshape(count, size)
                frames[:, wanted] = _running_xor(deltas[:, wanted])
            else:
                bound = count * (size // 2048 + size)
                data = _zstd_bounded(payload, bound, what)
                keep = np.unique(wanted // _BLOCK).astype(np.int64)
                sparse = _undo_block_sparse(data, count, size, what, keep)
                blocks = frames.reshape(count, size // _BLOCK, _BLOCK)
                blocks[:, keep] = _running_xor(sparse).reshape(count, -1, _BLOCK)
        except DecodeError as exc:
            raise exc.with_path(self.path) from None
        frames.setflags(write=False)
        return frames

    def _locate(self, frame: int) -> tuple[int, int]:
        number = int(np.searchsorted(self._chunk_starts, frame, "right")) - 1
        return number, frame - self.index.chunks[number].first_frame

    def _check_frame(self, frame: int) -> int:
        total = len(self)
        if not -total <= frame < total:
            raise IndexError(f"frame {frame} is out of the {total} frames")
        return frame % total

    def is_last(self, frame: int) -> bool:
        """Whether ``frame`` is the LAST record's frame."""
        frame = self._check_frame(frame)
        return self.index.last is not None and frame == self.index.chunk_frames

    def frame_bytes(self, frame: int) -> Bytes:
        """Return the raw bytes of chunk frame ``frame``."""
        number, row = self._locate(self._check_frame(frame))
        result: Bytes = self.decode_chunk(number)[row]
        return result

    def frame(self, frame: int) -> dict[str, npt.NDArray[Any]]:
        """Return frame ``frame`` as Genesis's reader does: name -> array.

        A chunk frame gives the ``fields`` (and, in GSTRAJ4, the ``info_fields``
        of the INFO record in force); the LAST frame gives ``last_fields``.
        """
        frame = self._check_frame(frame)
        if self.is_last(frame):
            return dict(self.last_frame())
        buffer = self.frame_bytes(frame)
        arrays = {item.name: field_array(buffer, item) for item in self.manifest.fields}
        info = self.info_for(frame)
        if info is not None:
            arrays.update(info)
        return arrays

    def info_record_for(self, frame: int) -> int | None:
        """Return the index of the INFO record in force at ``frame`` (None: none)."""
        chosen: int | None = None
        best = -1
        for number, info in enumerate(self.index.infos):
            if best <= info.first_frame <= frame:
                chosen, best = number, info.first_frame
        return chosen

    def info_for(self, frame: int) -> dict[str, npt.NDArray[Any]] | None:
        """Return the INFO arrays in force at ``frame`` (GSTRAJ4), decoded once."""
        number = self.info_record_for(frame)
        if number is None:
            return None
        with self._lock:
            found = self._infos.get(number)
        if found is None:
            found = self._decode_info(self.index.infos[number], number)
            with self._lock:
                self._infos[number] = found
        return found

    def _decode_info(
        self, info: InfoRecord, number: int
    ) -> dict[str, npt.NDArray[Any]]:
        what = f"INFO record {number} at byte {info.offset}"
        size = self.manifest.info_size
        payload = self._payload(
            info.payload_offset, info.payload_length, info.crc, what
        )
        return self._record_fields(
            payload, size, what, self.manifest.info_fields, zlib_coded=False
        )

    def _record_fields(
        self,
        payload: bytes,
        size: int,
        what: str,
        fields: Sequence[Field],
        *,
        zlib_coded: bool,
    ) -> dict[str, npt.NDArray[Any]]:
        """Decompress a whole-frame record (INFO, LAST) and cut out its fields."""
        try:
            if zlib_coded:
                data = _zlib_exact(payload, size, what)
            else:
                data = _zstd_bounded(payload, size, what)
        except DecodeError as exc:
            raise exc.with_path(self.path) from None
        if len(data) != size:
            raise DecodeError(
                f"{what} decompresses to {len(data)} bytes, not {size}", path=self.path
            )
        buffer = np.frombuffer(data, dtype=np.uint8)
        return {item.name: field_array(buffer, item) for item in fields}

    def last_frame(self) -> dict[str, npt.NDArray[Any]]:
        """Return the LAST frame's arrays (``last_fields``), decoded once."""
        last = self.index.last
        if last is None:
            raise DecodeError("the file has no LAST record", path=self.path)
        with self._lock:
            found = self._last
        if found is not None:
            return found
        what = f"LAST record at byte {last.offset}"
        size = self.manifest.last_frame_size
        check_budget(MEMORY, 2.0 * size, what, path=self.path)
        payload = self._payload(
            last.payload_offset, last.payload_length, last.crc, what
        )
        found = self._record_fields(
            payload,
            size,
            what,
            self.manifest.last_fields,
            zlib_coded=self.manifest.version == 1,
        )
        with self._lock:
            self._last = found
        return found
