"""Canonical JSON: the only JSON FSR writes, and a strict, bounded parser for it.

Canonical form: UTF-8 without BOM, object keys sorted by code point, no
whitespace, ``ensure_ascii=False`` (non-ASCII characters are written as-is,
control characters escaped), integers without exponent, floats in Python's
shortest round-trip repr, no NaN/Infinity, no duplicate keys, no lone
surrogates. The parser bounds size, nesting depth, number-token length and
items per container *before* or *while* parsing, so hostile input never raises
anything but :class:`~fsr_core.errors.FsrError` subclasses.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from fsr_core.errors import LimitExceededError, SchemaError

__all__ = [
    "JsonLimits",
    "canonical_dumps",
    "parse_json",
]


@dataclass(frozen=True)
class JsonLimits:
    """Bounds applied to every JSON document the reader parses."""

    max_bytes: int = 1 << 20
    max_depth: int = 32
    max_number_chars: int = 40
    max_items: int = 10_000


DEFAULT_LIMITS = JsonLimits()


def _check_value(value: Any, depth: int, limits: JsonLimits, pointer: str) -> None:
    """Iteratively check a Python value destined for canonical JSON."""
    stack: list[tuple[Any, int, str]] = [(value, depth, pointer)]
    while stack:
        item, level, where = stack.pop()
        if level > limits.max_depth:
            raise LimitExceededError(
                f"JSON nesting deeper than {limits.max_depth} at {where or '/'}"
            )
        if isinstance(item, bool) or item is None or isinstance(item, str):
            if isinstance(item, str):
                _check_string(item, where)
            continue
        if isinstance(item, int):
            if len(str(abs(item))) > limits.max_number_chars:
                raise LimitExceededError(
                    f"JSON integer longer than {limits.max_number_chars} digits at {where or '/'}"
                )
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                raise SchemaError(f"non-finite number in JSON at {where or '/'}")
            continue
        if isinstance(item, dict):
            if len(item) > limits.max_items:
                raise LimitExceededError(
                    f"JSON object with more than {limits.max_items} entries at {where or '/'}"
                )
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise SchemaError(
                        f"JSON object key {key!r} is not a string at {where or '/'}"
                    )
                _check_string(key, where)
                stack.append((sub, level + 1, f"{where}/{key}"))
            continue
        if isinstance(item, list | tuple):
            if len(item) > limits.max_items:
                raise LimitExceededError(
                    f"JSON array with more than {limits.max_items} items at {where or '/'}"
                )
            for index, sub in enumerate(item):
                stack.append((sub, level + 1, f"{where}/{index}"))
            continue
        raise SchemaError(
            f"value of type {type(item).__name__} cannot be stored as JSON at {where or '/'}"
        )


def _check_string(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SchemaError(f"lone surrogate in JSON string at {where or '/'}") from exc


def canonical_dumps(value: Any, *, limits: JsonLimits = DEFAULT_LIMITS) -> bytes:
    """Return the canonical JSON bytes of ``value``.

    Raises
    ------
    SchemaError
        The value holds something JSON cannot carry (NaN, a non-string key, a
        lone surrogate, an unsupported type).
    LimitExceededError
        The value is deeper, longer or larger than ``limits``.
    """
    _check_value(value, 1, limits, "")
    text = json.dumps(
        value,
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
        allow_nan=False,
    )
    data = text.encode("utf-8")
    if len(data) > limits.max_bytes:
        raise LimitExceededError(
            f"JSON document of {len(data)} bytes exceeds the limit of {limits.max_bytes}"
        )
    return data


def _prescan(data: bytes, limits: JsonLimits) -> None:
    """Bound nesting depth and number-token length without recursion."""
    depth = 0
    in_string = False
    escaped = False
    number_run = 0
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
            continue
        if byte == 0x22:
            in_string = True
            number_run = 0
            continue
        if byte in b"0123456789+-.eE":
            number_run += 1
            if number_run > limits.max_number_chars:
                raise LimitExceededError(
                    f"JSON number token longer than {limits.max_number_chars} characters"
                )
            continue
        number_run = 0
        if byte in b"[{":
            depth += 1
            if depth > limits.max_depth:
                raise LimitExceededError(f"JSON nesting deeper than {limits.max_depth}")
        elif byte in b"]}":
            depth -= 1


class _Counter:
    """Count items per container while ``json`` builds objects."""

    def __init__(self, limits: JsonLimits) -> None:
        self.limits = limits

    def pairs(self, items: list[tuple[str, Any]]) -> dict[str, Any]:
        if len(items) > self.limits.max_items:
            raise LimitExceededError(
                f"JSON object with more than {self.limits.max_items} entries"
            )
        result: dict[str, Any] = {}
        for key, value in items:
            if key in result:
                raise SchemaError(f"duplicate JSON key {key!r}")
            result[key] = value
        return result

    def float_(self, token: str) -> float:
        value = float(token)
        if not math.isfinite(value):
            raise SchemaError(f"non-finite JSON number {token[:20]!r}")
        return value

    @staticmethod
    def constant(token: str) -> Any:
        raise SchemaError(f"non-finite JSON number {token!r}")


def _count_arrays(value: Any, limits: JsonLimits) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            if len(item) > limits.max_items:
                raise LimitExceededError(
                    f"JSON array with more than {limits.max_items} items"
                )
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())


def parse_json(
    data: bytes | memoryview,
    *,
    limits: JsonLimits = DEFAULT_LIMITS,
    require_canonical: bool = True,
    what: str = "JSON",
) -> Any:
    """Parse ``data`` strictly and return the Python value.

    Raises
    ------
    SchemaError
        Not UTF-8, a BOM, invalid JSON, duplicate keys, non-finite numbers, a
        lone surrogate, or (with ``require_canonical``) not in canonical form.
    LimitExceededError
        Beyond any bound of ``limits``.
    """
    raw = bytes(data)
    if len(raw) > limits.max_bytes:
        raise LimitExceededError(
            f"{what} of {len(raw)} bytes exceeds the limit of {limits.max_bytes}"
        )
    if raw.startswith(b"\xef\xbb\xbf"):
        raise SchemaError(f"{what} starts with a UTF-8 byte order mark")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{what} is not valid UTF-8 (byte {exc.start})") from exc
    _prescan(raw, limits)
    counter = _Counter(limits)
    try:
        value = json.loads(
            text,
            object_pairs_hook=counter.pairs,
            parse_float=counter.float_,
            parse_constant=counter.constant,
        )
    except (LimitExceededError, SchemaError):
        raise
    except (ValueError, RecursionError) as exc:
        raise SchemaError(f"{what} is not valid JSON: {str(exc)[:80]}") from exc
    _count_arrays(value, limits)
    if require_canonical:
        try:
            again = canonical_dumps(value, limits=limits)
        except (LimitExceededError, SchemaError) as exc:
            raise SchemaError(f"{what} is not canonical: {exc.reason}") from exc
        if again != raw:
            raise SchemaError(f"{what} is not in canonical form")
    return value
