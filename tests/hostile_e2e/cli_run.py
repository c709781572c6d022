"""Run the real ``fsr-viewer`` as a user would, under a memory and a time limit.

The end-to-end hostile suite (docs/robustness.md) judges what a user sees: the
exit status, the lines on stderr, the files left behind. Every command runs in
a fresh process (``python -m app``) with ``QT_QPA_PLATFORM=offscreen``, an
address-space limit (``RLIMIT_AS``) and a wall-clock timeout, so an allocation
bomb ends as a refused file or a ``MemoryError`` we can see, never as a machine
swapping, and a hang ends as a failed test.

``tests/`` is on ``sys.path``; a test imports ``from hostile_e2e.cli_run import
run_cli`` (the folder is a plain directory, not a package of the project).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MEMORY_LIMIT_BYTES",
    "TIME_LIMIT_S",
    "CliOutcome",
    "assert_refused",
    "assert_succeeded",
    "files_below",
    "run_cli",
    "start_cli",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Address space a command may use (PySide6 and numpy alone map ~1 GiB).
MEMORY_LIMIT_BYTES = 3 << 30
#: Wall-clock time a command may take before the test calls it a hang.
TIME_LIMIT_S = 90.0
#: What no user-facing output may ever contain.
_NEVER_SHOWN = ("Traceback (most recent call last)", "internal error", "Fatal Python")


@dataclass(frozen=True)
class CliOutcome:
    """What a user saw: the exit status and the two streams."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        """The non-empty lines of stderr (Qt's offscreen notes left out)."""
        return [
            line
            for line in self.stderr.splitlines()
            if line.strip() and not line.startswith("This plugin does not support")
        ]

    def describe(self) -> str:
        """Everything about the run, for an assertion message."""
        return (
            f"argv={list(self.argv)} rc={self.returncode}\n"
            f"stdout={self.stdout[-2000:]!r}\nstderr={self.stderr[-4000:]!r}"
        )


def _limit_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _environment(extra: dict[str, str] | None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DISPLAY", "WAYLAND_DISPLAY"}
    }
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHONFAULTHANDLER"] = "1"
    env.update(extra or {})
    return env


def start_cli(
    args: Sequence[str | os.PathLike[str]],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    memory_limit: int = MEMORY_LIMIT_BYTES,
) -> subprocess.Popen[str]:
    """Start ``fsr-viewer ARGS`` and return the process (for signal tests)."""
    argv = [sys.executable, "-m", "app", *map(str, args)]
    return subprocess.Popen(
        argv,
        cwd=cwd or REPO_ROOT,
        env=_environment(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: _limit_memory(memory_limit),
        start_new_session=True,
    )


def run_cli(
    *args: str | os.PathLike[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    memory_limit: int = MEMORY_LIMIT_BYTES,
    timeout_s: float = TIME_LIMIT_S,
) -> CliOutcome:
    """Run ``fsr-viewer ARGS`` to its end; a run past ``timeout_s`` fails the test."""
    process = start_cli(args, cwd=cwd, env=env, memory_limit=memory_limit)
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        raise AssertionError(
            f"fsr-viewer {[str(a) for a in args]} hung past {timeout_s} s; "
            f"stderr so far: {stderr[-2000:]!r}"
        ) from None
    return CliOutcome(tuple(map(str, args)), process.returncode, stdout, stderr)


def assert_refused(outcome: CliOutcome, *mentions: str) -> str:
    """Assert exit 1 with one clear line (naming ``mentions``); return the line.

    No traceback, no "internal error", no crash: the line is the whole story.
    """
    lines = outcome.stderr_lines
    assert outcome.returncode == 1, outcome.describe()
    assert len(lines) == 1, outcome.describe()
    for text in _NEVER_SHOWN:
        assert text not in outcome.stderr, outcome.describe()
    for mention in mentions:
        assert mention in lines[0], outcome.describe()
    return lines[0]


def assert_succeeded(outcome: CliOutcome) -> None:
    """Assert exit 0 and nothing a user should never see."""
    assert outcome.returncode == 0, outcome.describe()
    for text in _NEVER_SHOWN:
        assert text not in outcome.stderr, outcome.describe()


def files_below(folder: Path, *, ignore: Iterable[Path] = ()) -> set[str]:
    """Every entry below ``folder`` (hidden ones too), relative, for leftovers."""
    skip = {Path(path).resolve() for path in ignore}
    return {
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.resolve() not in skip
    }
