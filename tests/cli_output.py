"""Run a command line in the test's process and read what it printed.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from cli_output import command_output``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

__all__ = ["assert_mentions", "command_output"]

#: A command line's entry point: the arguments in, the exit code out.
Command = Callable[[Sequence[str]], int]


def command_output(
    capsys: pytest.CaptureFixture[str],
    command: Command,
    argv: Sequence[str],
    *,
    code: int = 0,
) -> str:
    """Run ``command(argv)``, assert it exits with ``code``; return its stdout.

    What was printed before the command runs is dropped first, so the text is
    the command's alone.
    """
    capsys.readouterr()
    got = command(argv)
    out = capsys.readouterr().out
    assert got == code, out
    return out


def assert_mentions(text: str, *parts: str) -> None:
    """Assert that ``text`` holds every one of ``parts``; name the ones it lacks."""
    missing = [part for part in parts if part not in text]
    assert not missing, f"{missing} not in:\n{text}"
