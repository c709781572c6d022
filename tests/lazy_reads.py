"""The promise of a lazy channel whose reading fails, checked the same everywhere.

A channel that reads its arrays when first asked for (``Channel.lazy``, an
MCAP topic, an FSR stream) raises one :class:`~fsr_core.errors.FsrError`
naming the file when the reading fails, and the same error again when asked
for its times afterwards.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fsr_core.errors import FsrError
from fsr_core.recording import Channel

__all__ = ["read_fails_alike"]


def read_fails_alike(channel: Channel, path: Path) -> FsrError:
    """Assert that ``channel``'s values and times fail with one error naming ``path``.

    Returns the error the values raised, for the caller's further checks.
    """
    with pytest.raises(FsrError) as first:
        _ = channel.values
    with pytest.raises(FsrError) as again:
        _ = channel.times_s
    assert str(first.value).startswith(str(path))
    assert str(again.value) == str(first.value)
    return first.value
