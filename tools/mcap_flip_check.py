"""Flip bits of an MCAP file and compare ``inspect --verify`` with the ``mcap`` library.

For each of ``--flips`` copies (one bit flipped at a seeded random place), it
asks whether ``inspect --verify`` calls the copy valid, and whether the
``mcap`` library rejects it: its stream reader with CRC checks over every
record, or its seeking reader reading the summary, every message, attachment
and metadata record. It prints how many copies ``inspect --verify`` passes
and how many of those the library rejects (the figure that should be 0).

    python tools/mcap_flip_check.py tests/data/mcap/ros2.mcap --flips 400
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from fsr_core.errors import FsrError
from fsr_core.sources import inspect_recording


def library_rejects(path: Path) -> bool:
    """Whether the ``mcap`` library raises reading the whole file."""
    from mcap.reader import SeekingReader
    from mcap.stream_reader import StreamReader

    try:
        with path.open("rb") as stream:
            for _ in StreamReader(stream, validate_crcs=True).records:
                pass
        with path.open("rb") as stream:
            reader = SeekingReader(stream, validate_crcs=True)
            reader.get_summary()
            for _ in reader.iter_messages():
                pass
            for _ in reader.iter_attachments():
                pass
            for _ in reader.iter_metadata():
                pass
    except Exception:  # noqa: BLE001 - whatever the library raises is a refusal
        return True
    return False


def we_pass(path: Path) -> bool:
    """Whether ``inspect --verify`` calls the file valid and finds no problem."""
    try:
        report = inspect_recording(path, verify=True)
    except FsrError:
        return False
    return bool(report["valid"]) and not report["verification"]["problem_count"]


def main(argv: list[str] | None = None) -> int:
    """Flip, compare and print the figures; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--flips", type=int, default=400)
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args(argv)
    original = args.file.read_bytes()
    chance = random.Random(args.seed)
    passed = passed_but_rejected = rejected = 0
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / args.file.name
        for _ in range(args.flips):
            data = bytearray(original)
            data[chance.randrange(len(data))] ^= 1 << chance.randrange(8)
            copy.write_bytes(data)
            theirs = library_rejects(copy)
            ours = we_pass(copy)
            rejected += theirs
            passed += ours
            passed_but_rejected += ours and theirs
    print(
        f"{args.file.name}: {args.flips} one-bit flips; the mcap library rejects "
        f"{rejected}; inspect --verify passes {passed}, {passed_but_rejected} of "
        "which the library rejects"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
