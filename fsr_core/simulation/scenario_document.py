"""Read a scenario file: the TOML document the registry and simulators look at."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from fsr_core.errors import SchemaError

__all__ = ["read_scenario_document"]


def read_scenario_document(path: Path) -> dict[str, Any]:
    """Return the parsed TOML of the scenario file ``path``.

    Raises
    ------
    SchemaError
        The file cannot be read or is not valid TOML; the message names the
        file and the problem.
    """
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SchemaError(
            f"cannot read the scenario: {exc.strerror}", path=path
        ) from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SchemaError(f"not a valid TOML file: {exc}", path=path) from exc
