"""One frame of an image sequence: its size checked, then read by imageio or numpy.

PNG, JPEG, TIFF (16-bit too) and EXR are read with imageio's v3 API; ``.npy``
arrays (Replicator's ``distance_to_camera``) with numpy, their header first.
A frame's declared size is checked against the memory budget before its
pixels are read. A frame is a *picture* (8-bit RGB, grey or RGBA; 16-bit or
floating-point colour scaled to 8 bits) or a *depth* map (one channel that
is not 8-bit, or a sequence named ``*depth*``/``*distance*``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import DecodeError, FsrError
from fsr_core.logs.npy_header import read_npy_header
from fsr_core.sources.toolkit.optional_packages import missing_hint, require_module

__all__ = [
    "INSTALL_HINT",
    "FrameShape",
    "frame_shape",
    "imageio_missing",
    "read_pixels",
]

INSTALL_HINT: Final = "the 'imageio' package (pip install 'fsr-viewer[images]')"
_DEPTH_WORDS: Final = ("depth", "distance")


@dataclass(frozen=True)
class FrameShape:
    """What a sequence's first frame declares: its shape and type."""

    shape: tuple[int, ...]
    dtype: str

    @property
    def channels(self) -> int:
        """Colour channels (1 for a grey or depth frame)."""
        return self.shape[2] if len(self.shape) == 3 else 1

    def is_depth(self, name: str) -> bool:
        """Whether frames of this shape, in a sequence called ``name``, are depth."""
        if any(word in name.lower() for word in _DEPTH_WORDS):
            return True
        return self.channels == 1 and np.dtype(self.dtype) != np.uint8


def imageio_missing() -> str | None:
    """Return what to install when imageio cannot be imported, else ``None``."""
    return missing_hint(INSTALL_HINT, "imageio.v3")


def _imageio(path: Path) -> Any:
    if path.suffix.lower() == ".exr":
        # OpenCV (one of imageio's plugins) reads EXR only when asked before import.
        os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")
    return require_module(
        "imageio.v3", hint=INSTALL_HINT, doing="reading image sequences", path=path
    )


def _npy_shape(path: Path) -> FrameShape:
    try:
        with path.open("rb") as handle:
            header = read_npy_header(handle)
    except (OSError, ValueError) as exc:
        raise DecodeError(f"not a readable .npy array: {exc}", path=path) from None
    return FrameShape(header.shape, str(header.dtype))


def frame_shape(path: Path) -> FrameShape:
    """Return the shape and type ``path`` declares, reading no pixels where it can.

    Raises
    ------
    DecodeError
        The file is not an image (or array) the readers know.
    SourceUnavailableError
        imageio is missing (the message names the extra).
    """
    if path.suffix.lower() == ".npy":
        return _npy_shape(path)
    iio = _imageio(path)
    try:
        props = iio.improps(path, index=0)
    except Exception as exc:  # noqa: BLE001 - imageio's plugins raise anything
        raise DecodeError(f"not a readable image: {exc}", path=path) from None
    return FrameShape(tuple(int(n) for n in props.shape), str(props.dtype))


def read_pixels(path: Path, expected: FrameShape) -> np.ndarray[Any, Any]:
    """Return the frame's array (height, width[, channels]) as stored.

    Raises
    ------
    LimitExceededError
        Its declared size is over the memory budget (checked before reading).
    DecodeError
        It cannot be read, or is not of the sequence's shape.
    """
    shape = frame_shape(path)
    size = int(np.prod(shape.shape, dtype=np.float64)) * np.dtype(shape.dtype).itemsize
    check_budget(MEMORY, size, f"frame {path.name}", path=path)
    try:
        if path.suffix.lower() == ".npy":
            pixels = np.load(path, allow_pickle=False)
        else:
            pixels = _imageio(path).imread(path, index=0)
    except FsrError:
        raise
    except Exception as exc:  # noqa: BLE001 - imageio's plugins raise anything
        raise DecodeError(f"cannot read the frame: {exc}", path=path) from None
    pixels = np.asarray(pixels)
    if pixels.ndim == 3 and pixels.shape[2] == 1:
        pixels = pixels[:, :, 0]
    if pixels.shape[:2] != expected.shape[:2]:
        raise DecodeError(
            f"a {pixels.shape[1]}x{pixels.shape[0]} frame in a sequence of "
            f"{expected.shape[1]}x{expected.shape[0]}",
            path=path,
        )
    return pixels
