"""rosbag2's own MCAP test bags open as the ``mcap`` library reads them.

The files (``tests/data/mcap/rosbag2_upstream``, Apache-2.0, see its README)
were written by rosbag2 itself. Each is read here by the ``mcap`` library too;
the topics, their schemas and message counts must agree, and
``inspect --verify`` must find exactly the faults ``mcap doctor`` reports: a
summary schema or channel the data section never wrote, statistics whose
time span is not the messages'.
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pytest
from mcap.reader import make_reader
from mcap.records import Channel, DataEnd, Message, Schema, Statistics
from mcap.stream_reader import StreamReader

from fsr_core.sources import inspect_recording, open_recording

BAGS = Path(__file__).resolve().parents[2] / "data" / "mcap" / "rosbag2_upstream"
NAMES = sorted(path.name for path in BAGS.glob("*.mcap"))


def _library_topics(path: Path) -> dict[str, tuple[str, int]]:
    """Topic: schema name and message count, as the library reads the file."""
    counts: collections.Counter[str] = collections.Counter()
    with path.open("rb") as stream:
        reader = make_reader(stream)
        summary = reader.get_summary()
        assert summary is not None
        for _, channel, _ in reader.iter_messages():
            counts[channel.topic] += 1
    schemas = summary.schemas
    return {
        channel.topic: (
            schemas[channel.schema_id].name if channel.schema_id in schemas else "",
            counts[channel.topic],
        )
        for channel in summary.channels.values()
    }


def _doctor_faults(path: Path) -> list[str]:
    """Return what mcap doctor would say, found with the library's record reader."""
    data_schemas: set[int] = set()
    data_channels: set[int] = set()
    times: list[int] = []
    faults = []
    in_summary = False
    with path.open("rb") as stream:
        for record in StreamReader(stream).records:
            if isinstance(record, DataEnd):
                in_summary = True
            elif isinstance(record, Schema | Channel):
                kind = type(record).__name__
                known = data_schemas if isinstance(record, Schema) else data_channels
                if in_summary and record.id not in known:
                    faults.append(f"{kind} {record.id} of the summary is not in")
                known.add(record.id)
            elif isinstance(record, Message):
                times.append(record.log_time)
            elif isinstance(record, Statistics) and times:
                span = (record.message_start_time, record.message_end_time)
                if span != (min(times), max(times)):
                    faults.append("Statistics spans")
    return faults


@pytest.mark.parametrize("name", NAMES)
def test_each_bag_lists_the_topics_and_counts_the_library_reads(name: str) -> None:
    path = BAGS / name
    report: dict[str, Any] = inspect_recording(path)
    ours = {t["topic"]: (t["schema"], t["messages"]) for t in report["mcap"]["topics"]}
    assert ours == _library_topics(path)
    assert report["valid"]
    model = open_recording(path)
    for channel in model.channels.values():
        assert channel.count == len(channel.times_s)


@pytest.mark.parametrize("name", NAMES)
def test_verify_finds_what_mcap_doctor_finds_in_each_bag(name: str) -> None:
    path = BAGS / name
    faults = _doctor_faults(path)
    report = inspect_recording(path, verify=True)
    problems = report["verification"]["problems"]
    assert report["valid"] == (not faults)
    assert len(problems) == len(faults), problems
    for fault in faults:
        assert any(fault in problem for problem in problems), (fault, problems)


def test_the_bags_hold_both_kinds_of_fault_and_sound_files() -> None:
    found = {name: bool(_doctor_faults(BAGS / name)) for name in NAMES}
    assert found["topics_and_services.mcap"]
    assert found["rewriter_a_0.mcap"]
    assert not found["talker.mcap"]
