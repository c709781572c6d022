"""Run Python in a fresh interpreter from the repository root, for tests of imports.

What a module loads, or what the command line does without the test's own
``sys.modules``, shows only in a new process. ``tests/`` is on ``sys.path``, so
a test imports this as ``from python_probe import run_python, probe_json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["REPO_ROOT", "offscreen_env", "probe_json", "run_python"]

#: The repository root, the working folder of every probe.
REPO_ROOT = Path(__file__).resolve().parents[1]


def offscreen_env() -> dict[str, str]:
    """Return this process's environment with ``QT_QPA_PLATFORM=offscreen``."""
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen"}


def run_python(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout_s: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run this test's Python with ``args``, capturing text output; never raise."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def probe_json(code: str, *args: str) -> Any:
    """Run ``code`` (which prints one JSON value) with ``args``; return the value."""
    completed = run_python(["-c", code, *args])
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)
