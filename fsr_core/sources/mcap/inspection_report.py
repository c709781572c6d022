"""The MCAP section of the inspection report (``report["mcap"]``).

It lists what ``mcap info`` would, after the time base in effect: the
header's profile and library, how the file is indexed (summary, chunk index,
message indexes, statistics, or a scan of a file without them, with where a
cut file stops), chunk compression,
every topic with its schema, encodings, message count, rate and time span and
what the viewer makes of it (with header stamps, how many of its messages had
none and stay at their log time), the attachments and the metadata records,
and each camera's calibration epochs (``camera_calibrations``: image size,
distortion model, K and D, and when each came in force), which the MCAP
source's ``inspect`` moves onto the report's camera entries.
"""

from __future__ import annotations

from typing import Any

from fsr_core.sources.mcap.cameras import calibration_epochs
from fsr_core.sources.mcap.container import McapContents
from fsr_core.sources.mcap.reading import Reading
from fsr_core.sources.open_options import TIME_BASE_NAMES
from fsr_core.sources.toolkit.camera_calibration import Epoch

__all__ = ["contents_report"]


def _rate(count: int, first_ns: int | None, last_ns: int | None) -> float | None:
    if count < 2 or first_ns is None or last_ns is None or last_ns <= first_ns:
        return None
    return round((count - 1) / ((last_ns - first_ns) / 1e9), 6)


def _index_note(contents: McapContents) -> str:
    if contents.scan_reason:
        return contents.scan_reason
    if contents.scanned and not contents.has_summary:
        return "no index: scanned"
    if contents.scanned:
        return "summary without a chunk index: scanned"
    return "read from the summary"


def _reading_note(reading: Reading) -> str:
    if reading.every_block_read:
        return "every chunk read at open"
    return (
        "numeric topics read when first shown (their chunks are checked then; "
        "inspect --verify reads them all)"
    )


def _epoch_entry(epoch: Epoch) -> dict[str, Any]:
    profile = epoch.profile
    return {
        "start_time_ns": epoch.start_ns,
        "width": profile.width,
        "height": profile.height,
        "model": profile.distortion_model,
        "K": [[float(v) for v in row] for row in profile.K],
        "D": [float(v) for v in profile.distortion],
        "digest": epoch.digest,
    }


def contents_report(
    contents: McapContents, reading: Reading, notes: list[str]
) -> dict[str, Any]:
    """Return the ``mcap`` section and the notes of a file's report."""
    topics = []
    for channel_id, topic in reading.topics.items():
        count = reading.counts.get(channel_id, 0)
        first, last = topic.first_ns, topic.last_ns
        entry: dict[str, Any] = {
            "topic": topic.info.topic,
            "channel_id": channel_id,
            "schema": topic.info.schema_name,
            "schema_encoding": topic.info.schema_encoding,
            "message_encoding": topic.info.message_encoding,
            "messages": count,
            "rate_hz": _rate(count, first, last),
            "first_time_ns": first,
            "last_time_ns": last,
            "shown_as": topic.kind.value if topic.decoder.decode else "listed only",
        }
        if topic.decoder.problem:
            entry["not_decoded"] = topic.decoder.problem
        if topic.at_log_time:
            entry["at_log_time"] = topic.at_log_time
        if topic.failures:
            entry["failed_messages"] = topic.failures
            entry["first_failure"] = topic.first_failure
        if topic.info.metadata:
            entry["channel_metadata"] = dict(topic.info.metadata)
        topics.append(entry)
    cut = contents.cut
    all_notes = [*notes, *contents.problems, *reading.tree.problems]
    if contents.scanned:
        all_notes.insert(0, _index_note(contents))
    return {
        "notes": all_notes,
        "time_base": TIME_BASE_NAMES.get(reading.base, reading.base),
        "profile": contents.profile,
        "library": contents.library,
        "index": _index_note(contents),
        "reading": _reading_note(reading),
        "summary": contents.has_summary,
        "chunk_index": contents.chunk_indexed,
        "message_indexes": contents.message_indexed,
        "statistics": contents.statistics,
        "cut": None
        if cut is None
        else {
            "offset": cut.offset,
            "reason": cut.reason,
            "after_time_ns": cut.after_ns,
        },
        "chunks": sum(1 for block in contents.blocks if block.chunk),
        "chunk_compression": contents.compressions,
        "unreadable_chunks": [
            {"offset": block.offset, "reason": reason}
            for block, reason in reading.skipped
        ],
        "messages": sum(reading.counts.values()),
        "topics": topics,
        "attachments": [
            {
                "name": item.name,
                "media_type": item.media_type,
                "log_time_ns": item.log_time_ns,
                "size_bytes": item.size_bytes,
            }
            for item in contents.attachments
        ],
        "metadata_records": [
            {"name": name, "values": values} for name, values in contents.metadata
        ],
        "camera_calibrations": {
            camera: [_epoch_entry(epoch) for epoch in epochs]
            for camera, epochs in calibration_epochs(
                list(reading.topics.values())
            ).items()
        },
    }
