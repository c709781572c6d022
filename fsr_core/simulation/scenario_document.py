"""Read a scenario file: the TOML document the registry and simulators look at.

A scenario is configuration the user writes, but it may come from anyone, so it
is read within bounds: at most :data:`MAX_SCENARIO_BYTES`, never from a FIFO or
a device (which could block or never end), and its nesting is checked by a scan
of the text before ``tomllib`` parses it (:mod:`fsr_core.toml_text`).
:func:`check_run_bounds` holds the checks every simulator's resolved scenario
makes alike: its duration, and one name per camera; :class:`FieldTable` gives
a resolved table that is a dataclass its JSON form, every field by name.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from fsr_core.errors import LimitExceededError, NotRegularFileError, SchemaError
from fsr_core.toml_text import DEFAULT_TOML_DEPTH, parse_bounded_toml

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "MAX_SCENARIO_BYTES",
    "MAX_SCENARIO_DEPTH",
    "FieldTable",
    "check_run_bounds",
    "read_scenario_document",
]

MAX_SCENARIO_BYTES: Final = 4 << 20
"""Refuse a scenario file larger than this (4 MiB; real ones are a few KiB)."""
MAX_SCENARIO_DEPTH: Final = DEFAULT_TOML_DEPTH
"""Refuse a scenario nested deeper than this (tables, dotted keys, arrays)."""


def _read_bounded(path: Path) -> bytes:
    """Return the bytes of the regular file ``path`` (at most the size limit)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(
                "not a regular file (a scenario is a TOML file)", path=path
            )
        if info.st_size > MAX_SCENARIO_BYTES:
            raise LimitExceededError(
                f"scenario of {info.st_size} bytes exceeds the limit of "
                f"{MAX_SCENARIO_BYTES}",
                path=path,
            )
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(MAX_SCENARIO_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_SCENARIO_BYTES:  # grew while being read
        raise LimitExceededError(
            f"scenario exceeds the limit of {MAX_SCENARIO_BYTES} bytes", path=path
        )
    return data


def read_scenario_document(path: Path) -> dict[str, Any]:
    """Return the parsed TOML of the scenario file ``path``.

    Raises
    ------
    SchemaError
        The file cannot be read or is not valid TOML (or not UTF-8); the
        message names the file and the problem.
    NotRegularFileError
        The path is a FIFO, device, socket or directory.
    LimitExceededError
        The file is over :data:`MAX_SCENARIO_BYTES` or nests deeper than
        :data:`MAX_SCENARIO_DEPTH`.
    """
    try:
        data = _read_bounded(path)
    except OSError as exc:
        raise SchemaError(
            f"cannot read the scenario: {exc.strerror or exc}", path=path
        ) from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(
            f"not a valid TOML file: not UTF-8 at byte {exc.start}", path=path
        ) from exc
    return parse_bounded_toml(
        text, what="scenario", path=path, max_depth=MAX_SCENARIO_DEPTH
    )


def check_run_bounds(duration_s: float, camera_names: Iterable[str]) -> None:
    """Refuse a run outside (0, 3600] seconds, or two cameras of one name.

    Raises
    ------
    SchemaError
        The duration is out of range, or a camera name is used twice.
    """
    if not 0 < duration_s <= 3600:
        raise SchemaError("duration_s must be in (0, 3600]")
    names = list(camera_names)
    if len(set(names)) != len(names):
        raise SchemaError("two cameras share a name")


class FieldTable:
    """A resolved scenario table that is a dataclass, written as every field.

    A subclass is a ``@dataclass`` whose fields are JSON values already
    (numbers, text, booleans), so :func:`dataclasses.asdict` is its table.
    """

    def to_json(self) -> dict[str, Any]:
        """Return the resolved table: every field, by name."""
        return asdict(cast("DataclassInstance", self))
