"""The path templates of ``info.json``, filled in safely.

``data_path`` and ``video_path`` are Python format strings such as
``data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet``. A dataset is
not trusted to hold a real format string: only the known field names, no
attribute or item access, and integer or plain specs are accepted.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Final

from fsr_core.errors import SchemaError

__all__ = ["fill"]

_SPEC: Final = re.compile(r"^(0?[0-9]{0,2}d)?$")
_MAX_TEMPLATE: Final = 512


def fill(template: str, info_path: Path, **values: int | str) -> str:
    """Return ``template`` with its fields replaced by ``values``.

    Raises
    ------
    SchemaError
        The template names another field, accesses attributes or items, or
        uses a format spec other than a zero-padded integer.
    """
    if len(template) > _MAX_TEMPLATE:
        raise SchemaError("a path template is too long", path=info_path)
    parts: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise SchemaError(
            f"bad path template {template!r}: {exc}", path=info_path
        ) from exc
    for literal, field, spec, conversion in parsed:
        parts.append(literal)
        if field is None:
            continue
        if field not in values or conversion or not _SPEC.match(spec or ""):
            raise SchemaError(
                f"path template {template!r} uses {{{field}}}, which the viewer "
                f"does not fill (known: {', '.join(sorted(values))})",
                path=info_path,
            )
        value = values[field]
        if spec and isinstance(value, int):
            parts.append(format(value, spec))
        else:
            parts.append(str(value))
    return "".join(parts)
