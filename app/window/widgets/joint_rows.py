"""The side panel's joints: a line per joint, grouped by arm, scrolling when many.

Each joint shows its name (plain text from the file, elided, the whole name
and its limits in the tooltip), a bar of its value within its limits (when
known, :func:`app.canvas.joint_bar.paint_joint_bar`, as the exported panel
draws it) and its value, in degrees or metres; a value beyond a limit is
drawn in the out-of-limits colour, bold. Under it, muted, its rate and
effort when the recording has them. Several arms show under their names.
More than :data:`SCROLL_FROM_JOINTS` joints scroll in a box of their own, so
the readouts and controls below stay in reach; past :data:`MAX_JOINT_ROWS`
the rest are counted in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.canvas.joint_bar import (
    BAR_HEIGHT_PX,
    OUT_OF_LIMITS_COLOR,
    joint_color,
    paint_joint_bar,
)
from app.canvas.panel_rows.base import (
    JointLineKind,
    JointValue,
    RowValue,
    joint_lines,
    joint_name_text,
)
from app.window.widgets.plain_text import tooltip_lines_html

__all__ = [
    "MAX_JOINT_ROWS",
    "SCROLL_FROM_JOINTS",
    "ElidedLabel",
    "JointsView",
    "mute",
    "upright_scroll",
]

#: Joints given a line; more (a very wide joint channel) are counted in one.
MAX_JOINT_ROWS: Final = 256
#: From this many joints on, they scroll in a box of their own.
SCROLL_FROM_JOINTS: Final = 13
#: The height of that box: about a dozen joints.
_SCROLL_HEIGHT_PX: Final = 300
#: Width of a joint's name column.
_NAME_WIDTH_PX: Final = 96


class ElidedLabel(QLabel):
    """A one-line plain-text label that elides what does not fit its width."""

    def __init__(self, mode: Qt.TextElideMode, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._mode = mode
        self._full_text = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def full_text(self) -> str:
        """Return the whole text, before eliding."""
        return self._full_text

    def set_full_text(self, text: str) -> None:
        """Show ``text``, elided to the label's width."""
        self._full_text = text
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        self.setText(metrics.elidedText(self._full_text, self._mode, self.width()))


def mute(widget: QWidget) -> None:
    """Draw ``widget``'s text in a grey between the text and background colours."""
    palette = widget.palette()
    text = palette.color(QPalette.ColorRole.WindowText)
    background = palette.color(QPalette.ColorRole.Window)
    grey = QColor.fromRgbF(
        0.6 * text.redF() + 0.4 * background.redF(),
        0.6 * text.greenF() + 0.4 * background.greenF(),
        0.6 * text.blueF() + 0.4 * background.blueF(),
    )
    palette.setColor(QPalette.ColorRole.WindowText, grey)
    widget.setPalette(palette)


def upright_scroll(widget: QWidget, name: str) -> QScrollArea:
    """Return ``widget`` in a frameless scroll area named ``name``.

    The area scrolls only up and down: the widget is made as wide as the area.
    """
    area = QScrollArea()
    area.setObjectName(name)
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


def _plain(text: str = "", *, name: str = "", muted: bool = False) -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    label.setObjectName(name)
    if muted:
        mute(label)
    return label


class JointBar(QWidget):
    """A joint's value within its limits, painted as the exported panel does."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.setObjectName(f"joint_{index}")
        self._color = joint_color(index)
        self._joint: JointValue | None = None
        self.setFixedHeight(round(BAR_HEIGHT_PX))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    @property
    def joint(self) -> JointValue | None:
        """The joint shown (``None`` before the first)."""
        return self._joint

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(60, round(BAR_HEIGHT_PX))

    def set_joint(self, joint: JointValue) -> None:
        """Show ``joint`` (repaints only when what is drawn changes)."""
        if joint != self._joint:
            self._joint = joint
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        if self._joint is None:
            return
        painter = QPainter(self)
        try:
            paint_joint_bar(painter, QRectF(self.rect()), self._joint, self._color)
        finally:
            painter.end()


@dataclass
class _JointLine:
    """The widgets of one joint: name, bar, value and (when recorded) its detail."""

    name: ElidedLabel
    bar: JointBar
    value: QLabel
    detail: QLabel | None = None
    outside: bool = False

    def show(self, joint: JointValue) -> None:
        self.value.setText(joint.value_text)
        self.bar.set_joint(joint)
        if self.detail is not None:
            self.detail.setText(joint.detail_text)
        if joint.outside != self.outside:
            self.outside = joint.outside
            _mark_outside(self.value, joint.outside)


def _mark_outside(label: QLabel, outside: bool) -> None:
    """Draw ``label`` bold in the out-of-limits colour, or as before."""
    palette = QPalette(label.palette())
    if outside:
        palette.setColor(QPalette.ColorRole.WindowText, OUT_OF_LIMITS_COLOR)
        label.setPalette(palette)
    else:
        label.setPalette(QPalette())  # the inherited palette again
    font = QFont(label.font())
    font.setBold(outside)
    label.setFont(font)
    label.setToolTip("Outside its limits" if outside else "")


class JointsView(QWidget):
    """Every joint of a joints row, in a scroll box when there are many."""

    def __init__(self, value: RowValue) -> None:
        super().__init__()
        self.setObjectName("joints")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        box = QWidget()
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(1)
        grid.setColumnStretch(1, 1)
        grid.setColumnMinimumWidth(0, _NAME_WIDTH_PX)
        self._lines: dict[int, _JointLine] = {}
        self._fill(grid, value)
        if len(value.joints) >= SCROLL_FROM_JOINTS:
            area = upright_scroll(box, "joints_scroll")
            area.setFixedHeight(_SCROLL_HEIGHT_PX)
            outer.addWidget(area)
        else:
            outer.addWidget(box)
        self.show_value(value)

    @property
    def count(self) -> int:
        """Joints given a line."""
        return len(self._lines)

    def show_value(self, value: RowValue) -> None:
        """Show the joints' values of ``value``."""
        for index, line in self._lines.items():
            if index < len(value.joints):
                line.show(value.joints[index])

    def _fill(self, grid: QGridLayout, value: RowValue) -> None:
        row = 0
        shown = [line for line in joint_lines(value) if _listed(line.index)]
        for line in shown:
            if line.kind is JointLineKind.GROUP:
                heading = _plain(line.text, name=f"joint_group_{row}", muted=True)
                font = QFont(heading.font())
                font.setBold(True)
                heading.setFont(font)
                grid.addWidget(heading, row, 0, 1, 3)
            elif line.kind is JointLineKind.JOINT and line.index is not None:
                joint = value.joints[line.index]
                self._lines[line.index] = _add_joint(grid, row, line.index, joint)
            elif line.index is not None and line.index in self._lines:
                detail = _plain(name=f"joint_{line.index}_detail", muted=True)
                detail.setIndent(12)
                grid.addWidget(detail, row, 0, 1, 3)
                self._lines[line.index].detail = detail
            row += 1
        hidden = len(value.joints) - MAX_JOINT_ROWS
        if hidden > 0:
            more = _plain(
                f"… and {hidden:,} more joints (see the plots)",
                name="more_joints",
                muted=True,
            )
            grid.addWidget(more, row, 0, 1, 3)


def _listed(index: int | None) -> bool:
    return index is None or index < MAX_JOINT_ROWS


def _add_joint(
    grid: QGridLayout, row: int, index: int, joint: JointValue
) -> _JointLine:
    name = ElidedLabel(Qt.TextElideMode.ElideRight)
    name.setObjectName(f"joint_{index}_name")
    name.set_full_text(joint_name_text(joint))
    name.setMinimumWidth(_NAME_WIDTH_PX)
    name.setMaximumWidth(_NAME_WIDTH_PX)
    name.setToolTip(tooltip_lines_html((joint.name, joint.limits_text)))
    bar = JointBar(index)
    bar.setToolTip(tooltip_lines_html((joint.name, joint.limits_text)))
    value = _plain(name=f"joint_{index}_value")
    value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    widest = "-0.000 m" if joint.prismatic else "-180°"
    value.setMinimumWidth(value.fontMetrics().horizontalAdvance(widest) + 6)
    grid.addWidget(name, row, 0)
    grid.addWidget(bar, row, 1)
    grid.addWidget(value, row, 2)
    return _JointLine(name, bar, value)
