"""One still frame (PNG) drawn by the same canvas, panel and view model as a video."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from app.headless.export.atomic import atomic_output, write_failed
from app.headless.export.frames import FrameSource
from app.headless.export.request import StillRequest
from app.headless.export.video import (
    ExportResult,
    check_drawing,
)
from fsr_core.recording import RecordingModel

__all__ = [
    "STILL_FORMATS",
    "StillPlan",
    "check_play_time",
    "export_frame",
    "plan_still",
    "write_still",
]

#: File extensions a still may be written to.
STILL_FORMATS = (".png",)


def check_play_time(duration_s: float, play_time_s: float) -> None:
    """Refuse a still time outside ``[0, duration_s]``.

    Raises
    ------
    ValueError
        ``play_time_s`` is not a time of the recording.
    """
    if not (math.isfinite(play_time_s) and 0.0 <= play_time_s <= duration_s + 1e-9):
        raise ValueError(
            f"time {play_time_s:g} s is outside the recording (0 to {duration_s:.3f} s)"
        )


def export_frame(model: RecordingModel, request: StillRequest) -> ExportResult:
    """Draw ``model`` at ``request.play_time_s`` and write it as a PNG.

    The picture is exactly a frame of :func:`~app.headless.export.export_video`
    with the same view model (without the even-size padding video needs).
    Needs a QGuiApplication (:func:`~app.headless.export.ensure_gui_app`).

    Raises
    ------
    ValueError
        Not a ``.png`` name, a non-positive size, a time outside the
        recording, or a camera view without that camera.
    TargetExistsError
        ``output`` exists and ``overwrite`` is false.
    WriteFailedError
        ``output`` is the input recording, or writing failed.
    """
    return write_still(plan_still(model, request))


@dataclass(frozen=True, eq=False)
class StillPlan:
    """A checked still: what :func:`write_still` draws."""

    model: RecordingModel
    request: StillRequest


def plan_still(model: RecordingModel, request: StillRequest) -> StillPlan:
    """Check every option of ``request`` against ``model``; draw nothing.

    Raises
    ------
    ValueError, TargetExistsError, WriteFailedError, LimitExceededError
        As :func:`export_frame` says.
    """
    output, shown = request.output, request.shown
    if output.suffix.lower() not in STILL_FORMATS:
        raise ValueError(f"{output}: a still is written as .png")
    if min(shown.size) <= 0:
        raise ValueError("size must be positive")
    check_play_time(model.duration_s, request.play_time_s)
    check_drawing(model, shown, output, overwrite=request.overwrite, still=True)
    return StillPlan(model, request)


def write_still(plan: StillPlan) -> ExportResult:
    """Draw a checked still and publish it as a PNG (see :func:`export_frame`)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage

    model, request = plan.model, plan.request
    started = time.perf_counter()
    frames = FrameSource(model, request.shown)
    rgb = frames.render(min(request.play_time_s, model.duration_s))
    height, width = rgb.shape[:2]
    image = QImage(rgb.data, width, height, 3 * width, QImage.Format.Format_RGB888)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The stub asks for bytes, but PySide6 6.11 accepts only a str here.
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise ValueError("Qt could not encode the PNG")
    buffer.close()
    output = request.output
    with atomic_output(output, overwrite=request.overwrite) as handle:
        try:
            handle.write(data.data())
        except OSError as exc:
            raise write_failed(exc, output) from exc
    return ExportResult(output, 1, width, height, time.perf_counter() - started)
