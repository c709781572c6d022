"""Record the built-in demo takes (the same as ``fsr-viewer demo --no-gui``).

Writes every take's recording and scenario TOML into the output folder and
prints their paths; existing takes are kept, never overwritten.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from fsr_core.errors import FsrError
from fsr_core.simulators.planar_arm.demos import DEMO_NAMES, write_demos


def main(argv: Sequence[str] | None = None) -> int:
    """Write the demo takes; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-o", "--output", type=Path, default=Path("fsr-demo"))
    parser.add_argument(
        "--take", action="append", choices=DEMO_NAMES, help="only these takes"
    )
    args = parser.parse_args(argv)
    try:
        files = write_demos(args.output, names=tuple(args.take or DEMO_NAMES))
    except FsrError as exc:
        print(f"make_demo: {exc}", file=sys.stderr)
        return 1
    for item in files:
        print(item.recording)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
