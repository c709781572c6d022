"""The transport bar: start, frame steps, play/pause, end, previous/next file."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFont, QIcon
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStyle,
    QToolButton,
    QWidget,
)

from app.canvas.panel_rows.episode import episode_facts
from app.canvas.panel_rows.ticks import ROW as TICKS_ROW
from app.window.state import PlaybackClock
from app.window.widgets.plain_text import fixed_text
from fsr_core.recording import RecordingModel

__all__ = ["TransportBar", "time_readout"]


def time_readout(
    clock: PlaybackClock, model: RecordingModel | None, play_time_s: float
) -> str:
    """Return the transport's readout of ``model`` at ``play_time_s``.

    ``t = 1.234 s · tick 617 · gen 0 · frame 37/180`` for a simulation, whose
    timeline records ticks and generations; ``t = 0.300 s · episode 3 · frame
    4/8`` for a dataset's episode; the time and the frame alone for the rest
    (an MCAP log counts no ticks). The rows of the side panel decide which.
    """
    parts = [f"t = {fixed_text(play_time_s, 3)} s"]
    if model is not None and TICKS_ROW.applies(model):
        tick, generation = model.timeline.tick_at(play_time_s)
        parts.append(f"tick {tick}")
        parts.append(f"gen {generation}")
    facts = None if model is None else episode_facts(model)
    if facts is not None:
        parts.append(f"episode {facts.index}")
    index = clock.frame_index_at(play_time_s)
    parts.append(f"frame {index + 1}/{clock.frame_count}")
    return " · ".join(parts)


class TransportBar(QWidget):
    """Buttons that drive the playback clock and the playlist, with the time readout."""

    previous_file_requested = Signal()
    next_file_requested = Signal()

    def __init__(self, clock: PlaybackClock, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clock = clock
        self._model: RecordingModel | None = None
        pixmap = QStyle.StandardPixmap
        self.start_button = self._button(
            pixmap.SP_MediaSkipBackward, "Back to start (R / Home)", clock.to_start
        )
        self.step_back_button = self._button(
            pixmap.SP_MediaSeekBackward,
            "Previous frame (← / B)",
            lambda: clock.step(-1),
        )
        self.play_button = self._button(
            pixmap.SP_MediaPlay, "Play (Space)", clock.toggle
        )
        self.play_button.setCheckable(True)
        self.step_forward_button = self._button(
            pixmap.SP_MediaSeekForward, "Next frame (→ / F)", lambda: clock.step(1)
        )
        self.end_button = self._button(
            pixmap.SP_MediaSkipForward, "Last frame (End)", clock.to_end
        )
        self.previous_file_button = self._button(
            pixmap.SP_ArrowUp, "Previous file (P)", self.previous_file_requested.emit
        )
        self.next_file_button = self._button(
            pixmap.SP_ArrowDown, "Next file (N)", self.next_file_requested.emit
        )
        self.readout = QLabel()
        self.readout.setObjectName("transport_readout")
        self.readout.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.readout.font())
        font.setFamily("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.readout.setFont(font)
        self.readout.setSizePolicy(
            QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred
        )
        self._lay_out()
        clock.playing_changed.connect(self._on_clock_playing_changed)
        clock.position_changed.connect(self._on_clock_position_changed)
        self._on_clock_playing_changed(clock.playing)

    def _icon(self, pixmap: QStyle.StandardPixmap) -> QIcon:
        return self.style().standardIcon(pixmap)

    def _button(
        self, pixmap: QStyle.StandardPixmap, tip: str, slot: Callable[[], object]
    ) -> QToolButton:
        button = QToolButton(self)
        button.setIcon(self._icon(pixmap))
        button.setIconSize(QSize(20, 20))
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.clicked.connect(slot)
        return button

    def _lay_out(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 2)
        layout.setSpacing(2)
        for button in (
            self.start_button,
            self.step_back_button,
            self.play_button,
            self.step_forward_button,
            self.end_button,
        ):
            layout.addWidget(button)
        layout.addSpacing(10)
        layout.addWidget(self.previous_file_button)
        layout.addWidget(self.next_file_button)
        layout.addSpacing(14)
        layout.addWidget(self.readout)

    def set_model(self, model: RecordingModel | None) -> None:
        """Read the readout's clocks (ticks, the episode) from ``model``."""
        self._model = model
        self._on_clock_position_changed(self._clock.position_s)

    def set_file_buttons(self, *, previous: bool, following: bool) -> None:
        """Enable the previous/next file buttons when there is such a file."""
        self.previous_file_button.setEnabled(previous)
        self.next_file_button.setEnabled(following)

    def _on_clock_playing_changed(self, playing: bool) -> None:
        pixmap = QStyle.StandardPixmap
        icon = pixmap.SP_MediaPause if playing else pixmap.SP_MediaPlay
        self.play_button.setIcon(self._icon(icon))
        self.play_button.setToolTip("Pause (Space)" if playing else "Play (Space)")
        self.play_button.setChecked(playing)
        self.step_back_button.setEnabled(not playing)
        self.step_forward_button.setEnabled(not playing)

    def _on_clock_position_changed(self, play_time_s: float) -> None:
        self.readout.setText(time_readout(self._clock, self._model, play_time_s))
