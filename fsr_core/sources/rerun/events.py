"""``TextLog`` rows as events on the timeline.

Each text log row is a marker at its time on the time base, labelled with its
entity, level and text (cut to :data:`MAX_LABEL` characters), and an entry of
the inspector's ``events`` list. At most :data:`MAX_EVENTS` are kept.
"""

from __future__ import annotations

from typing import Any, Final

from fsr_core.recording import Marker, MarkerKind
from fsr_core.sources.rerun.store import RecordingStore
from fsr_core.sources.rerun.time_bases import TimeBase

__all__ = ["MAX_EVENTS", "MAX_LABEL", "text_log_events"]

MAX_EVENTS: Final = 10_000
MAX_LABEL: Final = 200


def _first(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    return "" if value is None else str(value)


def text_log_events(
    store: RecordingStore, base: TimeBase
) -> tuple[list[Marker], list[dict[str, Any]], int]:
    """Return the markers, the report's entries and how many were left out."""
    markers: list[Marker] = []
    entries: list[dict[str, Any]] = []
    left_out = 0
    for texts in store.with_component("TextLog:text"):
        times, values = texts.on_timeline(base.name)
        levels: list[Any] = []
        found = store.component(texts.entity, "TextLog:level")
        if found is not None:
            level_times, levels = found.on_timeline(base.name)
            if len(level_times) != len(times):
                levels = []
        play = base.play(times)
        for row, value in enumerate(values):
            if len(markers) >= MAX_EVENTS:
                left_out += 1
                continue
            text = _first(value).replace("\n", " ")[:MAX_LABEL]
            level = _first(levels[row]) if levels else ""
            shown = f"[{level}] {text}" if level else text
            when = float(play[row])
            markers.append(Marker(MarkerKind.EVENT, when, f"{texts.entity}: {shown}"))
            entries.append(
                {
                    "entity": texts.entity,
                    "play_time_s": when,
                    "level": level,
                    "text": text,
                }
            )
    markers.sort(key=lambda marker: marker.play_time_s)
    entries.sort(key=lambda entry: entry["play_time_s"])
    return markers, entries, left_out
