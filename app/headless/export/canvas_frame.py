"""A video frame that QPainter draws into directly, reused for every frame.

The export paints each picture straight into the pixel memory of one BGRA
``av.VideoFrame`` (through a ``QImage`` laid over it), repeats the right and
bottom edge pixels into the padding yuv420p needs, and converts that frame to
the codec's format. No copy of the picture is made on the way: copying it out
of a separate image and into PyAV cost the drawing thread about a fifth of the
export's rate (``tools/bench_export.py``).
"""

from __future__ import annotations

from typing import Any

import av
import numpy as np

from app.headless.export.encoder import RGBArray

__all__ = ["CanvasFrame"]


class CanvasFrame:
    """One ``width`` x ``height`` BGRA frame and the QImage that paints into it.

    ``image`` is an ``ARGB32_Premultiplied`` QImage over the frame's own
    memory (B, G, R, A bytes on little-endian machines, the frame's ``bgra``);
    ``pixels`` is the same memory as an ``(height, width, 4)`` array. The
    object keeps the frame alive for as long as the image is used.
    """

    def __init__(self, width: int, height: int) -> None:
        from PySide6.QtGui import QImage

        if width <= 0 or height <= 0:
            raise ValueError(f"a frame of {width}x{height} pixels is empty")
        self.width = width
        self.height = height
        self.frame = av.VideoFrame(width, height, "bgra")
        plane = self.frame.planes[0]
        self._memory = memory = memoryview(plane)
        self.image: Any = QImage(
            memory,
            width,
            height,
            plane.line_size,
            QImage.Format.Format_ARGB32_Premultiplied,
        )
        stride = plane.line_size // 4  # rows are aligned, in whole pixels
        every = np.frombuffer(memory, dtype=np.uint8, count=height * 4 * stride)
        self.pixels: RGBArray = every.reshape(height, stride, 4)[:, :width]

    def pad(self, width: int, height: int) -> None:
        """Repeat the right and bottom edge of the ``width`` x ``height`` picture.

        The columns and rows beyond it take the values of its last column and
        row (as skelarm pads), so yuv420p's even size adds no stray border.
        """
        if not (0 < width <= self.width and 0 < height <= self.height):
            raise ValueError(
                f"a {width}x{height} picture does not fit a "
                f"{self.width}x{self.height} frame"
            )
        pixels = self.pixels
        pixels[:height, width:] = pixels[:height, width - 1 : width]
        pixels[height:] = pixels[height - 1 : height]
