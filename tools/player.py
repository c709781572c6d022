"""Open recordings the way ``fsr-viewer FILE...`` does (player, export, options).

A thin script over :func:`app.cli.main`: ``tools/player.py run.fsr --export run.mp4
--panel`` is the same as ``fsr-viewer run.fsr --export run.mp4 --panel``.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.cli import main as fsr_viewer_main


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fsr-viewer`` with these arguments; return its exit code."""
    return fsr_viewer_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
