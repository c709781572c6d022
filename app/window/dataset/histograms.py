"""The overview's histograms: one per metric, the outliers marked, and the kinds.

Each metric of :data:`~app.window.dataset.outcomes.METRICS` gets a bar
histogram of its values over the checked entries; the part of a bar that
holds entries beyond their dataset's fence is stacked on top in red, and
with one dataset its fences are dashed lines. A last plot counts the flags
by kind. pyqtgraph reads titles and tick labels as HTML: every text here is
the project's own (metric headings, kind names), never the file's.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

import numpy as np
import pyqtgraph as pg  # type: ignore[import-untyped]
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.window.dataset.outcomes import METRICS, DatasetOverviewData
from fsr_core.checks import Fence, FlagKind

__all__ = ["BINS", "MetricHistograms", "compact_number"]

#: Bars of a histogram (fewer when there are fewer distinct values).
BINS: Final = 16
_COLUMNS: Final = 4
_NORMAL: Final = QColor(110, 140, 180)
_OUTLIER: Final = QColor(210, 50, 50)
_KIND_BAR: Final = QColor(200, 120, 20)
_PLOT_MIN_HEIGHT_PX: Final = 120
#: The kinds chart keeps room for this many bars (one bar filled it).
_KIND_SLOTS: Final = 5


def compact_number(value: float) -> str:
    """Say ``value`` in at most about four characters ("8k", "1.5M", "0.25")."""
    size = abs(value)
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if size >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


class _CompactAxis(pg.AxisItem):  # type: ignore[misc]
    """A value axis whose labels stay short: "2000 4000 6000" ran together."""

    def tickStrings(  # noqa: N802
        self, values: list[float], scale: float, spacing: float
    ) -> list[str]:
        del spacing
        return [compact_number(value * scale) for value in values]


def _bins(values: np.ndarray) -> np.ndarray:
    low, high = float(values.min()), float(values.max())
    if high <= low:
        pad = abs(low) * 0.05 or 0.5
        low, high = low - pad, high + pad
    count = min(BINS, max(len(np.unique(values)), 4))
    return np.linspace(low, high, count + 1)


class MetricHistograms(QWidget):
    """A grid of histograms (one per metric) and a bar chart of flag kinds."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.graphics = pg.GraphicsLayoutWidget(parent=self)
        layout.addWidget(self.graphics)
        self.plots: dict[str, pg.PlotItem] = {}
        self.counts: dict[str, tuple[int, int]] = {}
        """Per metric: entries drawn, of which beyond their fence."""
        self.kind_counts: dict[str, int] = {}
        self._build()

    def _build(self) -> None:
        palette = self.palette()
        self.graphics.setBackground(palette.color(QPalette.ColorRole.Base))
        self._text = text = palette.color(QPalette.ColorRole.Text)
        for number, (key, heading, _) in enumerate(METRICS):
            plot = self.graphics.addPlot(
                row=number // _COLUMNS,
                col=number % _COLUMNS,
                title=heading,
                axisItems={"bottom": _CompactAxis("bottom")},
            )
            self._style(plot, text)
            plot.setMinimumHeight(_PLOT_MIN_HEIGHT_PX)
            self.plots[key] = plot
        place = len(METRICS)
        kinds = self.graphics.addPlot(
            row=place // _COLUMNS,
            col=place % _COLUMNS,
            colspan=_COLUMNS - place % _COLUMNS,
            title="flags by kind",
            axisItems={"bottom": _CompactAxis("bottom")},
        )
        self._style(kinds, text)
        self.plots["kinds"] = kinds

    @staticmethod
    def _style(plot: pg.PlotItem, text: QColor) -> None:
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        MetricHistograms._title(plot, plot.titleLabel.text, text)
        font = QFont()
        font.setPointSizeF(7.5)
        for side in ("left", "bottom"):
            axis = plot.getAxis(side)
            axis.setStyle(tickFont=font)
            axis.setTextPen(pg.mkPen(text))
            axis.setPen(pg.mkPen(text))

    @staticmethod
    def _title(plot: pg.PlotItem, title: str, text: QColor) -> None:
        # Set with its style: setAttr alone left a set title grey.
        plot.setTitle(title, color=text.name(), size="9pt")

    def set_data(self, data: DatasetOverviewData) -> None:
        """Draw the metrics of ``data``'s rows, its outliers and fences."""
        single = next(iter(data.fences.values())) if len(data.fences) == 1 else ()
        for key, heading, _ in METRICS:
            plot = self.plots[key]
            plot.clear()
            pairs = [
                (float(value), key in row.outliers)
                for row in data.rows
                if (value := row.values.get(key)) is not None and np.isfinite(value)
            ]
            self.counts[key] = (len(pairs), sum(out for _, out in pairs))
            # An empty plot says so (one episode has no end-pose distance).
            self._title(plot, heading if pairs else f"{heading}: none", self._text)
            if not pairs:
                continue
            values = np.array([value for value, _ in pairs])
            beyond = np.array([out for _, out in pairs], dtype=bool)
            edges = _bins(values)
            normal, _ = np.histogram(values[~beyond], bins=edges)
            outside, _ = np.histogram(values[beyond], bins=edges)
            width = float(edges[1] - edges[0])
            middles = (edges[:-1] + edges[1:]) / 2
            plot.addItem(
                pg.BarGraphItem(
                    x=middles, height=normal, width=width * 0.9, brush=_NORMAL
                )
            )
            if beyond.any():
                plot.addItem(
                    pg.BarGraphItem(
                        x=middles,
                        y0=normal,
                        height=outside,
                        width=width * 0.9,
                        brush=_OUTLIER,
                    )
                )
            for fence in single:
                if fence.metric == key:
                    self._fence_lines(plot, fence)
        self._kinds(data)

    @staticmethod
    def _fence_lines(plot: pg.PlotItem, fence: Fence) -> None:
        pen = pg.mkPen(_OUTLIER, width=1.5, style=Qt.PenStyle.DashLine)
        for where in (fence.low, fence.high):
            if where is not None:
                plot.addItem(pg.InfiniteLine(where, angle=90, pen=pen))

    def _kinds(self, data: DatasetOverviewData) -> None:
        plot = self.plots["kinds"]
        plot.clear()
        counts = Counter(flag.kind.value for row in data.rows for flag in row.flags)
        self.kind_counts = dict(counts)
        names = [kind.value for kind in FlagKind if counts.get(kind.value)]
        plot.getAxis("left").setTicks([list(enumerate(names))])
        title = "flags by kind" if names else "flags by kind: none"
        self._title(plot, title, self._text)
        if not names:
            return
        plot.addItem(
            pg.BarGraphItem(
                x0=0,
                y=np.arange(len(names)),
                width=[counts[name] for name in names],
                height=0.7,
                brush=_KIND_BAR,
            )
        )
        plot.setYRange(-0.6, max(len(names), _KIND_SLOTS) - 0.4, padding=0)
