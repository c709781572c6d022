"""Build and write ROS messages with ``rosbags``: what the bag-writing scripts share.

``make_rosbag_data.py`` (the test bags, in its side environment) and
``bench_bags.py`` (the benchmark's bags) both write ROS 1 and rosbag2 bags
with ``rosbags``' writers and read them back with its readers: the type
store that knows ``/tf``'s message, the ``std_msgs/Header`` of a stamp, a
message written on a connection made on first use and the type store of a
bag's own definitions are this module. It needs nothing but ``rosbags``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rosbags.typesys import (  # type: ignore[import-not-found,unused-ignore]
    Stores,
    get_types_from_msg,
    get_typestore,
)

if TYPE_CHECKING:
    from rosbags.typesys.store import (  # type: ignore[import-not-found,unused-ignore]
        Typestore,
    )

__all__ = ["header", "stamp", "store_of", "typestore", "write_message"]

_NS_PER_S = 1_000_000_000


def typestore(name: Stores) -> Typestore:
    """Return a type store of ``name`` that knows ``tf2_msgs/msg/TFMessage``."""
    store = get_typestore(name)
    if "tf2_msgs/msg/TFMessage" not in store.fielddefs:
        store.register(
            get_types_from_msg(
                "geometry_msgs/TransformStamped[] transforms", "tf2_msgs/msg/TFMessage"
            )
        )
    return store


def store_of(connections: Iterable[Any]) -> Typestore:
    """Return a type store that knows the types of ``connections``, from their bag.

    Each type is registered from the message definition the bag carries for it.
    """
    store = get_typestore(Stores.EMPTY)
    for connection in connections:
        if connection.msgtype not in store.fielddefs:
            store.register(
                get_types_from_msg(connection.msgdef.data, connection.msgtype)
            )
    return store


def stamp(store: Any, time_ns: int) -> Any:
    """Return the ``builtin_interfaces/msg/Time`` of ``time_ns``."""
    return store.types["builtin_interfaces/msg/Time"](
        sec=time_ns // _NS_PER_S, nanosec=time_ns % _NS_PER_S
    )


def header(store: Any, time_ns: int, frame: str) -> Any:
    """Return a ``std_msgs/msg/Header`` at ``time_ns`` (``seq`` 0 where it has one)."""
    fields = {name for name, _ in store.fielddefs["std_msgs/msg/Header"][1]}
    extra = {"seq": 0} if "seq" in fields else {}
    return store.types["std_msgs/msg/Header"](
        stamp=stamp(store, time_ns), frame_id=frame, **extra
    )


def write_message(
    writer: Any,
    connections: dict[str, Any],
    store: Any,
    event: tuple[str, str, int, Any],
    serialize: Callable[[Any, str], memoryview],
) -> None:
    """Write ``event`` (topic, type, log time, message) serialised by ``serialize``.

    The topic's connection is added to ``writer`` (and kept in
    ``connections``) the first time the topic comes.
    """
    topic, kind, time_ns, message = event
    if topic not in connections:
        connections[topic] = writer.add_connection(topic, kind, typestore=store)
    writer.write(connections[topic], time_ns, serialize(message, kind))
