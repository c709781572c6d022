"""What every replay shares while it runs: completion, cancellation, deadline.

- :class:`Completion` hands out the run's completion exactly once
  (``succeeded/REPLAY_COMPLETED``, ``failed/REPLAY_FAILED`` or
  ``cancelled/REPLAY_CANCELLED``); a second request is a programming error.
- :class:`ReplayCancelledError` is raised at the next step after a
  :class:`~fsr_core.simulation.protocol.CancelToken` is set
  (:func:`raise_if_cancelled`, or a long read's :func:`cancel_check`); the
  runner or the engine turns it into the cancelled outcome.
- :class:`TeardownDeadline` is the one absolute wall-clock deadline that closing
  the control session and publishing the output share.
- :func:`fresh_run_id` names a new replay run.
- :func:`check_pinned` refuses a source whose digest is not the pinned one.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsr_core.errors import ReplayError
from fsr_core.simulation.protocol import CancelToken, ReplayOutcome

__all__ = [
    "Completion",
    "ReplayCancelledError",
    "TeardownDeadline",
    "cancel_check",
    "check_pinned",
    "completion_record",
    "fresh_run_id",
    "raise_if_cancelled",
]


class ReplayCancelledError(ReplayError):
    """The caller cancelled the replay (nothing is published)."""


def raise_if_cancelled(cancel: CancelToken | None, *, path: str, where: str) -> None:
    """Raise :class:`ReplayCancelledError` when ``cancel`` has been set."""
    if cancel is not None and cancel.cancelled:
        raise ReplayCancelledError(f"replay cancelled {where}", path=path)


def cancel_check(
    cancel: CancelToken | None, path: str | os.PathLike[str], where: str
) -> Callable[[], None] | None:
    """Return a ``check()`` for long reads that raises once ``cancel`` is set."""
    if cancel is None:
        return None
    token = cancel

    def check() -> None:
        raise_if_cancelled(token, path=os.fspath(path), where=where)

    return check


class Completion:
    """The run's completion, requested exactly once."""

    def __init__(self) -> None:
        self._outcome: ReplayOutcome | None = None

    @property
    def outcome(self) -> ReplayOutcome | None:
        """The outcome once completed, else ``None``."""
        return self._outcome

    def complete(self, outcome: ReplayOutcome) -> dict[str, Any]:
        """Complete the run; return its ``run.lifecycle`` completion record.

        Raises
        ------
        RuntimeError
            The run was already completed (completion happens exactly once).
        """
        if self._outcome is not None:
            raise RuntimeError(
                f"replay already completed as {self._outcome.value}; "
                f"refusing a second completion ({outcome.value})"
            )
        self._outcome = outcome
        return completion_record(outcome)


def completion_record(outcome: ReplayOutcome) -> dict[str, Any]:
    """Return the ``run.lifecycle`` completion record of ``outcome``."""
    return {
        "event": "completion",
        "status": outcome.value,
        "reason_code": outcome.reason_code,
    }


class TeardownDeadline:
    """One absolute deadline, fixed when teardown starts, for every step of it."""

    def __init__(self, seconds: float, *, path: str) -> None:
        if not seconds >= 0:
            raise ValueError(f"teardown deadline must be >= 0 s, got {seconds}")
        self.seconds = seconds
        self.path = path
        self._at = time.monotonic() + seconds

    def remaining_s(self) -> float:
        """Seconds left before the deadline (negative once passed)."""
        return self._at - time.monotonic()

    def check(self, step: str) -> None:
        """Raise if the deadline passed before ``step``.

        Raises
        ------
        ReplayError
            The deadline has passed.
        """
        if self.remaining_s() <= 0:
            raise ReplayError(
                f"teardown did not finish within its deadline of {self.seconds} s "
                f"(still {step})",
                path=self.path,
            )


def fresh_run_id() -> str:
    """Return a new, random replay run ID (``replay-`` and 12 hex digits)."""
    return f"replay-{secrets.token_hex(6)}"


def check_pinned(digest: str, pinned: str | None, source: Path) -> None:
    """Refuse ``source`` when a digest is pinned and its SHA-256 is another.

    Raises
    ------
    ReplayError
        ``pinned`` is given and differs from ``digest``.
    """
    if pinned is not None and digest != pinned:
        raise ReplayError(f"source SHA-256 is {digest}, expected {pinned}", path=source)
