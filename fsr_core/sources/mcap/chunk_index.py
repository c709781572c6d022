"""The fields of an MCAP chunk index record, read with ``struct``.

A summary holds one chunk index per chunk: thousands in a 1 GB file. Read
through the ``mcap`` library's record classes (a Python call per field) they
cost three times what the library's own ``get_summary`` takes, so this reads
the same fields, in the order the MCAP specification lays them out, straight
from the record's body. A field that runs past the body raises; bytes after
the last field are left alone, as the library does (a later version of the
format may add fields).
"""

from __future__ import annotations

import struct
from typing import Final, NamedTuple

__all__ = ["ChunkIndexFields", "parse_chunk_index"]

_HEAD: Final = struct.Struct("<QQQQI")
"""Message start and end time, chunk offset and length, offsets map bytes."""
_OFFSET: Final = struct.Struct("<HQ")
"""One entry of the offsets map: channel id, message index offset."""
_MIDDLE: Final = struct.Struct("<QI")
"""Message index length, then the compression name's length."""
_SIZES: Final = struct.Struct("<QQ")
"""Compressed and uncompressed size."""


class ChunkIndexFields(NamedTuple):
    """A chunk index record's fields, named as the ``mcap`` library names them."""

    message_start_time: int
    message_end_time: int
    chunk_start_offset: int
    chunk_length: int
    message_index_offsets: dict[int, int]
    message_index_length: int
    compression: str
    compressed_size: int
    uncompressed_size: int


def parse_chunk_index(body: bytes | memoryview) -> ChunkIndexFields:
    """Return the fields of a chunk index record's body (without opcode and length).

    Raises
    ------
    ValueError
        A field runs past the body, the offsets map is not whole entries, or
        the compression name is not UTF-8 (``struct.error`` for a short field).
    """
    start, end, offset, length, map_bytes = _HEAD.unpack_from(body, 0)
    position = _HEAD.size
    if map_bytes % _OFFSET.size or position + map_bytes > len(body):
        raise ValueError(f"the offsets map of {map_bytes} bytes does not fit")
    offsets = dict(_OFFSET.iter_unpack(body[position : position + map_bytes]))
    position += map_bytes
    index_length, name_length = _MIDDLE.unpack_from(body, position)
    position += _MIDDLE.size
    if position + name_length > len(body):
        raise ValueError(f"the compression name of {name_length} bytes does not fit")
    compression = str(body[position : position + name_length], "utf-8")
    compressed, uncompressed = _SIZES.unpack_from(body, position + name_length)
    # Positional: thousands are made while a file opens.
    return ChunkIndexFields(
        start,
        end,
        offset,
        length,
        offsets,
        index_length,
        compression,
        compressed,
        uncompressed,
    )
