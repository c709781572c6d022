"""What the command line, the replay engine and every simulator agree on.

A simulator is one object behind the registry (:mod:`fsr_core.simulation.registry`)
that implements :class:`Simulator`: its name and why it cannot run here; which
recordings, scenarios and other files it recognises; recording a scenario; its
demos; the :class:`~fsr_core.simulation.profile.RecordingProfile` that shapes
the model of its FSR recordings; and replaying.

A replay reads one source recording and writes one new file. The two modes:

``render``
    Apply the recorded visual state frame by frame on a paused clock and
    re-render the cameras. No control session, no physics step, no sleep.
``resimulate``
    Submit the recorded *authored* control to a fresh controller session and
    run the physics again. Applied-control records are evidence and are never
    replayed.

The engine (:mod:`fsr_core.replay.engine`) runs the shared preflight, then
calls the simulator, which writes through
:class:`~fsr_core.format.writer.FsrWriter` with footer provenance naming the
source file's SHA-256 and the mode. A simulator that replays files that are not
FSR (skelarm's ``.sklog.npz`` logs) claims them (:meth:`Simulator.claims_source`)
and checks them itself.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from fsr_core.simulation.profile import RecordingProfile

if TYPE_CHECKING:  # annotations only: the command line reads this module's enums
    from fsr_core.control import CommandSpace, Interpolation, TerminalPolicy
    from fsr_core.format.writer import PublishResult
    from fsr_core.recording import RecordingModel

__all__ = [
    "CancelToken",
    "ContractingAdapter",
    "DemoProgress",
    "Execution",
    "OpenedRecordingAdapter",
    "ProgressFn",
    "RecordedRun",
    "ReplayMode",
    "ReplayOptions",
    "ReplayOutcome",
    "ReplayPlan",
    "ReplayResult",
    "ReplayingAdapter",
    "ScenarioInput",
    "Simulator",
    "TargetContract",
    "Timing",
    "WrittenDemo",
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

DemoProgress = Callable[[str], None]
"""Called with each demo take's name before its recording starts."""


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
    settings: tuple[tuple[str, str], ...] = ()
    """The simulator's own settings, ``(name, value)`` as the user typed them
    (``replay --set NAME=VALUE``): only names the simulator lists in
    ``replay_settings`` are taken; the engine refuses any other."""

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
    """The replay half of :class:`Simulator` (an empty :meth:`capabilities`: none)."""

    @property
    def name(self) -> str:
        """Registry name, as recordings' ``simulation_contract.simulator`` gives it."""
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


ScenarioInput: TypeAlias = Path | Mapping[str, Any]
"""A scenario file, or a parsed scenario (the ``config`` metadata of a recording)."""


@dataclass(frozen=True)
class RecordedRun:
    """What a simulator recorded from one scenario."""

    output: Path
    """The published recording."""
    summary: str
    """What the run made, for people: ``2400 ticks in 1 generation(s), ...``."""
    result: Any = None
    """The simulator's own result object (its ticks, timings, publish result)."""

    @classmethod
    def of_published(
        cls, published: PublishResult, what: str, wall_s: float, result: Any
    ) -> RecordedRun:
        """Return the run that published ``published``, ``what`` it ran first.

        The summary reads ``<what>, <records> records, <bytes> bytes, <wall> s``.
        """
        summary = (
            f"{what}, {published.records} records, {published.size_bytes} bytes, "
            f"{wall_s:.2f} s"
        )
        return cls(Path(published.path), summary, result)


@dataclass(frozen=True)
class WrittenDemo:
    """One demo take on disk."""

    recording: Path
    scenario: Path
    """The take's scenario file, to edit and run again."""
    written: bool
    """``False`` when the recording was there already and was kept."""


@dataclass(frozen=True)
class ReplayPlan:
    """What a replay of one source will give, said before it runs."""

    fidelity: str
    """How close the replay comes to the source, e.g. ``exact``."""
    notes: tuple[str, ...] = ()
    """What the user should know before it runs."""


@runtime_checkable
class Simulator(ReplayingAdapter, Protocol):
    """Everything the registry, the engine and the command line ask a simulator.

    :class:`~fsr_core.simulation.simulator_defaults.SimulatorDefaults` gives the
    answers of a simulator that does not do something (no demos, no profile,
    claims no file that is not FSR), so a simulator implements what it does.
    """

    def recognises_recording(self, metadata: Mapping[str, Any]) -> bool:
        """Say whether an FSR recording with ``metadata`` is one of this simulator's."""
        ...

    def recognises_scenario(self, document: Mapping[str, Any]) -> bool:
        """Say whether the parsed scenario file ``document`` is for this simulator."""
        ...

    def claims_source(self, source: Path) -> bool:
        """Say whether it replays ``source`` itself, outside the FSR preflight.

        For files that are not FSR recordings (skelarm's logs) and FSR files
        converted from them; it may read the file.
        """
        ...

    def source_kinds(self) -> frozenset[str]:
        """Return the ``RecordingModel.source`` kinds (besides ``fsr``) it replays."""
        ...

    def recording_profile(self) -> RecordingProfile | None:
        """Return what shapes the model of the recordings it recognises, if anything."""
        ...

    def replay_suffix(self, source_kind: str) -> str:
        """Return the file ending its replay of a ``source_kind`` recording gets.

        ``".fsr"`` for an FSR output; a simulator that re-runs its own tool's
        logs into new logs names their ending (``".sklog.npz"``).
        """
        ...

    def record(
        self, scenario: ScenarioInput, output: Path, **options: Any
    ) -> RecordedRun:
        """Run ``scenario`` and record it to ``output`` (published atomically).

        Raises
        ------
        FsrError
            The scenario is invalid (the message names the file and the
            problem), the simulator cannot run here, or writing failed.
        """
        ...

    def demos(self) -> tuple[str, ...]:
        """Return the names of the built-in demo takes (none for most simulators)."""
        ...

    def write_demos(
        self,
        folder: Path,
        *,
        names: Sequence[str] | None = None,
        progress: DemoProgress | None = None,
    ) -> tuple[WrittenDemo, ...]:
        """Record the demo takes ``names`` (all by default) into ``folder``.

        A take already there is kept; ``progress`` is called with each name
        before its recording starts.
        """
        ...

    def plan_replay(self, source: Path, options: ReplayOptions) -> ReplayPlan:
        """Say what replaying ``source`` with ``options`` will give, before it runs.

        Raises
        ------
        FsrError
            ``source`` cannot be read.
        """
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


@runtime_checkable
class OpenedRecordingAdapter(ReplayingAdapter, Protocol):
    """A replaying adapter that judges a recording the viewer has opened.

    A simulator that replays a whole source kind
    (:meth:`Simulator.source_kinds`) may replay only some of its recordings
    (robosuite replays robomimic-layout HDF5 episodes of a robosuite
    environment, not every HDF5 file); the window asks it before it offers
    Replay.
    """

    def can_replay_model(self, model: RecordingModel) -> str | None:
        """Return why the opened ``model`` cannot be replayed, or ``None``.

        Judged from what ``model`` holds (its metadata, channel names,
        robot description), never by reading the file: the window asks on
        its GUI thread. ``None`` means as far as the model tells; the engine
        checks the file itself (:meth:`ReplayingAdapter.can_replay`) before
        it runs.
        """
        ...
