"""Chunk results: how a submitted chunk ended."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from fsr_core.control._fields import (
    StrictJson,
    describe,
    enum_field,
    fail,
    text_field,
)
from fsr_core.control.enums import ChunkStatus

__all__ = ["ChunkResult"]

_RESULT: Final = "chunk result"
_REASON_CODE = re.compile(r"[A-Z_]+")
_RESULT_KEYS: Final = ("chunk_id", "reason_code", "status")


@dataclass(frozen=True)
class ChunkResult(StrictJson):
    """How a submitted chunk ended.

    Parameters
    ----------
    chunk_id
        The chunk concerned.
    status
        ``succeeded``, ``failed`` or ``cancelled``.
    reason_code
        Machine-readable reason, upper case letters and underscores
        (``"COMPLETED"``, ``"TIMEOUT"``).

    Raises
    ------
    SchemaError
        A field is invalid; the message starts with its JSON pointer.
    """

    chunk_id: str
    status: ChunkStatus
    reason_code: str

    json_keys = _RESULT_KEYS
    json_section = _RESULT

    def __post_init__(self) -> None:
        """Check every field and store ``status`` as a :class:`ChunkStatus`."""
        text_field(self.chunk_id, "/chunk_id", _RESULT)
        status = enum_field(ChunkStatus, self.status, "/status", _RESULT)
        code: object = self.reason_code
        if not isinstance(code, str) or not _REASON_CODE.fullmatch(code):
            raise fail(
                "/reason_code",
                f"expected upper case letters and underscores, found {describe(code)}",
                _RESULT,
            )
        object.__setattr__(self, "status", status)
