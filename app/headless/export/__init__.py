"""Headless export (PyAV: H.264 MP4, VP9 WebM, animated GIF) with atomic output.

Also one still (PNG) and the channel data (CSV), atomic as well. Each name
has one home, a module of this package (:mod:`~app.headless.export.video`,
:mod:`~app.headless.export.still`, :mod:`~app.headless.export.channels`...);
the package itself gives the three exports' entry points and the Qt
application they draw in, for callers outside the app (the benchmarks).
"""

from app.headless.export.channels import export_channels
from app.headless.export.still import export_frame
from app.headless.export.video import ensure_gui_app, export_video

__all__ = ["ensure_gui_app", "export_channels", "export_frame", "export_video"]
