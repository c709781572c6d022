"""The sizes compressed bag data claim, checked before anything is allocated.

A ROS 1 chunk record's header says how many bytes its data take in the file
and how many they decompress to (``size``); either can claim gigabytes, and
a bz2 or lz4 stream can inflate past what its header says. Before ``rosbags``
reads a chunk, its stored size is checked against the file and its claimed
size against the memory budget, and its decompressor is replaced by one that
stops at the claimed size, so no stream grows past what was checked. A
rosbag2 message compressed on its own (zstd per message) is checked the same
way: the size its frame header claims against the budget, and no more than
that decompressed.
"""

from __future__ import annotations

import bz2
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import CorruptRecordError, DecodeError, TruncatedFileError

__all__ = [
    "bounded_decompressor",
    "check_chunk",
    "guard_chunks",
    "zstd_message",
    "zstd_module",
]


def bounded_decompressor(
    compression: str, claimed_bytes: int, *, where: str
) -> Callable[[bytes], bytes]:
    """Return a decompressor of one chunk that refuses more than ``claimed_bytes``.

    Raises
    ------
    CorruptRecordError
        ``compression`` is none of ``none``, ``bz2``, ``lz4`` (on creation);
        the data decompress to more or fewer bytes than claimed (on call).
    """
    if compression not in ("none", "bz2", "lz4"):
        raise CorruptRecordError(f"{where}: compression {compression[:20]!r} unknown")

    def decompress(data: bytes) -> bytes:
        if compression == "none":
            out = data
        elif compression == "bz2":
            try:
                out = bz2.BZ2Decompressor().decompress(
                    data, max_length=claimed_bytes + 1
                )
            except (OSError, EOFError, ValueError) as exc:
                raise DecodeError(
                    f"{where}: bz2 data do not decompress: {exc}"
                ) from None
        else:
            import lz4.frame

            try:
                decompressor = lz4.frame.LZ4FrameDecompressor()
                out = decompressor.decompress(data, max_length=claimed_bytes + 1)
            except RuntimeError as exc:
                raise DecodeError(
                    f"{where}: lz4 data do not decompress: {exc}"
                ) from None
        if len(out) != claimed_bytes:
            got = "more than" if len(out) > claimed_bytes else str(len(out))
            raise DecodeError(
                f"{where}: data decompress to {got} bytes, "
                f"the header claims {claimed_bytes}"
            )
        return out

    return decompress


def check_chunk(
    path: Path, offset: int, header: Any, data_bytes: int, data_at: int, file_bytes: int
) -> tuple[str, Callable[[bytes], bytes]]:
    """Check one chunk's claims; return its compression and bounded decompressor.

    ``header`` is the chunk record's header (``rosbags``' ``Header``),
    ``data_bytes`` the stored size that follows it, at ``data_at``.

    Raises
    ------
    TruncatedFileError
        The data run past the end of the file.
    LimitExceededError
        The claimed size is over the memory budget.
    CorruptRecordError
        The header lacks ``compression`` or ``size``, or names an unknown one.
    """
    where = f"chunk at byte {offset}"
    try:
        compression = header.get_string("compression")
        claimed = header.get_uint32("size")
    except Exception as exc:  # noqa: BLE001 - rosbags' ReaderError, bad bytes
        raise CorruptRecordError(
            f"{where}: header unreadable: {exc}", path=path
        ) from None
    if data_at + data_bytes > file_bytes:
        raise TruncatedFileError(
            f"{where} is cut off: {data_bytes} bytes claimed, "
            f"{max(file_bytes - data_at, 0)} in the file",
            path=path,
            offset=offset,
        )
    check_budget(MEMORY, claimed + data_bytes, where, path=path)
    return compression, bounded_decompressor(compression, claimed, where=where)


def guard_chunks(reader: Any, path: Path) -> set[str]:
    """Check every chunk of an indexed ``rosbags`` ROS 1 reader before it reads one.

    Each chunk's decompressor is replaced by its bounded one; the chunks'
    compressions are returned.

    Raises
    ------
    FsrError
        A chunk is cut off, over the budget or unreadable.
    """
    from rosbags.rosbag1.reader import Chunk, Header, RecordType

    file_bytes = path.stat().st_size
    bio = reader.bio
    compressions: set[str] = set()
    for offset, chunk in list(reader.chunks.items()):
        bio.seek(offset)
        try:
            header = Header.read(bio, RecordType.CHUNK)
        except Exception as exc:  # noqa: BLE001 - rosbags' ReaderError, bad bytes
            raise CorruptRecordError(
                f"chunk at byte {offset}: header unreadable: {exc}", path=path
            ) from None
        compression, decompress = check_chunk(
            path, offset, header, chunk.datasize, chunk.datapos, file_bytes
        )
        compressions.add(compression)
        reader.chunks[offset] = Chunk(chunk.datasize, chunk.datapos, decompress)
    return compressions


def zstd_module() -> Any:
    """Return the zstd module ``rosbags`` uses (the standard one from 3.14)."""
    import importlib

    try:
        return importlib.import_module("compression.zstd")
    except ImportError:
        return importlib.import_module("backports.zstd")


def zstd_message(data: bytes, *, path: Path, topic: str) -> bytes:
    """Decompress one zstd-compressed message, checked against the memory budget.

    Raises
    ------
    LimitExceededError
        The frame claims more than the budget (an unknown size: the budget).
    DecodeError
        The data are no zstd frame, or inflate past the size claimed.
    """
    zstd = zstd_module()
    where = f"a message of {topic[:80]!r}"
    try:
        claimed = zstd.get_frame_info(data).decompressed_size
    except (zstd.ZstdError, ValueError, TypeError) as exc:
        raise DecodeError(f"{where}: no zstd frame: {exc}", path=path) from None
    limit = MEMORY.limit() if claimed is None else int(claimed)
    check_budget(MEMORY, limit, where, path=path)
    try:
        decompressor = zstd.ZstdDecompressor()
        out = decompressor.decompress(data, max_length=limit + 1)
    except zstd.ZstdError as exc:
        raise DecodeError(
            f"{where}: zstd data do not decompress: {exc}", path=path
        ) from None
    if len(out) > limit or (claimed is not None and len(out) != limit):
        raise DecodeError(
            f"{where}: data decompress to {len(out)} bytes or more, the frame "
            f"claims {claimed}",
            path=path,
        )
    return bytes(out)
