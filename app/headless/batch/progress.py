"""The batch's progress on stderr: a live bar on a terminal, plain lines elsewhere.

On a terminal one line is rewritten (at most 10 times a second)::

    [##########..........] 12/24 files  2.4 files/s  ETA 0:05  1 failed

and every failure is printed above it as it happens. Elsewhere (a pipe, a
log file, CI) each finished recording is one line::

    [12/24] failed takes/broken.fsr: bad magic ... (0.03 s)
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

__all__ = ["BatchProgress"]


class BatchProgress:
    """Count finished recordings and show it; ``close`` ends the bar's line."""

    WIDTH = 24

    def __init__(
        self, total: int, *, stream: TextIO | None = None, live: bool | None = None
    ) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self._stream = stream or sys.stderr
        self._live = self._stream.isatty() if live is None else live
        self._started_s = time.monotonic()
        self._drawn_s = -1.0
        self._shown = False
        if self._live and total:
            self._draw(force=True)  # 0/N at once: the run has started

    def update(self, result: dict[str, Any]) -> None:
        """Count one finished recording (its result) and show the progress."""
        self.done += 1
        failed = result.get("status") == "failed"
        self.failed += failed
        if not self._live:
            self._line(result)
            return
        if failed:
            self._clear()
            self._stream.write(f"failed: {result.get('error')}\n")
        self._draw(force=failed or self.done == self.total)

    def close(self) -> None:
        """End the bar's line (if one was drawn)."""
        if self._shown:
            self._stream.write("\n")
            self._stream.flush()
            self._shown = False

    def _line(self, result: dict[str, Any]) -> None:
        status = result.get("status")
        detail = result.get("error") or result.get("output") or result.get("input")
        self._stream.write(
            f"[{self.done}/{self.total}] {status} {detail} "
            f"({result.get('seconds', 0):.2f} s)\n"
        )
        self._stream.flush()

    def _clear(self) -> None:
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._shown = False

    def _draw(self, *, force: bool) -> None:
        now_s = time.monotonic()
        if not force and now_s - self._drawn_s < 0.1:
            return
        self._drawn_s = now_s
        elapsed_s = max(now_s - self._started_s, 1e-9)
        rate = self.done / elapsed_s
        left_s = (self.total - self.done) / rate if rate > 0 else 0.0
        filled = self.WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        failed = f"  {self.failed} failed" if self.failed else ""
        self._shown = True
        self._stream.write(
            f"\r[{bar}] {self.done}/{self.total} files  {rate:.1f} files/s  "
            f"ETA {_clock(left_s)}{failed}\x1b[K"
        )
        self._stream.flush()


def _clock(seconds: float) -> str:
    """Return ``seconds`` as ``M:SS`` (``H:MM:SS`` past an hour)."""
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
