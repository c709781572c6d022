"""The harness itself: it must see a crash, a hang and a silent change when they happen.

A classifier that reported everything as ``ok`` or ``fsr_error`` would make
every sweep pass. These tests feed it each outcome on purpose.
"""

from __future__ import annotations

import io
import signal
import struct
from typing import Any

import numpy as np
import pytest
from hostile_harness import (
    CaseTimeoutError,
    fingerprint_differences,
    flip_outcome,
    full_read,
    record_spans,
    take_fingerprint,
    value_digest,
    watchdog,
)

from fsr_core.errors import CorruptRecordError
from fsr_core.format.reader import FsrReader


def test_fsr_error_at_open_is_classified_as_fsr_error(valid_bytes: bytes) -> None:
    result = full_read(valid_bytes[:100])

    assert result.outcome.label == "fsr_error(TruncatedFileError)@open"


def test_foreign_exception_at_open_is_classified_as_crash(
    valid_bytes: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> FsrReader:
        raise KeyError("streams")

    monkeypatch.setattr(FsrReader, "open", broken)

    result = full_read(valid_bytes)

    assert result.outcome.label == "crash(KeyError)@open"
    assert isinstance(result.exception, KeyError)


def test_foreign_exception_while_reading_is_classified_as_crash(
    valid_bytes: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: FsrReader) -> list[Any]:
        raise struct.error("unpack requires a buffer of 80 bytes")

    monkeypatch.setattr(FsrReader, "verify", broken)

    result = full_read(valid_bytes)

    assert result.outcome.label == "crash(error)@read"


def test_endless_loop_is_classified_as_hang(
    valid_bytes: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    def spin(self: FsrReader) -> list[Any]:
        while True:
            pass

    monkeypatch.setattr(FsrReader, "verify", spin)

    result = full_read(valid_bytes, timeout_s=0.2)

    assert result.outcome.label == "hang@read"


def test_watchdog_is_disarmed_and_the_handler_restored_after_a_case() -> None:
    before = signal.getsignal(signal.SIGALRM)

    with watchdog(5.0):
        armed = signal.getitimer(signal.ITIMER_REAL)

    assert armed[0] > 0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before


def test_watchdog_error_is_not_an_exception_subclass() -> None:
    """Code under test catching ``Exception`` cannot swallow the watchdog."""
    assert not issubclass(CaseTimeoutError, Exception)


def test_changed_decoded_value_is_seen_by_the_fingerprint(
    valid_bytes: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a sweep would call ``silent``: no error, but one value differs."""
    intact = full_read(valid_bytes)
    assert intact.fingerprint is not None
    original = FsrReader._decode

    def tampered(self: FsrReader, record: Any) -> Any:
        value = original(self, record)
        if record.stream == "observations.robot.joints" and record.stream_seq == 1:
            return np.asarray(value) + 1.0
        return value

    monkeypatch.setattr(FsrReader, "_decode", tampered)

    result = full_read(valid_bytes)

    assert result.outcome.kind == "ok"
    assert result.fingerprint is not None
    differences = fingerprint_differences(result.fingerprint, intact.fingerprint)
    assert differences == ["record/observations.robot.joints/1"]


def test_flip_outcome_reports_detection_and_location(valid_bytes: bytes) -> None:
    baseline = full_read(valid_bytes).fingerprint
    assert baseline is not None
    spans = record_spans(valid_bytes)
    start, end = spans[3]

    at_open = flip_outcome(valid_bytes, baseline, spans, 0)
    on_read = flip_outcome(valid_bytes, baseline, spans, end - 1)

    assert at_open == ("detected_open", "BadMagicError")
    assert on_read[0] == "detected_read"
    assert start < end


def test_fingerprint_covers_frames_epochs_and_metadata(valid_bytes: bytes) -> None:
    with FsrReader.open(io.BytesIO(valid_bytes)) as reader:
        prints = take_fingerprint(reader)
        records = reader.record_count

    assert sum(key.startswith("record/") for key in prints) == records
    assert any(key.startswith("media/") for key in prints)
    assert any(key.startswith("epoch/") for key in prints)
    assert {"metadata", "streams", "footer", "profile"} <= set(prints)


def test_value_digest_distinguishes_dtype_shape_and_type() -> None:
    assert value_digest(np.zeros(2)) != value_digest(np.zeros(2, dtype=np.float32))
    assert value_digest(np.zeros(2)) != value_digest(np.zeros((1, 2)))
    assert value_digest(1) != value_digest(1.0)
    assert value_digest(-0.0) != value_digest(0.0)
    assert value_digest({"a": 1}) == value_digest({"a": 1})


def test_read_errors_are_collected_not_raised(valid_bytes: bytes) -> None:
    spans = record_spans(valid_bytes)
    data = bytearray(valid_bytes)
    data[spans[2][0]] ^= 1

    result = full_read(bytes(data))

    assert result.outcome.stage == "read"
    assert all(isinstance(p, CorruptRecordError) for p in result.problems)
