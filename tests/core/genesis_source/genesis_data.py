"""Shared helpers of the Genesis source tests: the test data and its tables."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "data" / "genesis"


@cache
def expected() -> dict[str, Any]:
    """Return the ``files`` entries of ``expected/expected.json``."""
    files: dict[str, Any] = json.loads(
        (DATA / "expected" / "expected.json").read_text()
    )["files"]
    return files


def intact() -> list[str]:
    """Names of the intact files (those with a table)."""
    return sorted(name for name, entry in expected().items() if "table" in entry)


def damaged() -> list[str]:
    """Names of the damaged copies (stored or recipe only)."""
    return sorted(name for name, entry in expected().items() if "damage" in entry)


def table(name: str) -> tuple[Any, dict[str, Any]]:
    """Return the ``.npz`` table of an intact file and its layout rows."""
    loaded = np.load(DATA / expected()[name]["table"])
    return loaded, json.loads(loaded["layout_json"].tobytes())


def unpack(row: np.ndarray, layout: list[list[Any]]) -> dict[str, np.ndarray]:
    """Return the arrays of one packed table row."""
    return {
        name: row[start : start + nbytes].view(dtype).reshape(shape)
        for name, dtype, shape, start, nbytes in layout
    }


def make_damaged(name: str, folder: Path) -> Path:
    """Return the damaged copy ``name``: stored, or rebuilt in ``folder``."""
    entry = expected()[name]
    stored = DATA / name
    if entry.get("stored") and stored.exists():
        return stored
    data = bytearray((DATA / entry["source"]).read_bytes())
    damage = entry["damage"]
    offset = int(damage["offset"])
    if damage["kind"] == "truncate":
        data = data[:offset]
    elif damage["kind"] == "invert_byte":
        data[offset] ^= 0xFF
    elif damage["kind"] == "version_9":
        data[offset : offset + 1] = b"9"
    else:  # pragma: no cover - a new recipe the tests do not know
        raise AssertionError(damage)
    target = folder / name
    target.write_bytes(bytes(data))
    return target
