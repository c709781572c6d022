"""The run metadata of an FSR file, checked at the boundary before anything reads it.

The metadata is free-form JSON, but a few keys have one meaning everywhere
(docs/format.md, run metadata): each is an object when present, and the run's
``name`` is a string. A file that breaks this is refused with one line naming
the key, instead of failing later wherever a reader first trusts the shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import SchemaError

__all__ = ["OBJECT_KEYS", "check_run_metadata", "json_kind", "run_title"]

OBJECT_KEYS: Final = (
    "run",
    "scenario",
    "task",
    "config",
    "versions",
    "model",
    "simulation_contract",
    "replay",
    "skelarm",
)
"""Top-level metadata keys that must hold an object when present."""


def json_kind(value: Any) -> str:
    """Name the JSON type of ``value`` for a message: ``an array``, ``null`` ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def check_run_metadata(metadata: Mapping[str, Any], path: str | Path) -> None:
    """Refuse metadata whose well-known keys have the wrong JSON type.

    Raises
    ------
    SchemaError
        A key of :data:`OBJECT_KEYS` is not an object, or ``run.name`` is not
        a string; the message names the key and what it holds.
    """
    for key in OBJECT_KEYS:
        if key in metadata and not isinstance(metadata[key], Mapping):
            raise SchemaError(
                f"run metadata {key!r} is {json_kind(metadata[key])}, "
                "expected an object",
                path=path,
                section="metadata",
            )
    run = metadata.get("run", {})
    name = run.get("name") if isinstance(run, Mapping) else None
    if name is not None and not isinstance(name, str):
        raise SchemaError(
            f"run metadata 'run.name' is {json_kind(name)}, expected a string",
            path=path,
            section="metadata",
        )


def run_title(metadata: Mapping[str, Any], default: str) -> str:
    """Return the run's name (checked metadata), else ``default``."""
    run = metadata.get("run")
    name = run.get("name") if isinstance(run, Mapping) else None
    return name if isinstance(name, str) and name else default
