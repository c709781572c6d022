"""One row of a trajectory manifest's field lists, as source and simulator read it.

A GSTRAJ manifest lists the arrays of a frame in ``fields`` (and
``info_fields``, ``last_fields``): each row gives a field's name, kind,
canonical shape and dtype. The simulator reads those alone
(:mod:`fsr_core.simulators.genesis.trajectory_file`); the source adds where
the bytes lie (:class:`fsr_core.sources.genesis.container.Field`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["FieldRow"]


@dataclass(frozen=True)
class FieldRow:
    """One row of ``fields`` / ``info_fields``: name, kind, canonical shape, dtype."""

    name: str
    kind: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def size(self) -> int:
        """Number of elements (1 for a scalar, 0 for an unused placeholder)."""
        return math.prod(self.shape)
