"""A real MCAP writer (the ``mcap`` library's ``Writer``) in its own process.

For the following tests: reads commands from stdin and answers each on
stdout once the bytes are in the file, so a test drives the writer without
sleeping. ``messages N`` writes N JSON messages on ``/arm/state`` (1 kHz log
times, fields ``q`` (3 numbers) and ``effort``) and flushes; ``finish`` closes
the writer (summary, footer, closing magic); ``crash`` exits at once. With
``--chunk-size 0`` the file is written without chunks.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Run the writer."""
    from mcap.writer import CompressionType, Writer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--chunk-size", type=int, default=2048)
    parser.add_argument(
        "--compression", choices=("none", "zstd", "lz4"), default="zstd"
    )
    args = parser.parse_args(argv)
    handle = args.path.open("xb")
    writer = Writer(
        handle,
        chunk_size=max(args.chunk_size, 1),
        compression=CompressionType[args.compression.upper()],
        use_chunking=args.chunk_size > 0,
    )
    writer.start(profile="", library="fsr-viewer live test writer")
    schema = writer.register_schema(
        name="arm_state",
        encoding="jsonschema",
        data=json.dumps({"type": "object"}).encode(),
    )
    channel = writer.register_channel(
        topic="/arm/state", message_encoding="json", schema_id=schema
    )
    handle.flush()
    print(f"writing {args.path}", flush=True)
    sent = 0
    for line in sys.stdin:
        verb, _, count = line.strip().partition(" ")
        if verb == "messages":
            for _ in range(int(count)):
                t = sent / 1000
                body = {"q": [math.sin(t), math.cos(t), t], "effort": float(sent)}
                stamp = 1_000_000_000 + sent * 1_000_000
                writer.add_message(
                    channel,
                    log_time=stamp,
                    data=json.dumps(body).encode(),
                    publish_time=stamp,
                )
                sent += 1
            handle.flush()
        elif verb == "finish":
            writer.finish()  # type: ignore[no-untyped-call]
            handle.close()
            print("finished", flush=True)
            return 0
        elif verb == "crash":
            print("crashing", flush=True)
            os._exit(3)
        print(f"ok {sent}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
