"""Encoding and decoding of record payloads, one pair per codec.

``raw`` numeric arrays are little-endian C-order bytes; ``json`` is canonical
JSON; ``arrays+zlib`` packs named arrays (render state, meshes) and compresses
them with zlib level 1; image codecs are delegated to :mod:`fsr_core.media`.
Decoders never trust a declared size: decompression is bounded and every
length is checked before an array is built.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import numpy as np

from fsr_core.canonical_json import JsonLimits, canonical_dumps, parse_json
from fsr_core.errors import DecodeError, LimitExceededError, SchemaError
from fsr_core.format.streams import DTYPES, StreamSpec
from fsr_core.media import RGBFrame, decode_frame, encode_frame

__all__ = [
    "PAYLOAD_JSON_LIMITS",
    "decode_payload",
    "encode_payload",
    "pack_arrays",
    "unpack_arrays",
]

PAYLOAD_JSON_LIMITS = JsonLimits(
    max_bytes=16 << 20, max_depth=32, max_number_chars=40, max_items=100_000
)
MAX_RAW_BYTES = 256 << 20
_MANIFEST_LENGTH = struct.Struct("<I")


def check_arrays(arrays: object, *, copy: bool) -> dict[str, tuple[str, np.ndarray]]:
    """Check named arrays for packing; return each as ``(dtype name, array)``.

    The arrays come back little-endian and C-contiguous, copied when ``copy``
    (the writer snapshots them before encoding on another thread).

    Raises
    ------
    SchemaError
        Not a dict of named arrays, an unsupported dtype, or NaN/infinity.
    """
    if not isinstance(arrays, dict):
        raise SchemaError("packed arrays must be a dict of named arrays")
    checked: dict[str, tuple[str, np.ndarray]] = {}
    names = {v: k for k, v in DTYPES.items()}
    for name, array in arrays.items():
        if not isinstance(name, str):
            raise SchemaError(f"array name {name!r} is not a string")
        try:
            value = np.asarray(array)
        except (TypeError, ValueError) as exc:
            raise SchemaError(f"array {name!r} is not an array: {exc}") from exc
        dtype_name = (
            names.get(value.dtype.newbyteorder("<"))
            if value.dtype.byteorder != "|"
            else names.get(value.dtype)
        )
        if dtype_name is None:
            raise SchemaError(
                f"array {name!r} has dtype {value.dtype}, not one of {sorted(DTYPES)}"
            )
        little = np.array(value, dtype=DTYPES[dtype_name], order="C", copy=copy or None)
        if little.dtype.kind == "f" and not np.isfinite(little).all():
            raise SchemaError(f"array {name!r} holds NaN or infinite values")
        checked[name] = (dtype_name, little)
    return checked


def pack_arrays(arrays: dict[str, np.ndarray], *, level: int = 1) -> tuple[bytes, int]:
    """Pack named arrays and compress them; return ``(payload, raw_length)``."""
    manifest: list[dict[str, Any]] = []
    parts: list[bytes] = []
    for name, (dtype_name, little) in check_arrays(arrays, copy=False).items():
        manifest.append(
            {"name": name, "dtype": dtype_name, "shape": list(little.shape)}
        )
        parts.append(little.tobytes())
    head = canonical_dumps({"arrays": manifest})
    raw = _MANIFEST_LENGTH.pack(len(head)) + head + b"".join(parts)
    if len(raw) > MAX_RAW_BYTES:
        raise LimitExceededError(
            f"packed arrays of {len(raw)} bytes exceed {MAX_RAW_BYTES}"
        )
    return zlib.compress(raw, level), len(raw)


def _inflate(payload: bytes | memoryview, raw_length: int) -> bytes:
    if raw_length > MAX_RAW_BYTES:
        raise LimitExceededError(
            f"declared uncompressed size {raw_length} exceeds {MAX_RAW_BYTES}"
        )
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(payload, raw_length + 1)
    except zlib.error as exc:
        raise DecodeError(f"zlib stream is corrupt: {exc}") from exc
    if len(raw) > raw_length:
        raise LimitExceededError(
            f"zlib output exceeds the declared {raw_length} bytes (decompression bomb?)"
        )
    if not inflater.eof:
        raise DecodeError("zlib stream ends early (short decompression)")
    if inflater.unused_data or inflater.unconsumed_tail:
        raise DecodeError("bytes follow the end of the zlib stream")
    if len(raw) != raw_length:
        raise DecodeError(f"zlib output is {len(raw)} bytes, declared {raw_length}")
    return raw


def unpack_arrays(
    payload: bytes | memoryview, raw_length: int
) -> dict[str, np.ndarray]:
    """Inverse of :func:`pack_arrays`; arrays come back read-only."""
    raw = _inflate(payload, raw_length)
    if len(raw) < 4:
        raise DecodeError("packed arrays shorter than their manifest length")
    (head_length,) = _MANIFEST_LENGTH.unpack_from(raw)
    if head_length > len(raw) - 4:
        raise DecodeError("packed-array manifest longer than the payload")
    try:
        manifest = parse_json(raw[4 : 4 + head_length], what="packed-array manifest")
    except SchemaError as exc:
        raise DecodeError(exc.reason) from exc
    if not isinstance(manifest, dict) or not isinstance(manifest.get("arrays"), list):
        raise DecodeError("packed-array manifest has no array list")
    arrays: dict[str, np.ndarray] = {}
    position = 4 + head_length
    for item in manifest["arrays"]:
        name, dtype, shape = _manifest_item(item)
        count = 1
        for dim in shape:
            count *= dim
        size = count * dtype.itemsize
        if position + size > len(raw):
            raise DecodeError(f"array {name!r} runs past the end of the payload")
        array = np.frombuffer(raw, dtype=dtype, count=count, offset=position).reshape(
            shape
        )
        arrays[name] = array
        position += size
    if position != len(raw):
        raise DecodeError(
            f"{len(raw) - position} unexplained bytes after the packed arrays"
        )
    return arrays


def _manifest_item(item: object) -> tuple[str, np.dtype[Any], tuple[int, ...]]:
    if not isinstance(item, dict):
        raise DecodeError("packed-array manifest entry is not an object")
    name, dtype, shape = item.get("name"), item.get("dtype"), item.get("shape")
    if not isinstance(name, str) or dtype not in DTYPES or not isinstance(shape, list):
        raise DecodeError("packed-array manifest entry needs name, dtype and shape")
    if len(shape) > 32 or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise DecodeError(f"array {name!r} has an invalid shape")
    return name, DTYPES[dtype], tuple(shape)


def encode_payload(
    spec: StreamSpec, value: Any, *, quality: int = 92
) -> tuple[bytes, int]:
    """Encode ``value`` for ``spec``; return ``(payload, raw_length)``.

    Raises
    ------
    SchemaError
        The value does not fit the stream (shape, dtype, non-finite numbers).
    """
    if spec.codec == "raw":
        data = _encode_raw(spec, value)
        return data, len(data)
    if spec.codec == "json":
        data = canonical_dumps(value, limits=PAYLOAD_JSON_LIMITS)
        return data, len(data)
    if spec.codec == "arrays+zlib":
        if not isinstance(value, dict):
            raise SchemaError(f"stream {spec.name!r} takes a dict of named arrays")
        return pack_arrays(value)
    frame = value if isinstance(value, RGBFrame) else RGBFrame(np.asarray(value))
    if (frame.height, frame.width, 3) != spec.shape:
        raise SchemaError(
            f"stream {spec.name!r}: frame is {frame.width}x{frame.height}, "
            f"the stream declares {spec.shape[1]}x{spec.shape[0]}"
        )
    data = encode_frame(spec.codec, frame, quality=quality)
    return data, len(data)


def check_raw_value(spec: StreamSpec, value: Any) -> np.ndarray:
    """Return ``value`` as the stream's little-endian array (else SchemaError)."""
    array = np.asarray(value)
    if array.shape != spec.shape:
        raise SchemaError(
            f"stream {spec.name!r}: value has shape {list(array.shape)}, "
            f"expected {list(spec.shape)}"
        )
    target = spec.numpy_dtype
    if array.dtype != target:
        if not np.can_cast(array.dtype, target, casting="same_kind"):
            raise SchemaError(
                f"stream {spec.name!r}: value of dtype {array.dtype} "
                f"does not fit {spec.dtype}"
            )
        cast = array.astype(target)
        if target.kind in "iu" and not np.array_equal(cast, array):
            raise SchemaError(
                f"stream {spec.name!r}: value out of range for {spec.dtype}"
            )
        array = cast
    if spec.finite and array.dtype.kind == "f" and not np.isfinite(array).all():
        raise SchemaError(
            f"stream {spec.name!r}: NaN or infinite value in a finite stream"
        )
    # ascontiguousarray turns a 0-d array into shape (1,): keep the stream's shape.
    return np.ascontiguousarray(array).reshape(spec.shape)


def _encode_raw(spec: StreamSpec, value: Any) -> bytes:
    return check_raw_value(spec, value).tobytes()


def decode_payload(
    spec: StreamSpec, payload: bytes | memoryview, raw_length: int, *, max_pixels: int
) -> Any:
    """Decode one payload of ``spec``.

    Returns a read-only numpy array (``raw``), a Python value (``json``), a dict
    of read-only arrays (``arrays+zlib``) or an :class:`~fsr_core.media.RGBFrame`.

    Raises
    ------
    DecodeError
        The bytes do not decode as declared.
    SchemaError
        The bytes decode, but to a value the stream's definition forbids (a
        NaN in a finite stream, an image of another size): the class the
        writer raises when it refuses the same value.
    LimitExceededError
        A declared size is beyond the reader's limits.
    """
    if spec.codec == "raw":
        return _decode_raw(spec, payload)
    if spec.codec == "json":
        try:
            return parse_json(payload, limits=PAYLOAD_JSON_LIMITS, what="JSON payload")
        except SchemaError as exc:
            raise DecodeError(exc.reason) from exc
    if spec.codec == "arrays+zlib":
        return unpack_arrays(payload, raw_length)
    width, height = spec.frame_size
    return decode_frame(
        spec.codec, payload, width=width, height=height, max_pixels=max_pixels
    )


def _decode_raw(spec: StreamSpec, payload: bytes | memoryview) -> np.ndarray:
    dtype = spec.numpy_dtype
    expected = spec.element_count * dtype.itemsize
    if len(payload) != expected:
        raise DecodeError(
            f"payload is {len(payload)} bytes, {list(spec.shape)} {spec.dtype} "
            f"needs {expected}"
        )
    array = np.frombuffer(bytes(payload), dtype=dtype).reshape(spec.shape)
    if spec.finite and dtype.kind == "f" and not np.isfinite(array).all():
        raise SchemaError("NaN or infinite value in a finite stream")
    return array
