"""The checks a replay makes before it submits anything or renders a frame.

Every check raises :class:`~fsr_core.errors.ReplayError` with
``section="preflight"``, the source file as ``path`` and a message that says
what failed and what was expected. In order:

1. the input byte limit (:attr:`ReplayOptions.max_input_bytes`);
2. the pinned SHA-256 (:attr:`ReplayOptions.pinned_sha256`), when given;
3. full validation: every record read, its CRC and digests checked, every
   payload decoded, the footer's lifecycle compared with the records;

then for *render*: render state is present (a command-only recording is told
to use resimulate); for *resimulate*:

4. an authored control stream is present (applied-control frames alone are
   evidence and are refused); it may hold no chunk, a passive run (bodies
   falling, a scene left to settle), which re-simulates with no command;
5. every authored command decodes;
6. chunk IDs are unique within each generation's control session;
7. every chunk belongs to exactly one source generation: the generation it
   names is the one it was recorded in, and it ends before that generation's
   reset;
8. the source ``simulation_contract`` matches the target's
   (:class:`~fsr_core.simulation.protocol.TargetContract`);
9. the source's generations are the ones the target rebuilds (its scripted
   resets, :attr:`TargetContract.generation_ticks`): a reset from outside the
   config cannot be re-simulated;
10. every chunk's resource, command space, axes, units, frame, interpolation,
    terminal policy and controller are ones the target accepts.

Checks 8 and 10 compare with the target alone and live in
:mod:`fsr_core.simulation.target_checks`.

One source generation per control session: a recording with scripted resets
is replayed as one fresh control session per generation, and no authored
chunk may span a reset (checks 7 and 9).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.control import AuthoredChunk
from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    LimitExceededError,
    OpenFailedError,
    ReplayError,
)
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.simulation.lifecycle import ReplayCancelledError
from fsr_core.simulation.protocol import ReplayOptions, TargetContract

__all__ = [
    "SourceChunk",
    "authored_chunks",
    "check_generation_plan",
    "check_render_source",
    "open_checked",
    "preflight_error",
    "validate_fully",
]

_SECTION: Final = "preflight"
_END_EPS_S: Final = 1e-9


def preflight_error(path: Path | str, reason: str, **where: Any) -> ReplayError:
    """Return the error of a failed preflight check on ``path``."""
    return ReplayError(reason, path=path, section=_SECTION, **where)


@dataclass(frozen=True)
class SourceChunk:
    """An authored chunk as the source recorded it: the chunk and its clocks."""

    chunk: AuthoredChunk
    generation: int
    tick: int
    sim_time_s: float
    record: int
    """Sequence number of its record on the authored stream."""


def open_checked(
    source: Path, options: ReplayOptions, check: Callable[[], None] | None = None
) -> FsrReader:
    """Open ``source`` within the byte limit and, if pinned, with its digest.

    ``check()`` runs between the chunks of a pinned digest's pass (it may raise).

    Raises
    ------
    ReplayError
        The file is over the limit, has another digest, or does not open.
    """
    try:
        return FsrReader.open(
            source,
            max_bytes=options.max_input_bytes,
            expected_sha256=options.pinned_sha256,
            check=check,
        )
    except LimitExceededError as exc:
        if exc.section != "file":
            raise _invalid(source, exc) from exc
        raise preflight_error(
            source,
            f"the source is over the replay input limit of "
            f"{options.max_input_bytes} bytes ({exc.reason})",
        ) from exc
    except CorruptRecordError as exc:
        if exc.section != "file":
            raise _invalid(source, exc) from exc
        raise preflight_error(
            source, f"the source does not have the pinned SHA-256: {exc.reason}"
        ) from exc
    except OpenFailedError as exc:
        raise _invalid(source, exc, "the source cannot be opened") from exc
    except ReplayCancelledError:
        raise
    except FsrError as exc:
        raise _invalid(source, exc) from exc


def _invalid(
    source: Path, exc: FsrError, lead: str = "the source is not a valid FSR file"
) -> ReplayError:
    detail = str(exc)
    named = f"{exc.path}: "
    if exc.path is not None and detail.startswith(named):
        detail = detail[len(named) :]  # the replay error names the file once
    return preflight_error(source, f"{lead}: {detail}")


def validate_fully(reader: FsrReader, check: Callable[[], None] | None = None) -> None:
    """Read and check every record of ``reader`` (the full validation).

    ``check()`` runs every few records (it may raise, to cancel).

    Raises
    ------
    ReplayError
        A record fails its CRC or digest, does not decode, or the footer's
        lifecycle disagrees with the records; the first problem is named.
    """
    problems = reader.verify(check)
    if problems:
        raise preflight_error(
            reader.path,
            f"the source failed full validation ({len(problems)} problem(s)); "
            f"first: {problems[0]}",
        )


def _has_records(reader: FsrReader, kind: StreamKind) -> bool:
    return any(
        info.spec.kind is kind and info.record_count for info in reader.streams.values()
    )


def _stream_of(reader: FsrReader, kind: StreamKind) -> str | None:
    for info in reader.streams.values():
        if info.spec.kind is kind:
            return info.name
    return None


def check_render_source(reader: FsrReader) -> str:
    """Return the render-state stream to apply.

    Raises
    ------
    ReplayError
        There is no render state; a recording with authored control is told
        to use resimulate mode.
    """
    stream = _stream_of(reader, StreamKind.RENDER_STATE)
    if stream is not None and reader.streams[stream].record_count:
        return stream
    if _has_records(reader, StreamKind.CONTROL_AUTHORED):
        raise preflight_error(
            reader.path,
            "render mode needs recorded render state, and this is a command-only "
            "recording (authored control, no render state): use resimulate mode "
            "to replay its commands",
        )
    raise preflight_error(
        reader.path, "render mode needs recorded render state; the source has none"
    )


def _generation_ends(reader: FsrReader, column: str = "sim_time_s") -> dict[int, float]:
    """Last sim time (or tick) recorded in each generation, over every stream."""
    ends: dict[int, float] = {}
    for info in reader.streams.values():
        rows = reader.rows(info.name)
        for generation in np.unique(rows["generation"]):
            last = float(rows[column][rows["generation"] == generation].max())
            key = int(generation)
            ends[key] = max(ends.get(key, last), last)
    return ends


def check_generation_plan(reader: FsrReader, contract: TargetContract) -> None:
    """Check that the source's generations are the ones the target rebuilds.

    Raises
    ------
    ReplayError
        The source has another number of generations than the target's
        scripted resets make, or a generation of another length.
    """
    planned = contract.generation_ticks
    if planned is None:
        return
    recorded = {
        generation: int(last) + 1
        for generation, last in _generation_ends(reader, "tick").items()
    }
    if sorted(recorded) != list(range(len(planned))):
        raise preflight_error(
            reader.path,
            f"the source has generation(s) {sorted(recorded)} but the resets of its "
            f"config make {len(planned)} (0 to {len(planned) - 1}); a reset from "
            "outside the config cannot be re-simulated",
        )
    final = len(planned) - 1
    for generation, ticks in sorted(recorded.items()):
        plan = planned[generation]
        if ticks > plan or (generation != final and ticks != plan):
            raise preflight_error(
                reader.path,
                f"generation {generation} of the source ran {ticks} ticks but its "
                f"config plans {plan}; the recording does not follow its own config",
            )


def authored_chunks(reader: FsrReader) -> tuple[SourceChunk, ...]:
    """Decode every authored command and check the sessions they form.

    Raises
    ------
    ReplayError
        No authored stream (applied frames alone are refused), a command that
        does not decode, a duplicate chunk ID within a generation, or a chunk
        that does not belong to exactly one source generation.
    """
    stream = _stream_of(reader, StreamKind.CONTROL_AUTHORED)
    if stream is None:
        if _has_records(reader, StreamKind.CONTROL_APPLIED):
            raise preflight_error(
                reader.path,
                "the source has applied-control frames but no authored control "
                "stream; applied control is evidence of what the simulator "
                "received and is never replayed as commands",
            )
        raise preflight_error(
            reader.path, "the source has no authored control stream to resimulate"
        )
    chunks = [
        _decoded(reader, stream, record) for record in range(_count(reader, stream))
    ]
    _check_unique_ids(reader.path, stream, chunks)
    _check_generations(reader, stream, chunks)
    return tuple(chunks)


def _count(reader: FsrReader, stream: str) -> int:
    return reader.streams[stream].record_count


def _decoded(reader: FsrReader, stream: str, index: int) -> SourceChunk:
    record = reader.record(stream, index)
    try:
        chunk = AuthoredChunk.from_json(record.decoded)
    except FsrError as exc:
        raise preflight_error(
            reader.path,
            f"authored command at generation {record.generation}, tick "
            f"{record.tick} does not decode: {exc.reason}",
            stream=stream,
            record=index,
        ) from exc
    return SourceChunk(chunk, record.generation, record.tick, record.sim_time_s, index)


def _check_unique_ids(path: str, stream: str, chunks: list[SourceChunk]) -> None:
    seen: dict[tuple[int, str], int] = {}
    for item in chunks:
        key = (item.generation, item.chunk.chunk_id)
        if key in seen:
            raise preflight_error(
                path,
                f"duplicate chunk ID {item.chunk.chunk_id!r} in generation "
                f"{item.generation} (records {seen[key]} and {item.record})",
                stream=stream,
                record=item.record,
            )
        seen[key] = item.record


def _check_generations(
    reader: FsrReader, stream: str, chunks: list[SourceChunk]
) -> None:
    ends = _generation_ends(reader)
    final = max(ends)
    previous: SourceChunk | None = None
    for item in chunks:
        chunk = item.chunk
        where = {"stream": stream, "record": item.record}
        if chunk.generation != item.generation:
            raise preflight_error(
                reader.path,
                f"chunk {chunk.chunk_id!r} was recorded in generation "
                f"{item.generation} but names generation {chunk.generation}; "
                "a chunk must belong to exactly one source generation",
                **where,
            )
        end_s = ends[item.generation]
        if item.generation != final and chunk.end_sim_time_s > end_s + _END_EPS_S:
            raise preflight_error(
                reader.path,
                f"chunk {chunk.chunk_id!r} runs to {chunk.end_sim_time_s} s, past "
                f"the reset that ends generation {item.generation} at {end_s} s; "
                "authored control must not span a generation reset",
                **where,
            )
        same = previous is not None and previous.generation == item.generation
        if same and previous is not None:
            before = previous.chunk.start_sim_time_s
            if chunk.start_sim_time_s < before:
                raise preflight_error(
                    reader.path,
                    f"chunk {chunk.chunk_id!r} starts at {chunk.start_sim_time_s} "
                    f"s, before the chunk recorded before it ({before} s)",
                    **where,
                )
        previous = item
