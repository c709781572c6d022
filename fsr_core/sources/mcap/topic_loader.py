"""Read one numeric topic of an MCAP file: only the chunks that hold it.

A file opened from its indexes gives each numeric topic a lazy channel whose
loader is a :class:`TopicLoader`. Called the first time the channel's values
are asked for, it reads the chunks the chunk index says hold the topic (CRC
checked), decodes that topic's messages only and returns the channel's
arrays: the same values, columns and play times a full read gives. A chunk
that cannot be read is skipped, as at open, and added to the report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray, IndexArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import DecodeError, FsrError, SourceUnavailableError
from fsr_core.recording import ChannelData
from fsr_core.sources.mcap.cdr_columns import CdrColumns, MatchedRows, in_file_order
from fsr_core.sources.mcap.channel_chunks import (
    ChunkMessages,
    channel_chunks,
    joined,
)
from fsr_core.sources.mcap.container import Block
from fsr_core.sources.mcap.late_problems import LateProblems
from fsr_core.sources.mcap.topics import Topic
from fsr_core.sources.toolkit.numeric_leaves import NumericTable

__all__ = ["TopicLoader"]

_BATCH_BYTES: Final = 16 << 20
"""Message bytes decoded together, at most (and a chunk more)."""
_BATCH_CHUNKS: Final = 256
_THREADS: Final = 2
"""Threads reading chunks while this one decodes (see ``channel_chunks``)."""


class _Failures:
    """Messages that did not decode, and the first reason."""

    def __init__(self) -> None:
        self.count = 0
        self.first = ""

    def add(self, exc: Exception) -> None:
        self.count += 1
        self.first = self.first or str(exc)[:200]


def _decode_each(
    table: NumericTable,
    found: ChunkMessages,
    positions: Iterable[int],
    decode: Callable[[bytes], Any],
    failures: _Failures,
) -> None:
    for position in positions:
        try:
            table.add(int(found.times_ns[position]), decode(found.data(position)))
        except FsrError:
            raise
        except Exception as exc:  # noqa: BLE001 - a library's decode error
            failures.add(exc)


def _add(
    table: NumericTable,
    found: ChunkMessages,
    columns: CdrColumns | None,
    decode: Callable[[bytes], Any],
    failures: _Failures,
) -> None:
    """Add one block's messages to ``table``, in file order."""
    if found.count == 0:
        return
    if columns is None or not columns.enabled:
        _decode_each(table, found, range(found.count), decode, failures)
        return
    matched, _ = columns.read(found.blob, found.starts, found.lengths)
    for begin, end, rows, picks in in_file_order(found.count, matched):
        if rows is None:
            _decode_each(table, found, range(begin, end), decode, failures)
        else:
            table.add_rows(found.times_ns[begin:end], rows.columns, _taken(rows, picks))


def _taken(rows: MatchedRows, picks: IndexArray) -> FloatArray:
    """Return ``rows.values[picks]``: a view when the picks run on, one by one."""
    if bool((np.diff(picks) == 1).all()):
        first = int(picks[0])
        return rows.values[first : first + picks.size]
    return rows.values[picks]


@dataclass(frozen=True, eq=False)
class TopicLoader:
    """Read and decode one numeric topic's messages into a channel's arrays."""

    path: Path
    topic: Topic
    blocks: list[tuple[int, Block]]
    """``(chunk number, chunk)`` of every chunk that may hold the topic."""
    origin_ns: int
    problems: LateProblems

    def __call__(self) -> ChannelData:
        """Return the topic's play times, values and columns.

        Raises
        ------
        FsrError
            No message of the topic could be read, its values need more than
            the memory budget, or a package it needs is missing.
        """
        info = self.topic.info
        decode = self.topic.decoder.decode
        if decode is None:
            raise DecodeError(f"topic {info.topic[:80]!r} has no decoder")
        table = NumericTable(info.topic)
        failures = _Failures()
        columns = CdrColumns.for_topic(info, decode)
        found_all, unreadable, indexed = 0, False, True
        batch: list[ChunkMessages] = []
        held = 0
        for _, block, found in channel_chunks(
            self.path, self.blocks, info.channel_id, threads=_THREADS
        ):
            if isinstance(found, SourceUnavailableError):
                raise found
            if isinstance(found, FsrError):
                self.problems.unreadable_chunk(block, found.reason)
                unreadable = True
                continue
            found_all += found.count
            indexed = indexed and found.indexed
            # Many chunks decoded together: numpy's cost is per call, not per row.
            batch.append(found)
            held += found.blob.size
            if held >= _BATCH_BYTES or len(batch) >= _BATCH_CHUNKS:
                _add(table, joined(batch), columns, decode, failures)
                batch, held = [], 0
        if batch:
            _add(table, joined(batch), columns, decode, failures)
        if indexed and not unreadable and info.count and found_all != info.count:
            # The message indexes leave out messages the statistics count:
            # walk every chunk's records instead.
            return self._walking_every_chunk()
        if failures.count:
            self.problems.failed_messages(info.topic, failures.count, failures.first)
        return self._arrays(table, failures.first)

    def _walking_every_chunk(self) -> ChannelData:
        """Read the topic record by record, trusting no message index."""
        unindexed = [
            (number, block._replace(message_indexes=()))
            for number, block in self.blocks
        ]
        return replace(self, blocks=unindexed)()

    def _arrays(self, table: NumericTable, problem: str) -> ChannelData:
        what = f"topic {self.topic.info.topic[:80]!r}"
        if not table.rows:
            raise DecodeError(
                f"{what}: no message could be read"
                + (f" (the first problem: {problem})" if problem else ""),
                path=self.path,
            )
        check_budget(MEMORY, table.bytes_needed(), what, path=self.path)
        raw = np.asarray(table.times_ns, dtype=np.int64)
        values = table.values()
        late = raw < 0  # a uint64 time of 2**63 or more, read as an int64
        if late.any():
            count = int(late.sum())
            self.problems.failed_messages(
                self.topic.info.topic,
                count,
                "a message's time is past 2**63 ns",
            )
            raw, values = raw[~late], values[~late]
        if raw.size > 1 and not bool((raw[1:] >= raw[:-1]).all()):
            # Out of order (chunks that overlap in time): sorted, ties kept.
            order = np.argsort(raw, kind="stable")
            raw, values = raw[order], values[order]
        play = (raw - self.origin_ns).astype(np.float64) / 1e9
        return ChannelData(play, values, table.columns)
