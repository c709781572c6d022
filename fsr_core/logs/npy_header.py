"""The header of a ``.npy`` array, read before numpy loads the data.

Logs stored as numpy archives (skelarm's ``.sklog.npz``, the arrays of a
Genesis scene description) check an array's shape and dtype against their
limits before reading it; :func:`read_npy_header` reads them, for the two
header versions numpy writes.
"""

from __future__ import annotations

from typing import IO, Any, NamedTuple

import numpy as np

__all__ = ["NpyHeader", "NpyVersionError", "read_npy_header"]


class NpyVersionError(ValueError):
    """The ``.npy`` header is of a version other than 1.0 and 2.0."""

    def __init__(self, version: tuple[int, int]) -> None:
        super().__init__(f"unsupported .npy version {version}")
        self.version = version


class NpyHeader(NamedTuple):
    """What a ``.npy`` header says of its array."""

    shape: tuple[int, ...]
    fortran_order: bool
    dtype: np.dtype[Any]


def read_npy_header(handle: IO[bytes]) -> NpyHeader:
    """Read the magic and header of the ``.npy`` array at ``handle``'s position.

    Raises
    ------
    NpyVersionError
        The header is of a version numpy does not write as 1.0 or 2.0.
    ValueError
        The magic or the header is malformed (numpy's own error).
    """
    version = np.lib.format.read_magic(handle)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
    else:
        raise NpyVersionError(version)
    return NpyHeader(tuple(int(size) for size in shape), bool(fortran), dtype)
