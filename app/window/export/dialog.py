"""File → Export…: the options of ``--export`` as a form, turned into a request.

The form starts from the window's view model (its overlays, environment,
camera and speed); the overlays offered are those of the registry that
apply to the recording.

The format follows the file name's extension (the format box rewrites it, and
typing a known extension picks the format). Under the form, a summary gives
the frame count, the frame size and the video's length the options give; a
problem (no name, unknown extension, start after end, an existing file without
Replace) is shown in words and keeps Export disabled.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from app.canvas.overlay_registry import overlays
from app.headless.export.frames import resolve_view
from app.headless.export.request import VideoRequest, output_size
from app.headless.export.video import CHOICES, EXPORT_FORMATS
from app.window.widgets.output_dialog import OutputDialog
from app.window.widgets.output_row import SaveDialogOptions
from fsr_core.recording import RecordingModel

__all__ = ["FORMAT_LABELS", "ExportDialog"]

#: The format box: extension → label.
FORMAT_LABELS: dict[str, str] = {
    ".mp4": "MP4 (H.264)",
    ".webm": "WebM (VP9)",
    ".gif": "GIF (animated, looping)",
}
_VIEW_LABELS = {
    "scene": "Scene",
    "camera": "Camera",
    "both": "Scene and camera side by side",
}
_SAVE_DIALOG = SaveDialogOptions(
    "Export to",
    "Videos (*.mp4 *.webm *.gif);;All files (*)",
    confirm_overwrite=True,
)
# A spin box shows 3 decimals: an end this close to the duration is the end.
_END_SLACK_S = 5e-4


def _spin(
    low: float, high: float, value: float, *, decimals: int, suffix: str
) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setDecimals(decimals)
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setSuffix(suffix)
    spin.setKeyboardTracking(False)
    return spin


def _side_spin(value: int) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(16, 8192)
    spin.setValue(value)
    spin.setSuffix(" px")
    spin.setKeyboardTracking(False)
    return spin


def _row(*widgets: QWidget) -> QHBoxLayout:
    """Lay ``widgets`` out left to right at their natural width."""
    row = QHBoxLayout()
    for widget in widgets:
        row.addWidget(widget)
    row.addStretch(1)
    return row


class ExportDialog(OutputDialog):
    """The export options for one recording; :meth:`request` reads them."""

    def __init__(
        self,
        model: RecordingModel,
        defaults: VideoRequest,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(
            parent,
            title=f"Export {model.path.name}",
            run_text="Export",
            output=defaults.output,
            replace=defaults.overwrite,
            save_dialog=_SAVE_DIALOG,
        )
        #: The run button (named for what it does here).
        self.export_button = self.run_button
        self._source = model.path
        self._duration_s = model.duration_s
        self._build_fields(model, defaults)
        self.summary_label = QLabel()
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self._lay_out(self._form(), self.summary_label)
        self._connect()
        self._on_output_edited(self.output_edit.text())
        self._on_view_changed()

    # -- building ---------------------------------------------------------

    def _build_fields(self, model: RecordingModel, defaults: VideoRequest) -> None:
        self.format_combo = QComboBox()
        for suffix, label in FORMAT_LABELS.items():
            self.format_combo.addItem(label, suffix)
        cameras = [track.name for track in model.cameras]
        self.view_combo = QComboBox()
        for view, label in _VIEW_LABELS.items():
            if view == "scene" or cameras:
                self.view_combo.addItem(label, view)
        shown = defaults.shown
        self._shown = shown
        view = resolve_view(model, shown.view)
        self.view_combo.setCurrentIndex(max(self.view_combo.findData(view), 0))
        self.camera_combo = QComboBox()
        self.camera_combo.addItems(cameras)
        if shown.camera in cameras:
            self.camera_combo.setCurrentText(shown.camera)
        self.width_spin = _side_spin(shown.size[0])
        self.height_spin = _side_spin(shown.size[1])
        self.fps_spin = _spin(1.0, 240.0, defaults.fps, decimals=2, suffix=" fps")
        self.speed_spin = _spin(0.01, 100.0, shown.speed, decimals=2, suffix=" x")
        end = self._duration_s
        start_s = defaults.start_s or 0.0
        end_s = end if defaults.end_s is None else defaults.end_s
        self.start_spin = _spin(0.0, end, start_s, decimals=3, suffix=" s")
        self.end_spin = _spin(0.0, end, end_s, decimals=3, suffix=" s")
        self.panel_check = QCheckBox("Readout panel on the right")
        self.panel_check.setChecked(shown.panel)
        #: One box per overlay that applies to the recording, by overlay name.
        self.overlay_checks: dict[str, QCheckBox] = {}
        for overlay in overlays():
            if overlay.applies(model):
                box = QCheckBox(overlay.label)
                box.setObjectName(f"overlay_{overlay.name}")
                box.setChecked(shown.shows(overlay.name))
                self.overlay_checks[overlay.name] = box

    def _form(self) -> QFormLayout:
        form = QFormLayout()
        form.addRow("File:", self.output_row)
        form.addRow("Format:", self.format_combo)
        form.addRow("View:", self.view_combo)
        form.addRow("Camera:", self.camera_combo)
        form.addRow(
            "Size:",
            _row(self.width_spin, QLabel("x"), self.height_spin, QLabel("each view")),
        )
        form.addRow("Frame rate:", _row(self.fps_spin))
        form.addRow(
            "Speed:",
            _row(self.speed_spin, QLabel("play-time seconds per video second")),
        )
        form.addRow("Play time:", _row(self.start_spin, QLabel("to"), self.end_spin))
        form.addRow("", self.panel_check)
        for box in self.overlay_checks.values():
            form.addRow("", box)
        form.addRow("", self.overwrite_check)
        return form

    def _connect(self) -> None:
        self.format_combo.currentIndexChanged.connect(self._on_format_changed)
        self.view_combo.currentIndexChanged.connect(self._on_view_changed)
        for spin in (
            self.width_spin,
            self.height_spin,
            self.fps_spin,
            self.speed_spin,
            self.start_spin,
            self.end_spin,
        ):
            spin.valueChanged.connect(self._update)
        for check in (self.panel_check, *self.overlay_checks.values()):
            check.toggled.connect(self._update)

    # -- reading ----------------------------------------------------------

    def request(self) -> VideoRequest:
        """Return the export the form describes."""
        start_s = self.start_spin.value()
        end_s = self.end_spin.value()
        view = str(self.view_combo.currentData())
        shown = replace(
            self._shown,
            speed=self.speed_spin.value(),
            size=(self.width_spin.value(), self.height_spin.value()),
            view=view,
            camera=None if view == "scene" else self.camera_combo.currentText(),
            panel=self.panel_check.isChecked(),
        )
        for name, box in self.overlay_checks.items():
            shown = shown.with_overlay(name, box.isChecked())
        return VideoRequest(
            source=self._source,
            output=self.output_row.path(),
            shown=shown,
            fps=self.fps_spin.value(),
            start_s=None if start_s <= 0.0 else start_s,
            end_s=None if end_s >= self._duration_s - _END_SLACK_S else end_s,
            overwrite=self.overwrite_check.isChecked(),
        )

    def problem(self) -> str:
        """Return why the form cannot be exported as it is ("" when it can)."""
        if not self.output_row.text():
            return "Choose a file name to export to."
        output = self.output_row.path()
        if output.suffix.lower() not in EXPORT_FORMATS:
            return f"{output.name}: the extension must be {CHOICES}."
        if self.start_spin.value() > self.end_spin.value():
            return "The start is after the end."
        if output.expanduser().absolute() == self._source.absolute():
            return "The output is the recording itself; choose another name."
        return ""

    # -- reactions --------------------------------------------------------

    def _on_output_edited(self, text: str) -> None:
        suffix = Path(text.strip()).suffix.lower()
        index = self.format_combo.findData(suffix)
        if index >= 0 and index != self.format_combo.currentIndex():
            self.format_combo.blockSignals(True)
            self.format_combo.setCurrentIndex(index)
            self.format_combo.blockSignals(False)
        self._update()

    def _on_format_changed(self, index: int) -> None:
        suffix = str(self.format_combo.itemData(index))
        text = self.output_row.text()
        path = Path(text) if text else self._source.with_name(self._source.stem)
        if path.suffix.lower() in EXPORT_FORMATS:
            path = path.with_suffix("")
        self.output_edit.setText(str(path) + suffix)

    def _on_view_changed(self, *_: object) -> None:
        self.camera_combo.setEnabled(self.view_combo.currentData() != "scene")
        self._update()

    def _update(self, *_: object) -> None:
        problem = self._show_problem()
        self.summary_label.setText("" if problem else self._summary())

    def _summary(self) -> str:
        request = self.request()
        kind = EXPORT_FORMATS[request.output.suffix.lower()]
        frames = request.frames(self._duration_s)
        width, height = output_size(request.shown, kind)
        seconds = frames / request.fps
        return f"{frames} frames, {width}x{height} px, {seconds:.2f} s of video"
