"""Re-render or re-simulate a robosuite episode into a new FSR file.

:func:`replay_episode` checks what it can before robosuite starts (where
robosuite runs, the episode and its arrays, the pinned digest, the settings),
then runs the request (:mod:`.runner`) into a :class:`~.output.ReplayFile`
and publishes it atomically; on a cancel or a failure nothing is published.
The result's message is the verdict (``EXACT`` / ``DIVERGES``, the first
divergence), the next note where robosuite ran and how long it took.
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
from fsr_core.simulators.robosuite.runner import run_request

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


def _timing_note(sink: ReplayFile, runtime: Runtime, wall_s: float) -> str:
    rate = sink.frames / sink.step_s if sink.step_s > 0 else 0.0
    where, pace = runtime.describe(), f"{rate:.1f} a second"
    return _REPLAY.timing_note(where, "environment", sink, sink.step_s, pace, wall_s)


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


def _verdict(
    sink: ReplayFile, runtime: Runtime, wall_s: float
) -> tuple[str, tuple[str, ...]]:
    """Return the result's message and notes: the verdict, the timing, the model."""
    message = sink.divergence.sentence()
    notes = (message, _timing_note(sink, runtime, wall_s), _model_note(sink))
    return message, tuple(note for note in notes if note)


_REPLAY = SideReplay(
    SIMULATOR_NAME, "robosuite", "episode", "step", run_request, ReplayFile, _verdict
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
    runtime = available_runtime(find_runtime(), SIMULATOR_NAME)
    states = read_rows(episode, "states")
    if options.mode is ReplayMode.RESIMULATE and episode.action_rows == 0:
        raise ReplayError(
            f"{episode.group} records no actions to re-simulate", path=call.source
        )
    digest = source_digest(call, episode.file)
    model_file = read_model_file(episode)
    source = Source(Path(call.source), digest, episode, states, model_file)
    return _REPLAY.run(call, runtime, started, source, request)
