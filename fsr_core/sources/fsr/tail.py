"""What a recovered FSR file lost at its end, as timeline spans.

A crashed writer loses the batches it had not sealed, and each stream loses a
different amount: a 500 Hz observation stream seals often, a 15 Hz camera
rarely. After recovery the play time runs to the longest surviving stream,
so the streams that stop earlier leave a tail where the recording is
incomplete. :func:`lost_tail_markers` shades that tail on the timeline (one
span per stream that ends early), so the viewer never lets a missing camera
or channel pass for a still scene.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.recording import Marker, MarkerKind, Timeline

__all__ = ["lost_tail_markers", "recovered_copy_reason"]

#: Streams sampled at a rate; the others (events, task, calibration, meshes)
#: legitimately stop early.
_PERIODIC: Final = frozenset({StreamKind.NUMERIC, StreamKind.CAMERA_RGB})
#: A stream ends early when its next sample was due this many periods before
#: the end of the recording.
_LATE_PERIODS: Final = 1.5


def lost_tail_markers(reader: FsrReader, timeline: Timeline) -> list[Marker]:
    """Return a span from each periodic stream's last sample to the end.

    Only for recovered files (opened with recovery, or recovered copies);
    a stream is reported when it stops more than one and a half of its own
    sample periods before the end of the recording.
    """
    footer = reader.footer
    if not reader.recovered and (footer is None or footer.recovered is None):
        return []
    end_s = timeline.duration_s
    markers: list[Marker] = []
    for info in reader.streams.values():
        if info.spec.kind not in _PERIODIC or info.record_count < 2:
            continue
        rows = reader.rows(info.name)
        last = rows[rows["generation"] == rows["generation"][-1]]
        times = last["sim_time_s"]
        if len(times) < 2:
            continue
        period_s = float(np.median(np.diff(times)))
        stop_s = float(timeline.play_time(int(last["generation"][-1]), times[-1]))
        if end_s - stop_s > _LATE_PERIODS * period_s:
            label = (
                f"{info.name} ends at {stop_s:.3f} s: its tail was lost "
                "(recovered file)"
            )
            markers.append(Marker(MarkerKind.UNREADABLE, stop_s, label, end_s))
    return markers


def recovered_copy_reason(recovered: dict[str, object]) -> str:
    """Return the badge reason of a recovered copy from its footer entry."""
    kept = recovered.get("records_kept")
    trusted, source = recovered.get("trusted_bytes"), recovered.get("source_bytes")
    reason = recovered.get("reason")
    parts = ["recovered copy"]
    if isinstance(trusted, int) and isinstance(source, int) and source > 0:
        parts.append(f"{100 * trusted / source:.0f}% of the damaged file kept")
    if isinstance(kept, int):
        parts.append(f"{kept} records")
    text = ", ".join(parts)
    return f"{text} ({reason})" if isinstance(reason, str) and reason else text
