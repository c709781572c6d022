"""A small MCAP of JSON arm states, written by the ``mcap`` library's own writer.

Imported by the tests of this folder (``from arm_mcap import write_arm_mcap``),
which then damage, cut or read the file it writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcap import writer as mcap_writer

START_NS = 1_700_000_000_000_000_000
"""A log time in 2023, where the tests' messages start."""


def write_arm_mcap(
    path: Path,
    messages: Iterable[tuple[int, object]],
    *,
    schema: bytes = b'{"type": "object"}',
    finish: bool = True,
    **options: Any,
) -> Path:
    """Write ``messages`` (log time in ns, JSON value) on ``/arm/state`` to ``path``.

    The channel's schema is ``Arm`` (JSON Schema ``schema``); ``options`` go to
    the writer (chunk size, chunking, statistics). ``finish=False`` leaves the
    file unsealed, as a writer that stopped leaves it (flushed, no summary).
    """
    with path.open("wb") as stream:
        writer = mcap_writer.Writer(stream, **options)
        writer.start(profile="", library="fsr-viewer tests")
        schema_id = writer.register_schema(
            name="Arm", encoding="jsonschema", data=schema
        )
        channel = writer.register_channel(
            topic="/arm/state", message_encoding="json", schema_id=schema_id
        )
        for time_ns, value in messages:
            writer.add_message(
                channel_id=channel,
                log_time=time_ns,
                publish_time=time_ns,
                data=json.dumps(value).encode(),
            )
        if finish:
            writer.finish()
        else:
            stream.flush()
    return path
