r"""Write small EmbodiChain recorder roots (plus expected values) for reader tests.

Every file under ``tests/data/embodichain/<root>/`` is written by EmbodiChain's
own recorder code: ``LeRobotRecorder`` (``embodichain.lab.gym.envs.managers.
datasets``), which drives LeRobot 0.4.4's ``LeRobotDataset``, the depth sidecar
writer (``embodichain.data_pipeline.depth_video.DepthSidecarManager``) and the
commit journal (``embodichain.data_pipeline.recording.journal``). Nothing in a
root is written by this script except by calling that code.

EmbodiChain's simulator (``dexsim_engine``) is not on the package index, so the
recorder is fed a stand-in environment defined here (one env, a 6-joint arm, one
64x48 RGB-D camera). Importing the recorder module normally pulls in the whole
simulation layer; this script therefore imports it with the package
``__init__`` files of ``embodichain.data``, ``embodichain.lab.gym``,
``embodichain.lab.gym.envs``, ``embodichain.lab.gym.envs.managers`` and
``embodichain.lab.sim`` skipped, and gives the few simulator-side names the
recorder module imports (``Camera``, ``ContactSensor``, ``Articulation``,
``RigidObject``, ``Robot``, ``PlanResult``, ``retime_to_control_grid``,
``get_object_uid``) as stand-ins. The recorder, journal, depth writer and
LeRobot code that run are the installed packages, unmodified.

Crashes are real process deaths: each crash root is recorded in a child
process whose ``RecordingJournal.prepare``/``advance`` is wrapped so that the
process SIGKILLs itself right after the journal has durably recorded the target
phase for the last episode. LeRobot 0.4.4 keeps its parquet writers open until
``finalize()``, so every crash root has parquet files without a footer; a
finalized "twin" recording of the episodes written before the crash shows what
those files hold. In ``recorded_errors`` two OSErrors are raised inside recorder
steps (depth video finalization, sidecar append) and the recorder's own error
handling stores them in the journal.

EmbodiChain and LeRobot are NOT dependencies of this repo; run this script from
a side venv outside the repo (torch comes in through lerobot):

    PYENV_VERSION=3.12.1 python3.12 -m venv /work/venv-embodichain
    /work/venv-embodichain/bin/pip install --no-deps embodichain==0.3.2
    /work/venv-embodichain/bin/pip install "lerobot==0.4.4" "torch==2.8.*" \
        "torchvision==0.23.*" "torchcodec>=0.5,<0.6" tensordict "gymnasium>=1.1.1"
    /work/venv-embodichain/bin/python tools/make_embodichain_data.py

(``pip install embodichain==0.3.2`` with dependencies fails: it pins
``dexsim_engine==0.5.1rc1``, which is not on the package index.)

Output: ``tests/data/embodichain/<root>/`` and
``tests/data/embodichain/<root>.expected.json`` (see the README there).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import errno
import importlib
import importlib.metadata
import json
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

OUT_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "embodichain"

FPS = 10
HEIGHT, WIDTH = 48, 64
SENSOR = "cam_high"
JOINTS = ["joint1", "joint2", "joint3", "joint4", "joint5", "gripper"]
TASKS = ["pick the red cube", "push the blue block"]
ROBOT_TYPE = "standin_arm"
SCENE_TYPE = "tabletop"
TASK_DESCRIPTION = "fsr_viewer_test"
# The recorder names its dataset folder <robot>_<scene>_<task>_<NNN>.
DATASET_DIR = f"{ROBOT_TYPE}_{SCENE_TYPE}_{TASK_DESCRIPTION}_000"
RUN_NAMESPACE = UUID("6a1d3f0e-2b7c-4e59-9f0a-5c3e8d2b1a47")

# Pixels whose depth is checked in the expected files: (row, col).
PROBE_PIXELS = [(0, 0), (1, 1), (1, 2), (24, 32), (40, 60), (10, 20)]


def _crash_root(
    phase: str, *, use_videos: bool, depth: str = "log_m"
) -> dict[str, Any]:
    """Return a root of two episodes whose recorder dies after ``phase`` of the last."""
    return {
        "name": f"crash_{phase}",
        "lengths": [8, 10],
        "use_videos": use_videos,
        "depth": depth,
        "crash": phase,
    }


# Roots to make. "crash" = journal phase after which the child SIGKILLs itself
# while committing the last episode; "inject" = {episode: failure}, an OSError
# raised inside one recorder step of that episode (the recorder handles it and
# stores the journal error; the script goes on and finalizes cleanly).
ROOTS: list[dict[str, Any]] = [
    {
        "name": "complete",
        "lengths": [8, 12],
        "use_videos": True,
        "depth": "log_m",
        "real2sim": True,
    },
    _crash_root("prepared", use_videos=False),
    _crash_root("lerobot_committing", use_videos=False),
    _crash_root("lerobot_committed", use_videos=True),
    _crash_root("depth_committed", use_videos=False, depth="linear_mm"),
    {
        "name": "recorded_errors",
        "lengths": [8, 10, 9],
        "use_videos": False,
        "depth": "log_m",
        "inject": {1: "depth_close", 2: "sidecar_append"},
    },
]

DEPTH_CONFIGS: dict[str, dict[str, Any]] = {
    # EmbodiChain's defaults: log quantization over [0.01, 10] m, shift 3.5 m;
    # the camera gives float32 metres.
    "log_m": {"cfg": {"enable": True}, "input": "float_m"},
    # Linear quantization over [0.1, 4] m; the camera gives integer millimetres
    # and the reader is asked for millimetres back.
    "linear_mm": {
        "cfg": {
            "enable": True,
            "use_log": False,
            "depth_min": 0.1,
            "depth_max": 4.0,
            "output_unit": "mm",
        },
        "input": "int_mm",
    },
}


def _mod(name: str) -> Any:
    """Import a module of the side venv (not installed in this repo's venv)."""
    return importlib.import_module(name)


# ---------------------------------------------------------------------------
# Synthetic episode content (deterministic)
# ---------------------------------------------------------------------------


def _episode_arrays(episode: int, length: int, depth_input: str) -> dict[str, Any]:
    """Return state/action/RGB/depth for one episode, as numpy arrays."""
    import numpy as np

    t = np.arange(length, dtype=np.float64)
    qpos = np.stack(
        [
            0.1 * (j + 1) * np.sin(0.3 * t + 0.5 * j + episode) + 0.05 * episode
            for j in range(len(JOINTS))
        ],
        axis=1,
    ).astype(np.float32)
    qvel = np.gradient(qpos.astype(np.float64), axis=0).astype(np.float32) * FPS
    qf = (0.5 * qpos + 0.01 * (episode + 1)).astype(np.float32)
    action = np.concatenate([qpos[1:], qpos[-1:]], axis=0).astype(np.float32)

    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    rgba = np.zeros((length, HEIGHT, WIDTH, 4), dtype=np.uint8)
    depth_m = np.zeros((length, HEIGHT, WIDTH), dtype=np.float64)
    for f in range(length):
        rgba[f, :, :, 0] = (xx * 4 + 30 * episode) % 256
        rgba[f, :, :, 1] = (yy * 5) % 256
        rgba[f, :, :, 2] = (f * 20) % 256
        rgba[f, :, :, 3] = 255
        x0 = 4 + 4 * f
        y0 = 16 + 2 * episode
        box = (slice(y0, y0 + 10), slice(x0, x0 + 10))
        rgba[f][box] = (220, 30, 30, 255) if episode == 0 else (30, 60, 220, 255)
        depth_m[f] = 0.6 + 1.2 * xx / (WIDTH - 1) + 0.3 * yy / (HEIGHT - 1) + 0.01 * f
        depth_m[f][box] = 0.35 + 0.01 * episode
        # Edge cases the quantizer clips: no return (0) and beyond range.
        depth_m[f, 1, 1] = 0.0
        depth_m[f, 1, 2] = 15.0
    if depth_input == "float_m":
        depth = depth_m.astype(np.float32)
    else:
        depth = np.rint(depth_m * 1000.0).astype(np.int32)
    return {
        "qpos": qpos,
        "qvel": qvel,
        "qf": qf,
        "action": action,
        "rgba": rgba,
        "depth": depth,
    }


def _episode_uuid(root: str, episode: int) -> str:
    return str(
        uuid5(NAMESPACE_URL, f"fsr-viewer-test/embodichain/{root}/episode/{episode}")
    )


def _episode_metadata(
    spec: dict[str, Any], episode: int, length: int
) -> dict[str, Any]:
    """Return what the stand-in env reports through get_demo_episode_metadata()."""
    split = length // 2
    meta = {
        "episode_uuid": _episode_uuid(spec["name"], episode),
        "instruction": TASKS[episode % len(TASKS)],
        "instruction_source": "episode",
        "output_mode": "continuous",
        "attempt_id": episode,
        "continuity_id": 0,
        "completed": True,
        "success": True,
        "terminated": True,
        "truncated": False,
        "terminal_reason": "success",
        "segments": [
            {
                "segment_id": 0,
                "name": "reach",
                "start_step": 0,
                "end_step": split,
                "success": True,
                "instruction": "reach the object",
                "metadata": {},
            },
            {
                "segment_id": 1,
                "name": "grasp",
                "start_step": split,
                "end_step": length,
                "success": True,
                "instruction": "grasp the object",
                "metadata": {},
            },
        ],
    }
    if spec.get("real2sim"):
        # Stand-in Real2Sim identity fields (no 0.3.2 code produces these; the
        # recorder copies episode metadata verbatim into the sidecar/journal).
        meta.update(
            {
                "candidate_id": f"candidate-{episode:03d}",
                "commit_id": f"commit-{spec['name']}-{episode:03d}",
                "source_id": "standin-source",
                "source_revision": "rev-1",
                "validation_checks": [
                    {"id": "joint_limits", "passed": True},
                    {"id": "frame_count", "passed": True, "value": length},
                ],
            }
        )
    return meta


# ---------------------------------------------------------------------------
# Importing the recorder without the simulator
# ---------------------------------------------------------------------------


def _bare_package(name: str) -> types.ModuleType:
    """Register a package whose submodules load from disk, skipping its __init__."""
    embodichain = _mod("embodichain")

    if name in sys.modules:
        return sys.modules[name]
    relative = name.split(".")[1:]
    module = types.ModuleType(name)
    module.__path__ = [str(Path(embodichain.__file__).parent.joinpath(*relative))]
    module.__package__ = name
    sys.modules[name] = module
    parent, _, leaf = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], leaf, module)
    return module


def _standin_module(name: str, **attributes: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    module.__dict__["__standin__"] = True
    sys.modules[name] = module
    parent, _, leaf = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], leaf, module)
    return module


class StandInSensor:
    """Base of the stand-in simulator sensors."""


class StandInCamera(StandInSensor):
    """Only ``cfg.height``/``cfg.width`` are read by the recorder."""

    def __init__(self, height: int, width: int) -> None:
        self.cfg = types.SimpleNamespace(height=height, width=width)


class StandInContactSensor(StandInSensor):
    """Never instantiated; the recorder only uses the type in isinstance checks."""


def _not_simulated(*_args: Any, **_kwargs: Any) -> Any:
    raise NotImplementedError("stand-in: the simulator is not installed")


def import_recorder() -> tuple[Any, Any]:
    """Import LeRobotRecorder and DatasetFunctorCfg with the simulator stood in."""
    _mod("embodichain.lab")  # light: a lazy __getattr__ only

    for name in (
        "embodichain.data",
        "embodichain.lab.gym",
        "embodichain.lab.gym.envs",
        "embodichain.lab.gym.envs.managers",
        "embodichain.lab.sim",
        "embodichain.lab.sim.motion",
        "embodichain.compute",
    ):
        _bare_package(name)

    class Articulation:
        """Stand-in type for the recorder's isinstance checks."""

    class RigidObject:
        pass

    class Robot(Articulation):
        pass

    class PlanResult:
        pass

    _standin_module(
        "embodichain.lab.sim.sensors",
        BaseSensor=StandInSensor,
        Camera=StandInCamera,
        ContactSensor=StandInContactSensor,
    )
    _standin_module(
        "embodichain.lab.sim.objects",
        Articulation=Articulation,
        RigidObject=RigidObject,
        Robot=Robot,
    )
    _standin_module("embodichain.lab.sim.motion.planners", PlanResult=PlanResult)
    _standin_module(
        "embodichain.compute.trajectory", retime_to_control_grid=_not_simulated
    )
    _standin_module(
        "embodichain.lab.gym.envs.managers.observations", get_object_uid=_not_simulated
    )
    datasets = importlib.import_module("embodichain.lab.gym.envs.managers.datasets")
    cfg = importlib.import_module("embodichain.lab.gym.envs.managers.cfg")
    if not datasets.LEROBOT_AVAILABLE:
        raise RuntimeError("embodichain could not import lerobot")
    return datasets.LeRobotRecorder, cfg.DatasetFunctorCfg


@dataclasses.dataclass
class StandInTaskCfg:
    """Hashed by EmbodiChain's provenance builder (config_hash)."""

    task: str = "fsr_viewer_standin"
    sim_steps_per_control: int = 4
    physics: str = "standin"
    joints: tuple[str, ...] = tuple(JOINTS)


class StandInEnv:
    """The attributes LeRobotRecorder reads from an EmbodiedEnv, for one env."""

    def __init__(self, spec: dict[str, Any]) -> None:
        import numpy as np

        gym = _mod("gymnasium")
        torch = _mod("torch")

        self.spec = spec
        self.num_envs = 1
        self.device = torch.device("cpu")
        self.step_dt = 1.0 / FPS
        self.physics_dt = self.step_dt / 4
        self.cfg = StandInTaskCfg()
        self.active_joint_ids = list(range(len(JOINTS)))
        self.robot = types.SimpleNamespace(joint_names=list(JOINTS))
        self.has_sensors = True
        self.observation_manager = types.SimpleNamespace(active_functors={})
        self._recording_run_uuid = str(uuid5(RUN_NAMESPACE, spec["name"]))
        self._sensors = {SENSOR: StandInCamera(HEIGHT, WIDTH)}
        self.depth_input = DEPTH_CONFIGS[spec["depth"]]["input"]
        depth_space = (
            gym.spaces.Box(0.0, np.inf, (HEIGHT, WIDTH), np.float32)
            if self.depth_input == "float_m"
            else gym.spaces.Box(0, 65535, (HEIGHT, WIDTH), np.int32)
        )
        joint_box = gym.spaces.Box(-np.inf, np.inf, (len(JOINTS),), np.float32)
        self.single_observation_space = gym.spaces.Dict(
            {
                "robot": gym.spaces.Dict(
                    {"qpos": joint_box, "qvel": joint_box, "qf": joint_box}
                ),
                "sensor": gym.spaces.Dict(
                    {
                        SENSOR: gym.spaces.Dict(
                            {
                                "color": gym.spaces.Box(
                                    0, 255, (HEIGHT, WIDTH, 4), np.uint8
                                ),
                                "depth": depth_space,
                            }
                        )
                    }
                ),
            }
        )
        self.rollout_buffer = None
        self.rollout_steps = None
        self._metadata: dict[str, Any] = {}

    def get_sensor(self, name: str) -> StandInCamera:
        """Return the sensor object named in the observation space."""
        return self._sensors[name]

    def load_episode(self, episode: int, length: int) -> None:
        """Fill the rollout buffer as an EmbodiedEnv would after `length` steps."""
        torch = _mod("torch")
        tensordict_cls = _mod("tensordict").TensorDict

        arrays = _episode_arrays(episode, length, self.depth_input)
        obs = tensordict_cls(
            {
                "robot": tensordict_cls(
                    {
                        "qpos": torch.from_numpy(arrays["qpos"])[None],
                        "qvel": torch.from_numpy(arrays["qvel"])[None],
                        "qf": torch.from_numpy(arrays["qf"])[None],
                    },
                    batch_size=[1, length],
                ),
                "sensor": tensordict_cls(
                    {
                        SENSOR: tensordict_cls(
                            {
                                "color": torch.from_numpy(arrays["rgba"])[None],
                                "depth": torch.from_numpy(arrays["depth"])[None],
                            },
                            batch_size=[1, length],
                        )
                    },
                    batch_size=[1, length],
                ),
            },
            batch_size=[1, length],
        )
        self.rollout_buffer = tensordict_cls(
            {"obs": obs, "actions": torch.from_numpy(arrays["action"])[None]},
            batch_size=[1, length],
        )
        self.rollout_steps = torch.tensor([length])
        self._metadata = _episode_metadata(self.spec, episode, length)

    def get_demo_episode_metadata(self, env_id: int) -> dict[str, Any]:
        """Return the episode metadata the recorder copies into its sidecar."""
        return copy.deepcopy(self._metadata)


# ---------------------------------------------------------------------------
# Child process: one recording session
# ---------------------------------------------------------------------------


def _install_crash_hook(phase: str, victim_uuid: str) -> None:
    journal_cls = _mod("embodichain.data_pipeline.recording.journal").RecordingJournal

    if phase == "prepared":
        original_prepare = journal_cls.prepare

        def prepare(
            self: Any, sidecar: dict[str, Any], depth_sensors: list[str] | None = None
        ) -> None:
            original_prepare(self, sidecar, depth_sensors)
            if str(sidecar.get("episode_uuid")) == victim_uuid:
                os.kill(os.getpid(), signal.SIGKILL)

        journal_cls.prepare = prepare
        return

    original_advance = journal_cls.advance

    def advance(self: Any, episode_uuid: str, next_phase: str) -> None:
        original_advance(self, episode_uuid, next_phase)
        if next_phase == phase and str(episode_uuid) == victim_uuid:
            os.kill(os.getpid(), signal.SIGKILL)

    journal_cls.advance = advance


def _install_injected_failures(victims: dict[str, Any], state: dict[str, Any]) -> None:
    """Make one recorder step of each victim episode raise, as a full disk would.

    ``victims`` maps episode UUID -> "depth_close" (the depth sidecar video
    cannot be finalized: ENOSPC) or "sidecar_append" (the episode sidecar line
    cannot be appended: EIO). The recorder's own error handling runs.
    """
    depth_writer = _mod("embodichain.data_pipeline.depth_video.writer")
    datasets = _mod("embodichain.lab.gym.envs.managers.datasets")

    original_close = depth_writer.DepthVideoWriter.close
    original_write = datasets.LeRobotRecorder._write_episode_metadata

    def close(self: Any) -> Any:
        if victims.get(str(state.get("current"))) == "depth_close":
            self._closed = True
            self._discard_temp()
            raise OSError(
                errno.ENOSPC, os.strerror(errno.ENOSPC), str(self._final_path)
            )
        return original_close(self)

    def write(self: Any, metadata: dict[str, Any]) -> Any:
        if victims.get(str(metadata.get("episode_uuid"))) == "sidecar_append":
            path = self.dataset_full_path / "meta" / "embodichain_episodes.jsonl"
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))
        return original_write(self, metadata)

    depth_writer.DepthVideoWriter.close = close
    datasets.LeRobotRecorder._write_episode_metadata = write


def run_child(spec: dict[str, Any], save_root: Path) -> None:
    """Record one root with the real LeRobotRecorder (runs in a child process)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    recorder_cls, cfg_cls = import_recorder()
    victim = _episode_uuid(spec["name"], len(spec["lengths"]) - 1)
    state: dict[str, Any] = {}
    if spec.get("crash"):
        _install_crash_hook(spec["crash"], victim)
    if spec.get("inject"):
        victims = {
            _episode_uuid(spec["name"], int(index)): kind
            for index, kind in spec["inject"].items()
        }
        _install_injected_failures(victims, state)

    env = StandInEnv(spec)
    cfg = cfg_cls(
        func=recorder_cls,
        params={
            "save_path": str(save_root),
            "robot_meta": {"robot_type": ROBOT_TYPE},
            "extra": {"scene_type": SCENE_TYPE, "task_description": TASK_DESCRIPTION},
            "use_videos": spec["use_videos"],
            "depth_video": dict(DEPTH_CONFIGS[spec["depth"]]["cfg"]),
        },
    )
    recorder = recorder_cls(cfg, env)
    failures = []
    for episode, length in enumerate(spec["lengths"]):
        env.load_episode(episode, length)
        state["current"] = env.get_demo_episode_metadata(0)["episode_uuid"]
        try:
            recorder(env, [0])
        except (RuntimeError, OSError) as error:  # injected, re-raised by the recorder
            failures.append(f"{type(error).__name__}: {error}")
    recorder.finalize()
    (save_root / "child_report.json").write_text(json.dumps({"failures": failures}))


# ---------------------------------------------------------------------------
# Parent: run children, collect roots, compute expected values
# ---------------------------------------------------------------------------


def _versions() -> dict[str, Any]:
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for package in (
        "embodichain",
        "lerobot",
        "torch",
        "av",
        "pyarrow",
        "numpy",
        "tensordict",
    ):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def _jsonable(value: Any) -> Any:
    import numpy as np

    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if hasattr(value, "tolist") and type(value).__module__.startswith("torch"):
        return _jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, Path):
        return value.as_posix()
    return value


def _scrub(value: Any, root: Path) -> Any:
    """Replace the absolute root path in reader output with '<root>'."""
    text = json.dumps(_jsonable(value))
    text = text.replace(str(root.resolve()), "<root>").replace(str(root), "<root>")
    return json.loads(text)


def _parquet_facts(root: Path) -> list[Any]:
    import pyarrow.parquet as pq

    facts = []
    for path in sorted(root.rglob("*.parquet")):
        data = path.read_bytes()
        item = {
            "path": path.relative_to(root).as_posix(),
            "size": len(data),
            "starts_with_PAR1": data[:4] == b"PAR1",
            "ends_with_PAR1": data[-4:] == b"PAR1",
        }
        try:
            table = pq.read_table(path)
            item["footer_readable"] = True
            item["rows"] = table.num_rows
            item["columns"] = table.column_names
        except (OSError, ValueError) as error:  # ArrowInvalid is a ValueError
            item["footer_readable"] = False
            item["pyarrow_error"] = f"{type(error).__name__}: {error}"
        facts.append(item)
    return facts


def _file_listing(root: Path) -> list[Any]:
    return [
        {"path": p.relative_to(root).as_posix(), "size": p.stat().st_size}
        for p in sorted(root.rglob("*"))
        if p.is_file()
    ]


def _depth_expectations(root: Path, spec: dict[str, Any]) -> dict[str, Any] | None:
    import numpy as np

    depth_video = _mod("embodichain.data_pipeline.depth_video")

    if not (root / "depth_meta.json").exists():
        return None
    meta = depth_video.load_depth_meta(root)
    library = depth_video.DepthVideoLibrary(root, meta)
    depth_input = DEPTH_CONFIGS[spec["depth"]]["input"]
    samples = []
    for sensor in library.sensors:
        sensor_meta = library.sensor_meta(sensor)
        for episode_key in sorted(sensor_meta["episodes"], key=int):
            episode = int(episode_key)
            count = library.frame_count(episode, sensor)
            truth = _episode_arrays(episode, spec["lengths"][episode], depth_input)[
                "depth"
            ]
            # Raw 12-bit codes as PyAV decodes them (EmbodiChain's reader path).
            codes = library._reader(episode, sensor)._decode()
            for frame in sorted({0, count // 2, count - 1}):
                decoded = library.get(episode, sensor, frame)  # (1, H, W)
                requantized = depth_video.quantize_depth(
                    truth[frame],
                    depth_min=sensor_meta["video.depth_min"],
                    depth_max=sensor_meta["video.depth_max"],
                    shift=sensor_meta["video.shift"],
                    use_log=sensor_meta["video.use_log"],
                    video_backend=None,
                    input_unit=sensor_meta["video.input_unit"],
                )
                lossless = bool(np.array_equal(requantized, codes[frame]))
                for row, col in PROBE_PIXELS:
                    samples.append(
                        {
                            "sensor": sensor,
                            "episode_index": episode,
                            "frame_index": frame,
                            "row": row,
                            "col": col,
                            "input_value": _jsonable(truth[frame, row, col]),
                            "input_unit": "m" if depth_input == "float_m" else "mm",
                            "code": int(codes[frame][row, col]),
                            "code_from_quantize_depth": int(requantized[row, col]),
                            "whole_frame_codes_equal_quantize_depth": lossless,
                            "decoded": _jsonable(decoded[0, row, col]),
                            "decoded_dtype": str(decoded.dtype),
                            "decoded_unit": sensor_meta["video.output_unit"],
                        }
                    )
            frame0 = library.get(episode, sensor, 0)
            samples.append(
                {
                    "sensor": sensor,
                    "episode_index": episode,
                    "frame_index": 0,
                    "summary": {
                        "frame_count": count,
                        "shape": list(frame0.shape),
                        "min": _jsonable(np.min(frame0)),
                        "max": _jsonable(np.max(frame0)),
                        "code_min": int(np.min(codes[0])),
                        "code_max": int(np.max(codes[0])),
                        "code_sum": int(np.sum(codes[0].astype(np.int64))),
                    },
                }
            )
    return {"depth_meta": meta, "samples": samples}


def _lerobot_rows(root: Path, name: str) -> dict[str, Any]:
    """Return what LeRobot 0.4.4's reader gives (or raises) for this root."""
    try:
        lerobot_dataset_cls = _mod("lerobot.datasets.lerobot_dataset").LeRobotDataset

        dataset = lerobot_dataset_cls(
            repo_id=f"local/{name}", root=root, video_backend="pyav"
        )
        rows = []
        for index in sorted({0, len(dataset) // 2, len(dataset) - 1}):
            item = dataset[index]
            row = {}
            for key, value in item.items():
                if key.startswith("observation.images."):
                    row[key] = {
                        "shape": list(value.shape),
                        "dtype": str(value.dtype),
                        "mean": round(float(value.float().mean()), 6),
                        "pixel_0_0": _jsonable(value[:, 0, 0]),
                    }
                else:
                    row[key] = _jsonable(value)
            rows.append(row)
        return {
            "ok": True,
            "num_episodes": dataset.num_episodes,
            "num_frames": dataset.num_frames,
            "features": sorted(dataset.features),
            "rows": rows,
        }
    except Exception as error:  # noqa: BLE001 - whatever LeRobot raises is the result
        return {"ok": False, "error": f"{type(error).__name__}: {str(error)[:500]}"}


def expected_for(
    root: Path, spec: dict[str, Any], child: dict[str, Any]
) -> dict[str, Any]:
    """Collect what EmbodiChain's and LeRobot's own readers report for a root."""
    validate_dataset = _mod(
        "embodichain.data_pipeline.datasets.inspection"
    ).validate_dataset
    recording = _mod("embodichain.data_pipeline.recording")

    journal_dir = root / "meta" / "embodichain_commits"
    journals = []
    for path in sorted(journal_dir.glob("*.json")):
        record = json.loads(path.read_text())
        journals.append(
            {
                "file": path.relative_to(root).as_posix(),
                "episode_uuid": record["episode_uuid"],
                "phase": record["phase"],
                "error": record.get("error"),
                "depth_sensors": record["depth_sensors"],
                "lerobot_episode_index": record["sidecar"]["lerobot_episode_index"],
                "length": record["sidecar"]["length"],
                "keys": sorted(record),
                "sidecar_keys": sorted(record["sidecar"]),
            }
        )
    sidecar_path = root / "meta" / "embodichain_episodes.jsonl"
    sidecar_rows = []
    if sidecar_path.exists():
        for line in sidecar_path.read_text().splitlines():
            if line.strip():
                sidecar_rows.append(json.loads(line))

    report = recording.inspect_recording(root)
    validation = dataclasses.asdict(validate_dataset(root, media_frame_counts=True))

    # What conservative repair would do, on a throwaway copy.
    with tempfile.TemporaryDirectory() as scratch:
        copy_root = Path(scratch) / root.name
        shutil.copytree(root, copy_root)
        repaired = recording.recover_recording(copy_root, repair=True)
        repaired = _scrub(repaired, copy_root)

    leftovers = [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*"))
        if p.is_file() and (p.name.startswith(".depth_tmp_") or p.suffix == ".png")
    ]
    generated = {}
    for episode, length in enumerate(spec["lengths"]):
        arrays = _episode_arrays(episode, length, DEPTH_CONFIGS[spec["depth"]]["input"])
        generated[str(episode)] = {
            "episode_uuid": _episode_uuid(spec["name"], episode),
            "length": length,
            "task": TASKS[episode % len(TASKS)],
            "observation.state": _jsonable(arrays["qpos"]),
            "action": _jsonable(arrays["action"]),
            "rgb[frame][0,0]": _jsonable(arrays["rgba"][:, 0, 0, :3]),
        }

    return {
        "made_by": "tools/make_embodichain_data.py",
        "versions": _versions(),
        "recording": {
            "dataset_folder_name_written_by_recorder": DATASET_DIR,
            "fps": FPS,
            "use_videos": spec["use_videos"],
            "depth_video_cfg": DEPTH_CONFIGS[spec["depth"]]["cfg"],
            "depth_input": DEPTH_CONFIGS[spec["depth"]]["input"],
            "episode_lengths_fed": spec["lengths"],
            "crash_after_phase": spec.get("crash"),
            "crashed_episode_uuid": (
                _episode_uuid(spec["name"], len(spec["lengths"]) - 1)
                if spec.get("crash")
                else None
            ),
            "injected_failures": {
                _episode_uuid(spec["name"], int(index)): {
                    "episode": int(index),
                    "kind": kind,
                }
                for index, kind in (spec.get("inject") or {}).items()
            },
            "child_exit": child,
        },
        "generated_input": generated,
        "files": _file_listing(root),
        "parquet": _parquet_facts(root),
        "leftover_temporary_files": leftovers,
        "journal_records": journals,
        "sidecar_rows": sidecar_rows,
        "inspect_recording": _scrub(report, root),
        "recover_recording_repair_on_copy": repaired,
        "validate_dataset": _scrub(validation, root),
        "depth": _depth_expectations(root, spec),
        "lerobot_reader": _scrub(_lerobot_rows(root, spec["name"]), root),
    }


def _run_child(
    spec: dict[str, Any], save_root: Path, expected_rc: int
) -> dict[str, Any]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        json.dumps(spec),
        "--save-root",
        str(save_root),
    ]
    # A fixed hash seed keeps LeRobot's set-ordered outputs (stats.json key order,
    # the parquet footer's features metadata) the same from run to run.
    env = dict(os.environ, HF_HUB_OFFLINE="1", TQDM_DISABLE="1", PYTHONHASHSEED="0")
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != expected_rc:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-8000:])
        raise SystemExit(
            f"{spec['name']}: child exited {result.returncode}, expected {expected_rc}"
        )
    child: dict[str, Any] = {"returncode": result.returncode}
    report = save_root / "child_report.json"
    if report.exists():
        child.update(json.loads(report.read_text()))
    produced = save_root / DATASET_DIR
    if not produced.is_dir():
        raise SystemExit(f"{spec['name']}: recorder did not create {produced}")
    child["recorded_at_root"] = str(produced)
    return child


def _footer_start(data: bytes) -> int:
    """Offset of the Thrift FileMetaData of a complete parquet file."""
    if data[-4:] != b"PAR1":
        raise ValueError("not a complete parquet file")
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


def _footerless_facts(crashed: Path, twin: Path, twin_episodes: int) -> list[Any]:
    """Prove what a footerless parquet holds, using a finalized twin recording.

    The twin is the same recording (same stand-in input, same recorder
    settings) of only the episodes LeRobot had committed before the crash, and
    finalized normally. If the crashed file is byte-identical to the twin's
    file up to the twin's footer, the crashed file holds exactly those row
    groups and only the footer is missing; appending the twin's footer makes it
    readable.
    """
    import io

    import pyarrow.parquet as pq

    facts = []
    for path in sorted(crashed.rglob("*.parquet")):
        data = path.read_bytes()
        if data[-4:] == b"PAR1":
            continue
        relative = path.relative_to(crashed).as_posix()
        reference = (twin / relative).read_bytes()
        start = _footer_start(reference)
        item = {
            "path": relative,
            "size": len(data),
            "twin_episodes": twin_episodes,
            "twin_size": len(reference),
            "twin_footer_offset": start,
            "prefix_identical_to_twin": reference[: len(data)] == data,
            "ends_exactly_where_twin_footer_starts": len(data) == start,
        }
        if (
            item["prefix_identical_to_twin"]
            and item["ends_exactly_where_twin_footer_starts"]
        ):
            table = pq.read_table(io.BytesIO(data + reference[start:]))
            meta = pq.ParquetFile(io.BytesIO(data + reference[start:])).metadata
            item["rows_with_twin_footer"] = table.num_rows
            item["row_groups_with_twin_footer"] = meta.num_row_groups
            item["row_group_rows"] = [
                meta.row_group(i).num_rows for i in range(meta.num_row_groups)
            ]
            if "episode_index" in table.column_names:
                item["episode_index_values"] = sorted(
                    set(table.column("episode_index").to_pylist())
                )
            if "index" in table.column_names:
                item["index_values"] = table.column("index").to_pylist()
        facts.append(item)
    return facts


# Episodes LeRobot has written to the frame parquet when the crash hits.
_COMMITTED_BEFORE_CRASH = {
    "prepared": 1,
    "lerobot_committing": 1,
    "lerobot_committed": 2,
    "depth_committed": 2,
}


def make_root(spec: dict[str, Any]) -> tuple[dict[str, Any], list[Any] | None]:
    """Record one root in a child process and move it to OUT_DIR."""
    target = OUT_DIR / spec["name"]
    if target.exists():
        shutil.rmtree(target)
    footerless = None
    with tempfile.TemporaryDirectory(prefix="embodichain_rec_") as scratch:
        save_root = Path(scratch) / "run"
        save_root.mkdir()
        expected_rc = -signal.SIGKILL if spec.get("crash") else 0
        child = _run_child(spec, save_root, expected_rc)
        produced = save_root / DATASET_DIR
        if spec.get("crash"):
            twin_root = Path(scratch) / "twin"
            twin_root.mkdir()
            episodes = _COMMITTED_BEFORE_CRASH[spec["crash"]]
            twin_spec = {k: v for k, v in spec.items() if k != "crash"}
            twin_spec["lengths"] = spec["lengths"][:episodes]
            _run_child(twin_spec, twin_root, 0)
            footerless = _footerless_facts(produced, twin_root / DATASET_DIR, episodes)
        shutil.move(str(produced), str(target))
    return child, footerless


def main() -> None:
    """Make every root (or those named with --only), then its expected file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--save-root", help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="*", help="make only these roots")
    args = parser.parse_args()
    if args.child:
        run_child(json.loads(args.child), Path(args.save_root))
        return

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for spec in ROOTS:
        if args.only and spec["name"] not in args.only:
            continue
        print(f"recording {spec['name']} ...", flush=True)
        child, footerless = make_root(spec)
        root = OUT_DIR / spec["name"]
        expected = expected_for(root, spec, child)
        expected["footerless_parquet"] = footerless
        expected = _scrub(expected, root)
        (OUT_DIR / f"{spec['name']}.expected.json").write_text(
            json.dumps(expected, indent=1, sort_keys=False) + "\n"
        )
        status = [
            (c["phase"], c["status"]) for c in expected["inspect_recording"]["commits"]
        ]
        print(f"  {spec['name']}: {status}", flush=True)


if __name__ == "__main__":
    main()
