"""Read one numeric topic of an MCAP file: only the chunks that hold it.

A file opened from its indexes gives each numeric topic a lazy channel whose
loader is a :class:`TopicLoader`. Called the first time the channel's values
are asked for, it reads the chunks the chunk index says hold the topic (CRC
checked), decodes that topic's messages only and returns the channel's
arrays: the same values, columns and play times a full read gives. A chunk
that cannot be read is skipped, as at open, and added to the report.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import DecodeError, FsrError, SourceUnavailableError
from fsr_core.recording import ChannelData
from fsr_core.sources.mcap.block_reading import read_blocks
from fsr_core.sources.mcap.container import Block
from fsr_core.sources.mcap.late_problems import LateProblems
from fsr_core.sources.mcap.numeric_leaves import NumericTable
from fsr_core.sources.mcap.topics import Topic

__all__ = ["TopicLoader"]


class TopicLoader:
    """Read and decode one numeric topic's messages into a channel's arrays."""

    def __init__(
        self,
        path: Path,
        topic: Topic,
        blocks: list[tuple[int, Block]],
        origin_ns: int,
        problems: LateProblems,
    ) -> None:
        self._path = path
        self._topic = topic
        self._blocks = blocks
        self._origin_ns = origin_ns
        self._problems = problems

    def __call__(self) -> ChannelData:
        """Return the topic's play times, values and columns.

        Raises
        ------
        FsrError
            No message of the topic could be read, its values need more than
            the memory budget, or a package it needs is missing.
        """
        info = self._topic.info
        decode = self._topic.decoder.decode
        if decode is None:
            raise DecodeError(f"topic {info.topic[:80]!r} has no decoder")
        table = NumericTable(info.topic)
        failures, first = 0, ""
        wanted = frozenset({info.channel_id})
        plan = [(number, block, wanted) for number, block in self._blocks]
        for _, block, found in read_blocks(self._path, plan):
            if isinstance(found, SourceUnavailableError):
                raise found
            if isinstance(found, FsrError):
                self._problems.unreadable_chunk(block, found.reason)
                continue
            for message in found:
                try:
                    table.add(message.log_time_ns, decode(message.data))
                except FsrError:
                    raise
                except Exception as exc:  # noqa: BLE001 - a library's decode error
                    failures += 1
                    first = first or str(exc)[:200]
        if failures:
            self._problems.failed_messages(info.topic, failures, first)
        return self._arrays(table, first)

    def _arrays(self, table: NumericTable, problem: str) -> ChannelData:
        what = f"topic {self._topic.info.topic[:80]!r}"
        if not table.rows:
            raise DecodeError(
                f"{what}: no message could be read"
                + (f" (the first problem: {problem})" if problem else ""),
                path=self._path,
            )
        check_budget(MEMORY, table.bytes_needed(), what, path=self._path)
        raw = np.asarray(table.times_ns, dtype=np.int64)
        values = table.values()
        if raw.size > 1 and not bool((raw[1:] >= raw[:-1]).all()):
            # Out of order (chunks that overlap in time): sorted, ties kept.
            order = np.argsort(raw, kind="stable")
            raw, values = raw[order], values[order]
        play = (raw - self._origin_ns).astype(np.float64) / 1e9
        return ChannelData(play, values, table.columns)
