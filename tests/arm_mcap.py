"""An ``/arm/state`` JSON topic in the MCAP files the tests write themselves.

The tests that damage or lazily read an MCAP file write it with the ``mcap``
library's own writer: one JSON topic, ``/arm/state``, whose messages sit at
the same log and publish time.
"""

from __future__ import annotations

import json
from typing import Final

from mcap.writer import Writer

__all__ = ["ARM_TOPIC", "add_arm_message", "start_arm_topic"]

ARM_TOPIC: Final = "/arm/state"


def start_arm_topic(writer: Writer, schema: bytes = b'{"type": "object"}') -> int:
    """Start ``writer`` and register :data:`ARM_TOPIC`; return its channel id."""
    writer.start(profile="", library="fsr-viewer tests")
    schema_id = writer.register_schema(name="Arm", encoding="jsonschema", data=schema)
    return writer.register_channel(
        topic=ARM_TOPIC, message_encoding="json", schema_id=schema_id
    )


def add_arm_message(writer: Writer, channel: int, time_ns: int, data: object) -> None:
    """Write ``data`` as JSON on ``channel``, logged and published at ``time_ns``."""
    writer.add_message(
        channel_id=channel,
        log_time=time_ns,
        publish_time=time_ns,
        data=json.dumps(data).encode(),
    )
