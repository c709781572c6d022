"""Authored control chunks, applied-control evidence and chunk results.

An :class:`AuthoredChunk` is a command as a controller producer wrote it: a
short trajectory of set-points for a group of axes, with the interpolation
between points and the policy that applies once the trajectory ends. Replaying
a recording in resimulate mode submits authored chunks again.

An :class:`AppliedControl` is *evidence* of what a backend actually received at
one tick. It documents a run and may be compared with the authored commands,
but it is never turned back into a command.

A :class:`ChunkResult` records how a chunk ended. Every value here validates
itself on construction and raises :class:`~fsr_core.errors.SchemaError` whose
message starts with the JSON pointer of the offending field.
"""

from fsr_core.control.applied import AppliedControl
from fsr_core.control.authored import AuthoredChunk, validate_authored_chunks
from fsr_core.control.enums import (
    UNITS_BY_COMMAND_SPACE,
    ChunkStatus,
    CommandSpace,
    Interpolation,
    TerminalPolicy,
)
from fsr_core.control.results import ChunkResult

__all__ = [
    "UNITS_BY_COMMAND_SPACE",
    "AppliedControl",
    "AuthoredChunk",
    "ChunkResult",
    "ChunkStatus",
    "CommandSpace",
    "Interpolation",
    "TerminalPolicy",
    "validate_authored_chunks",
]
