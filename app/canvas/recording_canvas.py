"""What every view of a recording shares: its model, its view model, its images.

:class:`RecordingCanvas` is the base of the scene and camera canvases. Each
draws its recording at a play time into any ``QPainter`` (:meth:`paint`);
the base holds the recording and the :class:`~app.canvas.view_model.ViewModel`
it is drawn under (which overlays, which environment), turns ``paint`` into a
standalone image (:meth:`render`) on the canvas's background, and keeps what
an overlay computes once per recording (:meth:`memo`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from app.canvas.drawing import Rgb, rgb_color
from app.canvas.images import paint_to_image
from app.canvas.view_model import ViewModel
from fsr_core.recording import RecordingModel

__all__ = ["RecordingCanvas"]

T = TypeVar("T")


class RecordingCanvas(ABC):
    """Draws a recording at a play time with QPainter, under a view model.

    No widgets: :meth:`paint` serves the window's views and the export alike.

    Parameters
    ----------
    model
        The recording drawn.
    options
        What is drawn besides the recording's own picture (the defaults
        when None).
    background
        The colour an image of the canvas starts from (:meth:`render`).
    """

    def __init__(
        self, model: RecordingModel, options: ViewModel | None, background: Rgb
    ) -> None:
        self._model = model
        self._options = ViewModel() if options is None else options
        self._background = background
        self._memo: dict[str, Any] = {}

    @property
    def model(self) -> RecordingModel:
        """The recording drawn."""
        return self._model

    @property
    def options(self) -> ViewModel:
        """What is drawn besides the recording's own picture."""
        return self._options

    def memo(self, key: str, make: Callable[[], T]) -> T:
        """Return ``make()``, computed once per canvas (so per recording).

        For what an overlay derives from the whole recording (a scale, a
        fitted size): ``key`` names it (prefix it with the overlay's name).
        """
        if key not in self._memo:
            self._memo[key] = make()
        value: T = self._memo[key]
        return value

    def render(self, play_time_s: float, width: int, height: int) -> QImage:
        """Return the view at ``play_time_s`` as a ``width`` x ``height`` RGB888."""
        return paint_to_image(
            lambda painter, rect: self.paint(painter, rect, play_time_s),
            width,
            height,
            rgb_color(self._background),
        )

    @abstractmethod
    def paint(self, painter: QPainter, rect: QRectF, play_time_s: float) -> None:
        """Paint the view at ``play_time_s`` into ``rect``."""
