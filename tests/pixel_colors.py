"""Finding a colour in a rendered picture, for the canvas and camera tests.

Also reading back a picture the command line wrote (a screenshot, a frame).

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so a test imports this as ``from pixel_colors import Pixels, near``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = ["Pixels", "near", "png_pixels"]

#: An RGB picture, ``(h, w, 3)`` uint8 (or one pixel of it, ``(3,)``).
Pixels = npt.NDArray[np.uint8]


def near(pixels: Pixels, rgb: tuple[int, int, int], tolerance: int = 12) -> Any:
    """Mask of pixels within ``tolerance`` of ``rgb`` in every channel."""
    difference = np.abs(pixels.astype(np.int16) - np.asarray(rgb, dtype=np.int16))
    return (difference <= tolerance).all(axis=-1)


def png_pixels(path: Path) -> npt.NDArray[np.int16]:
    """Return the picture at ``path`` as ``(h, w, 3)`` RGB, in ``int16``."""
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=np.int16)
