"""The public MCAP conformance suite reads as its expected records say.

foxglove/mcap keeps its conformance files (``tests/conformance/data``) as
large-file pointers and their expected records as JSON.
``tools/mcap_conformance.py`` builds the 416 files byte for byte, and
``tests/data/mcap/conformance/expected.json`` holds each pointer's SHA-256 and
size with what its JSON says the file holds (topics with their schemas,
messages, attachments, metadata). Each file is built here, checked against
its pointer, read through the MCAP source's reader, and verified as
``inspect --verify`` does.
"""

from __future__ import annotations

import hashlib
import json
import struct
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tool_scripts import import_tool

from fsr_core.sources import inspect_recording, open_recording
from fsr_core.sources.mcap.block_reading import read_block
from fsr_core.sources.mcap.container import McapContents, index_file

DATA = Path(__file__).resolve().parents[2] / "data" / "mcap"
EXPECTED = DATA / "conformance" / "expected.json"
BASES = (
    "NoData",
    "OneSchemalessMessage",
    "OneMessage",
    "OneAttachment",
    "OneMetadata",
    "TenMessages",
)


@cache
def _expected() -> dict[str, Any]:
    return json.loads(EXPECTED.read_text())  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("conformance")
    paths = import_tool("mcap_conformance").write_all(folder)
    return {path.stem: path for path in paths}


def _topics(contents: McapContents) -> dict[str, dict[str, object]]:
    return {
        str(channel_id): {
            "topic": topic.topic,
            "message_encoding": topic.message_encoding,
            "metadata": topic.metadata,
            "schema_name": topic.schema_name,
            "schema_encoding": topic.schema_encoding,
            "schema_data": topic.schema_data.hex(),
        }
        for channel_id, topic in contents.topics.items()
    }


def _messages(path: Path, contents: McapContents) -> list[list[object]]:
    found: list[list[object]] = []
    for block in contents.blocks:
        found += [
            [m.channel_id, m.sequence, m.log_time_ns, m.publish_time_ns, m.data.hex()]
            for m in read_block(path, block, None, verify=True)
        ]
    return found


def _mismatches(path: Path, expected: dict[str, Any]) -> list[str]:
    contents = index_file(path, verify=True)
    wrong = []
    if contents.problems or contents.cut is not None:
        wrong.append(f"problems {contents.problems}, cut {contents.cut}")
    if _topics(contents) != expected["topics"]:
        wrong.append(f"topics {_topics(contents)}")
    messages = _messages(path, contents)
    if messages != expected["messages"]:
        wrong.append(f"messages {messages}")
    counts = {str(k): t.count for k, t in contents.topics.items()}
    wanted = {k: sum(1 for m in expected["messages"] if str(m[0]) == k) for k in counts}
    if contents.counted and counts != wanted:
        wrong.append(f"counts {counts}")
    data = path.read_bytes()
    attachments = [
        [a.name, a.media_type, a.log_time_ns, a.create_time_ns, a.size_bytes]
        for a in contents.attachments
    ]
    wanted_attachments = [[*a[:4], len(a[4]) // 2] for a in expected["attachments"]]
    if attachments != wanted_attachments or any(
        bytes.fromhex(a[4]) not in data[found.offset :]
        for a, found in zip(expected["attachments"], contents.attachments, strict=False)
    ):
        wrong.append(f"attachments {attachments}")
    if [[name, values] for name, values in contents.metadata] != expected["metadata"]:
        wrong.append(f"metadata {contents.metadata}")
    return wrong


@pytest.mark.parametrize("base", BASES)
def test_every_variant_is_the_suites_file_and_reads_as_its_json_expects(
    suite: dict[str, Path], base: str
) -> None:
    files = {
        name: f
        for name, f in _expected()["files"].items()
        if name.split("-")[0] == base
    }
    assert files, base
    failures = {}
    for name, pinned in files.items():
        path = suite[name]
        data = path.read_bytes()
        if (hashlib.sha256(data).hexdigest(), len(data)) != (
            pinned["sha256"],
            pinned["size"],
        ):
            failures[name] = ["not the bytes its pointer names"]
            continue
        wrong = _mismatches(path, _expected()["contents"][pinned["contents"]])
        if wrong:
            failures[name] = wrong
    assert not failures, f"{len(failures)} of {len(files)}: {failures}"


def test_the_suite_has_416_files_and_builds_each(suite: dict[str, Path]) -> None:
    assert len(_expected()["files"]) == 416
    assert set(suite) == set(_expected()["files"])


@pytest.mark.parametrize("base", BASES)
def test_every_variant_verifies_valid_and_inspects_as_expected(
    suite: dict[str, Path], base: str
) -> None:
    wrong = {}
    for name, path in suite.items():
        if name.split("-")[0] != base:
            continue
        expected = _expected()["contents"][_expected()["files"][name]["contents"]]
        report = inspect_recording(path, verify=True)
        if not report["valid"] or report["verification"]["problem_count"]:
            wrong[name] = report["verification"]["problems"]
        listed = [
            [
                t["channel_id"],
                t["topic"],
                t["schema"],
                t["schema_encoding"],
                t["messages"],
            ]
            for t in report["mcap"]["topics"]
        ]
        wanted = [
            [
                int(channel_id),
                topic["topic"],
                topic["schema_name"],
                topic["schema_encoding"],
                sum(1 for m in expected["messages"] if str(m[0]) == channel_id),
            ]
            for channel_id, topic in expected["topics"].items()
        ]
        if listed != wanted:
            wrong[name] = listed
        if len(report["mcap"]["attachments"]) != len(expected["attachments"]):
            wrong[name] = report["mcap"]["attachments"]
        if len(report["mcap"]["metadata_records"]) != len(expected["metadata"]):
            wrong[name] = report["mcap"]["metadata_records"]
    assert not wrong, wrong


def _without_summary_schemas(data: bytes) -> bytes:
    """Return ``data`` without its summary's Schema records (and summary offsets).

    The data section stays as it is; the footer points at the new summary and
    carries no CRC, as a writer that repeats channels but not schemas leaves it.
    """
    footer_at = len(data) - 8 - 29
    summary_start = struct.unpack_from("<Q", data, footer_at + 9)[0]
    kept = bytearray()
    position = summary_start
    while position < footer_at:
        opcode, length = struct.unpack_from("<BQ", data, position)
        end = position + 9 + length
        if opcode not in (0x03, 0x0E):
            kept += data[position:end]
        position = end
    footer = struct.pack("<BQQQI", 0x02, 20, summary_start, 0, 0)
    return data[:summary_start] + bytes(kept) + footer + data[-8:]


def test_a_rosbag2_file_whose_summary_repeats_channels_only_keeps_its_channels(
    tmp_path: Path,
) -> None:
    original = DATA / "rosbag2_run" / "rosbag2_run.mcap"
    rewritten = tmp_path / "rosbag2_run.mcap"
    rewritten.write_bytes(_without_summary_schemas(original.read_bytes()))
    assert b"\x03" not in _summary_opcodes(rewritten.read_bytes())
    before, after = open_recording(original), open_recording(rewritten)
    assert after.channels.keys() == before.channels.keys()
    assert len(after.channels) > 0
    for name, channel in before.channels.items():
        np.testing.assert_array_equal(after.channels[name].values, channel.values)
    report = inspect_recording(rewritten, verify=True)
    assert report["valid"], report["verification"]["problems"]
    assert not [note for note in report["notes"] if "does not hold" in note]


def _summary_opcodes(data: bytes) -> bytes:
    footer_at = len(data) - 8 - 29
    position = struct.unpack_from("<Q", data, footer_at + 9)[0]
    found = bytearray()
    while position < footer_at:
        opcode, length = struct.unpack_from("<BQ", data, position)
        found.append(opcode)
        position += 9 + length
    return bytes(found)
