"""The hostile-input suite's classifier (docs/robustness.md, goals G1-G3, G6).

:func:`full_read` opens a file the way the player does and then reads all of
it: ``verify()`` (every record's CRC, digests and decoding), every camera frame
(``iter_media``) and the calibration epochs. The outcome is classified as

- ``ok``: opened and read without an error;
- ``fsr_error``: an :class:`~fsr_core.errors.FsrError` subclass, at ``open``
  or while reading (``read``);
- ``crash``: any other exception escaped (a G1 failure);
- ``hang``: the per-case watchdog (``signal.setitimer``, 2 s; the fuzzer's,
  ``tools/case_watchdog.py``) fired (a G3 failure).

A :class:`Fingerprint` of everything a reader hands out (metadata, stream
summaries, every record's clocks, metadata and decoded value, every frame,
every epoch) is taken of files that read without error, so a sweep can tell a
detected defect from an unchanged result and from the outcome that must never
happen: opened, read without an error, and some decoded value different
(``silent``).

The sweep functions at the end run in worker processes (``spawn``); a worker
that dies takes its chunk down as ``killed`` instead of the whole test run.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import io
import os
import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from tool_scripts import import_tool

from fsr_core.errors import FormatError, FsrError
from fsr_core.format.reader import FsrReader
from fsr_core.media import RGBFrame

CASE_TIMEOUT_S = 2.0


_case_watchdog = import_tool("case_watchdog")
CaseTimeoutError = _case_watchdog.CaseTimeoutError


def watchdog(seconds: float = CASE_TIMEOUT_S) -> AbstractContextManager[None]:
    """Raise :class:`CaseTimeoutError` in the main thread after ``seconds``."""
    return _case_watchdog.watchdog(seconds)


# ------------------------------------------------------------------ outcomes
@dataclass(frozen=True)
class Outcome:
    """How one case ended."""

    kind: str  # "ok" | "fsr_error" | "crash" | "hang"
    stage: str = ""  # "open" | "read" ("" when ok)
    error: str = ""  # exception class name
    reason: str = ""

    @property
    def label(self) -> str:
        """Short text such as ``fsr_error(CorruptRecordError)@read``."""
        if self.kind == "ok":
            return "ok"
        if self.kind == "hang":
            return f"hang@{self.stage}"
        return f"{self.kind}({self.error})@{self.stage}"


Fingerprint = dict[str, str]


@dataclass
class FullRead:
    """Everything one :func:`full_read` found."""

    outcome: Outcome
    exception: BaseException | None = None
    problems: list[FsrError] = field(default_factory=list)
    fingerprint: Fingerprint | None = None
    recovered: bool | None = None
    record_count: int | None = None
    directory: np.ndarray | None = None
    reader_info: dict[str, Any] = field(default_factory=dict)


def _classify(exc: BaseException, stage: str) -> Outcome:
    if isinstance(exc, CaseTimeoutError):
        return Outcome("hang", stage, type(exc).__name__, str(exc))
    kind = "fsr_error" if isinstance(exc, FsrError) else "crash"
    return Outcome(kind, stage, type(exc).__name__, str(exc)[:200])


Target = bytes | str | os.PathLike[str]
T = TypeVar("T")


def _open(target: Target, open_kwargs: dict[str, Any]) -> FsrReader:
    if isinstance(target, bytes):
        return FsrReader.open(io.BytesIO(target), **open_kwargs)
    return FsrReader.open(target, **open_kwargs)


def full_read(
    target: Target,
    *,
    fingerprint: bool = True,
    timeout_s: float = CASE_TIMEOUT_S,
    **open_kwargs: Any,
) -> FullRead:
    """Open ``target`` (bytes, or a path) and read all of it; classify the outcome."""
    stage = "open"
    reader: FsrReader | None = None
    try:
        with watchdog(timeout_s):
            reader = _open(target, open_kwargs)
            stage = "read"
            result = _read_everything(reader, fingerprint=fingerprint)
    except BaseException as exc:  # the harness classifies every escape
        if isinstance(exc, KeyboardInterrupt):
            raise
        return FullRead(_classify(exc, stage), exception=exc)
    finally:
        if reader is not None:
            reader.close()
    return result


def _read_everything(reader: FsrReader, *, fingerprint: bool) -> FullRead:
    info = {
        "recovered": reader.recovered,
        "record_count": reader.record_count,
        "recovery": reader.recovery,
        "profile": reader.profile,
    }
    directory = reader._layout.directory.copy()
    problems = reader.verify()
    media_error: FsrError | None = None
    try:
        for _frame in reader.iter_media():
            pass
    except FsrError as exc:
        media_error = exc
    reader.calibration_epochs()
    first = problems[0] if problems else media_error
    if first is not None:
        outcome = Outcome("fsr_error", "read", type(first).__name__, str(first)[:200])
        return FullRead(
            outcome,
            first,
            problems,
            None,
            reader.recovered,
            reader.record_count,
            directory,
            info,
        )
    prints = take_fingerprint(reader) if fingerprint else None
    return FullRead(
        Outcome("ok"),
        None,
        [],
        prints,
        reader.recovered,
        reader.record_count,
        directory,
        info,
    )


# --------------------------------------------------------------- fingerprint
def _plain(value: Any) -> Any:
    """Turn frames, numpy scalars, enums and dataclasses into plain values."""
    if isinstance(value, RGBFrame):
        return value.pixels
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {"__class__": type(value).__name__, **fields}
    return value


def _feed(digest: Any, value: Any) -> None:
    """Feed a deterministic serialisation of ``value`` into ``digest``."""
    value = _plain(value)
    if isinstance(value, np.ndarray):
        digest.update(f"nd{value.dtype.str}{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, dict):
        digest.update(b"{")
        for key in sorted(value, key=str):
            _feed(digest, key)
            _feed(digest, value[key])
        digest.update(b"}")
    elif isinstance(value, list | tuple):
        digest.update(b"[")
        for item in value:
            _feed(digest, item)
        digest.update(b"]")
    elif value is None or isinstance(value, bool | int | float | str | bytes):
        digest.update(f"{type(value).__name__}:{value!r};".encode())
    else:
        raise TypeError(f"cannot fingerprint a {type(value).__name__}")


def value_digest(value: Any) -> str:
    """Return the hex digest of :func:`_feed`'s serialisation of ``value``."""
    digest = hashlib.sha256()
    _feed(digest, value)
    return digest.hexdigest()


def _stream_summary(reader: FsrReader) -> list[Any]:
    return [
        (
            name,
            info.spec.to_json(info.stream_id),
            info.record_count,
            (info.first_tick, info.last_tick),
            (info.first_sim_time_s, info.last_sim_time_s),
            info.generations,
            info.payload_bytes,
        )
        for name, info in reader.streams.items()
    ]


def take_fingerprint(reader: FsrReader) -> Fingerprint:
    """Digest everything ``reader`` hands out, keyed by what it is."""
    prints: Fingerprint = {
        "metadata": value_digest(reader.metadata),
        "profile": value_digest(reader.profile),
        "streams": value_digest(_stream_summary(reader)),
        "footer": value_digest(None if reader.footer is None else reader.footer.raw),
    }
    for name, info in reader.streams.items():
        for seq in range(info.record_count):
            record = reader.record(name, seq)
            clocks = (
                record.capture_seq,
                record.generation,
                record.tick,
                record.sim_time_s,
            )
            prints[f"record/{name}/{seq}"] = value_digest(
                (clocks, record.metadata, record.verified, record.decoded)
            )
    for frame in reader.iter_media():
        ref = frame.ref
        prints[f"media/{ref.stream}/{ref.stream_seq}"] = value_digest(
            (ref, frame.decoded, frame.verified)
        )
    for number, epoch in enumerate(reader.calibration_epochs()):
        prints[f"epoch/{number}"] = value_digest(epoch)
    return prints


def fingerprint_differences(
    found: Fingerprint, expected: Fingerprint, *, subset: bool = False
) -> list[str]:
    """Return the keys whose digests differ.

    With ``subset``, only the per-record and frame keys of ``found`` are
    compared (a recovered prefix has fewer records than the intact file).
    """
    if subset:
        keys = [k for k in found if k.startswith(("record/", "media/"))]
        return [k for k in keys if expected.get(k) != found[k]]
    return sorted(
        k for k in set(found) | set(expected) if found.get(k) != expected.get(k)
    )


# -------------------------------------------------------------------- sweeps
# Each sweep runs in worker processes; the state below is per worker.
_FIXTURES: dict[str, bytes] = {}
_BASELINES: dict[str, Fingerprint] = {}
_RECORD_SPANS: dict[str, list[tuple[int, int]]] = {}


def init_worker(fixtures: dict[str, bytes]) -> None:
    """Pool initializer: keep the fixtures, their fingerprints and record spans."""
    warnings.simplefilter("error")  # as pytest's filterwarnings = error
    _FIXTURES.update(fixtures)
    for name, data in fixtures.items():
        intact = full_read(data)
        if intact.outcome.kind != "ok" or intact.fingerprint is None:
            raise RuntimeError(f"fixture {name} does not read: {intact.outcome}")
        _BASELINES[name] = intact.fingerprint
        _RECORD_SPANS[name] = record_spans(data)


def record_spans(data: bytes) -> list[tuple[int, int]]:
    """``(start, end)`` of every record (metadata and payload) of a valid file."""
    with FsrReader.open(io.BytesIO(data)) as reader:
        index = reader._layout.index
        rows = np.arange(len(index), dtype=np.int64)
        entries = index.take(rows, reader._source)
        starts = index.record_offsets(entries, rows)
        lengths = entries["meta_length"].astype(np.int64)
        lengths = lengths + entries["payload_length"].astype(np.int64)
        return sorted(zip(starts.tolist(), (starts + lengths).tolist(), strict=True))


def _containing_record(spans: list[tuple[int, int]], offset: int) -> int | None:
    for start, end in spans:
        if start <= offset < end:
            return start
    return None


def flip_outcome(
    data: bytes, baseline: Fingerprint, spans: list[tuple[int, int]], offset: int
) -> tuple[str, str]:
    """Flip bit ``offset % 8`` of byte ``offset``; return (category, detail).

    Categories: ``detected_open``; ``detected_read`` (reading gave FsrErrors,
    one of them located at the record holding the flipped byte; others may
    follow from it, such as a batch digest or a footer cross-check);
    ``misattributed`` (read errors, none at that record); ``identical``
    (no error, every value as in the intact file); ``silent`` (no error, some
    value differs); ``crash``; ``hang``.
    """
    flipped = bytearray(data)
    flipped[offset] ^= 1 << (offset % 8)
    result = full_read(bytes(flipped))
    outcome = result.outcome
    if outcome.kind == "fsr_error" and outcome.stage == "open":
        return "detected_open", outcome.error
    if outcome.kind == "fsr_error":
        record = _containing_record(spans, offset)
        found = [p.offset for p in result.problems]
        if record is not None and record in found:
            return "detected_read", outcome.error
        return "misattributed", f"{outcome.label} at {found}, flipped record {record}"
    if outcome.kind != "ok":
        return outcome.kind, f"{outcome.label}: {outcome.reason}"
    assert result.fingerprint is not None
    differences = fingerprint_differences(result.fingerprint, baseline)
    if differences:
        return "silent", ", ".join(differences[:5])
    return "identical", ""


def flip_chunk(name: str, offsets: Sequence[int]) -> list[tuple[int, str, str]]:
    """Worker task: :func:`flip_outcome` for each offset of fixture ``name``."""
    data, baseline, spans = _FIXTURES[name], _BASELINES[name], _RECORD_SPANS[name]
    return [
        (offset, *flip_outcome(data, baseline, spans, offset)) for offset in offsets
    ]


@dataclass(frozen=True)
class PrefixFacts:
    """What opening one prefix strictly and with ``recover=True`` gave."""

    cut: int
    strict: str
    strict_section: str | None
    strict_reason: str
    recover: str
    recovered: bool | None
    batches: int | None
    records: int | None
    directory: tuple[tuple[int, int, int, int, int], ...] | None
    subset_differences: tuple[str, ...] | None


def _directory_rows(
    directory: np.ndarray,
) -> tuple[tuple[int, int, int, int, int], ...]:
    return tuple(tuple(int(v) for v in row) for row in directory.tolist())


def prefix_facts(
    data: bytes, baseline: Fingerprint, cut: int, *, deep: bool
) -> PrefixFacts:
    """Open ``data[:cut]`` strictly and recovering; with ``deep`` read all of it."""
    prefix = data[:cut]
    strict = full_read(prefix, fingerprint=False)
    section = getattr(strict.exception, "section", None)
    if deep:
        salvage = full_read(prefix, recover=True)
    else:
        salvage = _open_only(prefix, recover=True)
    differences = None
    if salvage.fingerprint is not None:
        differences = tuple(
            fingerprint_differences(salvage.fingerprint, baseline, subset=True)
        )
    directory = (
        None if salvage.directory is None else _directory_rows(salvage.directory)
    )
    return PrefixFacts(
        cut=cut,
        strict=strict.outcome.label,
        strict_section=section,
        strict_reason=getattr(strict.exception, "reason", ""),
        recover=salvage.outcome.label,
        recovered=salvage.recovered,
        batches=None if directory is None else len(directory),
        records=salvage.record_count,
        directory=directory,
        subset_differences=differences,
    )


def _open_only(target: bytes, **open_kwargs: Any) -> FullRead:
    """Open without reading payloads (the cheap half of a truncation case)."""
    try:
        with watchdog():
            reader = FsrReader.open(io.BytesIO(target), **open_kwargs)
    except BaseException as exc:  # the harness classifies every escape
        if isinstance(exc, KeyboardInterrupt):
            raise
        return FullRead(_classify(exc, "open"), exception=exc)
    with reader:
        return FullRead(
            Outcome("ok"),
            recovered=reader.recovered,
            record_count=reader.record_count,
            directory=reader._layout.directory.copy(),
        )


def prefix_chunk(
    name: str, cuts: Sequence[int], deep_cuts: frozenset[int]
) -> list[PrefixFacts]:
    """Worker task: :func:`prefix_facts` for each cut of fixture ``name``."""
    data, baseline = _FIXTURES[name], _BASELINES[name]
    return [prefix_facts(data, baseline, cut, deep=cut in deep_cuts) for cut in cuts]


def chunked(items: Sequence[int], size: int) -> list[list[int]]:
    """``items`` in consecutive chunks of at most ``size``."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def expect_open_error(
    target: Target, error: type[FsrError], **open_kwargs: Any
) -> FsrError:
    """Assert that opening ``target`` raises exactly ``error``; return it."""
    result = full_read(target, **open_kwargs)
    assert result.outcome.kind == "fsr_error", result.outcome
    assert result.outcome.stage == "open", result.outcome
    assert type(result.exception) is error, result.outcome
    assert isinstance(result.exception, FsrError)
    return result.exception


def expect_read_errors(
    target: Target, error: type[FsrError], **open_kwargs: Any
) -> list[FsrError]:
    """Assert the file opens and that reading it gives only ``error``s; return them."""
    result = full_read(target, **open_kwargs)
    assert result.outcome.kind == "fsr_error", result.outcome
    assert result.outcome.stage == "read", result.outcome
    problems = result.problems or (
        [result.exception] if isinstance(result.exception, FsrError) else []
    )
    assert problems, result.outcome
    assert all(type(p) is error for p in problems), [repr(p) for p in problems]
    return problems


def expect_clean_read(target: Target, **open_kwargs: Any) -> FullRead:
    """Assert the file opens and reads without any error; return the result."""
    result = full_read(target, **open_kwargs)
    assert result.outcome.kind == "ok", result.outcome
    return result


def expect_junk_after_trailer(target: Target, valid_bytes: bytes, junk: int) -> None:
    """Assert that ``target``, ``valid_bytes`` and then ``junk`` bytes, is refused.

    Strictly it is ``FormatError('N bytes after the trailer')``; salvage keeps
    every record of ``valid_bytes``.
    """
    error = expect_open_error(target, FormatError)
    salvage = expect_clean_read(target, recover=True)

    assert error.reason == f"{junk} bytes after the trailer"
    assert (error.section, error.offset) == ("trailer", len(valid_bytes))
    assert salvage.recovered is True
    assert salvage.record_count == expect_clean_read(valid_bytes).record_count


def traced_peak(call: Callable[[], T]) -> tuple[T, int]:
    """Return what ``call()`` returns and the peak bytes Python allocated meanwhile."""
    tracemalloc.start()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak
