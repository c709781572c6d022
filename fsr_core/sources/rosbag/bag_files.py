"""A ROS bag opened with ``rosbags``: which reader, its index, its types.

A ROS 1 bag (``#ROSBAG V2.0`` magic) opens through its index; one whose
index was never written, or is unreadable, opens by a scan of its chunks
(:mod:`unindexed`), reported as ``no index: scanned`` with any cut. A
rosbag2 bag is a folder with ``metadata.yaml`` naming the ``sqlite3``
storage and its ``.db3`` files (split bags are read as one, in time order),
or a bare ``.db3`` file; one compressed per file is inflated within the
memory budget first (:mod:`file_compression`). Every failure of the library
is one line naming the file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import CorruptRecordError, FsrError
from fsr_core.sources.head import read_head
from fsr_core.sources.rosbag.file_compression import InflatedBag, inflated_bag
from fsr_core.sources.rosbag.library import require_rosbags
from fsr_core.sources.rosbag.type_store import BagTypes, bag_types
from fsr_core.sources.rosbag.unindexed import Scan, scan_chunks
from fsr_core.sources.toolkit.rosbag2_metadata import names_storage

__all__ = [
    "ROS1_MAGIC",
    "SQLITE_MAGIC",
    "OpenBag",
    "is_rosbag2_folder",
    "open_bag",
]

ROS1_MAGIC: Final = b"#ROSBAG V2.0\n"
SQLITE_MAGIC: Final = b"SQLite format 3\x00"
_NOT_INDEXED: Final = "not indexed"


def is_rosbag2_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a rosbag2 ``metadata.yaml`` naming SQLite storage."""
    return names_storage(folder, "sqlite3")


@dataclass
class OpenBag:
    """An open bag: its ``rosbags`` reader and how it was opened."""

    path: Path
    reader: Any
    ros1: bool
    types: BagTypes
    index: str
    """``index``, ``no index: scanned`` or ``index unreadable: scanned``
    (ROS 1), ``metadata`` or ``file`` (rosbag2)."""
    scan: Scan | None = None
    compression: tuple[str, ...] = ()
    files: tuple[str, ...] = field(default_factory=tuple)
    zstd_messages: bool = False
    """Each message is zstd-compressed on its own: decompressed here, bounded."""
    inflated: InflatedBag | None = None
    """The uncompressed copy of a bag compressed per file, removed on close."""

    @property
    def connections(self) -> list[Any]:
        """The ``rosbags`` connections, one per topic and type."""
        return list(self.reader.connections)

    def messages(
        self,
        connections: Sequence[Any] = (),
        start: int | None = None,
        stop: int | None = None,
    ) -> Iterator[tuple[Any, int, bytes]]:
        """Yield ``(connection, time_ns, raw)`` in time order (``rosbags``' own)."""
        found = self.reader.messages(connections=connections, start=start, stop=stop)
        if not self.zstd_messages:
            return iter(found)
        return self._decompressed(found)

    def _decompressed(
        self, found: Iterator[tuple[Any, int, bytes]]
    ) -> Iterator[tuple[Any, int, bytes]]:
        from fsr_core.sources.rosbag.chunk_limits import zstd_message

        for connection, time_ns, data in found:
            raw = zstd_message(data, path=self.path, topic=connection.topic)
            yield connection, time_ns, raw

    def close(self) -> None:
        """Close the reader (once)."""
        reader, self.reader = self.reader, None
        if reader is not None:
            _closing(reader)
        inflated, self.inflated = self.inflated, None
        if inflated is not None:
            inflated.close()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def _closing(reader: Any) -> None:
    with contextlib.suppress(Exception):  # a reader that failed part way
        reader.close()


def _open_ros1(path: Path) -> OpenBag:
    from rosbags.rosbag1 import Reader, ReaderError

    from fsr_core.sources.rosbag.chunk_limits import guard_chunks

    reader = Reader(path)
    label = "index"
    try:
        reader.open()
    except ReaderError as exc:
        reason = _one_line(exc)
        label = (
            "no index: scanned"
            if _NOT_INDEXED in reason
            else f"index unreadable ({reason}): scanned"
        )
        reader = Reader(path)
    scan: Scan | None = None
    try:
        if label == "index":
            compressions: Collection[str] = guard_chunks(reader, path)
        else:
            scan = scan_chunks(reader, path)
            compressions = scan.compressions
        types = bag_types(reader.connections, ros1=True)
    except BaseException:
        _closing(reader)
        raise
    return OpenBag(path, reader, True, types, label, scan, tuple(sorted(compressions)))


def _open_rosbag2(path: Path) -> OpenBag:
    inflated = inflated_bag(path)
    try:
        found = _open_rosbag2_reader(path, inflated)
    except BaseException:
        if inflated is not None:
            inflated.close()
        raise
    found.inflated = inflated
    return found


def _open_rosbag2_reader(path: Path, inflated: InflatedBag | None) -> OpenBag:
    from rosbags.rosbag2 import Reader

    reader = Reader(path if inflated is None else inflated.path)
    try:
        reader.open()
    except BaseException:
        _closing(reader.storage)
        raise
    try:
        storage = reader.storage
        files = tuple(
            str(item.get("path", "")) if isinstance(item, dict) else str(item)
            for item in getattr(storage, "files", ())
        )
        if inflated is not None:
            files = inflated.files
        compression = "file" if inflated is not None else reader.compression_mode
        types = bag_types(reader.connections, ros1=False, distro=reader.ros_distro)
        if compression == "message":
            # rosbags would inflate each message whatever its size: it hands
            # them over compressed, and OpenBag.messages checks each one.
            storage.metadata = storage.metadata._replace(compression_mode=None)
    except BaseException:
        _closing(reader)
        raise
    return OpenBag(
        path,
        reader,
        False,
        types,
        "metadata" if path.is_dir() else "file",
        None,
        (f"zstd per {compression}",) if compression else (),
        files,
        zstd_messages=compression == "message",
    )


def open_bag(path: Path) -> OpenBag:
    """Open ``path`` (a ROS 1 bag, a rosbag2 folder or ``.db3`` file).

    Raises
    ------
    SourceUnavailableError
        ``rosbags`` is not installed (the message names the extra).
    FsrError
        The bag cannot be read; the message says why in one line.
    """
    require_rosbags(path)
    ros1 = not path.is_dir() and read_head(path, len(ROS1_MAGIC)) == ROS1_MAGIC
    try:
        return _open_ros1(path) if ros1 else _open_rosbag2(path)
    except FsrError as exc:
        raise exc.with_path(path) from None
    except Exception as exc:  # noqa: BLE001 - rosbags, apsw and yaml raise many kinds
        kind = "ROS 1 bag" if ros1 else "rosbag2 bag"
        raise CorruptRecordError(
            f"the {kind} does not open: {_one_line(exc)}", path=path
        ) from None
