"""Re-render or re-simulate a robosuite episode into a new FSR file.

:func:`replay_episode` checks what it can before robosuite starts (where
robosuite runs, the episode and its arrays, the pinned digest, the settings),
then runs the request (:mod:`.runner`) into a :class:`~.output.ReplayFile`
and publishes it atomically; on a cancel or a failure nothing is published.
The result's message is the verdict (``EXACT`` / ``DIVERGES``, the first
divergence), the next note where robosuite ran and how long it took.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from fsr_core.errors import AdapterUnavailableError, ReplayError
from fsr_core.format.safe_open import open_source
from fsr_core.simulation.lifecycle import cancel_check, check_pinned
from fsr_core.simulation.output import check_output, replay_output
from fsr_core.simulation.protocol import (
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
    ReplayPlan,
    ReplayResult,
)
from fsr_core.simulation.replay_call import ReplayCall
from fsr_core.simulators.robosuite.availability import Runtime, find_runtime
from fsr_core.simulators.robosuite.episode_file import (
    Episode,
    find_episode,
    read_model_file,
    read_rows,
)
from fsr_core.simulators.robosuite.output import SIMULATOR_NAME, ReplayFile, Source
from fsr_core.simulators.robosuite.request import (
    RequestError,
    RobosuiteRequest,
    parse_cameras,
    parse_size,
)
from fsr_core.simulators.robosuite.runner import RunOutcome, run_request

__all__ = ["episode_problem", "plan", "replay_episode"]

_DEFAULT_CAMERA = "agentview"


def episode_problem(source: Path) -> str | None:
    """Return why ``source`` cannot be replayed (None: it can, as far as known)."""
    try:
        episode = find_episode(source)
    except ReplayError as exc:
        return exc.reason
    if episode.steps == 0:
        return f"{episode.group} records no state"
    return None


def plan(source: Path, options: ReplayOptions) -> ReplayPlan:
    """Say what replaying ``source`` gives, before robosuite runs.

    Raises
    ------
    ReplayError
        ``source`` is not a readable robosuite episode.
    """
    episode = find_episode(source)
    if options.mode is ReplayMode.RENDER:
        return ReplayPlan(
            "exact",
            (
                f"each of the {episode.steps} recorded states of {episode.name} is "
                "restored in robosuite's environment rebuilt from env_args and the "
                "episode's model_file, and the cameras are rendered",
            ),
        )
    return ReplayPlan(
        "measured",
        (
            "the recorded actions are stepped from the first recorded state and "
            "every later state is compared with the recording, bit for bit",
        ),
    )


def _runtime() -> Runtime:
    found = find_runtime()
    if isinstance(found, str):
        raise AdapterUnavailableError(
            f"simulator {SIMULATOR_NAME!r} is unavailable: {found}"
        )
    return found


def _request(call: ReplayCall, episode: Episode) -> RobosuiteRequest:
    settings = dict(call.options.settings)
    try:
        cameras = (
            parse_cameras(settings["cameras"])
            if "cameras" in settings
            else episode.recorded_cameras or (_DEFAULT_CAMERA,)
        )
        width, height = (
            parse_size(settings["size"])
            if "size" in settings
            else episode.recorded_size
        )
    except RequestError as exc:
        raise ReplayError(str(exc), path=call.source) from None
    return RobosuiteRequest(
        mode=call.options.mode.value,
        file=str(episode.file.resolve()),
        group=episode.group,
        env_name=episode.env_name,
        env_kwargs=episode.env_kwargs,
        cameras=cameras if call.options.mode is ReplayMode.RENDER else (),
        width=width,
        height=height,
    )


def _digest(call: ReplayCall, file: Path) -> str:
    check = cancel_check(call.cancel, file, "while hashing the source")
    source = open_source(file)
    try:
        digest = source.sha256(check)
    finally:
        source.close()
    check_pinned(digest, call.options.pinned_sha256, file)
    return digest


def _run_into(sink: ReplayFile, runtime: Runtime, call: ReplayCall) -> RunOutcome:
    """Run the sink's request; publish on success, drop the file on a cancel.

    Raises
    ------
    ReplayError
        robosuite refused or failed, or replayed no step.
    """
    outcome = run_request(
        sink.request, sink, runtime, cancel=call.cancel, scratch=call.output.parent
    )
    if outcome.failed:
        raise ReplayError(
            f"robosuite could not rebuild or replay the episode: {outcome.error}",
            path=call.source,
        )
    if outcome.cancelled:
        sink.abort()
    elif sink.frames == 0:
        raise ReplayError("robosuite replayed no step", path=call.source)
    else:
        sink.finish()
    return outcome


def _timing_note(sink: ReplayFile, runtime: Runtime, wall_s: float) -> str:
    build = float(sink.facts.get("build_s", 0.0))
    rate = sink.frames / sink.step_s if sink.step_s > 0 else 0.0
    verb = "rendered" if sink.mode is ReplayMode.RENDER else "re-simulated"
    return (
        f"{runtime.describe()}: environment rebuilt in {build:.1f} s, "
        f"{sink.frames} step(s) {verb} in {sink.step_s:.2f} s ({rate:.1f} a second), "
        f"{wall_s:.1f} s in all"
    )


def _model_note(sink: ReplayFile) -> str:
    """Say what of the episode's model the output embeds (empty: no model)."""
    embedded = sink.embedded
    if embedded is None:
        return ""
    if embedded.note:
        return f"robot model embedded without its meshes: {embedded.note}"
    return (
        f"robot model embedded with its {embedded.meshes} mesh file(s) "
        f"({embedded.mesh_bytes / 1e6:.1f} MB as MuJoCo .msh; "
        f"{embedded.textures_left_out} texture(s) left out): it draws without robosuite"
    )


def replay_episode(call: ReplayCall) -> ReplayResult:
    """Re-render or re-simulate the episode ``call.source`` into ``call.output``.

    Raises
    ------
    AdapterUnavailableError
        robosuite runs nowhere here (the message names the extra).
    ReplayError
        The episode cannot be read, its digest differs from the pinned one, a
        setting is bad, or robosuite could not rebuild or replay it.
    TargetExistsError
        ``call.output`` exists and ``overwrite`` is false.
    """
    started = time.perf_counter()
    output, options = Path(call.output), call.options
    episode = find_episode(Path(call.source))
    check_output(episode.file, output, overwrite=options.overwrite)
    request = _request(call, episode)
    runtime = _runtime()
    states = read_rows(episode, "states")
    if options.mode is ReplayMode.RESIMULATE and episode.action_rows == 0:
        raise ReplayError(
            f"{episode.group} records no actions to re-simulate", path=call.source
        )
    digest = _digest(call, episode.file)
    run_id = f"replay-{secrets.token_hex(6)}"
    model_file = read_model_file(episode)
    source = Source(Path(call.source), digest, episode, states, model_file)
    with replay_output(output, overwrite=options.overwrite) as target:
        sink = ReplayFile(target, source, request, options, run_id, call.progress)
        try:
            outcome = _run_into(sink, runtime, call)
        except BaseException:
            sink.abort()
            raise
    wall_s = time.perf_counter() - started
    if outcome.cancelled:
        return ReplayResult(
            outcome=ReplayOutcome.CANCELLED,
            output=None,
            source_sha256=digest,
            mode=options.mode,
            simulator=SIMULATOR_NAME,
            message="cancelled; nothing was published",
            steps=sink.frames,
            wall_s=wall_s,
        )
    message = sink.divergence.sentence()
    return ReplayResult(
        outcome=ReplayOutcome.SUCCEEDED,
        output=output,
        source_sha256=digest,
        mode=options.mode,
        simulator=SIMULATOR_NAME,
        message=message,
        steps=sink.frames,
        wall_s=wall_s,
        notes=tuple(
            note
            for note in (
                message,
                _timing_note(sink, runtime, wall_s),
                _model_note(sink),
            )
            if note
        ),
    )
