"""A ROS 1 bag without a usable index, opened by a scan of its chunks.

``rosbag record`` writes the index (connections and chunk infos) when it
closes the bag: a recording that was killed has chunks and no index, and a
bag cut short has lost it. As ``rosbag reindex`` would, the scan walks the
records from the bag header on, reading each chunk's connection and message
records (through ``rosbags``' record headers) into the index a ``rosbags``
reader uses, which then reads the messages as it would from a whole bag.
The scan is bounded: every chunk's sizes are checked before it is read
(:mod:`chunk_limits`), and so is the memory the index takes. It stops at the
first record that is cut off or does not parse: what came before it opens,
and the stop is reported as the cut.
"""

from __future__ import annotations

import io
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    LimitExceededError,
    TruncatedFileError,
)

__all__ = ["Scan", "scan_chunks"]

_INDEX_ENTRY_BYTES: Final = 120
"""Memory one message's index entry takes (a named tuple in a list)."""


@dataclass(frozen=True)
class Scan:
    """What a scan found: chunks read, messages indexed, where it stopped."""

    chunks: int
    messages: int
    cut_offset: int | None
    cut_reason: str
    compressions: frozenset[str]


class _Scanner:
    def __init__(self, reader: Any, path: Path) -> None:
        from rosbags.rosbag1 import reader as library

        self.lib = library
        self.reader = reader
        self.path = path
        self.file_bytes = path.stat().st_size
        self.connections: dict[int, Any] = {}
        self.indexes: dict[int, list[Any]] = defaultdict(list)
        self.infos: list[Any] = []
        self.messages = 0
        self.compressions: set[str] = set()

    def skip_data(self, bio: Any, end: int) -> None:
        """Step over a record's data, which must end by ``end``."""
        size = self.lib.read_uint32(bio)
        if bio.tell() + size > end:
            raise TruncatedFileError(
                f"a record's data run {bio.tell() + size - end} bytes past the end"
            )
        bio.seek(size, os.SEEK_CUR)

    def chunk(self, bio: Any, offset: int, header: Any) -> None:
        from fsr_core.sources.rosbag.chunk_limits import check_chunk

        data_bytes = self.lib.read_uint32(bio)
        data_at = bio.tell()
        compression, decompress = check_chunk(
            self.path, offset, header, data_bytes, data_at, self.file_bytes
        )
        self.compressions.add(compression)
        data = decompress(self.lib.read_bytes(bio, data_bytes))
        self.records_of(io.BytesIO(data), offset)
        self.reader.chunks[offset] = self.lib.Chunk(data_bytes, data_at, decompress)

    def records_of(self, chunk: io.BytesIO, offset: int) -> None:
        counts: dict[int, int] = defaultdict(int)
        times: list[int] = []
        size = len(chunk.getbuffer())
        while chunk.tell() < size:
            at = chunk.tell()
            header = self.lib.Header.read(chunk)
            op = header.get_uint8("op")
            if op == self.lib.RecordType.CONNECTION:
                chunk.seek(at)
                self.connection(chunk)
                continue
            if op == self.lib.RecordType.MSGDATA:
                conn, time_ns = header.get_uint32("conn"), header.get_time("time")
                if conn not in self.connections:
                    raise CorruptRecordError(
                        f"a message names connection {conn}, never defined"
                    )
                self.indexes[conn].append(self.lib.IndexData(time_ns, offset, at))
                counts[conn] += 1
                times.append(time_ns)
            self.skip_data(chunk, size)
        self.messages += len(times)
        check_budget(
            MEMORY,
            self.messages * _INDEX_ENTRY_BYTES,
            "the scanned index",
            path=self.path,
        )
        if times:
            self.infos.append(
                self.lib.ChunkInfo(offset, min(times), max(times) + 1, dict(counts))
            )

    def connection(self, bio: Any) -> None:
        saved = self.reader.bio
        self.reader.bio = bio
        try:
            found = self.reader.read_connection()
        finally:
            self.reader.bio = saved
        self.connections.setdefault(found.id, found)

    def record(self, bio: Any) -> None:
        """Read one top-level record (the index's records are only stepped over)."""
        offset = bio.tell()
        header = self.lib.Header.read(bio)
        op = header.get_uint8("op")
        if op == self.lib.RecordType.CHUNK:
            self.chunk(bio, offset, header)
        elif op == self.lib.RecordType.CONNECTION:
            bio.seek(offset)
            self.connection(bio)
        else:
            self.skip_data(bio, self.file_bytes)

    def install(self) -> None:
        """Give the reader the index the scan built."""
        reader = self.reader
        reader.indexes = {conn: sorted(self.indexes[conn]) for conn in self.connections}
        reader.connections = [
            found._replace(msgcount=len(reader.indexes[conn]))
            for conn, found in self.connections.items()
        ]
        reader.chunk_infos = self.infos


def scan_chunks(reader: Any, path: Path) -> Scan:
    """Index ``reader`` (a ``rosbags`` ROS 1 reader, not opened) by a scan.

    The reader is left open on ``path`` with the connections and message
    index of every complete chunk; close it when done.

    Raises
    ------
    FsrError
        The file is not a ROS 1 bag of version 2.0, or its bag header is
        unreadable; a chunk claims more than the memory budget.
    """
    scanner = _Scanner(reader, path)
    bio = path.open("rb")
    reader.bio = bio
    lib = scanner.lib
    try:
        if bio.readline() != b"#ROSBAG V2.0\n":
            raise CorruptRecordError("not a ROS 1 bag of version 2.0", path=path)
        lib.Header.read(bio, lib.RecordType.BAGHEADER)
        scanner.skip_data(bio, scanner.file_bytes)
    except (lib.ReaderError, FsrError) as exc:
        reader.close()
        raise CorruptRecordError(f"bag header unreadable: {exc}", path=path) from None
    cut_offset, reason = None, ""
    while bio.tell() < scanner.file_bytes:
        offset = bio.tell()
        try:
            scanner.record(bio)
        except LimitExceededError:
            reader.close()
            raise
        except FsrError as exc:
            cut_offset, reason = offset, exc.reason
            break
        except (lib.ReaderError, ValueError, KeyError) as exc:
            cut_offset, reason = offset, f"record unreadable: {exc}"
            break
    scanner.install()
    return Scan(
        len(scanner.infos),
        scanner.messages,
        cut_offset,
        reason,
        frozenset(scanner.compressions),
    )
