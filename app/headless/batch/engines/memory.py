"""How much memory a process holds: its resident set size, from ``/proc``."""

from __future__ import annotations

from pathlib import Path

__all__ = ["resident_bytes"]


def resident_bytes(pid: int | str = "self") -> int | None:
    """Return the resident set size of process ``pid`` in bytes (``None``: unknown).

    Read from ``/proc/PID/status`` (``VmRSS``), so it is known on Linux only.
    """
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            fields = line.split()
            if len(fields) >= 2 and fields[1].isdigit():
                return int(fields[1]) * 1024
    return None
