"""The comparison view: replayed channels over recorded ones, and the error.

A :class:`ComparisonPlots` widget shows one :class:`ComparisonReport`: the
verdict on top, then two x-linked pyqtgraph plots. The upper one draws the
chosen channel or camera (the joint angles when compared, else the first
channel or camera that diverges, else the first compared): a channel's
columns recorded as solid lines and replayed as dashed lines of the same
colour; a camera's pixel error per compared frame, the largest (solid) and
the mean (dashed) in 8-bit levels, with the pixel tolerance dotted. The
lower one draws, per compared channel, the largest absolute error of its
columns over time, and per camera its largest pixel error per frame, with
the tolerance as a dotted line. The first divergence is a labelled vertical
line in both; a time cursor follows the clock and a click asks for a seek.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pyqtgraph as pg  # type: ignore[import-untyped]
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from app.window.plots.channel_plots import SERIES_COLORS
from app.window.plots.series_cache import column_names
from app.window.replay.camera_curves import (
    camera_error_series,
    draw_camera_errors,
    frame_dots,
)
from app.window.replay.report import ComparisonReport, verdict_text
from app.window.widgets.plain_text import markup_text
from fsr_core.compare import CameraStatus, ChannelStatus, Comparison
from fsr_core.recording import Channel

__all__ = ["DIVERGENCE_COLOR", "ComparisonDock", "ComparisonPlots"]

#: The colour of the first divergence, here and on the timeline.
DIVERGENCE_COLOR: Final = "#d62728"
_LINE_WIDTH_PX: Final = 1.5
_AXIS_WIDTH_PX: Final = 64
#: Legend entries per row (recorded and replayed side by side for 4 columns).
_LEGEND_COLUMNS: Final = 8
#: The error axis with nothing to draw: 1e-9 to 1.
_EMPTY_LOG_RANGE: Final = (-9.0, 0.0)
_EMPTY_TEXT: Final = (
    "No comparison for the playing file: "
    "Replay → Re-simulate…, Re-render… or Compare with…"
)
ERROR_LABEL: Final = "error (log)"
#: What the error plot shows, said in its tooltip.
ERROR_TOOLTIP: Final = (
    "|replayed - recorded| per channel: the largest of its columns; "
    "per camera (px): the largest pixel error of each frame, in levels"
)
#: What a camera is called in the picker and in the error plot's legend.
CAMERA_SUFFIX: Final = " (camera)"
#: Which kind of series a picker entry draws.
CHANNEL, CAMERA = "channel", "camera"
_NO_ERROR_TEXT: Final = "no error: every compared sample and frame is equal"


def _finite(values: np.ndarray) -> np.ndarray:
    """Return ``values`` as floats with infinities as gaps (NaN)."""
    floats = np.asarray(values, dtype=np.float64)
    return np.where(np.isfinite(floats), floats, np.nan)


def _positive(errors: np.ndarray) -> np.ndarray:
    """Return the errors a log axis can draw: zero and infinite ones as gaps."""
    floats = _finite(errors)
    return np.where(floats > 0, floats, np.nan)


def _markup(text: str) -> str:
    """Return file-given ``text`` for pyqtgraph labels, which read HTML (U14)."""
    return markup_text(text)


def _table(channel: Channel) -> np.ndarray:
    values = np.asarray(channel.values, dtype=np.float64)
    return values.reshape(len(values), -1)


def _first_shown(report: ComparisonReport) -> tuple[str, str] | None:
    """Return what is drawn first: joint angles, what diverges, else the first.

    A ``(kind, name)`` pair, ``kind`` being :data:`CHANNEL` or :data:`CAMERA`.
    """
    comparison = report.comparison
    if comparison is None:
        return None
    channels = [
        c.name for c in comparison.channels if c.status is ChannelStatus.COMPARED
    ]
    cameras = [c.name for c in comparison.cameras if c.status is CameraStatus.COMPARED]
    joints = report.reference.joint_channel
    if joints in channels:
        return CHANNEL, joints
    divergence = comparison.first_divergence
    if divergence is not None:
        kind = CAMERA if divergence.is_camera else CHANNEL
        if divergence.channel in (cameras if divergence.is_camera else channels):
            return kind, divergence.channel
    if channels:
        return CHANNEL, channels[0]
    return (CAMERA, cameras[0]) if cameras else None


class ComparisonPlots(QWidget):
    """The verdict and the overlay and error plots of one comparison."""

    #: The user clicked in a plot or dragged a cursor: play time, in seconds.
    seek_requested = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._report: ComparisonReport | None = None
        self.verdict_label = QLabel(_EMPTY_TEXT)
        self.verdict_label.setObjectName("comparison_verdict")
        self.verdict_label.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict_label.setWordWrap(True)
        self.channel_combo = QComboBox()
        self.channel_combo.setToolTip(
            "The channel drawn recorded (solid) and replayed, "
            "or a camera's pixel error per frame"
        )
        self.channel_combo.currentIndexChanged.connect(self._on_channel_changed)
        self.overlay_plot = self._plot()
        self.error_plot = self._plot()
        self.error_plot.setXLink(self.overlay_plot)
        self.error_plot.getPlotItem().setLabel("left", ERROR_LABEL)
        self.error_plot.setToolTip(ERROR_TOOLTIP)
        self.error_plot.getPlotItem().setLogMode(x=False, y=True)

        self.error_plot.getPlotItem().setLabel("bottom", "time [s]")
        self._cursors = [self._cursor(plot) for plot in self.plot_widgets]
        self._divergence_lines: list[Any] = []
        top = QHBoxLayout()
        top.addWidget(self.verdict_label, 1)
        top.addWidget(QLabel("Show:"))
        top.addWidget(self.channel_combo)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addLayout(top)
        layout.addWidget(self.overlay_plot, 1)
        layout.addWidget(self.error_plot, 1)
        self.set_report(None)

    # -- state ------------------------------------------------------------

    @property
    def report(self) -> ComparisonReport | None:
        """The comparison shown, if any."""
        return self._report

    @property
    def plot_widgets(self) -> tuple[Any, Any]:
        """The overlay and the error ``PlotWidget``."""
        return self.overlay_plot, self.error_plot

    @property
    def error_title(self) -> str:
        """The error plot's title: says so when no sample differs ("" otherwise)."""
        title = self.error_plot.getPlotItem().titleLabel
        return str(title.text) if title.isVisible() else ""

    def legend_names(self, plot: Any) -> list[str]:
        """Return the names in the legend of ``plot``, in drawing order."""
        legend = plot.getPlotItem().legend
        return [label.text for _, label in legend.items]

    def curves(self, plot: Any) -> list[Any]:
        """Return the data items drawn in ``plot``."""
        return list(plot.getPlotItem().listDataItems())

    def cursor_positions(self) -> list[float]:
        """Return the time cursor's x in both plots."""
        return [float(cursor.value()) for cursor in self._cursors]

    @property
    def shown(self) -> tuple[str, str] | None:
        """What the upper plot draws: ``(kind, name)``, or None."""
        data = self.channel_combo.currentData()
        return None if data is None else (str(data[0]), str(data[1]))

    def show_camera(self, name: str) -> None:
        """Draw camera ``name``'s pixel error in the upper plot (if compared)."""
        index = self._picker_index((CAMERA, name))
        if index >= 0:
            self.channel_combo.setCurrentIndex(index)

    def divergence_positions(self) -> list[float]:
        """Return the x of the first-divergence line in each plot (empty: none)."""
        return [float(line.value()) for line in self._divergence_lines]

    # -- intents ----------------------------------------------------------

    def set_report(self, report: ComparisonReport | None) -> None:
        """Show ``report`` (None: a hint on how to get one)."""
        self._report = report
        self.verdict_label.setText(
            _EMPTY_TEXT if report is None else verdict_text(report)
        )
        comparison = None if report is None else report.comparison
        self.channel_combo.blockSignals(True)
        self.channel_combo.clear()
        if comparison is not None and report is not None:
            self._fill_picker(comparison, _first_shown(report))
        self.channel_combo.setEnabled(self.channel_combo.count() > 0)
        self.channel_combo.blockSignals(False)
        self._draw_errors(comparison)
        self._draw_shown()
        self._draw_divergence(comparison)
        self._fit_x()

    def _fill_picker(
        self, comparison: Comparison, chosen: tuple[str, str] | None
    ) -> None:
        combo = self.channel_combo
        for channel in comparison.channels:
            if channel.status is ChannelStatus.COMPARED:
                combo.addItem(channel.name, (CHANNEL, channel.name))
        for camera in comparison.cameras:
            if camera.status is CameraStatus.COMPARED:
                combo.addItem(f"{camera.name}{CAMERA_SUFFIX}", (CAMERA, camera.name))
        if chosen is not None:
            combo.setCurrentIndex(max(self._picker_index(chosen), 0))

    def _picker_index(self, data: tuple[str, str]) -> int:
        """Return the picker's index of ``(kind, name)``, -1 when absent."""
        # findData cannot match Python tuples (they are wrapped objects).
        combo = self.channel_combo
        found = [i for i in range(combo.count()) if combo.itemData(i) == data]
        return found[0] if found else -1

    def set_position(self, play_time_s: float) -> None:
        """Move the time cursor of both plots to ``play_time_s``."""
        for cursor in self._cursors:
            cursor.setValue(float(play_time_s))

    # -- building ---------------------------------------------------------

    def _plot(self) -> Any:
        widget = pg.PlotWidget(parent=self)
        plot = widget.getPlotItem()
        plot.hideButtons()
        plot.setClipToView(True)
        plot.setDownsampling(auto=True, mode="peak")
        plot.getViewBox().setAutoVisible(y=True)
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.addLegend(offset=(-8, 4), colCount=2)
        palette = self.palette()
        widget.setBackground(palette.color(QPalette.ColorRole.Base))
        text = palette.color(QPalette.ColorRole.Text)
        for name in ("left", "bottom"):
            plot.getAxis(name).setTextPen(pg.mkPen(text))
        plot.getAxis("left").setWidth(_AXIS_WIDTH_PX)  # both plots' x axes align
        plot.legend.setLabelTextColor(text)
        widget.scene().sigMouseClicked.connect(
            lambda event: self._on_scene_clicked(widget, event)
        )
        return widget

    def _cursor(self, widget: Any) -> Any:
        highlight = self.palette().color(QPalette.ColorRole.Highlight)
        cursor = pg.InfiniteLine(0.0, angle=90, movable=True)
        cursor.setPen(pg.mkPen(highlight, width=_LINE_WIDTH_PX))
        cursor.setZValue(10)
        cursor.sigDragged.connect(
            lambda line: self.seek_requested.emit(float(line.value()))
        )
        widget.getPlotItem().addItem(cursor, ignoreBounds=True)
        return cursor

    def _clear(self, widget: Any) -> None:
        plot = widget.getPlotItem()
        for item in list(plot.listDataItems()):
            plot.removeItem(item)
        plot.legend.clear()

    # -- drawing ----------------------------------------------------------

    def _draw_shown(self) -> None:
        shown = self.shown
        if shown is not None and shown[0] == CAMERA:
            self._draw_camera(shown[1])
        else:
            self._draw_overlay("" if shown is None else shown[1])

    def _draw_camera(self, name: str) -> None:
        self._clear(self.overlay_plot)
        comparison = None if self._report is None else self._report.comparison
        if comparison is not None:
            draw_camera_errors(self.overlay_plot.getPlotItem(), comparison, name)

    def _draw_overlay(self, name: str) -> None:
        self._clear(self.overlay_plot)
        plot = self.overlay_plot.getPlotItem()
        plot.enableAutoRange(y=True)  # a camera's plot fixed it
        report = self._report
        if report is None or not name or name not in report.reference.channels:
            plot.setLabel("left", "")
            return
        recorded = report.reference.channels[name]
        replayed = report.candidate.channels.get(name)
        unit = f" [{recorded.unit}]" if recorded.unit else ""
        plot.setLabel("left", _markup(f"{recorded.label or name}{unit}"))
        label = report.candidate_label
        plot.legend.setColumnCount(min(2 * max(recorded.width, 1), _LEGEND_COLUMNS))
        for index, column in enumerate(column_names(recorded)):
            color = SERIES_COLORS[index % len(SERIES_COLORS)]
            plot.plot(
                recorded.times_s,
                _finite(_table(recorded)[:, index]),
                pen=pg.mkPen(color, width=_LINE_WIDTH_PX),
                name=_markup(f"{column} recorded"),
                connect="finite",
            )
            if replayed is None or index >= _table(replayed).shape[1]:
                continue
            plot.plot(
                replayed.times_s,
                _finite(_table(replayed)[:, index]),
                pen=pg.mkPen(
                    color, width=_LINE_WIDTH_PX + 0.5, style=Qt.PenStyle.DashLine
                ),
                name=_markup(f"{column} {label}"),
                connect="finite",
            )

    def _draw_errors(self, comparison: Comparison | None) -> None:
        self._clear(self.error_plot)
        self.error_plot.getPlotItem().setTitle(None)
        self.error_plot.getPlotItem().enableAutoRange(y=True)
        if comparison is None:
            return
        plot = self.error_plot.getPlotItem()
        series = [
            (channel.name, *comparison.error_series(channel.name))
            for channel in comparison.channels
        ]
        series += camera_error_series(comparison)
        plot.legend.setColumnCount(min(max(len(series), 1), _LEGEND_COLUMNS))
        drawn = 0
        for index, (name, times_s, errors) in enumerate(series):
            positive = _positive(errors)
            if not len(times_s) or np.isnan(positive).all():
                continue
            drawn += 1
            color = SERIES_COLORS[index % len(SERIES_COLORS)]
            dots = frame_dots(color) if index >= len(comparison.channels) else {}
            plot.plot(
                times_s,
                positive,
                pen=pg.mkPen(color, width=_LINE_WIDTH_PX),
                name=_markup(name),
                connect="finite",
                **dots,
            )
        if not drawn:
            plot.setTitle(_NO_ERROR_TEXT, size="9pt")
            plot.setYRange(*_EMPTY_LOG_RANGE, padding=0)  # log10 units
        if comparison.tolerance > 0:
            first, last = comparison.overlap_s
            plot.plot(
                [first, last],
                [comparison.tolerance, comparison.tolerance],
                pen=pg.mkPen("#888888", width=1, style=Qt.PenStyle.DotLine),
                name=f"tolerance {comparison.tolerance:g}",
            )

    def _draw_divergence(self, comparison: Comparison | None) -> None:
        for widget, line in zip(
            self.plot_widgets, self._divergence_lines, strict=False
        ):
            widget.getPlotItem().removeItem(line)
        self._divergence_lines = []
        divergence = None if comparison is None else comparison.first_divergence
        if divergence is None:
            return
        pen = pg.mkPen(DIVERGENCE_COLOR, width=1.5, style=Qt.PenStyle.DashLine)
        for index, widget in enumerate(self.plot_widgets):
            line = pg.InfiniteLine(
                divergence.time_s,
                angle=90,
                pen=pen,
                label=f"first divergence {divergence.time_s:.3f} s" if index else None,
                labelOpts={"position": 0.9, "color": DIVERGENCE_COLOR},
            )
            line.setZValue(5)
            widget.getPlotItem().addItem(line, ignoreBounds=True)
            self._divergence_lines.append(line)

    def _fit_x(self) -> None:
        report = self._report
        if report is None:
            return
        if report.comparison is not None:
            first, last = report.comparison.overlap_s
        else:
            first, last = 0.0, report.reference.duration_s
        if last > first:
            self.overlay_plot.setXRange(first, last, padding=0.01)

    # -- slots ------------------------------------------------------------

    def _on_channel_changed(self, _index: int) -> None:
        self._draw_shown()

    def _on_scene_clicked(self, widget: Any, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        view = widget.getPlotItem().getViewBox()
        scene_pos = QPointF(event.scenePos())
        if view.sceneBoundingRect().contains(scene_pos):
            self.seek_requested.emit(float(view.mapSceneToView(scene_pos).x()))


class ComparisonDock(QDockWidget):
    """The comparison view in a dock titled "Comparison"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Comparison", parent)
        self.setObjectName("comparison_dock")
        self.plots = ComparisonPlots(self)
        self.setWidget(self.plots)
