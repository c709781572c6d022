"""What reading numeric streams into float64 arrays will allocate, checked first.

The index gives every stream's record count and the stream table its per-record
shape and dtype, so the memory a model needs for its numeric channels is known
before one record is read. :func:`check_numeric_memory` compares it with
:data:`fsr_core.budgets.MEMORY` and refuses with the numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final

import numpy as np

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.format.values import StreamInfo

__all__ = ["check_numeric_memory", "numeric_memory_bytes"]

_FLOAT64: Final = np.dtype(np.float64)


def numeric_memory_bytes(infos: Iterable[StreamInfo]) -> int:
    """Return the peak bytes of reading ``infos`` as float64 channels with times.

    Each stream is held as float64 values plus one float64 time per record
    (its play times); a stream stored in another dtype is also held raw while
    it converts, one stream at a time (the largest counts).
    """
    held = 0
    largest_raw = 0
    for info in infos:
        spec = info.spec
        elements = info.record_count * math.prod(spec.shape)
        held += (elements + 2 * info.record_count) * _FLOAT64.itemsize
        if spec.numpy_dtype != _FLOAT64:
            largest_raw = max(largest_raw, elements * spec.numpy_dtype.itemsize)
    return held + largest_raw


def check_numeric_memory(
    infos: Iterable[StreamInfo], path: str, what: str = "numeric channels"
) -> None:
    """Refuse to read ``infos`` when their float64 arrays exceed the memory budget.

    Raises
    ------
    LimitExceededError
        The arrays would need more than :data:`fsr_core.budgets.MEMORY`; the
        message gives the streams, records, the need and the budget.
    """
    chosen = list(infos)
    records = sum(info.record_count for info in chosen)
    check_budget(
        MEMORY,
        numeric_memory_bytes(chosen),
        f"loading {len(chosen)} {what} ({records:,} records) as float64",
        path=path,
    )
