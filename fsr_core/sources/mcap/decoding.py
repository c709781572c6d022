"""Turn message bytes into plain Python values, by message encoding.

Each encoding is decoded by its owners' library: protobuf through
``mcap-protobuf-support`` (the schema's ``FileDescriptorSet``), ROS 2 CDR
through ``mcap-ros2-support`` (``ros2msg`` schemas), JSON with the standard
library. Whatever the encoding, a decoded message becomes the same *plain
tree*: dicts of field name to value, lists, numbers, strings, booleans and
bytes; so the rest of the source reads every encoding the same way.

:func:`decoder_for` returns a decoder, or why there is none (an encoding this
viewer does not know, a schema the library refuses, a package that is missing
and the extra that installs it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from fsr_core.sources.mcap.container import TopicInfo

__all__ = ["Decoder", "PlainTree", "decoder_for"]

PlainTree = Any
"""A decoded message: dicts, lists, numbers, strings, booleans and bytes."""

_EXTRA: Final = "pip install 'fsr-viewer[mcap]'"
_MAX_DEPTH: Final = 64


@dataclass(frozen=True)
class Decoder:
    """A topic's decoder, or the reason it has none."""

    decode: Callable[[bytes], PlainTree] | None
    problem: str = ""


def _schema_record(topic: TopicInfo) -> Any:
    from mcap.records import Schema

    return Schema(
        id=1,
        name=topic.schema_name,
        encoding=topic.schema_encoding,
        data=topic.schema_data,
    )


def _protobuf_tree(message: Any, depth: int = 0) -> PlainTree:
    if depth > _MAX_DEPTH:
        raise ValueError("message nests deeper than 64 levels")
    tree: dict[str, Any] = {}
    for descriptor in message.DESCRIPTOR.fields:
        value = getattr(message, descriptor.name)
        if descriptor.message_type is not None:
            if _is_repeated(descriptor):
                if descriptor.message_type.GetOptions().map_entry:
                    tree[descriptor.name] = {
                        str(key): _leaf_or_tree(item, depth)
                        for key, item in value.items()
                    }
                else:
                    tree[descriptor.name] = [
                        _protobuf_tree(item, depth + 1) for item in value
                    ]
            else:
                tree[descriptor.name] = _protobuf_tree(value, depth + 1)
        elif _is_repeated(descriptor):
            tree[descriptor.name] = list(value)
        else:
            tree[descriptor.name] = value
    return tree


def _is_repeated(descriptor: Any) -> bool:
    label = getattr(descriptor, "is_repeated", None)
    if isinstance(label, bool):
        return label
    return bool(descriptor.label == descriptor.LABEL_REPEATED)


def _leaf_or_tree(value: Any, depth: int) -> PlainTree:
    return _protobuf_tree(value, depth + 1) if hasattr(value, "DESCRIPTOR") else value


_PLAIN: Final = frozenset({bool, int, float, str, bytes})
"""Types a decoded ROS 2 value already has in a plain tree."""


def _ros2_tree(message: Any, depth: int = 0) -> PlainTree:
    if depth > _MAX_DEPTH:
        raise ValueError("message nests deeper than 64 levels")
    slots = getattr(message, "__slots__", None)
    if slots is None:
        if isinstance(message, list):
            if depth < _MAX_DEPTH and all(type(item) in _PLAIN for item in message):
                return list(message)  # an array of numbers or strings, as is
            return [_ros2_tree(item, depth + 1) for item in message]
        return message
    return {name: _ros2_tree(getattr(message, name), depth + 1) for name in slots}


def _library_decoder(
    factory: Any,
    encoding: str,
    schema: str,
    topic: TopicInfo,
    to_tree: Callable[[Any], PlainTree],
) -> Decoder:
    """Return the decoder a library's ``DecoderFactory`` makes, giving plain trees.

    ``schema`` names the schema encoding in the problem of a schema the
    library cannot read; ``to_tree`` turns a decoded message into a plain tree.
    """
    decode = factory().decoder_for(encoding, _schema_record(topic))
    if decode is None:
        return Decoder(None, f"the {schema} schema cannot be read")
    found = decode

    def tree(data: bytes) -> PlainTree:
        return to_tree(found(data))

    return Decoder(tree)


def _protobuf(topic: TopicInfo) -> Decoder:
    try:
        from mcap_protobuf.decoder import DecoderFactory
    except ImportError:
        return Decoder(None, f"protobuf messages need mcap-protobuf-support ({_EXTRA})")
    return _library_decoder(
        DecoderFactory, "protobuf", "protobuf", topic, _protobuf_tree
    )


def _ros2(topic: TopicInfo) -> Decoder:
    if topic.schema_encoding != "ros2msg":
        return Decoder(
            None,
            f"CDR with a {topic.schema_encoding[:40] or 'missing'!r} schema is not "
            "supported (ros2msg schemas are)",
        )
    try:
        from mcap_ros2.decoder import DecoderFactory
    except ImportError:
        return Decoder(None, f"ROS 2 messages need mcap-ros2-support ({_EXTRA})")
    return _library_decoder(DecoderFactory, "cdr", "ros2msg", topic, _ros2_tree)


def _json(topic: TopicInfo) -> Decoder:
    def tree(data: bytes) -> PlainTree:
        return json.loads(data)

    return Decoder(tree)


_BY_ENCODING: Final[dict[str, Callable[[TopicInfo], Decoder]]] = {
    "protobuf": _protobuf,
    "cdr": _ros2,
    "json": _json,
}
"""Decoder makers by message encoding (the MCAP well-known encodings)."""


def decoder_for(topic: TopicInfo) -> Decoder:
    """Return the decoder of ``topic``'s messages, or why there is none.

    A decoder raises any exception on bytes it cannot decode; callers turn
    that into a :class:`~fsr_core.errors.DecodeError`.
    """
    make = _BY_ENCODING.get(topic.message_encoding)
    if make is None:
        return Decoder(
            None,
            f"message encoding {topic.message_encoding[:40]!r} is not supported "
            f"({', '.join(_BY_ENCODING)} are)",
        )
    try:
        return make(topic)
    except Exception as exc:  # noqa: BLE001 - a schema the library refuses
        return Decoder(None, f"the schema cannot be read: {str(exc)[:200]}")
