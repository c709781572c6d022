"""Channel plots: stacked, x-linked pyqtgraph plots with a time cursor.

Each entry of the plot selection (a tuple of series keys, see
:mod:`app.window.plots.series_cache`) becomes one ``PlotWidget`` with a legend and
one line per series. The cursor is an ``InfiniteLine`` moved by
:meth:`ChannelPlots.set_position`; a click in a plot, or a drag of the
cursor, asks for a seek through :attr:`ChannelPlots.seek_requested`.

Large series stay fluid: on every change of the visible x range the lines
are re-cut to the view and min/max decimated to about one bucket per pixel
(:func:`~app.window.plots.series_cache.view_points`), and each curve caches its
pixels, so moving the cursor repaints without redrawing the data.

A channel read only when shown (an MCAP topic) is read off the GUI thread
through ``runner`` first, the note saying so; the plots appear when it is in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import pyqtgraph as pg  # type: ignore[import-untyped]
from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPalette
from PySide6.QtWidgets import QGraphicsItem, QLabel, QVBoxLayout, QWidget

from app.window.plots.series_cache import (
    PLOT_LIMIT,
    Series,
    detailed_points,
    drawable,
    extent_indices,
    grown_extent_indices,
    resolve_key,
    unread_channels,
    view_points,
)
from app.window.widgets.plain_text import LABEL_CHARS, markup_text, visible_text
from app.window.workers import Runner, pool_runner
from app.window.workers.channel_reader import ChannelReader
from fsr_core.arrays import IndexArray
from fsr_core.errors import FsrError
from fsr_core.recording import Channel, RecordingModel

__all__ = ["MAX_SERIES_PER_PLOT", "MAX_SERIES_SHOWN", "ChannelPlots", "series_label"]

#: Line colours, readable on light and dark backgrounds (Tableau 10).
SERIES_COLORS: Final = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
LINE_WIDTH_PX: Final = 1.5
X_LABEL: Final = "time [s]"
#: Shortest a plot gets (below it the axes crowd the curves out).
PLOT_MIN_HEIGHT_PX: Final = 110
#: Margin left around the data when showing all of it (fraction of the span).
_X_PADDING: Final = 0.01
#: Curves and axes (with their grid) keep their pixels: a cursor move only blits.
_CACHED: Final = QGraphicsItem.CacheMode.DeviceCoordinateCache
#: Buckets used before a plot has a width (not yet shown).
_DEFAULT_BUCKETS: Final = 1000
#: Series drawn in one plot; a wider selection draws the first ones and says so.
MAX_SERIES_PER_PLOT: Final = 24
#: Series drawn over all plots together (each is decimated per pixel column).
MAX_SERIES_SHOWN: Final = 96
#: Legend entries per row.
_LEGEND_COLUMNS: Final = 10
#: Names a legend must have before a word they all start with is left out.
_SHARED_WORD_NAMES: Final = 3
_SEPARATORS: Final = frozenset("_./: -")


@dataclass(eq=False)
class _Line:
    """One drawn series and the indices that keep its full extent."""

    item: Any
    series: Series
    anchors: IndexArray


@dataclass(eq=False)
class _Panel:
    """One plot of the stack: its widget, cursor and lines."""

    widget: Any
    cursor: Any
    lines: list[_Line] = field(default_factory=list)

    @property
    def view(self) -> Any:
        """The plot's ViewBox."""
        return self.widget.getPlotItem().getViewBox()


def _fit_left_label(plot: Any, label: str) -> None:
    """Elide a plot's y-axis label in the middle so it fits the plot's height.

    The label is drawn turned along the axis; longer than the plot is high,
    pyqtgraph cuts it at the edge, leaving a letter or two.
    """
    axis = plot.getAxis("left")
    margin = axis.label.document().documentMargin()
    room = int(plot.getViewBox().height() - 2 * margin)
    if room <= 0:
        return
    metrics = QFontMetrics(axis.label.font())
    shown = metrics.elidedText(label, Qt.TextElideMode.ElideMiddle, room)
    text = markup_text(shown, LABEL_CHARS)
    if axis.labelText != text:
        axis.setLabel(text)
        # pyqtgraph centres the label in its resizeEvent only, by the width
        # of the text it had then: centre the new, shorter text again.
        axis.resizeEvent(None)


def series_label(series: list[Series]) -> str:
    """Return a plot's y-axis label: ``label [unit]`` of each distinct channel.

    Parameters
    ----------
    series
        The series shown in the plot.

    Returns
    -------
    str
        The distinct ``label [unit]`` texts (``label`` without a unit), joined
        by commas.
        Plain text, each part elided; pass it through
        :func:`~app.window.widgets.plain_text.markup_text` before pyqtgraph.
    """
    texts: list[str] = []
    for item in series:
        label = visible_text(item.label, LABEL_CHARS)
        text = (
            f"{label} [{visible_text(item.unit, LABEL_CHARS)}]" if item.unit else label
        )
        if text not in texts:
            texts.append(text)
    return ", ".join(texts)


def _legend_above(plot: Any, legend: Any) -> None:
    """Put the legend in a band above the data, at the right: it hides no line.

    The band is the plot's title row, as tall as the legend's rows (a joint
    state's 21 series take three).
    """
    legend.setParentItem(plot)
    plot.layout.setRowFixedHeight(0, legend.boundingRect().height())
    legend.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-8, 0))


def _legend_names(series: list[Series]) -> list[str]:
    """Return legend names: column names, the full key where two would clash.

    A word every name of three or more starts with (``panda_`` of
    ``panda_joint1`` ... ``panda_joint7``) is left out, so one row holds more.
    """
    names = [item.name for item in series]
    names = [item.key if names.count(item.name) > 1 else item.name for item in series]
    return _without_shared_word(names)


def _without_shared_word(names: list[str]) -> list[str]:
    """Return ``names`` without the word (up to a separator) they all start with."""
    if len(names) < _SHARED_WORD_NAMES:
        return names
    first = min(names, key=len)
    shared = 0
    for index, character in enumerate(first):
        if any(name[index] != character for name in names):
            break
        if character in _SEPARATORS:
            shared = index + 1
    if shared == 0 or any(len(name) <= shared for name in names):
        return names
    stripped = [name[shared:] for name in names]
    return stripped if len(set(stripped)) == len(stripped) else names


def _time_range(series: list[Series]) -> tuple[float, float]:
    """Return the first and last play time over all series ((0, 0) when empty)."""
    filled = [item.x for item in series if item.x.size]
    if not filled:
        return 0.0, 0.0
    return min(float(x[0]) for x in filled), max(float(x[-1]) for x in filled)


def _capped(groups: list[list[Series]]) -> tuple[list[list[Series]], int]:
    """Return the plots' drawable series within the caps, and how many lost samples.

    The first series of each plot are kept (at most :data:`MAX_SERIES_PER_PLOT`
    each, :data:`MAX_SERIES_SHOWN` in all); samples beyond
    :data:`~app.window.plots.series_cache.PLOT_LIMIT` become gaps.
    """
    capped: list[list[Series]] = []
    left = MAX_SERIES_SHOWN
    clipped = 0
    for series in groups:
        if left <= 0:
            break
        kept = []
        for item in series[: min(MAX_SERIES_PER_PLOT, left)]:
            shown, lost = drawable(item)
            kept.append(shown)
            clipped += lost
        capped.append(kept)
        left -= len(kept)
    return capped, clipped


def _plot_series(
    model: RecordingModel, keys: tuple[str, ...], failures: list[str]
) -> list[Series]:
    """Return the series of one plot's keys, skipping unknown and repeated ones.

    A channel that fails to read is left out and its error added to
    ``failures``.
    """
    found: dict[str, Series] = {}
    for key in keys:
        try:
            resolved = resolve_key(model, key)
        except FsrError as exc:
            if str(exc) not in failures:
                failures.append(str(exc))
            continue
        for item in resolved:
            found.setdefault(item.key, item)
    return list(found.values())


class ChannelPlots(QWidget):
    """A vertical stack of x-linked plots of a recording's channels."""

    #: The user clicked in a plot or dragged a cursor: play time, in seconds.
    seek_requested = Signal(float)

    def __init__(
        self, parent: QWidget | None = None, *, runner: Runner | None = None
    ) -> None:
        super().__init__(parent)
        self._runner = runner if runner is not None else pool_runner()
        self._reader = ChannelReader(self._runner, self._rebuild)
        self._model: RecordingModel | None = None
        self._plots: tuple[tuple[str, ...], ...] = ()
        self._panels: list[_Panel] = []
        self._position_s = 0.0
        self._range_s = (0.0, 0.0)
        self._shown_model: RecordingModel | None = None
        self._companion: tuple[RecordingModel, str] | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(2)
        #: Says how many series are drawn when a selection is wider than the caps.
        self.note = QLabel()
        self.note.setObjectName("series_note")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.hide()
        self._layout.addWidget(self.note)

    # -- state ------------------------------------------------------------

    @property
    def plot_count(self) -> int:
        """Number of plots shown (plots whose keys all are unknown are left out)."""
        return len(self._panels)

    @property
    def settled(self) -> bool:
        """Whether no channel is being read for the plots."""
        return self._reader.idle

    @property
    def plots(self) -> tuple[tuple[str, ...], ...]:
        """The plot selection last set (keys per plot, as given)."""
        return self._plots

    def plot_widget(self, plot_index: int) -> Any:
        """Return the ``pyqtgraph.PlotWidget`` of plot ``plot_index``."""
        return self._panels[plot_index].widget

    def cursor_positions(self) -> list[float]:
        """Return the time cursor's x in every plot."""
        return [float(panel.cursor.value()) for panel in self._panels]

    def series_names(self, plot_index: int) -> list[str]:
        """Return the legend names of plot ``plot_index``, in drawing order."""
        return [line.item.name() for line in self._panels[plot_index].lines]

    # -- intents ----------------------------------------------------------

    def set_model(self, model: RecordingModel | None) -> None:
        """Plot ``model`` (None: nothing) with the current plot selection."""
        self._model = model
        self._rebuild()

    def set_plots(self, plots: tuple[tuple[str, ...], ...]) -> None:
        """Show these plots: series keys each; keys unknown here are skipped."""
        plots = tuple(tuple(keys) for keys in plots)
        if plots == self._plots:
            return
        self._plots = plots
        self._rebuild()

    def set_companion(self, model: RecordingModel | None, label: str = "") -> None:
        """Draw the same series of ``model`` dashed over each line, named ``label``.

        A comparison's other file (e.g. the replay of the playing recording);
        None draws the playing recording alone.
        """
        shown = self._companion
        if (model is None and shown is None) or (
            shown is not None and shown[0] is model and shown[1] == label
        ):
            return
        self._companion = None if model is None else (model, label)
        self._rebuild()

    def grow(self, model: RecordingModel, *, window_s: float | None) -> None:
        """Show ``model``, a followed recording that grew, without a rebuild.

        Each drawn line takes its series' new samples; with ``window_s`` (LIVE)
        the plots scroll to show the last ``window_s`` seconds, else they keep
        their range. A plot whose channels changed is built again.
        """
        if not self._panels or self._model is None:
            self.set_model(model)
            return
        updated: list[tuple[_Line, Series]] = []
        for panel in self._panels:
            for line in panel.lines:
                found = next((s for s in resolve_key(model, line.series.key)), None)
                if found is None:
                    self.set_model(model)
                    return
                updated.append((line, found))
        for line, series in updated:
            before = line.series
            grew = before.detail is None and series.detail is None
            line.anchors = grown_extent_indices(
                series.y, line.anchors, before.y.size if grew else 0
            )
            line.series = series
        self._model = self._shown_model = model
        end_s = model.duration_s
        self._range_s = (0.0, end_s)
        first = self._panels[0]
        if window_s is not None:
            first.widget.setXRange(max(0.0, end_s - window_s), end_s, padding=0)
        for panel in self._panels:
            self._refresh_lines(panel)

    def set_position(self, play_time_s: float) -> None:
        """Move the time cursor of every plot to ``play_time_s`` (no data reload)."""
        self._position_s = float(play_time_s)
        for panel in self._panels:
            panel.cursor.setValue(self._position_s)

    # -- building ---------------------------------------------------------

    def _rebuild(self) -> None:
        kept = self._x_range_to_keep()
        for panel in self._panels:
            self._layout.removeWidget(panel.widget)
            panel.widget.hide()
            panel.widget.deleteLater()
        self._panels = []
        self._range_s = (0.0, 0.0)
        self._shown_model = self._model
        self._reader.forget()  # a read still running is for an earlier choice
        self._set_note(0, 0)
        if self._model is None:
            return
        unread = unread_channels(self._model, self._plots)
        if unread:
            self._read_then_rebuild(self._model, unread)
            return
        failures: list[str] = []
        groups = [_plot_series(self._model, keys, failures) for keys in self._plots]
        groups = [series for series in groups if series]
        self._set_note(0, 0, failures=failures)
        if not groups:
            return
        wanted = sum(len(series) for series in groups)
        groups, clipped = _capped(groups)
        shown = sum(len(series) for series in groups)
        self._set_note(shown, wanted, clipped, failures)
        self._range_s = _time_range([item for group in groups for item in group])
        self._panels = [self._add_panel(series) for series in groups]
        first = self._panels[0]
        for panel in self._panels[1:]:
            panel.widget.setXLink(first.widget)
        self._panels[-1].widget.getPlotItem().setLabel("bottom", X_LABEL)
        if kept is None:
            first.widget.setXRange(*self._range_s, padding=_X_PADDING)
        else:
            first.widget.setXRange(*kept, padding=0)
        self._layout.activate()
        for panel in self._panels:
            self._refresh_lines(panel)

    def _read_then_rebuild(
        self, model: RecordingModel, channels: list[Channel]
    ) -> None:
        """Read channels read only when shown off the GUI thread, then plot them."""
        self.note.setText(f"Reading {len(channels)} channel(s) from the file…")
        self.note.setVisible(True)
        self._reader.read(model.path, tuple(channels))

    def _set_note(
        self,
        shown: int,
        wanted: int,
        clipped: int = 0,
        failures: list[str] | None = None,
    ) -> None:
        """Say how many series are drawn of how many were asked for (if fewer).

        Also say how many drawn series lost samples beyond :data:`PLOT_LIMIT`,
        and which channels could not be read.
        """
        parts = [f"Not plotted: {visible_text(f)}" for f in failures or []]
        if shown < wanted:
            parts.append(
                f"Showing {shown:,} of {wanted:,} series (at most "
                f"{MAX_SERIES_PER_PLOT} per plot, {MAX_SERIES_SHOWN} in all); "
                "choose columns with Plot channels…"
            )
        if clipped:
            parts.append(
                f"{clipped:,} series have values beyond ±{PLOT_LIMIT:.0e}, "
                "left out as gaps."
            )
        self.note.setText(" ".join(parts))
        self.note.setVisible(bool(parts))

    def _x_range_to_keep(self) -> tuple[float, float] | None:
        """Return the zoom to keep across a rebuild: same file, plots shown."""
        if not self._panels or self._model is not self._shown_model:
            return None
        x_min, x_max = self._panels[0].view.viewRange()[0]
        return float(x_min), float(x_max)

    def _add_panel(self, series: list[Series]) -> _Panel:
        widget = pg.PlotWidget(parent=self)
        widget.setMinimumHeight(PLOT_MIN_HEIGHT_PX)
        plot = widget.getPlotItem()
        plot.hideButtons()
        label = series_label(series)
        plot.setLabel("left", markup_text(label, LABEL_CHARS))
        view = plot.getViewBox()
        view.sigResized.connect(lambda _view, p=plot, t=label: _fit_left_label(p, t))
        # Ticks show the recorded values: an SI scale (0.4 drawn as "400") needs
        # its "(x0.001)" note, which a short panel cuts off.
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.getAxis("bottom").enableAutoSIPrefix(False)  # seconds stay seconds
        plot.getViewBox().setAutoVisible(y=True)
        columns = len(series) * (1 if self._companion is None else 2)
        legend = plot.addLegend(colCount=max(1, min(columns, _LEGEND_COLUMNS)))
        cursor = pg.InfiniteLine(self._position_s, angle=90, movable=True)
        cursor.setZValue(10)
        plot.addItem(cursor, ignoreBounds=True)
        panel = _Panel(widget=widget, cursor=cursor)
        for index, (item, name) in enumerate(
            zip(series, _legend_names(series), strict=True)
        ):
            color = SERIES_COLORS[index % len(SERIES_COLORS)]
            drawn = plot.plot(
                pen=pg.mkPen(color, width=LINE_WIDTH_PX), name=markup_text(name)
            )
            drawn.curve.setCacheMode(_CACHED)
            panel.lines.append(_Line(drawn, item, extent_indices(item.y)))
            self._add_companion_line(panel, item, name, color)
        for name in ("left", "bottom"):
            plot.getAxis(name).setCacheMode(_CACHED)
        _legend_above(plot, legend)
        self._style_panel(panel, legend)
        self._connect_panel(panel)
        self._layout.addWidget(widget)
        widget.show()
        return panel

    def _add_companion_line(
        self, panel: _Panel, item: Series, name: str, color: str
    ) -> None:
        """Draw the companion's series of ``item``'s key dashed (if it has it)."""
        if self._companion is None:
            return
        model, label = self._companion
        try:
            other = next(iter(resolve_key(model, item.key)), None)
        except FsrError:
            other = None  # the companion's channel cannot be read: drawn alone
        if other is None:
            return
        pen = pg.mkPen(color, width=LINE_WIDTH_PX + 0.5, style=Qt.PenStyle.DashLine)
        drawn = panel.widget.getPlotItem().plot(
            pen=pen, name=markup_text(f"{name} {label}")
        )
        drawn.curve.setCacheMode(_CACHED)
        panel.lines.append(_Line(drawn, other, extent_indices(other.y)))

    def _connect_panel(self, panel: _Panel) -> None:
        panel.view.sigXRangeChanged.connect(lambda *_: self._on_view_changed(panel))
        panel.view.sigResized.connect(lambda *_: self._on_view_changed(panel))
        panel.widget.scene().sigMouseClicked.connect(
            lambda event: self._on_scene_clicked(panel, event)
        )
        panel.cursor.sigDragged.connect(self._on_cursor_dragged)

    def _style_panel(self, panel: _Panel, legend: Any) -> None:
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        axis = _mix(base, text, 0.55)
        panel.widget.setBackground(base)
        plot = panel.widget.getPlotItem()
        for name in ("left", "bottom"):
            plot.getAxis(name).setPen(pg.mkPen(axis))
            plot.getAxis(name).setTextPen(pg.mkPen(text))
        legend.setLabelTextColor(text)
        legend.setBrush(pg.mkBrush(_with_alpha(base, 200)))
        legend.setPen(pg.mkPen(_mix(base, text, 0.25)))
        highlight = palette.color(QPalette.ColorRole.Highlight)
        panel.cursor.setPen(pg.mkPen(highlight, width=LINE_WIDTH_PX))
        panel.cursor.setHoverPen(pg.mkPen(highlight, width=3))

    # -- slots ------------------------------------------------------------

    def _refresh_lines(self, panel: _Panel) -> None:
        x_min, x_max = panel.view.viewRange()[0]
        width_px = int(panel.view.width())
        buckets = width_px if width_px > 0 else _DEFAULT_BUCKETS
        for line in panel.lines:
            try:
                found = detailed_points(line.series, x_min, x_max, buckets)
            except FsrError:
                found = None  # a damaged span: the overview stays drawn
            if found is None:
                found = view_points(line.series, line.anchors, x_min, x_max, buckets)
            line.item.setData(*found)

    def _on_view_changed(self, panel: _Panel) -> None:
        if panel in self._panels:
            self._refresh_lines(panel)

    def _on_scene_clicked(self, panel: _Panel, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        scene_pos = QPointF(event.scenePos())
        if not panel.view.sceneBoundingRect().contains(scene_pos):
            return
        self._request_seek(float(panel.view.mapSceneToView(scene_pos).x()))

    def _on_cursor_dragged(self, cursor: Any) -> None:
        self._request_seek(float(cursor.value()))

    def _request_seek(self, play_time_s: float) -> None:
        first, last = self._range_s
        self.seek_requested.emit(float(np.clip(play_time_s, first, last)))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        """Restyle the plots when the palette changes (Qt override)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            for panel in self._panels:
                self._style_panel(panel, panel.widget.getPlotItem().legend)


def _mix(first: QColor, second: QColor, amount: float) -> QColor:
    """Return ``first`` moved ``amount`` (0..1) of the way towards ``second``."""
    return QColor(
        round(first.red() + (second.red() - first.red()) * amount),
        round(first.green() + (second.green() - first.green()) * amount),
        round(first.blue() + (second.blue() - first.blue()) * amount),
    )


def _with_alpha(color: QColor, alpha: int) -> QColor:
    translucent = QColor(color)
    translucent.setAlpha(alpha)
    return translucent
