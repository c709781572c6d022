"""What the replay engine and every simulator adapter agree on.

A replay reads one source recording and writes one new FSR file. The two modes:

``render``
    Apply the recorded visual state frame by frame on a paused clock and
    re-render the cameras. No control session, no physics step, no sleep.
``resimulate``
    Submit the recorded *authored* control to a fresh controller session and
    run the physics again. Applied-control records are evidence and are never
    replayed.

Adapters that can replay implement :class:`ReplayingAdapter` on top of the
registry's :class:`~fsr_core.simulation.registry.SimulatorAdapter`. The engine
(:mod:`fsr_core.replay.engine`) runs the shared preflight, then calls the
adapter, and the adapter writes through :class:`~fsr_core.format.writer.FsrWriter`
with footer provenance naming the source file's SHA-256 and the mode.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from fsr_core.control import CommandSpace, Interpolation, TerminalPolicy

__all__ = [
    "CancelToken",
    "ContractingAdapter",
    "Execution",
    "ProgressFn",
    "ReplayMode",
    "ReplayOptions",
    "ReplayOutcome",
    "ReplayResult",
    "ReplayingAdapter",
    "TargetContract",
    "Timing",
]


class ReplayMode(enum.Enum):
    """Which replay to run."""

    RENDER = "render"
    RESIMULATE = "resimulate"


class Timing(enum.Enum):
    """How a resimulation paces itself in sim time."""

    RECORDED_SIM_TIME = "recorded_sim_time"
    """Hold the terminal policy through the recorded tail to the terminal cut."""
    AS_FAST_AS_VALID = "as_fast_as_valid"
    """Stop as soon as every chunk has its terminal result."""


class Execution(enum.Enum):
    """How authored chunks are submitted during a resimulation."""

    SEQUENTIAL = "sequential"
    """Wait for each chunk's terminal result before submitting the next."""
    RECORDED_PREEMPTION = "recorded_preemption"
    """Keep the recorded relative sim-time starts; later chunks preempt earlier."""


class ReplayOutcome(enum.Enum):
    """How a replay completed (exactly once)."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def reason_code(self) -> str:
        """``REPLAY_COMPLETED``, ``REPLAY_FAILED`` or ``REPLAY_CANCELLED``."""
        return {
            ReplayOutcome.SUCCEEDED: "REPLAY_COMPLETED",
            ReplayOutcome.FAILED: "REPLAY_FAILED",
            ReplayOutcome.CANCELLED: "REPLAY_CANCELLED",
        }[self]


ProgressFn = Callable[[int, int], None]
"""Called with (done, total) steps; total may be 0 when unknown."""


class CancelToken:
    """A thread-safe flag a caller sets to stop a running replay."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the replay to stop at its next step."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()


@dataclass(frozen=True)
class ReplayOptions:
    """Everything a replay may be asked to do beyond source and output."""

    mode: ReplayMode
    timing: Timing = Timing.RECORDED_SIM_TIME
    execution: Execution = Execution.RECORDED_PREEMPTION
    max_in_flight: int = 4
    with_recorded_force: bool = False
    """Replay the recorded external force channel (evidence only) as a force."""
    teardown_deadline_s: float = 30.0
    """One absolute wall-clock deadline for shutting the session down."""
    max_input_bytes: int = 4 * 1024**3
    pinned_sha256: str | None = None
    """When given, the source file must have exactly this digest."""
    overwrite: bool = False

    def __post_init__(self) -> None:
        """Refuse limits that cannot work (a programming error)."""
        if self.max_in_flight < 1:
            raise ValueError(f"max_in_flight must be >= 1, got {self.max_in_flight}")
        if not self.teardown_deadline_s >= 0:
            raise ValueError(
                f"teardown_deadline_s must be >= 0, got {self.teardown_deadline_s}"
            )
        if self.max_input_bytes < 1:
            raise ValueError(
                f"max_input_bytes must be >= 1, got {self.max_input_bytes}"
            )


@dataclass(frozen=True)
class ReplayResult:
    """What a finished replay produced."""

    outcome: ReplayOutcome
    output: Path | None
    """The published file; ``None`` when nothing was published."""
    source_sha256: str
    mode: ReplayMode
    simulator: str
    message: str = ""
    steps: int = 0
    wall_s: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Things the user should know (e.g. an interactive log re-runs unperturbed)."""

    @property
    def reason_code(self) -> str:
        """The completion reason code of :attr:`outcome`."""
        return self.outcome.reason_code


@runtime_checkable
class ReplayingAdapter(Protocol):
    """A simulator adapter that can replay recordings."""

    @property
    def name(self) -> str:
        """Registry name."""
        ...

    def unavailable_reason(self) -> str | None:
        """``None`` if the simulator runs here, else why not (naming the extra)."""
        ...

    def capabilities(self) -> frozenset[ReplayMode]:
        """Return the replay modes this adapter supports."""
        ...

    def can_replay(self, source: Path) -> str | None:
        """``None`` if this adapter accepts ``source``, else why not."""
        ...

    def replay(
        self,
        source: Path,
        output: Path,
        options: ReplayOptions,
        *,
        progress: ProgressFn | None = None,
        cancel: CancelToken | None = None,
    ) -> ReplayResult:
        """Run the replay and publish ``output`` atomically (nothing on failure)."""
        ...


@dataclass(frozen=True)
class TargetContract:
    """What a replay target accepts, checked by the resimulate preflight.

    The engine compares the source's ``simulation_contract`` and every decoded
    authored chunk with this before any command is submitted.
    """

    simulator: str
    """The ``simulation_contract.simulator`` of the recordings it replays."""
    resources: frozenset[str]
    """Chunk ``target`` values (resources or groups) it drives."""
    axes: tuple[str, ...]
    """Every chunk must command exactly these axes, in this order."""
    units: Mapping[CommandSpace, str]
    """The accepted command spaces and the unit of each axis in them."""
    interpolations: frozenset[Interpolation]
    terminal_policies: frozenset[TerminalPolicy]
    frames: frozenset[str] = frozenset({"joint"})
    """Command frames; a source contract without ``frame`` commands ``joint``."""
    controllers: frozenset[str] | None = None
    """Chunk ``controller`` values it runs; ``None`` accepts any."""
    dt_s: float | None = None
    """The step the source contract must declare; ``None`` accepts any."""
    generation_ticks: tuple[int, ...] | None = None
    """Ticks of each generation the target rebuilds (its scripted resets).

    The source must have exactly these generations: each one but the last ran
    its planned ticks, the last at most its planned ticks. ``None`` accepts
    any generations.
    """


@runtime_checkable
class ContractingAdapter(ReplayingAdapter, Protocol):
    """A replaying adapter that states its target contract for the preflight."""

    def target_contract(self, metadata: Mapping[str, Any]) -> TargetContract:
        """Return what this simulator accepts when replaying a file with ``metadata``.

        Raises
        ------
        ReplayError
            The metadata does not describe a run this simulator can rebuild.
        """
        ...
