"""Exports and canvases in the tests, asked for with keywords.

The export takes a :class:`~app.headless.export.request.VideoRequest` or a
:class:`~app.headless.export.request.StillRequest` that carries a
:class:`~app.canvas.view_model.ViewModel`; the tests name the few fields they
change as keywords (``show_com=True`` switches the centres of mass on).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.canvas.view_model import ViewModel
from app.headless.export.request import StillRequest, VideoRequest
from app.headless.export.still import export_frame
from app.headless.export.video import ExportResult, export_video
from fsr_core.recording import RecordingModel


def shown(
    *, show_com: bool | None = None, hidden: tuple[str, ...] = (), **fields: Any
) -> ViewModel:
    """Return the default view model with ``fields`` changed.

    ``show_com`` switches the centres of mass on or off; ``hidden`` names
    overlays switched off.
    """
    model = ViewModel(**fields)
    if show_com is not None:
        model = model.with_overlay("com", show_com)
    for name in hidden:
        model = model.with_overlay(name, False)
    return model


def export_video_as(
    model: RecordingModel,
    output: Path,
    *,
    fps: float = 30.0,
    start_s: float | None = None,
    end_s: float | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    **view: Any,
) -> ExportResult:
    """Export ``model`` to ``output`` with the view model's ``view`` fields."""
    request = VideoRequest(
        model.path,
        output,
        shown(**view),
        fps=fps,
        start_s=start_s,
        end_s=end_s,
        overwrite=overwrite,
    )
    return export_video(model, request, progress=progress, cancelled=cancelled)


def export_frame_as(
    model: RecordingModel,
    play_time_s: float,
    output: Path,
    *,
    overwrite: bool = False,
    **view: Any,
) -> ExportResult:
    """Write the still of ``model`` at ``play_time_s`` with ``view`` fields."""
    request = StillRequest(model.path, output, play_time_s, shown(**view), overwrite)
    return export_frame(model, request)
