"""The dataset episode row: ``Episode 3 · frame 42``, for an episode of a dataset.

A LeRobot episode's model says which episode it is in its metadata
(``episode_index``, with ``dataset`` and ``total_episodes``); an FSR file
converted from one keeps ``episode_index`` and ``dataset`` (the root's path)
in its provenance. The frame is the dataset's ``frame_index``, counted from 0
along the episode's timeline. Recordings that are no episode have no row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral
from pathlib import PurePath
from typing import Any, Final

from app.canvas.panel_rows.base import LineStyle, Moment, RowLine, RowValue, Section
from app.canvas.shown_text import visible_text
from fsr_core.recording import RecordingModel

__all__ = ["ROW", "EpisodeFacts", "EpisodeRow", "episode_facts"]

#: Characters of the dataset's name shown (it comes from the file system).
_NAME_CHARS: Final = 80


@dataclass(frozen=True)
class EpisodeFacts:
    """Which episode of which dataset a recording is."""

    index: int
    dataset: str = ""
    total_episodes: int | None = None


def _count(value: Any) -> int | None:
    """Return ``value`` when it is a count: a whole number >= 0 (not a bool)."""
    if not isinstance(value, Integral) or isinstance(value, bool):
        return None
    count = int(value)
    return count if count >= 0 else None


def _facts(found: Mapping[str, Any]) -> EpisodeFacts | None:
    index = _count(found.get("episode_index"))
    if index is None:
        return None
    dataset = found.get("dataset")
    name = PurePath(dataset).name if isinstance(dataset, str) else ""
    return EpisodeFacts(index, name, _count(found.get("total_episodes")))


def episode_facts(model: RecordingModel) -> EpisodeFacts | None:
    """Return the episode ``model`` is, from its metadata or provenance, if any."""
    return _facts(model.metadata) or _facts(model.provenance)


class EpisodeRow:
    """The episode's index and frame; the dataset's name and size, muted."""

    name = "episode"
    label = "Episode"
    section = Section.CLOCK

    def applies(self, model: RecordingModel) -> bool:
        return episode_facts(model) is not None

    def value_at(self, moment: Moment) -> RowValue:
        facts = episode_facts(moment.model)
        if facts is None:
            return RowValue()
        text = f"Episode {facts.index}"
        frame = _frame(moment)
        if frame is not None:
            text += f" · frame {frame}"
        lines = [RowLine(text)]
        dataset = _dataset_text(facts)
        if dataset:
            lines.append(RowLine(dataset, LineStyle.MUTED))
        return RowValue(lines=tuple(lines), value=float(facts.index))


def _frame(moment: Moment) -> int | None:
    """Return the episode's frame in force: its tick, counted from the first."""
    timeline = moment.model.timeline
    if not timeline.segments:
        return None
    tick, _ = timeline.tick_at(moment.play_time_s)
    return tick - timeline.segments[0].first_tick


def _dataset_text(facts: EpisodeFacts) -> str:
    """Return ``"tiny_v30 (10 episodes)"``, or as much of it as is known."""
    name = visible_text(facts.dataset, _NAME_CHARS) if facts.dataset else ""
    total = facts.total_episodes
    if total is None:
        return name
    count = f"{total:,} episode{'' if total == 1 else 's'}"
    return f"{name} ({count})" if name else count


ROW = EpisodeRow()
"""The instance the registry lists."""
