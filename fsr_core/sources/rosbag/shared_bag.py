"""One reader of a bag for the parts of its model read when shown.

Camera frames, their times and the topics a lazy open leaves for later are
read through one ``rosbags`` reader, opened the first time one of them is
asked for and closed with the model's parts (never left to the garbage
collector); they take turns under its lock, so any thread may read.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from fsr_core.errors import DecodeError, FsrError
from fsr_core.sources.rosbag.bag_files import OpenBag, open_bag

__all__ = ["SharedBag"]

_T = TypeVar("_T")


class SharedBag:
    """One bag reader for the lazy parts of a model, opened when first needed.

    Camera frames and topics read when shown use it in turn, under its lock,
    so any thread may ask.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._bag: OpenBag | None = None

    def keep(self, bag: OpenBag) -> None:
        """Use ``bag``, opened already (a scanned bag is not scanned again)."""
        with self._lock:
            if self._bag is None:
                self._bag = bag
                weakref.finalize(self, bag.close)
            elif self._bag is not bag:
                bag.close()

    def _open(self) -> OpenBag:
        if self._bag is None:
            self._bag = open_bag(self._path)
            # Closed with the model's parts that share it (never left to the GC).
            weakref.finalize(self, self._bag.close)
        return self._bag

    def using(self, work: Callable[[OpenBag], _T]) -> _T:
        """Return ``work(bag)``, run under the lock with the open bag.

        Raises
        ------
        FsrError
            The bag no longer opens, or ``work`` fails (the library's errors
            as one line naming the file).
        """
        with self._lock:
            bag = self._open()
            try:
                return work(bag)
            except FsrError as exc:
                raise exc.with_path(self._path) from None
            except Exception as exc:  # noqa: BLE001 - rosbags, apsw, lz4
                raise DecodeError(
                    f"the bag is unreadable: {exc}", path=self._path
                ) from None

    def topic_times(self, topic: str) -> np.ndarray:
        """Return the times (ns) of every message of ``topic``, in order.

        A ROS 1 bag gives them from its index; a rosbag2 bag reads them.
        """

        def times(bag: OpenBag) -> np.ndarray:
            chosen = [c for c in bag.connections if c.topic == topic]
            indexes = getattr(bag.reader, "indexes", None)
            if bag.ros1 and isinstance(indexes, dict):
                found = [entry.time for c in chosen for entry in indexes.get(c.id, ())]
            else:
                found = [time_ns for _, time_ns, _ in bag.messages(chosen)]
            return np.sort(np.asarray(found, dtype=np.int64), kind="stable")

        return self.using(times)

    def raw_message(
        self, topic: str, time_ns: int, ordinal: int
    ) -> tuple[OpenBag, str, bytes]:
        """Return the bag, the message type and the bytes of one message.

        Raises
        ------
        FsrError
            The bag no longer opens, or the message is gone (the file changed).
        """

        def one(bag: OpenBag) -> tuple[OpenBag, str, bytes] | None:
            chosen = [c for c in bag.connections if c.topic == topic]
            at_time = bag.messages(chosen, time_ns, time_ns + 1)
            for found, (connection, _, raw) in enumerate(at_time):
                if found == ordinal:
                    return bag, connection.msgtype, bytes(raw)
            return None

        message = self.using(one)
        if message is None:
            raise DecodeError(
                f"topic {topic[:80]!r}: no message at {time_ns} ns (the file changed)",
                path=self._path,
            )
        return message
