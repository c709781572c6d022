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

import functools
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

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


_Where = tuple[Any, ...] | None  # (parent, key) chain, turned into a pointer on error


def _pointer(where: _Where) -> str:
    parts: list[str] = []
    while where is not None:
        where, key = where
        parts.append(str(key))
    return "/" + "/".join(reversed(parts))


def _check_container(item: Any, where: _Where, limits: JsonLimits) -> None:
    if len(item) > limits.max_items:
        kind = "object" if isinstance(item, dict) else "array"
        raise LimitExceededError(
            f"JSON {kind} with more than {limits.max_items} items at {_pointer(where)}"
        )
    if isinstance(item, dict):
        for key in item:
            if not isinstance(key, str):
                raise SchemaError(
                    f"JSON key {key!r} is not a string at {_pointer(where)}"
                )
            _check_string(key, where)


def _check_scalar(item: Any, where: _Where, limits: JsonLimits) -> None:
    """Check a leaf value: type, finiteness, integer length, string encoding."""
    if isinstance(item, str):
        _check_string(item, where)
    elif isinstance(item, bool) or item is None:
        return
    elif isinstance(item, int):
        if item.bit_length() > 3 * limits.max_number_chars and (
            len(str(abs(item))) > limits.max_number_chars
        ):
            raise LimitExceededError(
                f"JSON integer of more than {limits.max_number_chars} digits "
                f"at {_pointer(where)}"
            )
    elif isinstance(item, float):
        if not math.isfinite(item):
            raise SchemaError(f"non-finite number in JSON at {_pointer(where)}")
    else:
        raise SchemaError(
            f"a {type(item).__name__} cannot be stored as JSON at {_pointer(where)}"
        )


def _check_value(value: Any, limits: JsonLimits) -> None:
    """Check, without recursion, that ``value`` can be written as canonical JSON."""
    stack: list[tuple[Any, int, _Where]] = [(value, 1, None)]
    while stack:
        item, level, where = stack.pop()
        if isinstance(item, dict | list | tuple):
            # Depth counts containers, as the parser's prescan does.
            if level > limits.max_depth:
                raise LimitExceededError(
                    f"JSON nesting deeper than {limits.max_depth} at {_pointer(where)}"
                )
            _check_container(item, where, limits)
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            stack.extend((sub, level + 1, (where, key)) for key, sub in pairs)
        else:
            _check_scalar(item, where, limits)


def _check_string(text: str, where: _Where) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SchemaError(
            f"lone surrogate in JSON string at {_pointer(where)}"
        ) from exc


def _encode(value: Any) -> bytes:
    text = json.dumps(
        value,
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
        allow_nan=False,
    )
    return text.encode("utf-8")


def _containers_fit(value: Any, limits: JsonLimits) -> bool:
    """Whether every object key is a string and no container is over-full."""
    stack = [value] if isinstance(value, dict | list | tuple) else []
    while stack:
        item = stack.pop()
        if len(item) > limits.max_items:
            return False
        children: Iterable[Any] = item
        if isinstance(item, dict):
            if not all(type(key) is str for key in item):
                return False
            children = item.values()
        stack.extend(
            child for child in children if isinstance(child, dict | list | tuple)
        )
    return True


def _encode_checked(value: Any, limits: JsonLimits) -> bytes:
    """Encode ``value``, proving it canonical; slow path only to explain a refusal.

    The fast path lets the C encoder refuse NaN, infinities and unknown types,
    UTF-8 encoding refuse lone surrogates, a walk over containers check keys
    and sizes, and the byte prescan bound depth and number length. When any
    of them objects, :func:`_check_value` finds the value and names where it is.
    """
    try:
        data = _encode(value)
    except (TypeError, ValueError, UnicodeEncodeError, RecursionError):
        data = None
    if data is not None and _containers_fit(value, limits):
        try:
            _prescan(data, limits)
        except LimitExceededError:
            pass
        else:
            return data
    _check_value(value, limits)
    return _encode(value)


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
    data = _encode_checked(value, limits)
    if len(data) > limits.max_bytes:
        raise LimitExceededError(
            f"JSON document of {len(data)} bytes exceeds the limit "
            f"of {limits.max_bytes}"
        )
    return data


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NESTING = np.zeros(256, dtype=np.int8)
_NESTING[[ord("["), ord("{")]] = 1
_NESTING[[ord("]"), ord("}")]] = -1


@functools.cache
def _number_run(max_chars: int) -> re.Pattern[bytes]:
    return re.compile(rb"[0-9+\-.eE]{%d,}" % (max_chars + 1))


def _prescan(data: bytes, limits: JsonLimits) -> None:
    """Bound nesting depth and number-token length before ``json`` parses.

    Strings are blanked out first (brackets and digits inside them do not
    count); the depth is then the running sum of brackets, computed with numpy,
    so a 100,000-deep document is refused without recursion or a Python loop.
    """
    run = _number_run(limits.max_number_chars)
    openers = data.count(b"[") + data.count(b"{")
    if openers <= limits.max_depth and run.search(data) is None:
        return  # too few brackets to nest that deep, no long run even in strings
    skeleton = _STRING.sub(b'""', data)
    if run.search(skeleton) is not None:
        raise LimitExceededError(
            f"JSON number token longer than {limits.max_number_chars} characters"
        )
    if openers <= limits.max_depth:
        return
    steps = _NESTING[np.frombuffer(skeleton, dtype=np.uint8)]
    if steps.size and int(np.cumsum(steps, dtype=np.int64).max()) > limits.max_depth:
        raise LimitExceededError(f"JSON nesting deeper than {limits.max_depth}")


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
    """Bound items per array (objects are bounded while they are built)."""
    containers = (list, dict)
    stack = [value] if isinstance(value, containers) else []
    while stack:
        item = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if len(children) > limits.max_items:
            raise LimitExceededError(
                f"JSON array with more than {limits.max_items} items"
            )
        stack.extend(child for child in children if isinstance(child, containers))


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
        # The parse hooks already refused duplicates and non-finite numbers and
        # the prescan bounded depth and numbers, so re-encoding is the only check
        # left; a lone surrogate escape fails to encode as UTF-8.
        try:
            again = _encode(value)
        except UnicodeEncodeError as exc:
            raise SchemaError(f"{what} holds a lone surrogate") from exc
        if again != raw:
            raise SchemaError(f"{what} is not in canonical form")
    return value
