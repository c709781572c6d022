"""A small TOML writer for scenario files (the standard library only reads TOML).

It writes what scenario configs hold: tables, arrays of tables, strings,
booleans, integers, finite floats and (nested) arrays of those. Output is
deterministic: keys keep their insertion order; scalars come before tables.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["dumps_toml"]


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"  # TOML has infinities
        if math.isnan(value):
            raise ValueError("TOML scenario values must not be NaN")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_scalar(item) for item in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _is_table(value: Any) -> bool:
    return isinstance(value, dict)


def _is_table_array(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, dict) for v in value)
    )


def _emit(table: dict[str, Any], prefix: str, lines: list[str]) -> None:
    for key, value in table.items():
        if value is None or _is_table(value) or _is_table_array(value):
            continue
        lines.append(f"{_key(key)} = {_scalar(value)}")
    for key, value in table.items():
        name = f"{prefix}.{_key(key)}" if prefix else _key(key)
        if _is_table(value):
            lines.extend(["", f"[{name}]"])
            _emit(value, name, lines)
        elif _is_table_array(value):
            for item in value:
                lines.extend(["", f"[[{name}]]"])
                _emit(item, name, lines)


def _key(key: str) -> str:
    bare = key.replace("_", "").replace("-", "").isalnum() and key.isascii()
    return key if bare else json.dumps(key)


def dumps_toml(document: dict[str, Any], *, header: str = "") -> str:
    """Return ``document`` as TOML text (``None`` values are left out)."""
    lines: list[str] = [f"# {line}" for line in header.splitlines()]
    _emit(document, "", lines)
    return "\n".join(lines).lstrip("\n") + "\n"
