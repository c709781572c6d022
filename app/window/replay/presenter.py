"""Where a comparison shows in the window.

The comparison dock (overlay and error plots, the verdict) shows the last
comparison made. While one of its two files plays, the timeline marks the
first divergence (hover: channel or camera, time, error), the inspector
lists the verdict, the files, the replay, every channel and every camera, and
the channel plots draw the other file's series dashed over the playing one's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt

from app.window.replay.comparison_plots import ComparisonDock
from app.window.replay.report import ComparisonReport, inspector_lines, status_text
from app.window.widgets.plain_text import visible_text
from fsr_core.recording import RecordingModel

if TYPE_CHECKING:
    from app.window.main_window import MainWindow

__all__ = ["ComparisonPresenter", "divergence_label"]

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


class ComparisonPresenter(QObject):
    """Shows comparisons in ``window``: dock, timeline, inspector, status bar."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window
        self._report: ComparisonReport | None = None
        self.dock = ComparisonDock(window)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        clock = window.session.clock
        clock.position_changed.connect(self.dock.plots.set_position)
        self.dock.plots.seek_requested.connect(clock.seek)

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
        plots.set_position(self._window.session.clock.position_s)
        self.dock.show()
        self.dock.raise_()
        self._window.resizeDocks(
            [self.dock],
            [max(self.dock.height(), _DOCK_HEIGHT_PX)],
            Qt.Orientation.Vertical,
        )
        self.set_model(self._window.session.model)
        self._window.show_message(status_text(report))

    def set_model(self, model: RecordingModel | None) -> None:
        """Mark the comparison on the timeline and inspector while a side plays."""
        report = self._report
        timeline = self._window.timeline
        inspector = self._window.inspector_dock.panel
        if report is None or model is None or not report.involves(model.path):
            timeline.set_divergence(None)
            inspector.set_comparison(None)
            self._window.plots.set_companion(None)
            return
        self._window.plots.set_companion(*_other_side(report, model))
        label = divergence_label(report)
        comparison = report.comparison
        divergence = None if comparison is None else comparison.first_divergence
        timeline.set_divergence(
            None if divergence is None else divergence.time_s, label or ""
        )
        inspector.set_comparison(inspector_lines(report))
