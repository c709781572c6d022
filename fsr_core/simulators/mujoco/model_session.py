"""Loading an embedded model into MuJoCo, and the simulation contract it gives.

The contract is what a re-simulation must match before any command is sent:
the model digest, the time step, the integrator, gravity, and each actuator
with the command space and unit its authored control uses. An actuator's
command space follows its gains: a position servo (``biasprm[1] = -kp``,
with or without a damping ``biasprm[2] = -kv``) takes joint positions, a
velocity servo (``biasprm[1] = 0``, ``biasprm[2] = -kv``) joint velocities,
anything else (a motor) joint torques; the unit follows the joint it drives
(hinge: ``rad``, slide: ``m``).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.control import CommandSpace
from fsr_core.errors import ReplayError, SchemaError
from fsr_core.simulation.model_files import ModelFiles
from fsr_core.simulators.mujoco.runtime import SIMULATOR_NAME, import_mujoco
from fsr_core.simulators.mujoco.scenario import MujocoScenario

__all__ = [
    "Actuator",
    "LoadedModel",
    "check_contract",
    "load_model",
    "simulation_contract",
]

_UNITS = {
    CommandSpace.JOINT_POSITION: ("rad", "m"),
    CommandSpace.JOINT_VELOCITY: ("rad/s", "m/s"),
    CommandSpace.JOINT_TORQUE: ("N*m", "N"),
}


@dataclass(frozen=True)
class Actuator:
    """One actuator as authored control addresses it."""

    name: str
    command_space: CommandSpace
    unit: str


@dataclass
class LoadedModel:
    """A compiled model, its data, and what the recorder needs from both."""

    mujoco: Any
    model: Any
    data: Any
    files: ModelFiles
    actuators: tuple[Actuator, ...]

    def name(self, kind: Any, index: int, fallback: str) -> str:
        """Return an object's MJCF name, or ``fallback`` when it has none."""
        name = self.mujoco.mj_id2name(self.model, kind, index)
        return str(name) if name else fallback


def _actuator(mujoco: Any, model: Any, index: int) -> Actuator:
    name = (
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, index) or f"act{index}"
    )
    bias = model.actuator_biasprm[index]
    affine = int(model.actuator_biastype[index]) == int(mujoco.mjtBias.mjBIAS_AFFINE)
    if affine and bias[1] < 0:  # a position servo, with or without damping (kv)
        space = CommandSpace.JOINT_POSITION
    elif affine and bias[1] == 0 and bias[2] < 0:
        space = CommandSpace.JOINT_VELOCITY
    else:
        space = CommandSpace.JOINT_TORQUE
    slide = False
    if int(model.actuator_trntype[index]) == int(mujoco.mjtTrn.mjTRN_JOINT):
        joint = int(model.actuator_trnid[index][0])
        slide = int(model.jnt_type[joint]) == int(mujoco.mjtJoint.mjJNT_SLIDE)
    return Actuator(str(name), space, _UNITS[space][1 if slide else 0])


def _compile(mujoco: Any, files: ModelFiles, where: Path | None) -> Any:
    with tempfile.TemporaryDirectory(prefix="fsr-mujoco-") as folder:
        entry = files.materialize(Path(folder))
        try:
            return mujoco.MjModel.from_xml_path(str(entry))
        except ValueError as exc:
            raise SchemaError(
                f"MuJoCo cannot compile {files.entry!r}: {exc}", path=where
            ) from exc


def _initial_state(
    loaded: LoadedModel, scenario: MujocoScenario, where: Path | None
) -> None:
    mujoco, model, data = loaded.mujoco, loaded.model, loaded.data
    if scenario.keyframe is not None:
        key = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, scenario.keyframe)
        if key < 0:
            raise SchemaError(
                f"the model has no keyframe {scenario.keyframe!r}", path=where
            )
        mujoco.mj_resetDataKeyframe(model, data, key)
    for name, values, size in (
        ("qpos", scenario.qpos, model.nq),
        ("qvel", scenario.qvel, model.nv),
    ):
        if values is None:
            continue
        if len(values) != size:
            raise SchemaError(
                f"initial.{name} has {len(values)} values, the model has {size}",
                path=where,
            )
        getattr(data, name)[:] = values
    mujoco.mj_forward(model, data)


def load_model(scenario: MujocoScenario, *, where: Path | None = None) -> LoadedModel:
    """Compile the scenario's model, apply its renderer settings and initial state.

    Raises
    ------
    AdapterUnavailableError
        MuJoCo is not installed.
    SchemaError
        The model does not compile, or the initial state does not fit it.
    """
    mujoco = import_mujoco()
    model = _compile(mujoco, scenario.model, where)
    largest_w = max([camera.width for camera in scenario.cameras] + [1])
    largest_h = max([camera.height for camera in scenario.cameras] + [1])
    model.vis.global_.offwidth = max(int(model.vis.global_.offwidth), largest_w)
    model.vis.global_.offheight = max(int(model.vis.global_.offheight), largest_h)
    model.vis.quality.offsamples = scenario.render.multisamples
    actuators = tuple(_actuator(mujoco, model, i) for i in range(model.nu))
    loaded = LoadedModel(mujoco, model, mujoco.MjData(model), scenario.model, actuators)
    _initial_state(loaded, scenario, where)
    return loaded


def simulation_contract(loaded: LoadedModel) -> dict[str, Any]:
    """Return what a re-simulation must match (stored in the metadata)."""
    mujoco, model = loaded.mujoco, loaded.model
    integrator = mujoco.mjtIntegrator(int(model.opt.integrator)).name
    return {
        "simulator": SIMULATOR_NAME,
        "model_digest": loaded.files.digest,
        "timestep_s": float(model.opt.timestep),
        "integrator": integrator,
        "gravity_mps2": [float(v) for v in np.asarray(model.opt.gravity)],
        "nq": int(model.nq),
        "nv": int(model.nv),
        "axes": [actuator.name for actuator in loaded.actuators],
        "command_spaces": {a.name: a.command_space.value for a in loaded.actuators},
        "units": {a.name: a.unit for a in loaded.actuators},
    }


def check_contract(
    recorded: Any, current: dict[str, Any], *, where: Path | None = None
) -> None:
    """Compare a recorded simulation contract with the model loaded now.

    Every field of ``current`` must be equal in ``recorded``: the model
    digest, the time step, the integrator, gravity, the state sizes and each
    actuator's name, command space and unit.

    Raises
    ------
    ReplayError
        There is no contract, or a field differs; the message names the field,
        recorded versus found (section ``preflight``).
    """
    if not isinstance(recorded, dict):
        raise ReplayError(
            "the recording has no MuJoCo simulation contract",
            path=where,
            section="preflight",
        )
    for key, value in current.items():
        if recorded.get(key) != value:
            raise ReplayError(
                f"simulation contract differs in {key}: recorded "
                f"{recorded.get(key)!r}, the embedded model gives {value!r}",
                path=where,
                section="preflight",
            )
