"""Headless video export (PyAV: H.264 MP4 or animated GIF) with atomic output."""

from app.export.video import (
    EXPORT_FORMATS,
    ExportCancelled,
    ExportResult,
    ensure_gui_app,
    export_format,
    export_video,
    frame_count,
    frame_times,
)

__all__ = [
    "EXPORT_FORMATS",
    "ExportCancelled",
    "ExportResult",
    "ensure_gui_app",
    "export_format",
    "export_video",
    "frame_count",
    "frame_times",
]
