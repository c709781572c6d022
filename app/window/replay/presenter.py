"""Where a comparison shows in the window.

The comparison dock (overlay and error plots, the verdict) shows the last
comparison made. While one of its two files plays, the timeline marks the
first divergence (hover: channel or camera, time, error), the inspector
lists the verdict, the files, the replay, every channel and every camera, and
the channel plots draw the other file's series dashed over the playing one's.

The presenter is handed those views as small protocols, with the main
window only as the ``QMainWindow`` that holds the dock; the window connects
the dock's plots to its playback clock.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMainWindow

from app.window.ports import PlaybackPosition, StatusLine
from app.window.replay.comparison_plots import ComparisonDock
from app.window.replay.report import ComparisonReport, inspector_lines, status_text
from app.window.widgets.plain_text import visible_text
from fsr_core.recording import RecordingModel

__all__ = [
    "CompanionSeries",
    "ComparisonPresenter",
    "ComparisonSection",
    "DivergenceMarker",
    "divergence_label",
]

#: The least height the comparison dock opens with (two readable plots).
_DOCK_HEIGHT_PX = 320


def divergence_label(report: ComparisonReport) -> str | None:
    """Return the timeline's hover text for the first divergence (None: none)."""
    comparison = report.comparison
    divergence = None if comparison is None else comparison.first_divergence
    if comparison is None or divergence is None:
        return None
    if divergence.is_camera:
        return (
            f"first divergence: camera {visible_text(divergence.channel)} frame at "
            f"{divergence.time_s:.3f} s, pixel error up to {divergence.error:g} "
            f"levels > pixel tolerance {comparison.pixel_tolerance:g}"
        )
    column = f" ({visible_text(divergence.column)})" if divergence.column else ""
    return (
        f"first divergence: {visible_text(divergence.channel)}{column} at "
        f"{divergence.time_s:.3f} s, error {divergence.error:.3g} "
        f"> tolerance {comparison.tolerance:g}"
    )


def _other_side(
    report: ComparisonReport, model: RecordingModel
) -> tuple[RecordingModel, str]:
    """Return the side of ``report`` that is not playing, and its legend label."""
    if model.path.resolve() == report.reference.path.resolve():
        return report.candidate, report.candidate_label
    return report.reference, "recorded" if report.replay else report.reference.path.name


class DivergenceMarker(Protocol):
    """Marks the first divergence on the play-time axis (the timeline)."""

    def set_divergence(self, play_time_s: float | None, label: str = "") -> None:
        """Mark ``play_time_s`` (None: no mark); hover shows ``label``."""


class ComparisonSection(Protocol):
    """Lists a comparison as key/value rows (the inspector panel)."""

    def set_comparison(self, lines: list[tuple[str, str]] | None) -> None:
        """Show ``lines`` (None: hide the section)."""


class CompanionSeries(Protocol):
    """Draws the other file's series over the playing one's (the channel plots)."""

    def set_companion(self, model: RecordingModel | None, label: str = "") -> None:
        """Draw ``model``'s series dashed, named ``label`` (None: none)."""


class ComparisonPresenter(QObject):
    """Shows comparisons: its dock in ``host``, the timeline, inspector, status.

    ``clock`` says where playback stands when a comparison arrives; the
    caller connects ``dock.plots`` (``set_position``, ``seek_requested``) to
    the playback clock.
    """

    def __init__(
        self,
        host: QMainWindow,
        *,
        clock: PlaybackPosition,
        timeline: DivergenceMarker,
        inspector: ComparisonSection,
        plots: CompanionSeries,
        status: StatusLine,
    ) -> None:
        super().__init__(host)
        self._host = host
        self._clock = clock
        self._timeline = timeline
        self._inspector = inspector
        self._plots = plots
        self._status = status
        self._report: ComparisonReport | None = None
        self._model: RecordingModel | None = None
        self.dock = ComparisonDock(host)
        host.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()

    @property
    def report(self) -> ComparisonReport | None:
        """The last comparison shown."""
        return self._report

    def show_report(self, report: ComparisonReport) -> None:
        """Show ``report`` everywhere and say the verdict in the status bar."""
        self._report = report
        plots = self.dock.plots
        plots.set_report(report)
        plots.verdict_label.setText(status_text(report))
        plots.set_position(self._clock.position_s)
        self.dock.show()
        self.dock.raise_()
        self._host.resizeDocks(
            [self.dock],
            [max(self.dock.height(), _DOCK_HEIGHT_PX)],
            Qt.Orientation.Vertical,
        )
        self.set_model(self._model)
        self._status.show_message(status_text(report))

    def set_model(self, model: RecordingModel | None) -> None:
        """Mark the comparison on the timeline and inspector while a side plays.

        ``model`` is the recording now playing (None: none).
        """
        self._model = model
        report = self._report
        timeline, inspector = self._timeline, self._inspector
        if report is None or model is None or not report.involves(model.path):
            timeline.set_divergence(None)
            inspector.set_comparison(None)
            self._plots.set_companion(None)
            return
        self._plots.set_companion(*_other_side(report, model))
        label = divergence_label(report)
        comparison = report.comparison
        divergence = None if comparison is None else comparison.first_divergence
        timeline.set_divergence(
            None if divergence is None else divergence.time_s, label or ""
        )
        inspector.set_comparison(inspector_lines(report))
