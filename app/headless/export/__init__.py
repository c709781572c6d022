"""Headless export (PyAV: H.264 MP4, VP9 WebM, animated GIF) with atomic output.

Also one still (PNG) and the channel data (CSV), atomic as well.
"""

from app.headless.export.channels import ChannelExport, channel_table, export_channels
from app.headless.export.still import STILL_FORMATS, export_frame
from app.headless.export.video import (
    CHOICES,
    EXPORT_FORMATS,
    VIEWS,
    ExportCancelled,
    ExportResult,
    check_not_source,
    check_view,
    ensure_gui_app,
    export_format,
    export_video,
    frame_count,
    frame_times,
    play_window,
)

__all__ = [
    "CHOICES",
    "EXPORT_FORMATS",
    "STILL_FORMATS",
    "VIEWS",
    "ChannelExport",
    "ExportCancelled",
    "ExportResult",
    "channel_table",
    "check_not_source",
    "check_view",
    "ensure_gui_app",
    "export_channels",
    "export_format",
    "export_frame",
    "export_video",
    "frame_count",
    "frame_times",
    "play_window",
]
