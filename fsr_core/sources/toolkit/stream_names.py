r"""Foreign names (ROS topics, TF frames, dataset keys) as valid FSR names.

FSR stream, camera and channel (column) names match
``[A-Za-z0-9_][A-Za-z0-9_.\-]*`` and are at most 256 bytes
(:func:`~fsr_core.format.streams.check_stream_name`). Other tools name things
``/joint_states``, ``/tf:base_link``, ``q_ref[0]`` or ``position.joint 1``;
:func:`readable_name` maps such a name to a valid one that still reads the
same, and :class:`NameTable` keeps the names of one table unique:

1. Unicode is decomposed (NFKD) and accents dropped (``é`` becomes ``e``).
2. An index ``[i]`` becomes ``.i`` (``q_ref[0]`` -> ``q_ref.0``).
3. Whitespace becomes ``_`` (``joint 1`` -> ``joint_1``).
4. Namespace separators ``/``, ``\`` and ``:`` become ``.``
   (``/tf:base_link`` -> ``tf.base_link``).
5. Any other character outside ``[A-Za-z0-9_.-]`` becomes ``_``.
6. Runs of dots collapse to one; dots and dashes are stripped from the start,
   dots from the end (``/joint_states`` -> ``joint_states``).
7. An empty result takes the caller's fallback (``c0``, ``channel``); a name
   too long is cut to fit.
8. A name already taken in the table gets ``-2``, ``-3`` ... appended.

A valid name comes through unchanged (``tip.x``, ``observations.q``), so
names that were already fine keep their exact spelling.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Final

from fsr_core.errors import SchemaError
from fsr_core.format.streams import MAX_NAME_BYTES, check_stream_name

__all__ = ["NameTable", "readable_name"]

_INDEX: Final = re.compile(r"\[([^\]]*)\]")
_SPACE: Final = re.compile(r"\s+")
_SEPARATOR: Final = re.compile(r"[/\\:]+")
_INVALID: Final = re.compile(r"[^A-Za-z0-9_.\-]")
_DOTS: Final = re.compile(r"\.{2,}")


def readable_name(name: str, fallback: str, *, max_bytes: int = MAX_NAME_BYTES) -> str:
    """Return ``name`` as a valid FSR name of at most ``max_bytes`` (ASCII) bytes.

    Parameters
    ----------
    name
        Any text.
    fallback
        A valid name used when nothing of ``name`` is left (it is cut too).
    max_bytes
        Longest result, at least 1.
    """
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be at least 1, got {max_bytes}")
    try:
        return check_stream_name(name)[:max_bytes]
    except SchemaError:
        pass  # not valid as it is: map it
    text = unicodedata.normalize("NFKD", name)
    text = "".join(char for char in text if not unicodedata.combining(char))
    text = _INDEX.sub(r".\1", text)
    text = _SPACE.sub("_", text)
    text = _SEPARATOR.sub(".", text)
    text = _INVALID.sub("_", text)
    text = _DOTS.sub(".", text).lstrip(".-").rstrip(".")
    return (text or fallback)[:max_bytes]


class NameTable:
    """Hand out unique valid names: each foreign name mapped once, in order.

    Parameters
    ----------
    prefix
        Put before every name handed out (``observations.``); valid itself.
    reserved
        Full names no entry may take (the fixed streams of the file).
    max_bytes
        Longest full name (prefix included).
    """

    def __init__(
        self,
        prefix: str = "",
        reserved: Iterable[str] = (),
        *,
        max_bytes: int = MAX_NAME_BYTES,
    ) -> None:
        if len(prefix) >= max_bytes:
            raise ValueError(f"prefix {prefix!r} leaves no room in {max_bytes} bytes")
        self._prefix = prefix
        self._taken = set(reserved)
        self._room = max_bytes - len(prefix)

    def add(self, name: str, fallback: str) -> str:
        """Return the full unique name for ``name`` and mark it taken."""
        base = readable_name(name, fallback, max_bytes=self._room)
        candidate = self._prefix + base
        count = 1
        while candidate in self._taken:
            count += 1
            suffix = f"-{count}"
            candidate = self._prefix + base[: self._room - len(suffix)] + suffix
        self._taken.add(candidate)
        return candidate
