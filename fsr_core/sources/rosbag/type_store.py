"""The message types of a bag, from the definitions the bag itself carries.

Each connection's definition (``.msg`` text in a ROS 1 connection header or
a rosbag2 SQLite bag's ``message_definitions``, IDL in some rosbag2 bags) is
parsed and registered on its own: a definition that does not parse, or that
contradicts one registered before, leaves its topics out with the reason and
every other topic reads. A rosbag2 bag written before definitions were
stored carries none; its types come from the ``rosbags`` store of the bag's
ROS distribution (Humble when it names none).

Building a store compiles each type's (de)serialisers, a tenth of a second
or more, the same for every bag recorded with the same definitions: the
stores of the last few sets of definitions are kept for the process (the
window reopening a bag, its model read whole in the background, a playlist
of one robot's bags).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["BagTypes", "bag_types"]

_IDL_SEPARATOR: Final = "=" * 80 + "\n"
_KEPT_STORES: Final = 8
_KEPT: OrderedDict[tuple[object, ...], BagTypes] = OrderedDict()
_KEPT_LOCK: Final = threading.Lock()
_DEFAULT_STORES: Final = {
    "foxy": "ROS2_FOXY",
    "galactic": "ROS2_GALACTIC",
    "humble": "ROS2_HUMBLE",
    "iron": "ROS2_IRON",
    "jazzy": "ROS2_JAZZY",
}


@dataclass
class BagTypes:
    """The type store of one bag, and the message types it could not read."""

    store: Any
    ros1: bool
    unreadable: dict[str, str] = field(default_factory=dict)
    """Reason by message type whose definition did not parse."""

    def readable(self, msgtype: str) -> bool:
        """Whether messages of ``msgtype`` can be deserialised."""
        return msgtype not in self.unreadable and msgtype in self.store.fielddefs

    def deserializer(self) -> Any:
        """Return the store's own ``(raw, msgtype) -> message`` for this bag."""
        if self.ros1:
            return self.store.deserialize_ros1
        return self.store.deserialize_cdr

    def deserialize(self, raw: bytes | memoryview, msgtype: str) -> Any:
        """Return the message object of ``raw`` (raises the library's error)."""
        if self.ros1:
            return self.store.deserialize_ros1(raw, msgtype)
        return self.store.deserialize_cdr(raw, msgtype)


def _definition_types(connection: Any) -> dict[str, Any]:
    """Return the types one connection's definition declares (raises if bad)."""
    from rosbags.interfaces import MessageDefinitionFormat
    from rosbags.typesys import get_types_from_idl, get_types_from_msg

    definition = connection.msgdef
    if definition.format == MessageDefinitionFormat.MSG:
        return dict(get_types_from_msg(definition.data, connection.msgtype))
    found: dict[str, Any] = {}
    text = definition.data
    parts = (
        text.split(_IDL_SEPARATOR)[1:] if text.startswith(_IDL_SEPARATOR) else [text]
    )
    for part in parts:
        body = part.split("\n", 1)[1] if part.startswith("IDL: ") else part
        found.update(get_types_from_idl(body))
    return found


def _default_store(distro: str | None) -> Any:
    from rosbags.typesys import Stores, get_typestore

    name = _DEFAULT_STORES.get((distro or "").lower(), "ROS2_HUMBLE")
    return get_typestore(getattr(Stores, name))


def bag_types(
    connections: Iterable[Any], *, ros1: bool, distro: str | None = None
) -> BagTypes:
    """Return the type store of a bag's ``connections`` (``rosbags`` objects).

    The store of the same definitions is built once per process (the last
    few kept).
    """
    listed = list(connections)
    key = (
        ros1,
        (distro or "").lower(),
        tuple(
            sorted({(c.msgtype, c.msgdef.format.name, c.msgdef.data) for c in listed})
        ),
    )
    with _KEPT_LOCK:
        found = _KEPT.get(key)
        if found is not None:
            _KEPT.move_to_end(key)
            return found
    built = _built_types(listed, ros1=ros1, distro=distro)
    with _KEPT_LOCK:
        _KEPT[key] = built
        while len(_KEPT) > _KEPT_STORES:
            _KEPT.popitem(last=False)
    return built


def _built_types(listed: list[Any], *, ros1: bool, distro: str | None) -> BagTypes:
    from rosbags.interfaces import MessageDefinitionFormat
    from rosbags.typesys import Stores, get_typestore

    defined = [c for c in listed if c.msgdef.format != MessageDefinitionFormat.NONE]
    if not ros1 and listed and not defined:
        return BagTypes(_default_store(distro), ros1=False)
    types = BagTypes(get_typestore(Stores.EMPTY), ros1=ros1)
    for connection in defined:
        if connection.msgtype in types.store.fielddefs:
            continue
        try:
            types.store.register(_definition_types(connection))
            # Building the message class resolves every field's type: a
            # definition naming a type the bag never defines fails here.
            types.store.get_msgdef(connection.msgtype)
        except Exception as exc:  # noqa: BLE001 - the library's parse errors vary
            reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            types.unreadable[connection.msgtype] = (
                f"definition does not parse: {reason}"
            )
    for connection in listed:
        if connection.msgtype not in types.store.fielddefs:
            types.unreadable.setdefault(
                connection.msgtype, "the bag carries no definition of it"
            )
    return types
