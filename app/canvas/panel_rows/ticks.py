"""The simulator's clocks row: ``tick 12 · generation 0``, where recorded.

A simulation (an FSR file, a skelarm log, a Genesis trajectory) records the
tick and generation of each sample. A LeRobot episode, an MCAP log or a ROS
bag numbers nothing of the kind: its timeline's ticks are only its sample count, so the
row is left out for those, and for FSR files converted from them (whose
provenance names the kind they came from).
"""

from __future__ import annotations

from typing import Final

from app.canvas.panel_rows.base import LineStyle, Moment, RowLine, RowValue, Section
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "TicksRow"]

#: Sources whose timelines count samples, not simulator ticks: datasets and
#: message logs (MCAP, ROS 1 bags, rosbag2 bags).
UNTICKED_SOURCES: Final = frozenset({"lerobot", "mcap", "rosbag1", "rosbag2"})


class TicksRow:
    """The tick and generation in force, muted, under the play time."""

    name = "ticks"
    label = "Tick and generation"
    section = Section.CLOCK

    def applies(self, model: RecordingModel) -> bool:
        converted_from = model.provenance.get("source_kind")
        return (
            bool(model.timeline.segments)
            and model.source not in UNTICKED_SOURCES
            and not (
                isinstance(converted_from, str) and converted_from in UNTICKED_SOURCES
            )
        )

    def value_at(self, moment: Moment) -> RowValue:
        tick, generation = moment.model.timeline.tick_at(moment.play_time_s)
        text = f"tick {tick} · generation {generation}"
        return RowValue(lines=(RowLine(text, LineStyle.MUTED),), value=float(tick))


ROW = TicksRow()
"""The instance the registry lists."""
