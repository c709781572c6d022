"""The immutable 8-bit RGB camera frame every layer passes around."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from fsr_core.errors import DecodeError
from fsr_core.media._checks import TIMES, byte_view, check_positive_int

__all__ = ["RGBFrame"]


@dataclass(frozen=True, eq=False, repr=False)
class RGBFrame:
    """An immutable 8-bit RGB image.

    Parameters
    ----------
    pixels
        An ``(H, W, 3)`` ``uint8`` array (``H, W >= 1``). An array that is already
        read-only and C-contiguous is kept as it is, without a copy; the caller
        promises not to change it through another view. Any other array (writable,
        non-contiguous or an ndarray subclass) is copied. The stored array is
        C-contiguous with ``flags.writeable == False``.

    Raises
    ------
    TypeError
        If ``pixels`` is not a ``uint8`` ndarray.
    ValueError
        If ``pixels`` is not ``(H, W, 3)`` with ``H, W >= 1``.

    Notes
    -----
    Frames compare equal when their pixels are equal. They are not hashable.
    """

    pixels: npt.NDArray[np.uint8]

    def __post_init__(self) -> None:
        """Validate ``pixels`` and store a read-only, C-contiguous array."""
        object.__setattr__(self, "pixels", _frozen_pixels(self.pixels))

    @property
    def width(self) -> int:
        """Image width in pixels."""
        return int(self.pixels.shape[1])

    @property
    def height(self) -> int:
        """Image height in pixels."""
        return int(self.pixels.shape[0])

    @property
    def nbytes(self) -> int:
        """Size of the pixel data in bytes (``width * height * 3``)."""
        return int(self.pixels.nbytes)

    def to_bytes(self) -> bytes:
        """Return the pixels as raw RGB24 bytes, row-major, top row first."""
        return self.pixels.tobytes()

    @classmethod
    def from_rgb24(cls, data: bytes | memoryview, width: int, height: int) -> RGBFrame:
        """Build a frame from raw RGB24 bytes.

        Parameters
        ----------
        data
            ``width * height * 3`` bytes, row-major, top row first. ``bytes`` are
            used without a copy; other buffers are copied.
        width, height
            Image size in pixels, both at least 1.

        Returns
        -------
        RGBFrame
            The frame.

        Raises
        ------
        DecodeError
            If ``data`` does not hold exactly ``width * height * 3`` bytes.
        """
        check_positive_int("width", width)
        check_positive_int("height", height)
        view = byte_view(data)
        expected_bytes = width * height * 3
        if view.nbytes != expected_bytes:
            raise DecodeError(
                f"rgb24 payload has {view.nbytes} bytes, expected {expected_bytes} "
                f"({width}{TIMES}{height}{TIMES}3)"
            )
        buffer = data if isinstance(data, bytes) else view.tobytes()
        return cls(np.frombuffer(buffer, dtype=np.uint8).reshape(height, width, 3))

    def __eq__(self, other: object) -> bool:
        """Return whether ``other`` is a frame with the same pixels."""
        if not isinstance(other, RGBFrame):
            return NotImplemented
        return bool(np.array_equal(self.pixels, other.pixels))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """Return a short description (size only, not the pixels)."""
        return f"RGBFrame(width={self.width}, height={self.height})"

    def __reduce__(self) -> tuple[object, tuple[bytes, int, int]]:
        """Pickle through :meth:`from_rgb24` so the copy is read-only too."""
        return (type(self).from_rgb24, (self.to_bytes(), self.width, self.height))


def _frozen_pixels(pixels: object) -> npt.NDArray[np.uint8]:
    if not isinstance(pixels, np.ndarray):
        raise TypeError(f"pixels must be a numpy array, got {type(pixels).__name__}")
    if pixels.dtype != np.uint8:
        raise TypeError(f"pixels must have dtype uint8, got {pixels.dtype}")
    shape = pixels.shape
    if len(shape) != 3 or shape[2] != 3 or shape[0] < 1 or shape[1] < 1:
        raise ValueError(
            f"pixels must have shape (H, W, 3) with H, W >= 1, got {shape}"
        )
    array = cast("npt.NDArray[np.uint8]", pixels)
    if (
        type(array) is not np.ndarray
        or array.flags.writeable
        or not array.flags.c_contiguous
    ):
        array = np.array(array, dtype=np.uint8, order="C", copy=True, subok=False)
        array.flags.writeable = False
    return array
