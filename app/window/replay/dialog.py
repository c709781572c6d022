"""Replay → Re-render… / Re-simulate…: the replay's options as a form.

Simulator (the recorded one first), and for a re-simulation its timing, how
chunks are submitted, how many may be in flight, and whether the recorded
external force is pushed again; then the output file (beside the source by
default, never replaced unless Replace is ticked) and the tolerances the
comparison judges the result with (per channel, and in pixel levels for the
camera frames when the recording has cameras). A problem (an unavailable simulator with
the extra to install, no name, not ``.fsr``, the source itself, an existing
file) is shown in words and keeps Run disabled.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from app.window.replay.availability import (
    MODE_VERBS,
    simulator_block_reason,
    simulator_choices,
)
from app.window.replay.request import ReplayRequest, output_suffix, parse_tolerance
from app.window.widgets.output_dialog import OutputDialog
from app.window.widgets.output_row import SaveDialogOptions
from fsr_core.recording import RecordingModel
from fsr_core.simulation.protocol import Execution, ReplayMode, ReplayOptions, Timing

__all__ = ["EXECUTION_LABELS", "TIMING_LABELS", "ReplayDialog"]

TIMING_LABELS: dict[Timing, str] = {
    Timing.RECORDED_SIM_TIME: "Recorded sim time (hold to the recorded end)",
    Timing.AS_FAST_AS_VALID: "As fast as valid (stop when every chunk ends)",
}
EXECUTION_LABELS: dict[Execution, str] = {
    Execution.RECORDED_PREEMPTION: "Recorded preemption (recorded start times)",
    Execution.SEQUENTIAL: "Sequential (each chunk to its end)",
}


def _save_dialog(suffix: str) -> SaveDialogOptions:
    """Return the Browse… dialog's options for a replay written as ``suffix``."""
    return SaveDialogOptions(
        "Write the replay to",
        f"Replays (*{suffix});;All files (*)",
        confirm_overwrite=False,
    )


def _combo(
    labels: dict[Timing, str] | dict[Execution, str], chosen: object
) -> QComboBox:
    combo = QComboBox()
    for value, label in labels.items():
        combo.addItem(label, value)
    combo.setCurrentIndex(max(combo.findData(chosen), 0))
    return combo


class ReplayDialog(OutputDialog):
    """The options of one replay of ``model``; :meth:`request` reads them."""

    def __init__(
        self,
        model: RecordingModel,
        defaults: ReplayRequest,
        parent: QWidget | None = None,
    ) -> None:
        verb = MODE_VERBS[defaults.mode]
        super().__init__(
            parent,
            title=f"{verb} {model.path.name}",
            run_text=verb,
            output=defaults.output,
            replace=defaults.options.overwrite,
            save_dialog=_save_dialog(output_suffix(model.source)),
        )
        self._source = model.path
        self._suffix = output_suffix(model.source)
        self._has_cameras = bool(model.cameras)
        self._mode = defaults.mode
        self._build_fields(model, defaults)
        self._lay_out(self._form())
        self._connect()
        self._update()

    @property
    def mode(self) -> ReplayMode:
        """The mode this dialog runs."""
        return self._mode

    # -- building ---------------------------------------------------------

    def _build_fields(self, model: RecordingModel, defaults: ReplayRequest) -> None:
        options = defaults.options
        self.simulator_combo = QComboBox()
        self.simulator_combo.addItems(simulator_choices(model))
        if defaults.simulator is not None:
            self.simulator_combo.setCurrentText(defaults.simulator)
        self.timing_combo = _combo(TIMING_LABELS, options.timing)
        self.execution_combo = _combo(EXECUTION_LABELS, options.execution)
        self.max_in_flight_spin = QSpinBox()
        self.max_in_flight_spin.setRange(1, 64)
        self.max_in_flight_spin.setValue(options.max_in_flight)
        self.max_in_flight_spin.setSuffix(" chunks")
        self.force_check = QCheckBox("Replay the recorded external force")
        self.force_check.setChecked(options.with_recorded_force)
        has_force = model.external_force_channel is not None
        self.force_check.setEnabled(has_force)
        self.force_check.setToolTip(
            "Push the arm again with the force recorded as evidence "
            "(a take pushed from outside its config reproduces only with it)"
            if has_force
            else "The recording has no external force channel"
        )
        self.tolerance_edit = QLineEdit(f"{defaults.tolerance:g}")
        self.tolerance_edit.setToolTip(
            "Largest absolute error accepted per channel, in its unit "
            "(0: the replay must reproduce exactly)"
        )
        self.pixel_tolerance_spin = QSpinBox()
        self.pixel_tolerance_spin.setRange(0, 255)
        self.pixel_tolerance_spin.setValue(round(defaults.pixel_tolerance))
        self.pixel_tolerance_spin.setSuffix(" levels")
        self.pixel_tolerance_spin.setToolTip(
            "Largest pixel error accepted in the camera frames, in 8-bit levels "
            "(0: every frame must be identical)"
        )

    def _form(self) -> QFormLayout:
        form = QFormLayout()
        form.addRow("Simulator:", self.simulator_combo)
        if self._mode is ReplayMode.RESIMULATE:
            form.addRow("Timing:", self.timing_combo)
            form.addRow("Execution:", self.execution_combo)
            form.addRow("Max in flight:", self.max_in_flight_spin)
            form.addRow("", self.force_check)
        form.addRow("Output:", self.output_row)
        form.addRow("", self.overwrite_check)
        form.addRow("Compare within:", self.tolerance_edit)
        if self._has_cameras:
            form.addRow("Frames within:", self.pixel_tolerance_spin)
        return form

    def _connect(self) -> None:
        self.tolerance_edit.textChanged.connect(self._update)
        self.simulator_combo.currentIndexChanged.connect(self._update)
        self.execution_combo.currentIndexChanged.connect(self._update)

    # -- reading ----------------------------------------------------------

    def request(self) -> ReplayRequest:
        """Return the replay the form describes."""
        options = ReplayOptions(
            mode=self._mode,
            timing=Timing(self.timing_combo.currentData()),
            execution=Execution(self.execution_combo.currentData()),
            max_in_flight=self.max_in_flight_spin.value(),
            with_recorded_force=(
                self._mode is ReplayMode.RESIMULATE
                and self.force_check.isEnabled()
                and self.force_check.isChecked()
            ),
            overwrite=self.overwrite_check.isChecked(),
        )
        return ReplayRequest(
            source=self._source,
            output=self.output_row.path(),
            options=options,
            simulator=self.simulator_combo.currentText() or None,
            tolerance=parse_tolerance(self.tolerance_edit.text()) or 0.0,
            pixel_tolerance=float(self.pixel_tolerance_spin.value()),
        )

    def problem(self) -> str:
        """Return why the form cannot run as it is ("" when it can)."""
        simulator = self.simulator_combo.currentText()
        if not simulator:
            return "No simulator is registered."
        reason = simulator_block_reason(simulator, self._mode)
        if reason is not None:
            return reason
        if not self.output_row.text():
            return "Choose a file name for the replay."
        output = self.output_row.path()
        if not output.name.lower().endswith(self._suffix):
            return (
                f"{output.name}: this replay is written as {self._suffix}; "
                f"the name must end in {self._suffix}."
            )
        if output.absolute() == self._source.absolute():
            return "The output is the recording itself; choose another name."
        if parse_tolerance(self.tolerance_edit.text()) is None:
            return "The tolerance must be a number >= 0 (e.g. 0, 1e-9, 0.001)."
        return ""

    # -- reactions --------------------------------------------------------

    def _update(self, *_: object) -> None:
        preemption = self.execution_combo.currentData() == Execution.RECORDED_PREEMPTION
        self.max_in_flight_spin.setEnabled(preemption)
        self._show_problem()
