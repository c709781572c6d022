"""MCAP files that are cut, flipped or lying open up to what is sound, or fail closed.

The files are written by the ``mcap`` library's own writer in the test; the
damage is done to their bytes afterwards.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from arm_mcap import START_NS, write_arm_mcap
from mcap.stream_reader import StreamReader

from fsr_core.errors import FsrError
from fsr_core.recording import Integrity, MarkerKind
from fsr_core.sources import inspect_recording, open_recording

_MESSAGES = 120
_STEP_NS = 10_000_000


def _write(path: Path, *, finish: bool = True, **options: object) -> Path:
    messages = (
        (
            START_NS + index * _STEP_NS,
            {"q": [index * 0.5, -index * 1.0], "ok": index % 2 == 0},
        )
        for index in range(_MESSAGES)
    )
    return write_arm_mcap(path, messages, finish=finish, **options)


@pytest.fixture
def sealed(tmp_path: Path) -> Path:
    return _write(tmp_path / "sealed.mcap", chunk_size=1024)


def test_a_sealed_file_gives_every_message_at_its_log_time(sealed: Path) -> None:
    model = open_recording(sealed)
    channel = model.channels["/arm/state"]
    assert channel.columns == ("q.0", "q.1", "ok")
    np.testing.assert_allclose(channel.values[:, 0], np.arange(_MESSAGES) * 0.5)
    np.testing.assert_allclose(channel.times_s, np.arange(_MESSAGES) * 0.01)
    assert model.integrity is Integrity.VALID
    assert model.report["index"] == "read from the summary"


def test_a_file_its_writer_never_finished_opens_by_a_scan(tmp_path: Path) -> None:
    path = _write(tmp_path / "unfinished.mcap", finish=False, chunk_size=1024)
    model = open_recording(path)
    channel = model.channels["/arm/state"]
    # The writer flushed only the chunks it had closed: a prefix of the messages.
    assert 0 < len(channel.times_s) <= _MESSAGES
    np.testing.assert_allclose(
        channel.values[:, 0], np.arange(len(channel.times_s)) * 0.5
    )
    assert model.integrity is Integrity.RECOVERED
    assert model.report["notes"][0] == "no index: scanned"
    assert "without a footer" in model.integrity_reason
    assert any(marker.kind is MarkerKind.TERMINAL_CUT for marker in model.markers)


def test_a_cut_file_keeps_every_chunk_before_the_cut(
    sealed: Path, tmp_path: Path
) -> None:
    data = sealed.read_bytes()
    whole = open_recording(sealed).channels["/arm/state"]
    cut = tmp_path / "cut.mcap"
    cut.write_bytes(data[: len(data) // 2])
    model = open_recording(cut)
    kept = model.channels["/arm/state"]
    assert 0 < len(kept.times_s) < _MESSAGES
    np.testing.assert_array_equal(kept.values, whole.values[: len(kept.times_s)])
    assert model.integrity is Integrity.RECOVERED
    assert str(model.report["cut"]["offset"]) in model.integrity_reason


def test_every_cut_and_flip_opens_or_fails_closed(sealed: Path, tmp_path: Path) -> None:
    data = sealed.read_bytes()
    rng = random.Random(20261205)
    damaged = tmp_path / "damaged.mcap"
    outcomes = {"opened": 0, "refused": 0}
    cases = [("cut", n) for n in range(0, len(data), max(len(data) // 60, 1))]
    cases += [("flip", rng.randrange(len(data))) for _ in range(120)]
    for kind, where in cases:
        if kind == "cut":
            damaged.write_bytes(data[:where])
        else:
            flipped = bytearray(data)
            flipped[where] ^= 1 << rng.randrange(8)
            damaged.write_bytes(bytes(flipped))
        try:
            model = open_recording(damaged)
        except FsrError as exc:
            message = str(exc)
            outcomes["refused"] += 1
            assert message.startswith(str(damaged))
            continue
        outcomes["opened"] += 1
        channel = model.channels.get("/arm/state")
        if channel is not None and model.integrity is Integrity.VALID:
            # A file that claims to be sound holds the values that were written
            # (a flip inside a JSON number the CRC does not cover aside).
            assert len(channel.times_s) <= _MESSAGES
    assert outcomes["opened"] > 0
    assert outcomes["refused"] > 0


def _lie_about_first_chunk_size(path: Path) -> None:
    """Make the first chunk's header claim 1 TiB of records."""
    data = bytearray(path.read_bytes())
    offset = data.index(b"\x06", 8)  # the first chunk record after the header
    while data[offset] != 0x06:
        offset = data.index(b"\x06", offset + 1)
    size_at = offset + 9 + 16  # opcode, length, start and end time
    data[size_at : size_at + 8] = (1 << 40).to_bytes(8, "little")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("finish", [True, False], ids=["indexed", "scanned"])
def test_a_chunk_that_claims_a_huge_size_is_refused_before_allocating(
    tmp_path: Path, finish: bool
) -> None:
    path = _write(tmp_path / "liar.mcap", finish=finish, chunk_size=512)
    _lie_about_first_chunk_size(path)
    model = open_recording(path)
    assert "budget" in model.integrity_reason
    assert "FSR_VIEWER_MEMORY_BUDGET" in model.integrity_reason
    # Scanned, the lie is in the first chunk: nothing could be read, so the
    # file is not called recovered.
    expected = Integrity.DEGRADED if finish else Integrity.INVALID
    assert model.integrity is expected


def test_inspect_reports_topics_counts_and_the_index(sealed: Path) -> None:
    report = inspect_recording(sealed, verify=True)
    assert report["source"] == "mcap"
    own = report["mcap"]
    assert own["summary"]
    assert own["chunk_index"]
    assert own["statistics"]
    (topic,) = own["topics"]
    assert topic["topic"] == "/arm/state"
    assert topic["messages"] == _MESSAGES
    assert topic["rate_hz"] == pytest.approx(100.0)
    assert topic["schema_encoding"] == "jsonschema"
    # Every record is checked: the library's stream of them, less the footer,
    # with each chunk counted beside the records inside it.
    with sealed.open("rb") as stream:
        records = list(StreamReader(stream).records)
    chunks = report["mcap"]["chunks"]
    assert chunks > 0
    assert report["verification"]["checked_records"] == len(records) - 1 + chunks


def test_verify_reports_an_attachment_whose_bytes_changed(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "data" / "mcap"
    data = bytearray((source / "layout_chunked_zstd.mcap").read_bytes())
    name = data.index(b"blob.bin")
    data[name + 60] ^= 0x40  # inside the attachment's data, past its headers
    damaged = tmp_path / "damaged_attachment.mcap"
    damaged.write_bytes(bytes(data))
    clean = inspect_recording(source / "layout_chunked_zstd.mcap", verify=True)
    assert clean["verification"]["problems"] == []
    report = inspect_recording(damaged, verify=True)
    (problem,) = report["verification"]["problems"]
    assert "attachment 'blob.bin'" in problem
    assert "CRC-32" in problem


@pytest.mark.parametrize(
    "options",
    [{}, {"use_chunking": False}, {"use_chunking": False, "use_statistics": False}],
    ids=["indexed", "unchunked", "unchunked-no-statistics"],
)
def test_a_message_past_2_63_ns_fails_alone_and_never_crashes(
    tmp_path: Path, options: dict[str, object]
) -> None:
    # A bit flip in a chunk without a CRC made such a time: no int64 holds it.
    messages = (
        ((1 << 63) + 5 if index == 7 else START_NS + index * _STEP_NS, {"q": index})
        for index in range(20)
    )
    path = write_arm_mcap(tmp_path / "late.mcap", messages, schema=b"{}", **options)
    report = inspect_recording(path, verify=True)  # every message read at open
    (topic,) = report["mcap"]["topics"]
    assert topic["failed_messages"] == 1
    assert "past 2**63 ns" in topic["first_failure"]
    model = open_recording(path)  # the indexed file: read when first shown
    assert model.duration_s == pytest.approx(0.19)
    channel_values = model.channels["/arm/state"]
    np.testing.assert_allclose(
        channel_values.times_s, [i * 0.01 for i in range(20) if i != 7]
    )
    assert any("past 2**63 ns" in str(note) for note in model.report["notes"]) or (
        model.report["topics"][0].get("failed_messages") == 1
    )
