"""Depth drawn as colour: the one scale every depth camera uses.

Near is dark blue, far dark red, through cyan, green and yellow; a value that
is not finite or not above zero (no return) is black.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

__all__ = ["DEPTH_SCALE", "depth_colours"]

DEPTH_SCALE: Final = np.array(
    [
        [48, 18, 59],
        [70, 107, 227],
        [40, 188, 235],
        [50, 241, 151],
        [164, 252, 60],
        [237, 208, 58],
        [251, 128, 34],
        [207, 48, 10],
        [122, 4, 3],
    ],
    dtype=np.float64,
)
"""Colours of the depth scale from near to far (a rainbow that stays readable)."""


def depth_colours(
    depth: npt.NDArray[np.float64], near_far: tuple[float, float] | None = None
) -> npt.NDArray[np.uint8]:
    """Return depth values drawn through the colour scale; not finite is black.

    The scale runs from ``near_far`` (default: the frame's own nearest and
    farthest valid value) and clips beyond.
    """
    finite = np.isfinite(depth) & (depth > 0)
    result = np.zeros((*depth.shape, 3), dtype=np.uint8)
    if not finite.any():
        return result
    near, far = near_far or (float(depth[finite].min()), float(depth[finite].max()))
    span = far - near if far > near else 1.0
    position = (depth[finite] - near) / span * (len(DEPTH_SCALE) - 1)
    position = np.clip(position, 0.0, len(DEPTH_SCALE) - 1)
    low = np.clip(np.floor(position).astype(np.int64), 0, len(DEPTH_SCALE) - 2)
    weight = (position - low)[:, None]
    colours = DEPTH_SCALE[low] * (1 - weight) + DEPTH_SCALE[low + 1] * weight
    result[finite] = np.round(colours).astype(np.uint8)
    return result
