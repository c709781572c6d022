"""An MCAP log opens on the time base asked for: log time, publish time or header stamp.

``time_bases.mcap`` was written by ``mcap-ros2-support``
(``tools/make_mcap_data.py``) with three times that differ unevenly: joint
states stamped on a 100 ms grid, sent later and later and logged with
jitter; a battery voltage with no header; a target whose first two stamps
are unset (0). ``expected.json`` holds where each message lies on each base,
as read back with ``mcap``'s own reader.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from data_paths import MCAP_DATA as DATA
from data_paths import SKELARM_REACH as SKELARM_LOG

from fsr_core.errors import SchemaError
from fsr_core.recording import Channel, RecordingModel, Segment, Timeline
from fsr_core.sources import (
    TIME_BASES,
    OpenOptions,
    convert_recording,
    inspect_recording,
    open_recording,
    source_reads_option,
)
from fsr_core.sources.head import read_head
from fsr_core.sources.mcap.recording_model import TIME_VARIABLE, load_mcap
from fsr_core.sources.registry import register_source, unregister_source

TIME_BASES_FILE = DATA / "time_bases.mcap"


@cache
def _expected() -> dict[str, Any]:
    facts = json.loads((DATA / "expected.json").read_text())
    return facts["files"]["time_bases.mcap"]["time_bases"]  # type: ignore[no-any-return]


def _opened(base: str) -> RecordingModel:
    return open_recording(TIME_BASES_FILE, options=OpenOptions(time_base=base))


@pytest.fixture(autouse=True)
def _no_default_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIME_VARIABLE, raising=False)


@pytest.mark.parametrize("base", TIME_BASES)
def test_each_time_base_places_every_message_where_the_writer_put_it(
    base: str,
) -> None:
    expected = _expected()[base]
    model = _opened(base)
    assert model.metadata["time_base"] == base
    assert model.metadata["start_time_ns"] == expected["start_ns"]
    for topic, offsets_ns in expected["offsets_ns"].items():
        np.testing.assert_allclose(
            model.channels[topic].times_s,
            np.sort(np.asarray(offsets_ns)) / 1e9,
            atol=1e-9,
            err_msg=f"{base}: {topic}",
        )
    longest = max(max(offsets) for offsets in expected["offsets_ns"].values())
    assert model.duration_s == pytest.approx(longest / 1e9, abs=1e-9)


def test_the_three_bases_give_three_different_timelines() -> None:
    joints = {
        base: _opened(base).channels["/joint_states"].times_s for base in TIME_BASES
    }
    # The stamps are a 100 ms grid; the recorder logged them with jitter.
    np.testing.assert_allclose(joints["header"], np.arange(10) * 0.1, atol=1e-9)
    assert np.ptp(np.diff(joints["log"])) == pytest.approx(0.060, abs=1e-9)
    assert np.ptp(np.diff(joints["publish"])) == pytest.approx(0.0, abs=1e-9)
    assert joints["publish"][1] == pytest.approx(0.103, abs=1e-9)
    durations = {base: _opened(base).duration_s for base in TIME_BASES}
    assert durations == pytest.approx({"log": 0.957, "publish": 0.927, "header": 0.9})


def test_topics_without_header_stamps_are_named_not_mixed_in_silently() -> None:
    model = _opened("header")
    left = _expected()["header"]["at_log_time"]
    assert left == {"/battery/voltage": 5, "/target": 2}
    topics = {entry["topic"]: entry for entry in model.report["topics"]}
    assert {
        name: entry["at_log_time"]
        for name, entry in topics.items()
        if "at_log_time" in entry
    } == left
    (note,) = [n for n in model.report["notes"] if n.startswith("header stamps")]
    assert "/battery/voltage (all 5)" in note
    assert "/target (2 of 4)" in note
    assert "/joint_states" not in note
    assert model.report["time_base"] == "header stamp"


def test_other_time_bases_leave_no_note() -> None:
    for base in ("log", "publish"):
        model = _opened(base)
        assert not [n for n in model.report["notes"] if "header" in n]
        assert all("at_log_time" not in entry for entry in model.report["topics"])


def test_a_foxglove_json_topic_without_a_timestamp_is_named() -> None:
    model = open_recording(
        DATA / "foxglove_protobuf.mcap", options=OpenOptions(time_base="header")
    )
    notes = [n for n in model.report["notes"] if n.startswith("header stamps")]
    # The Foxglove messages carry ``timestamp``; the JSON arm state has none.
    assert notes == [
        "header stamps: 1 topic(s) have messages without one (no header, or the "
        "unset stamp 0), placed at their log time: /arm/state (all 100)"
    ]


def test_the_option_overrides_the_environment_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(TIME_VARIABLE, "header")
    assert open_recording(TIME_BASES_FILE).metadata["time_base"] == "header"
    assert _opened("publish").metadata["time_base"] == "publish"
    assert load_mcap(TIME_BASES_FILE, time_base="log").metadata["time_base"] == "log"


def test_an_unknown_time_base_is_refused() -> None:
    # Any printable name is an option (a Rerun recording's timeline); the
    # MCAP source refuses one it does not offer, as the project's error.
    with pytest.raises(SchemaError, match="time base 'stamp': an MCAP log"):
        open_recording(TIME_BASES_FILE, options=OpenOptions(time_base="stamp"))
    with pytest.raises(ValueError, match="not a timeline name"):
        OpenOptions(time_base="")
    with pytest.raises(ValueError, match="time base 'stamp'"):
        load_mcap(TIME_BASES_FILE, time_base="stamp")


def test_inspect_reports_the_span_of_the_base_asked_for() -> None:
    spans = {}
    for base in TIME_BASES:
        report = inspect_recording(TIME_BASES_FILE, options=OpenOptions(time_base=base))
        assert report["metadata"]["time_base"] == base
        spans[base] = report["duration_s"]
    assert spans == pytest.approx({"log": 0.957, "publish": 0.927, "header": 0.9})


def test_convert_writes_the_play_times_of_the_base_asked_for(tmp_path: Path) -> None:
    output = tmp_path / "stamped.fsr"
    result = convert_recording(
        TIME_BASES_FILE, output, options=OpenOptions(time_base="header")
    )
    assert result.output == output
    converted = open_recording(output)
    np.testing.assert_allclose(
        converted.channels["/joint_states"].times_s, np.arange(10) * 0.1, atol=1e-9
    )
    assert converted.provenance["mcap_time_base"] == "header"


def test_only_the_mcap_source_reads_the_time_base() -> None:
    assert source_reads_option("mcap", "time_base")
    assert not source_reads_option("fsr", "time_base")
    assert not source_reads_option("skelarm", "time_base")
    assert not source_reads_option("no such source", "time_base")


def test_a_recording_of_another_kind_ignores_the_time_base() -> None:
    plain = open_recording(SKELARM_LOG)
    based = open_recording(SKELARM_LOG, options=OpenOptions(time_base="header"))
    assert "time_base" not in based.metadata
    assert based.duration_s == plain.duration_s
    report = inspect_recording(SKELARM_LOG, options=OpenOptions(time_base="publish"))
    assert report["duration_s"] == plain.duration_s


class _PathOnlySource:
    """A plugin written before open options: ``open`` takes the path alone."""

    name = "path_only"
    description = "path-only test log"
    patterns = ("*.pathonly",)

    def sniff(self, path: Path) -> bool:
        return read_head(path).startswith(b"PATHONLY\n")

    def open(self, path: Path) -> RecordingModel:
        times = np.array([0.0, 0.5, 1.0])
        channel = Channel("x", times, times[:, None], "m", "x", ("x",))
        return RecordingModel(
            path=path,
            source=self.name,
            title=path.stem,
            timeline=Timeline((Segment(0, 0.0, 1.0, 0.0, 0, 2),)),
            channels={"x": channel},
        )

    def unavailable_reason(self) -> str | None:
        return None


def test_a_source_without_options_opens_as_before(tmp_path: Path) -> None:
    log = tmp_path / "run.pathonly"
    log.write_bytes(b"PATHONLY\n")
    register_source(_PathOnlySource())
    try:
        model = open_recording(log, options=OpenOptions(time_base="header"))
        report = inspect_recording(log, options=OpenOptions(time_base="header"))
        assert not source_reads_option("path_only", "time_base")
    finally:
        unregister_source("path_only")
    assert model.duration_s == 1.0
    assert report["duration_s"] == 1.0
