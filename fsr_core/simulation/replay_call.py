"""One call of an adapter's ``replay``, packed so that it is spelled once.

:class:`ReplayCall` holds the arguments of
:meth:`~fsr_core.simulation.protocol.ReplayingAdapter.replay`;
:class:`ReplayCallAdapter` implements that method for the adapters that replay
by packing them and handing them to the adapter's :meth:`_replay`, which passes
the one object on to the code that rebuilds the recording.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fsr_core.simulation.protocol import (
    CancelToken,
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayResult,
)

__all__ = ["ReplayCall", "ReplayCallAdapter"]


@dataclass(frozen=True)
class ReplayCall:
    """What to replay, where to publish it, and how.

    Parameters
    ----------
    source
        The recording to rebuild.
    output
        Where the replayed file is published (atomically; nothing on failure).
    options
        Mode, pinned digest, overwrite and the resimulation settings.
    progress
        Called with ``(done, total)`` steps; None for no reports.
    cancel
        Checked between steps; None when the replay cannot be cancelled.
    """

    source: Path
    output: Path
    options: ReplayOptions
    progress: ProgressFn | None = None
    cancel: CancelToken | None = None


class ReplayCallAdapter:
    """Base of the adapters that replay: subclasses implement :meth:`_replay`.

    An adapter replays in both modes unless it narrows :meth:`capabilities`.
    """

    def capabilities(self) -> frozenset[ReplayMode]:
        """Return both modes: render and resimulate."""
        return frozenset({ReplayMode.RENDER, ReplayMode.RESIMULATE})

    def replay(
        self,
        source: Path,
        output: Path,
        options: ReplayOptions,
        *,
        progress: ProgressFn | None = None,
        cancel: CancelToken | None = None,
    ) -> ReplayResult:
        """Run the replay and publish ``output`` atomically (nothing on failure).

        Call it through :func:`fsr_core.replay.engine.replay_file`, which runs
        the preflight first and pins the digest it checked.
        """
        return self._replay(ReplayCall(source, output, options, progress, cancel))

    def _replay(self, call: ReplayCall) -> ReplayResult:
        """Replay ``call.source`` into ``call.output`` in ``call.options.mode``."""
        raise NotImplementedError
