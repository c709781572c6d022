"""One still frame (PNG) drawn by the same canvas, panel and options as a video."""

from __future__ import annotations

import math
import time
from pathlib import Path

from app.headless.export.atomic import atomic_output, write_failed
from app.headless.export.frames import FrameOptions, FrameSource
from app.headless.export.video import (
    ExportResult,
    check_frame_memory,
    check_not_source,
)
from fsr_core.recording import RecordingModel

__all__ = ["STILL_FORMATS", "check_play_time", "export_frame"]

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


def export_frame(
    model: RecordingModel,
    play_time_s: float,
    output: Path,
    *,
    panel: bool = False,
    show_com: bool = False,
    environment: str = "",
    size: tuple[int, int] = (800, 800),
    view: str = "auto",
    camera: str | None = None,
    overwrite: bool = False,
) -> ExportResult:
    """Draw ``model`` at ``play_time_s`` and write it to ``output`` (PNG).

    The picture is exactly a frame of :func:`~app.headless.export.export_video` with the
    same options (without the even-size padding video needs). Needs a
    QGuiApplication (:func:`~app.headless.export.ensure_gui_app`).

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
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage

    if output.suffix.lower() not in STILL_FORMATS:
        raise ValueError(f"{output}: a still is written as .png")
    if min(size) <= 0:
        raise ValueError("size must be positive")
    duration = model.duration_s
    check_play_time(duration, play_time_s)
    check_not_source(output, model, overwrite=overwrite)
    shown = FrameOptions(size, panel, show_com, view, camera, environment)
    check_frame_memory(*shown.drawn_size(), output, still=True)
    started = time.perf_counter()
    frames = FrameSource(model, shown)
    rgb = frames.render(min(play_time_s, duration))
    height, width = rgb.shape[:2]
    image = QImage(rgb.data, width, height, 3 * width, QImage.Format.Format_RGB888)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The stub asks for bytes, but PySide6 6.11 accepts only a str here.
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise ValueError("Qt could not encode the PNG")
    buffer.close()
    with atomic_output(output, overwrite=overwrite) as handle:
        try:
            handle.write(data.data())
        except OSError as exc:
            raise write_failed(exc, output) from exc
    return ExportResult(output, 1, width, height, time.perf_counter() - started)
