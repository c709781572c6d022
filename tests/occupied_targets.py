"""Targets that already exist, for the tests that no writer may overwrite them.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from occupied_targets import refused_target``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

__all__ = ["refused_target"]


@contextmanager
def refused_target(
    path: Path,
    error: type[BaseException],
    *,
    match: str | None = None,
    content: bytes = b"old",
) -> Iterator[Path]:
    """Write ``content`` at ``path`` and give ``path`` to the block.

    The block must raise ``error`` (its message matching ``match``) and leave
    the file as it was.
    """
    path.write_bytes(content)
    with pytest.raises(error, match=match):
        yield path
    assert path.read_bytes() == content
