"""Ask another Python interpreter a question: run a snippet, read its last line.

The side stacks (Genesis, robosuite) may live in a Python other than the
viewer's, named by an environment variable; what is installed there, and
where, is found by running a short snippet in it (no stdin, a timeout).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from typing import Final

__all__ = ["ANSWER_TIMEOUT_S", "answer_of"]

ANSWER_TIMEOUT_S: Final = 60.0
"""How long an interpreter may take to answer (a cold start of a large venv)."""


def answer_of(
    python: str,
    code: str,
    args: Sequence[str] = (),
    *,
    timeout_s: float = ANSWER_TIMEOUT_S,
) -> str:
    """Run ``python -c code *args``; return the last line it printed ('' for none).

    Raises
    ------
    OSError, subprocess.SubprocessError
        ``python`` cannot be run, or did not answer within ``timeout_s``.
    """
    done = subprocess.run(
        [python, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    lines = done.stdout.strip().splitlines()
    return lines[-1].strip() if lines else ""
