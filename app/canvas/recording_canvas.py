"""What every view of a recording shares: its model, its options, its images.

:class:`RecordingCanvas` is the base of the scene and camera canvases. Each
draws its recording at a play time into any ``QPainter`` (:meth:`paint`);
the base holds the recording and the drawing options and turns ``paint``
into a standalone image (:meth:`render`) on the canvas's background.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from app.canvas.drawing import Rgb, rgb_color
from app.canvas.images import paint_to_image
from fsr_core.recording import RecordingModel

__all__ = ["RecordingCanvas"]

OptionsT = TypeVar("OptionsT")


class RecordingCanvas(ABC, Generic[OptionsT]):
    """Draws a recording at a play time with QPainter, under some options.

    No widgets: :meth:`paint` serves the window's views and the export alike.

    Parameters
    ----------
    model
        The recording drawn.
    options
        What is drawn besides the recording's own picture.
    background
        The colour an image of the canvas starts from (:meth:`render`).
    """

    def __init__(
        self, model: RecordingModel, options: OptionsT, background: Rgb
    ) -> None:
        self._model = model
        self._options = options
        self._background = background

    @property
    def model(self) -> RecordingModel:
        """The recording drawn."""
        return self._model

    @property
    def options(self) -> OptionsT:
        """What is drawn besides the recording's own picture."""
        return self._options

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
