"""Painting a recording's planar scene and its readout panel with QPainter.

:class:`~app.canvas.scene_canvas.SceneCanvas` draws the arm, its task
overlays and the tip force at a play time;
:class:`~app.canvas.camera_canvas.CameraCanvas` draws one camera's recorded
frame with the task projected through that frame's calibration;
:class:`~app.canvas.panel.ReadoutPanel` draws the side panel that exports
place next to it. What they draw over the recording is the
:class:`~app.canvas.view_model.ViewModel`'s overlays
(:mod:`app.canvas.overlays`). All paint into any ``QPainter`` (the window's
view, an export frame) and need a ``QGuiApplication`` for their text. The
readouts both side panels show are the Qt-free row providers of
:mod:`app.canvas.panel_rows`. Each name is imported from its own module, so
that importing the Qt-free parts (the view model, the overlay registry, the
panel rows) loads no Qt.
"""
