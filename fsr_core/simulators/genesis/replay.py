"""Re-render or re-simulate a Genesis trajectory into a new FSR file.

:func:`replay_trajectory` checks what it can before Genesis starts (where
Genesis runs, the trajectory's header and format version against the
installed Genesis, the pinned digest, the request), then runs the request
(:mod:`.runner`) into a :class:`~.output.ReplayFile` and publishes it
atomically; on a cancel or a failure nothing is published. The result's
message and first note give the comparison's verdict in one line, the next
note where Genesis ran and how long the rebuild and the frames took.
"""

from __future__ import annotations

import time
from pathlib import Path

from fsr_core.errors import ReplayError
from fsr_core.simulation.output import check_output
from fsr_core.simulation.protocol import (
    ReplayMode,
    ReplayOptions,
    ReplayPlan,
    ReplayResult,
)
from fsr_core.simulation.replay_call import ReplayCall
from fsr_core.simulation.side_replay import SideReplay, available_runtime, source_digest
from fsr_core.simulators.genesis.availability import Runtime, find_runtime
from fsr_core.simulators.genesis.output import SIMULATOR_NAME, ReplayFile, Source
from fsr_core.simulators.genesis.request import (
    CameraSpec,
    GenesisRequest,
    RequestError,
    camera_from_environment,
    parse_camera,
    parse_start_frame,
    start_from_environment,
)
from fsr_core.simulators.genesis.runner import run_request
from fsr_core.simulators.genesis.trajectory_file import (
    FORMAT_BY_GENESIS,
    HeaderError,
    TrajectoryHeader,
    read_header,
)

__all__ = ["format_problem", "plan", "replay_trajectory", "trajectory_problem"]


def _reads(genesis_version: str) -> int:
    """Return the trajectory format version a genesis-world release reads."""
    parts = []
    for part in genesis_version.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return 4 if tuple(parts) >= (1, 4, 5) else 1


def format_problem(header: TrajectoryHeader, genesis_version: str) -> str | None:
    """Return why the installed Genesis cannot read ``header``'s format (None: can)."""
    if header.version == _reads(genesis_version):
        return None
    return (
        f"the file is in format GSTRAJ{header.version} (written by genesis-world "
        f"{header.genesis or '?'}), which only genesis-world "
        f"{FORMAT_BY_GENESIS[header.version]} reads, and genesis-world "
        f"{genesis_version} runs here"
    )


def trajectory_problem(source: Path) -> str | None:
    """Return why ``source`` cannot be replayed here (None: it can, as far as known)."""
    try:
        header = read_header(source)
    except HeaderError as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    runtime = find_runtime()
    if isinstance(runtime, Runtime):
        return format_problem(header, runtime.genesis_version)
    return None


def plan(source: Path, options: ReplayOptions) -> ReplayPlan:
    """Say what replaying ``source`` gives, before Genesis runs.

    Raises
    ------
    ReplayError
        ``source`` is not a readable trajectory.
    """
    header = _header(source)
    notes = []
    if options.mode is ReplayMode.RENDER:
        fidelity = "exact" if header.mode == "exact" else "recomputed"
        notes.append(
            "every frame is put back with Genesis's seek and rendered by one camera "
            f"(the scene's, one framing the motion, or {_CAMERA_HINT})"
        )
    else:
        exact = header.mode == "exact" and header.manifest.get("backend") == "cpu"
        fidelity = "exact" if exact else "recomputed"
        notes.append(
            "the scene steps on from the start frame; before each step the recorded "
            "control targets, applied link forces and model parameters are put back, "
            "and every other field of every later frame is compared bit for bit"
        )
        if header.mode != "exact":
            notes.append(
                f"{header.mode} frames do not hold the derived state: the restart "
                "recomputes it, so the re-run may differ in the last bits"
            )
        if header.manifest.get("backend") not in (None, "cpu"):
            notes.append(
                f"recorded on the {header.manifest.get('backend')} backend and "
                "re-run on the CPU: expect differences in the last bits"
            )
    return ReplayPlan(fidelity, tuple(notes))


_CAMERA_HINT = "the camera FSR_VIEWER_GENESIS_CAMERA gives"


def _header(source: Path) -> TrajectoryHeader:
    try:
        return read_header(source)
    except HeaderError as exc:
        raise ReplayError(
            f"not a replayable Genesis trajectory: {exc}", path=source
        ) from None
    except OSError as exc:
        raise ReplayError(
            f"cannot be read ({exc.strerror or exc})", path=source
        ) from None


def _request(
    call: ReplayCall, camera: CameraSpec | None, start_frame: int | None
) -> GenesisRequest:
    settings = dict(call.options.settings)
    try:
        if camera is None and "camera" in settings:
            camera = parse_camera(settings["camera"])
        if start_frame is None and "start_frame" in settings:
            start_frame = parse_start_frame(settings["start_frame"])
        chosen = camera if camera is not None else camera_from_environment()
        start = start_frame if start_frame is not None else start_from_environment()
        return GenesisRequest(
            mode=call.options.mode.value,
            source=str(call.source.resolve()),
            start_frame=start,
            camera=chosen if chosen is not None else CameraSpec(),
        )
    except RequestError as exc:
        raise ReplayError(str(exc), path=call.source) from None


def _timing_note(sink: ReplayFile, runtime: Runtime, wall_s: float) -> str:
    per_frame = sink.render_s / sink.frames * 1000.0 if sink.frames else 0.0
    pace = f"{per_frame:.1f} ms a frame"
    where = runtime.describe()
    return _REPLAY.timing_note(where, "scene", sink, sink.render_s, pace, wall_s)


def _verdict(
    sink: ReplayFile, runtime: Runtime, wall_s: float
) -> tuple[str, tuple[str, ...]]:
    """Return the result's message and notes: the comparison, the timing, the rest."""
    message = sink.log.sentence()
    options = sink.options
    if options.with_recorded_force and options.mode is ReplayMode.RESIMULATE:
        sink.notes.append(
            "with_recorded_force changes nothing here: a trajectory records "
            "the applied link forces as inputs, and they are always put back"
        )
    return message, (message, _timing_note(sink, runtime, wall_s), *sink.notes)


_REPLAY = SideReplay(
    SIMULATOR_NAME, "Genesis", "scene", "frame", run_request, ReplayFile, _verdict
)


def replay_trajectory(
    call: ReplayCall,
    *,
    camera: CameraSpec | None = None,
    start_frame: int | None = None,
) -> ReplayResult:
    """Re-render or re-simulate the trajectory ``call.source`` into ``call.output``.

    Parameters
    ----------
    call
        Source, output, options (mode, overwrite, pinned digest), progress
        and cancel.
    camera
        The render's camera (default: ``FSR_VIEWER_GENESIS_CAMERA``, else
        the scene's).
    start_frame
        The frame to start from (default: ``FSR_VIEWER_GENESIS_START_FRAME``,
        else 0).

    Raises
    ------
    AdapterUnavailableError
        Genesis runs nowhere here (the message names the extra).
    ReplayError
        The trajectory cannot be read, is in a format the installed Genesis
        does not read, its digest differs from the pinned one, the camera or
        start frame is bad, or Genesis could not rebuild or replay the scene.
    TargetExistsError
        ``call.output`` exists and ``overwrite`` is false.
    """
    started = time.perf_counter()
    source, output, options = Path(call.source), Path(call.output), call.options
    check_output(source, output, overwrite=options.overwrite)
    runtime = available_runtime(find_runtime(), SIMULATOR_NAME)
    header = _header(source)
    problem = format_problem(header, runtime.genesis_version)
    if problem is not None:
        raise ReplayError(f"Genesis cannot read it: {problem}", path=source)
    request = _request(call, camera, start_frame)
    digest = source_digest(call, source)
    trajectory = Source(source, digest, header)
    return _REPLAY.run(call, runtime, started, trajectory, request)
