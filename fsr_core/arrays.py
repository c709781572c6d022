"""Type aliases of the numpy arrays the core and the app pass around.

One place for them, so that every module annotates a float vector, a mask or
an index array with the same name instead of spelling ``npt.NDArray[...]``.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["BoolArray", "FloatArray", "IndexArray"]

#: Array of float64 values (positions, times, angles, torques ...).
FloatArray: TypeAlias = npt.NDArray[np.float64]
#: Array of booleans (masks).
BoolArray: TypeAlias = npt.NDArray[np.bool_]
#: Array of indices (``np.intp``), as ``np.searchsorted`` returns.
IndexArray: TypeAlias = npt.NDArray[np.intp]
