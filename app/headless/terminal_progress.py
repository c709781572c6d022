"""A progress bar on stderr for the long headless commands (export, replay)."""

from __future__ import annotations

import sys
import time

__all__ = ["TerminalProgress"]


class TerminalProgress:
    """``[#####.....] 42/120 frames`` on stderr, rewritten in place (10 Hz).

    ``unit`` names what is counted (``frames``, ``ticks``).
    """

    WIDTH = 30

    def __init__(self, unit: str = "frames") -> None:
        self._shown = False
        self._last_s = -1.0
        self._unit = unit

    def __call__(self, done: int, total: int) -> None:
        now_s = time.monotonic()
        if done < total and now_s - self._last_s < 0.1:
            return
        self._last_s = now_s
        filled = self.WIDTH * done // max(total, 1)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        # Marked first: a signal that stops the command right after the write
        # still gets its line of its own from close().
        self._shown = True
        sys.stderr.write(f"\r[{bar}] {done}/{total} {self._unit}")
        sys.stderr.flush()

    def close(self) -> None:
        """End the bar's line (if one was drawn)."""
        if self._shown:
            sys.stderr.write("\n")
            self._shown = False
