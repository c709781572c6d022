"""The child process that runs skelarm (``python -m`` on this module).

skelarm imports PyQt6 when its package is imported, so it never runs inside the
viewer's process (which holds PySide6): :mod:`.runner` starts this module in a
child interpreter with two paths, a request archive and the ``.sklog.npz`` to
write, and reads its exit status.

The request is an ``.npz`` written by :mod:`.runner` (loaded with pickles
refused) holding ``kind`` and ``options`` (JSON), and either ``meta`` (the
source log's ``__meta__`` TOML) or ``config`` (a scenario config as JSON):

``rerun``
    skelarm's own :func:`skelarm.rerun_log` on a log holding the source's
    ``[extra]`` table: the embedded config with the recorded run settings.
``rerun_with_force``
    The same scenario and run settings (:func:`skelarm.scenario_from_log`), run
    by :func:`skelarm.simulate_controlled` for the recorded span with the
    user's recorded inputs replayed as skelarm's interactive simulator applies
    them each physics step: the tip force and friction added to the
    controller's torque (``J(q)^T F - c dq``), and a change of
    ``active_target`` retargeting an ``EndpointController`` (then reset), as
    its multi-target simulator's ``switch_to`` does. Each step takes the values
    of the frame that closes the recorded tick it falls in. The request then
    holds ``time``, ``ext_force``, ``friction`` and maybe ``active_target``;
    the replayed channels keep the source's ``[channels]`` descriptions.
``scenario``
    :func:`skelarm.scenario_from_config` then :func:`skelarm.run_scenario`.

The written log is skelarm's own :meth:`StateLog.save` output, with a
``[extra.resimulation]`` table naming the source when ``options`` gives one.
Exit status: 0 written, 3 skelarm refused the input (its message on stderr),
2 a bad request.
"""

from __future__ import annotations

import importlib
import json
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.simulation.worker_main import (
    EXIT_BAD_REQUEST,
    EXIT_REFUSED,
    bad_request,
    worker_paths,
)

__all__ = ["EXIT_BAD_REQUEST", "EXIT_REFUSED", "KINDS", "main"]

KINDS = ("rerun", "rerun_with_force", "scenario")
"""The requests this module runs."""


def _text(request: Any, key: str) -> str:
    return str(request[key][()])


@dataclass(frozen=True)
class _RecordedInputs:
    """What the user did during an interactive run, frame by frame."""

    times_s: FloatArray
    force: FloatArray
    friction: FloatArray
    active: FloatArray | None

    def frame(self, time_s: float) -> int:
        """Return the frame that closes the recorded tick ``time_s`` falls in."""
        closing = int(np.searchsorted(self.times_s, time_s, side="right"))
        return min(closing, len(self.times_s) - 1)

    def shown(self, time_s: float) -> int:
        """Return the last frame at or before ``time_s`` (what a player shows)."""
        return max(int(np.searchsorted(self.times_s, time_s, side="right")) - 1, 0)


def _recorded_inputs_controller(
    skelarm: Any, scenario: Any, inputs: _RecordedInputs
) -> Any:
    """Wrap the scenario's controller to replay pushes, friction and switches.

    As skelarm's interactive simulator does each physics step: a target switch
    retargets an ``EndpointController`` and resets it, then the torque is the
    controller's plus ``J(q)^T F`` minus ``c dq``.
    """
    kinematics = importlib.import_module("skelarm.kinematics")
    inner = scenario.controller
    targets = (
        skelarm.multi_target_specs(scenario.task)
        if scenario.task.type == "multi_target_reaching"
        else []
    )
    switchable = bool(targets) and isinstance(inner, skelarm.EndpointController)

    class RecordedInputs(skelarm.Controller):  # type: ignore[misc]
        def __init__(self) -> None:
            self._logged = 0
            self._active = -1

        def reset(self, skeleton: Any) -> None:
            inner.reset(skeleton)

        def _switch(self, frame: int, skeleton: Any) -> None:
            if not switchable or inputs.active is None:
                return
            index = int(np.rint(inputs.active[frame]))
            if index != self._active and 0 <= index < len(targets):
                self._active = index
                inner.target = targets[index][0]
                inner.reset(skeleton)

        def update(self, time_s: float, skeleton: Any, dt: float) -> None:
            self._switch(inputs.frame(time_s), skeleton)
            inner.update(time_s, skeleton, dt)

        def control(self, time_s: float, skeleton: Any) -> FloatArray:
            frame = inputs.frame(time_s)
            jacobian = kinematics.compute_jacobian(skeleton)
            tau = np.asarray(inner.control(time_s, skeleton), dtype=np.float64)
            pushed = tau + jacobian.T @ inputs.force[frame]
            damped: FloatArray = pushed - inputs.friction[frame] * np.asarray(
                skeleton.dq
            )
            self._logged = inputs.shown(time_s)
            return damped

        def log_channels(self) -> dict[str, Any]:
            frame = self._logged  # the recorded value, as it was recorded
            channels = {
                **inner.log_channels(),
                "ext_force": inputs.force[frame],
                "friction": inputs.friction[frame],
            }
            if inputs.active is not None:
                channels["active_target"] = inputs.active[frame]
            return channels

    return RecordedInputs()


_INPUT_CHANNELS = ("ext_force", "friction", "active_target")


def _rerun_with_force(
    skelarm: Any, log: Any, request: Any, options: dict[str, Any]
) -> Any:
    scenario, run = skelarm.scenario_from_log(log)
    times = np.asarray(request["time"], dtype=np.float64)
    inputs = _RecordedInputs(
        times - times[0],
        np.asarray(request["ext_force"], dtype=np.float64),
        np.asarray(request["friction"], dtype=np.float64),
        np.asarray(request["active_target"]) if "active_target" in request else None,
    )
    duration = float(times[-1] - times[0])
    grav = np.asarray(run["grav_vec"], dtype=np.float64)
    enforce = bool(run.get("enforce_limits", scenario.simulator.enforce_limits))
    extra = skelarm.scenario_run_metadata(
        scenario,
        dt=float(run["dt"]),
        enforce_limits=enforce,
        duration=duration,
        grav_vec=grav,
    )
    rerun = skelarm.simulate_controlled(
        scenario.skeleton,
        _recorded_inputs_controller(skelarm, scenario, inputs),
        duration=duration,
        dt=float(run["dt"]),
        grav_vec=grav,
        enforce_limits=enforce,
        extra=extra,
    )
    described = options.get("channel_meta")
    described = described if isinstance(described, dict) else {}
    for name in _INPUT_CHANNELS:
        spec = described.get(name)
        if name in rerun.channel_names and isinstance(spec, dict):
            rerun.channel_meta[name] = spec  # as the source log describes it
    return rerun


def _run(skelarm: Any, kind: str, request: Any, options: dict[str, Any]) -> Any:
    if kind == "scenario":
        scenario = skelarm.scenario_from_config(json.loads(_text(request, "config")))
        return skelarm.run_scenario(scenario, duration=options.get("duration"))
    extra = tomllib.loads(_text(request, "meta")).get("extra", {})
    log = skelarm.StateLog(extra=extra)
    if kind == "rerun":
        return skelarm.rerun_log(log)
    return _rerun_with_force(skelarm, log, request, options)


def _load(request_path: Path) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Return the kind, the options and every other member of the request."""
    with np.load(request_path, allow_pickle=False) as archive:
        members = {key: archive[key] for key in archive.files}
    kind = _text(members, "kind")
    options = json.loads(_text(members, "options"))
    if not isinstance(options, dict):
        raise TypeError("options is not a JSON object")
    return kind, options, members


def main(argv: Sequence[str] | None = None) -> int:
    """Run one request; return the exit status (see the module docstring)."""
    paths = worker_paths(argv, "REQUEST.npz OUTPUT.sklog.npz")
    if paths is None:
        return EXIT_BAD_REQUEST
    request_path, output = paths
    try:
        kind, options, request = _load(request_path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return bad_request(exc)
    if kind not in KINDS:
        return bad_request(f"unknown kind {kind!r}")
    skelarm = importlib.import_module("skelarm")
    try:
        log = _run(skelarm, kind, request, options)
    except Exception as exc:  # noqa: BLE001 - the child's boundary: report, exit
        sys.stderr.write(f"skelarm refused it: {type(exc).__name__}: {exc}\n")
        return EXIT_REFUSED
    resimulation = options.get("resimulation")
    if isinstance(resimulation, dict):
        log.extra["resimulation"] = resimulation
    log.save(output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
