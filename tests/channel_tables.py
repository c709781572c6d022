"""The channel table the command line exports, read back as CSV rows.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so a test imports this as ``from channel_tables import exported_rows``.
"""

from __future__ import annotations

import csv
from pathlib import Path

from app.cli import main

__all__ = ["exported_rows", "table_rows"]


def table_rows(table: Path) -> list[list[str]]:
    """Return the rows of the CSV file ``table``, its header first."""
    with table.open(newline="") as stream:
        return list(csv.reader(stream))


def exported_rows(table: Path, *words: str) -> list[list[str]]:
    """Run ``fsr-viewer WORDS... --export-channels TABLE``; return the table's rows.

    Asserts that the command succeeds; the header is the first row.
    """
    assert main([*words, "--export-channels", str(table)]) == 0
    return table_rows(table)
