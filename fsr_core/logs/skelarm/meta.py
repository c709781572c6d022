"""The TOML metadata of a skelarm log: parsing, depth bound, schema version, numbers.

``__meta__`` is a 0-d unicode array holding a TOML document (schema version,
producer, ``[skeleton]``, ``[channels.<name>]``, free-form ``[extra]``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy.typing as npt

from fsr_core.errors import LimitExceededError, SchemaError, UnsupportedVersionError
from fsr_core.logs.skelarm.archive import META_MEMBER
from fsr_core.toml_text import parse_bounded_toml

__all__ = [
    "MAX_META_DEPTH",
    "SUPPORTED_SCHEMA_VERSIONS",
    "number",
    "parse_meta",
    "parse_meta_text",
]

MAX_META_DEPTH = 32
"""Refuse TOML metadata nested deeper than this."""
SUPPORTED_SCHEMA_VERSIONS = (1,)


def _too_deep(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_META_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return False


def parse_meta(arrays: dict[str, npt.NDArray[Any]], name: str) -> dict[str, Any]:
    """Pop ``__meta__`` from ``arrays`` and return its checked TOML document."""
    raw = arrays.pop(META_MEMBER, None)
    if raw is None:
        raise SchemaError("no __meta__ member: not a skelarm state log", path=name)
    if raw.ndim != 0 or raw.dtype.kind != "U":
        raise SchemaError(
            f"__meta__ must be a 0-d unicode array, found {raw.dtype} {raw.shape}",
            path=name,
        )
    return parse_meta_text(str(raw[()]), name)


def parse_meta_text(text: str, name: str) -> dict[str, Any]:
    """Parse and check the ``__meta__`` TOML document ``text`` of the log ``name``.

    Raises
    ------
    SchemaError
        Not TOML, or no integer ``schema_version``.
    LimitExceededError
        Nested too deeply (found by a scan of the text, before parsing).
    UnsupportedVersionError
        A schema version this module does not read.
    """
    # Nesting is bounded by a scan of the text before tomllib recurses into it.
    meta = parse_bounded_toml(
        text, what="__meta__", path=name, max_depth=MAX_META_DEPTH
    )
    if _too_deep(meta):
        raise LimitExceededError(
            f"__meta__ nests deeper than {MAX_META_DEPTH} levels", path=name
        )
    version = meta.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise SchemaError(
            f"__meta__ has no integer schema_version (found {version!r})", path=name
        )
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        raise UnsupportedVersionError(
            f"skelarm log schema_version {version} is not supported "
            f"(supported: {', '.join(map(str, SUPPORTED_SCHEMA_VERSIONS))})",
            path=name,
        )
    return meta


def number(table: Mapping[str, Any], key: str, default: float | None) -> float:
    """Return ``table[key]`` (or ``default``) as a finite float, else raise.

    Raises
    ------
    TypeError
        The value is not a number (a bool is not one).
    ValueError
        The value is not finite.
    """
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{key} = {value!r} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{key} is an integer too large for a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{key} = {value!r} is not finite")
    return number
