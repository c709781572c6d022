"""The window on hostile files: markup shown as text, extreme values, wide data.

Each test opens the real window (jobs inline) on a skelarm log built from
real data (:mod:`hostile_logs`), then checks what a user would see by walking
the widgets and the pyqtgraph scenes, not pixels.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_logs import (
    HTML_LABEL,
    IMG,
    huge_link_log,
    huge_values_log,
    markup_log,
    wide_log,
)
from PySide6.QtCore import QEvent, QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QHelpEvent, QImage, QPainter
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QMessageBox,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)
from pytestqt.qtbot import QtBot
from shown_widgets import open_and_wait

from app.canvas.panel import ReadoutPanel
from app.canvas.scene_canvas import SceneCanvas
from app.canvas.shown_text import LINE_CHARS, TOOLTIP_CHARS
from app.window.main_window import MainWindow
from app.window.plots import ChannelPickerDialog
from app.window.plots.channel_plots import MAX_SERIES_PER_PLOT
from app.window.screenshot import ScreenshotError, take_screenshot
from app.window.state.playlist import EntryState
from app.window.widgets.joint_rows import JointBar
from app.window.widgets.scene_view import SceneView
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

#: Markup that must never reach Qt as markup (raw tags, not &lt;-escaped).
_RAW_TAGS = re.compile(r"<\s*(img|h1|b)\b", re.IGNORECASE)
#: The longest text a widget may show from a file: a budget plus its note.
_LONGEST_SHOWN = TOOLTIP_CHARS + 200
#: The reader warns while deriving the tip speed of 1e308 angles (fsr_core).
_READER_OVERFLOW = "ignore:overflow encountered:RuntimeWarning"
_READER_INVALID = "ignore:invalid value encountered:RuntimeWarning"


def _load(qtbot: QtBot, window: MainWindow, path: Path, *plots: str) -> None:
    open_and_wait(qtbot, window, path)
    window.inspector_dock.show()
    if plots:
        window.session.options.update(plots=tuple((key,) for key in plots))
    QApplication.processEvents()


def _tree_items(tree: QTreeWidget) -> Iterator[QTreeWidgetItem]:
    stack = [tree.topLevelItem(row) for row in range(tree.topLevelItemCount())]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        yield item
        stack.extend(item.child(row) for row in range(item.childCount()))


def _own_texts(widget: QWidget, where: str) -> Iterator[tuple[str, str, bool]]:
    """Yield one widget's texts: (where, text, whether Qt reads it as HTML)."""
    yield f"{where} tooltip", widget.toolTip(), True
    if isinstance(widget, QLabel | QMessageBox):
        rich = widget.textFormat() != Qt.TextFormat.PlainText
        yield f"{where} text", widget.text(), rich
    if isinstance(widget, QTreeWidget):
        for item in _tree_items(widget):
            for column in range(item.columnCount()):
                yield f"{where} cell", item.text(column), False
                yield f"{where} cell tooltip", item.toolTip(column), True


def _scene_texts(view: QGraphicsView, where: str) -> Iterator[tuple[str, str, bool]]:
    """Yield a pyqtgraph scene's texts (labels, axes, legends: HTML documents)."""
    scene = view.scene()
    for item in [] if scene is None else scene.items():
        if isinstance(item, QGraphicsTextItem):
            yield f"{where} {type(item).__name__}", item.document().toHtml(), True


def _shown_texts(root: QWidget) -> Iterator[tuple[str, str, bool]]:
    """Yield every text ``root`` and its children show."""
    for widget in [root, *root.findChildren(QWidget)]:
        where = f"{type(widget).__name__} {widget.objectName()!r}"
        yield from _own_texts(widget, where)
        if isinstance(widget, QGraphicsView):
            yield from _scene_texts(widget, where)


def _assert_nothing_interpreted(root: QWidget) -> int:
    checked = 0
    for where, text, read_as_html in _shown_texts(root):
        checked += 1
        shown = text
        if read_as_html:
            assert not _RAW_TAGS.search(text), (where, text[:300])
            shown = html.unescape(re.sub(r"<[^>]*>", "", text))
        assert len(shown) <= _LONGEST_SHOWN, (where, len(shown))
    return checked


def test_markup_in_file_text_is_shown_as_written_everywhere_in_the_window(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = markup_log(tmp_path)

    _load(qtbot, window, path, "q", "q[<h1>x</h1>]")
    window.pick_channels()
    picker = window.findChild(ChannelPickerDialog)
    assert picker is not None

    assert _assert_nothing_interpreted(window) > 100
    assert _assert_nothing_interpreted(picker) > 4
    plot = window.plots.plot_widget(0).getPlotItem()
    axis_text = plot.getAxis("left").label.toPlainText()
    # The markup shown as characters (elided in the middle to the plot's
    # height): rendered as rich text, "<b" would vanish into bold.
    assert axis_text.startswith("<b")
    assert len(axis_text) < 200  # elided: 210 KB of it never reaches Qt
    legend = [entry[1].text for entry in plot.legend.items]
    assert IMG in html.unescape(" ".join(legend))
    texts = [label.text() for label in window.findChildren(QLabel)]
    assert not any(HTML_LABEL[:3000] in text for text in texts)
    picker.reject()


def test_a_link_of_1e308_m_is_said_in_words_and_its_limits_shown_as_text(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = huge_link_log(tmp_path)

    _load(qtbot, window, path, "q")

    bar = window.side_panel.findChild(JointBar, "joint_0")
    assert bar is not None
    assert bar.joint is not None
    assert bar.joint.fraction is not None
    assert 0.0 <= bar.joint.fraction <= 1.0
    assert "e+301°" in bar.toolTip()  # 1e300 rad in degrees, as text
    canvas = SceneCanvas(open_recording(path))
    image = _paint(lambda painter, rect: canvas.paint(painter, rect, 0.5), 640, 480)
    assert _distinct_colors(image) > 2  # a message, not a blank view
    panel = ReadoutPanel(open_recording(path)).render(0.5, 480)
    assert not panel.isNull()


@pytest.mark.filterwarnings(_READER_OVERFLOW, _READER_INVALID)
def test_angles_of_1e308_over_a_billion_seconds_show_as_text_and_gaps(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = huge_values_log(tmp_path)

    _load(qtbot, window, path, "q", "tau")
    window.session.clock.seek(1e9)
    QApplication.processEvents()

    value = window.side_panel.findChild(QLabel, "joint_0_value")
    assert value is not None
    assert value.text() == "1.000e+308 rad"
    assert "gaps" in window.plots.note.text()
    assert window.plots.note.isVisibleTo(window.plots)
    grabbed = window.grab()  # paints every view: nothing may raise
    assert not grabbed.isNull()
    canvas = SceneCanvas(open_recording(path))
    image = _paint(lambda painter, rect: canvas.paint(painter, rect, 1e9), 320, 240)
    assert _distinct_colors(image) > 2


def test_a_channel_of_5000_columns_draws_a_capped_number_and_says_so(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = wide_log(tmp_path)

    _load(qtbot, window, path, "tau")

    assert window.plots.plot_count == 1
    assert len(window.plots.series_names(0)) == MAX_SERIES_PER_PLOT
    note = window.plots.note.text()
    assert f"Showing {MAX_SERIES_PER_PLOT} of 5,000 series" in note
    assert window.plots.note.isVisibleTo(window.plots)
    streams = window.inspector_dock.panel.section("Streams")
    assert streams is not None
    window.pick_channels()
    picker = window.findChild(ChannelPickerDialog)
    assert picker is not None
    tau = next(item for item in picker.channel_items() if item.text(0) == "tau")
    assert tau.childCount() == 5000
    tau.setCheckState(0, Qt.CheckState.Unchecked)  # the whole channel was shown
    tau.child(4999).setCheckState(0, Qt.CheckState.Checked)
    assert picker.selected_plots() == (("tau[tau[4999]]",),)  # column "tau[4999]"
    picker.accept()
    assert window.plots.series_names(0) == ["tau[4999]"]
    assert not window.plots.note.isVisibleTo(window.plots)


def test_status_messages_from_files_are_plain_one_line_and_escaped(
    window: MainWindow,
) -> None:
    window.show_message(f"bad.fsr: unit {IMG}\n" + "x" * 10_000)

    label = window.status_label
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert "\n" not in label.text()
    assert len(label.text()) < LINE_CHARS * 2
    assert not _RAW_TAGS.search(label.toolTip())


def test_playlist_tooltips_show_a_reason_with_markup_as_written(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    playlist = window.session.playlist
    row = playlist.add_paths([tmp_path / "a.fsr"])[0]
    playlist.set_state(row, EntryState.INVALID, f"a.fsr: unit {IMG}" + "x" * 9000)
    view = window.playlist_dock.view
    shown: list[str] = []
    monkeypatch.setattr(
        "app.window.widgets.playlist_dock.QToolTip.showText",
        lambda _where, text, _widget: shown.append(text),
    )
    index = playlist.index(row, 0)
    event = QHelpEvent(QEvent.Type.ToolTip, QPoint(1, 1), QPoint(1, 1))

    handled = view.itemDelegate().helpEvent(event, view, QStyleOptionViewItem(), index)

    assert handled
    assert len(shown) == 1
    assert not _RAW_TAGS.search(shown[0])
    assert "&lt;img" in shown[0]
    assert "(+" in shown[0]  # elided


def test_an_exception_in_a_paint_event_fails_the_screenshot_and_writes_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, skelarm_logs: list[Path]
) -> None:
    def broken_paint(self: SceneView, event: Any) -> None:
        raise OverflowError("int too big to convert")

    monkeypatch.setattr(SceneView, "paintEvent", broken_paint)
    out = tmp_path / "shot.png"

    with pytest.raises(ScreenshotError) as caught:
        take_screenshot([skelarm_logs[0]], out, size=(640, 480))

    assert skelarm_logs[0].name in str(caught.value)
    assert "OverflowError" in str(caught.value)
    assert not out.exists()


def _paint(paint: Any, width: int, height: int) -> QImage:
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(0, 0, 0, 0))
    painter = QPainter(image)
    try:
        paint(painter, QRectF(0, 0, width, height))
    finally:
        painter.end()
    return image


def _distinct_colors(image: QImage) -> int:
    count = image.sizeInBytes() // 4
    data = np.frombuffer(image.constBits(), dtype=np.uint32, count=count)
    return int(np.unique(data).size)
