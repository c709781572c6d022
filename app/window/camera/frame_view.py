"""One camera's frame at the clock's position, decoded on a worker.

At most one decode per view is in flight. A result that a newer position
superseded is dropped and the frame now wanted is asked for, so scrubbing
shows the latest frame as soon as it can and never a backlog. Decoded
frames are kept in a small cache, so stepping back and forth is instant.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from PySide6.QtCore import QEvent, QRectF, QSize, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QWidget

from app.canvas.camera_canvas import CameraCanvas
from app.canvas.geometry_canvas import camera_canvas_for
from app.canvas.view_model import ViewModel
from app.window.state import PlaybackClock
from app.window.widgets.canvas_view import CanvasView
from app.window.workers import FrameJob, Runner, pool_runner
from app.window.workers.jobs import FrameResult
from fsr_core.recording import RecordingModel

__all__ = ["FrameView"]

#: Decoded frames kept per view.
CACHE_FRAMES: Final = 24


class FrameView(CanvasView[CameraCanvas]):
    """Paints one camera with its overlays; decoding runs through ``runner``."""

    #: A decoded frame (its index) is now the one drawn.
    frame_shown = Signal(int)
    #: Decoding a frame failed (index, message); the view shows an error tile.
    frame_failed = Signal(int, str)

    def __init__(
        self,
        clock: PlaybackClock,
        runner: Runner | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(clock, parent, minimum=QSize(200, 150))
        self._runner = runner if runner is not None else pool_runner()
        self._model: RecordingModel | None = None
        self._camera = ""
        self._options = ViewModel()
        self._cache: OrderedDict[int, FrameResult] = OrderedDict()
        self._request_id = 0
        self._in_flight: dict[int, FrameJob] = {}
        self._painted_index: int | None = None
        self.setMouseTracking(True)  # a depth camera reads out under the cursor

    # -- state ------------------------------------------------------------

    @property
    def camera(self) -> str:
        """The camera shown."""
        return self._camera

    @property
    def shown_index(self) -> int | None:
        """Index of the frame drawn (None before the first arrives)."""
        return None if self._canvas is None else self._canvas.shown_index

    @property
    def painted_index(self) -> int | None:
        """Index of the frame on screen: the one held at the last paint."""
        return self._painted_index

    @property
    def wanted_index(self) -> int | None:
        """Index of the frame recorded for the clock's position."""
        if self._canvas is None:
            return None
        return self._canvas.wanted_index(self._clock.position_s)

    @property
    def settled(self) -> bool:
        """Whether the view draws what the clock wants: its frame or its error."""
        wanted = self.wanted_index
        if wanted is None or wanted == self.shown_index:
            return True
        return self._canvas is not None and self._canvas.error_index == wanted

    @property
    def busy(self) -> bool:
        """Whether a decode is in flight."""
        return bool(self._in_flight)

    def set_camera(self, model: RecordingModel | None, camera: str) -> None:
        """Show ``camera`` of ``model`` (nothing when ``model`` is None)."""
        self._model, self._camera = model, camera
        self._cache.clear()
        self._in_flight.clear()
        self._request_id += 1
        self._rebuild()
        self._request_wanted()

    def set_options(self, options: ViewModel) -> None:
        """Draw with these toggles (keeps decoded frames)."""
        self._options = options
        shown = self.shown_index
        self._rebuild()
        if shown is not None and shown in self._cache:
            self._store(self._cache[shown])
        self.update()

    def _rebuild(self) -> None:
        model = self._model
        self._canvas = (
            None
            if model is None
            else camera_canvas_for(
                model,
                self._camera,
                self._options,
                fetch_on_paint=False,
            )
        )

    def sizeHint(self) -> QSize:  # noqa: N802
        """Return the preferred size (Qt override)."""
        return QSize(480, 360)

    # -- decoding ---------------------------------------------------------

    def _request_wanted(self) -> None:
        wanted = self.wanted_index
        if wanted is None or self._in_flight or wanted == self.shown_index:
            self.update()
            return
        cached = self._cache.get(wanted)
        if cached is not None:
            self._cache.move_to_end(wanted)
            self._store(cached)
            return
        model = self._model
        assert model is not None
        track = next(track for track in model.cameras if track.name == self._camera)
        self._request_id += 1
        job = FrameJob(self._request_id, model.path, track, wanted)
        job.signals.finished.connect(self._on_job_finished)
        job.signals.failed.connect(self._on_job_failed)
        self._in_flight[self._request_id] = job
        self._runner(job)

    def _on_job_finished(self, request_id: int, result: object) -> None:
        if self._in_flight.pop(request_id, None) is None:
            return  # a request of an earlier file or camera
        assert isinstance(result, FrameResult)
        self._cache[result.index] = result
        while len(self._cache) > CACHE_FRAMES:
            self._cache.popitem(last=False)
        if result.index == self.wanted_index:
            self._store(result)
        else:
            self._request_wanted()  # superseded: drop it, ask for the latest

    def _on_job_failed(self, request_id: int, message: str) -> None:
        job = self._in_flight.pop(request_id, None)
        if job is None or self._canvas is None:
            return
        index = self.wanted_index
        if index is not None:
            self._canvas.store_error(index, message)
            self.frame_failed.emit(index, message)
        self.update()

    def _store(self, result: FrameResult) -> None:
        if self._canvas is None:
            return
        self._canvas.store(
            result.index, result.frame, result.calibration, result.values
        )
        self.update()
        self.frame_shown.emit(result.index)

    # -- probe ------------------------------------------------------------

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        """Read out the value under the cursor, on a depth camera (Qt override)."""
        canvas = self._canvas
        if canvas is not None:
            pixel = canvas.probe_pixel(QRectF(self.rect()), event.position())
            canvas.set_probe(pixel)
            self.update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QEvent) -> None:  # noqa: N802
        """Drop the probe when the cursor leaves (Qt override)."""
        if self._canvas is not None:
            self._canvas.set_probe(None)
            self.update()
        super().leaveEvent(event)

    # -- painting ---------------------------------------------------------

    def _painted(self, play_time_s: float | None) -> None:
        del play_time_s
        self._painted_index = None if self._canvas is None else self._canvas.shown_index

    def _on_clock_position_changed(self, play_time_s: float) -> None:
        del play_time_s
        self._request_wanted()
