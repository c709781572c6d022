"""CRC-32 (the checksum of zlib, FSR, MCAP and Genesis trajectories), fast.

The standard library's ``zlib.crc32`` runs at about 4 GB/s here; zlib-ng's,
with the CPU's carry-less multiply, at about 25 GB/s. Every CRC a reader
checks goes through :func:`crc32`, which takes zlib-ng's when the package is
installed (a dependency of the project) and the standard library's
otherwise: the values are the same.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

__all__ = ["crc32", "fast_crc"]

Bytes = bytes | bytearray | memoryview


def _fastest() -> Callable[[Bytes, int], int]:
    try:
        from zlib_ng import zlib_ng
    except ImportError:
        return zlib.crc32
    found: Callable[[Bytes, int], int] = zlib_ng.crc32
    return found


_CRC32 = _fastest()


def fast_crc() -> bool:
    """Whether zlib-ng's CRC is in use (``False``: the standard library's)."""
    return _CRC32 is not zlib.crc32


def crc32(data: Bytes, value: int = 0) -> int:
    """Return the CRC-32 of ``data``, continuing from ``value``."""
    return _CRC32(data, value)
