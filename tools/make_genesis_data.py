"""Record small Genesis trajectories (``.gstraj``) and Genesis's own reading of them.

Genesis (``genesis-world`` on PyPI) is no dependency of this project: this script
runs in a side venv outside the repository, on the CPU backend, and writes the
test data of a future Genesis reader into ``tests/data/genesis/``. Each released
format version needs the Genesis that writes it (docs/genesis_trajectory.md):

    # GSTRAJ4, written by genesis-world 1.4.5
    PYENV_VERSION=3.12.1 python3.12 -m venv /work/venv-genesis
    /work/venv-genesis/bin/pip install torch genesis-world==1.4.5
    /work/venv-genesis/bin/python tools/make_genesis_data.py

    # GSTRAJ1, written by genesis-world 1.4.0 to 1.4.4
    PYENV_VERSION=3.12.1 python3.12 -m venv /work/venv-genesis-old
    /work/venv-genesis-old/bin/pip install torch genesis-world==1.4.4
    /work/venv-genesis-old/bin/python tools/make_genesis_data.py

A run records four scenes with Genesis's own recorder (a falling box, a
position-controlled Franka arm, a batch of three environments, once per
recording mode; the same arm with its visual meshes, in the first mode alone,
with MuJoCo's placement of its geoms beside it), plus a checkpoint file, then
cuts and corrupts copies of one recording the way a crash or a bad disk would
(a few of them are kept as a recipe in the index only, see
``tests/data/genesis/README.md``). Every file is then opened with Genesis's
own ``Trajectory`` reader, and what it returns goes to ``expected/<file>.npz``
and to the index ``expected/expected.json``. A run replaces the files of its
own format version and keeps those of the other; ``--scene NAME``
(repeatable: ``box``, ``arm``, ``batch``, ``arm_visual``) records those scenes
alone, every other file and index entry kept:

    /work/venv-genesis/bin/python tools/make_genesis_data.py --scene arm_visual

The first build of a scene compiles kernels for a minute or so; a run takes
one to two minutes after that on two cores.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import platform
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "tests" / "data" / "genesis"
EXPECTED_DIR = "expected"
INDEX_NAME = "expected.json"
DT = 0.01
PANDA = "xml/franka_emika_panda/panda.xml"
# Files whose frames add up to at most this many bytes keep every frame in their
# table; larger ones keep a selection.
ALL_FRAMES_BYTES = 2**20

LENGTH = struct.Struct("<Q")
MAGIC_SIZE = 8
TAG_SIZE = 4
# Every record kind of every version: the header after the tag, and where the
# payload length stands in it.
RECORD_HEADERS = {
    b"CHNK": (struct.Struct("<IQI"), 1),
    b"INFO": (struct.Struct("<QQI"), 1),
    b"LAST": (struct.Struct("<QI"), 0),
}


@dataclass(frozen=True)
class Flavour:
    """What differs between the format versions the installed Genesis may write."""

    prefix: str
    magic: bytes
    modes: tuple[str, ...]

    def options(self, gs: Any, name: str, mode: str, **extra: Any) -> Any:
        """Return the ``TrajectoryFile`` options recording ``name`` in ``mode``."""
        if self.prefix == "v4":
            extra["mode"] = mode
        else:
            extra["exact"] = mode == "exact"
        return gs.recorders.TrajectoryFile(filename=name, **extra)


FLAVOURS = {
    b"GSTRAJ4\n": Flavour("v4", b"GSTRAJ4\n", ("exact", "minimal")),
    b"GSTRAJ1\n": Flavour("v1", b"GSTRAJ1\n", ("exact", "compressed")),
}


@dataclass(frozen=True)
class Record:
    """One record of a trajectory file: its tag and where it starts and ends."""

    tag: str
    start: int
    payload: int
    end: int

    @property
    def middle(self) -> int:
        """Return the offset of the middle of the payload."""
        return (self.payload + self.end) // 2


@dataclass
class Run:
    """The Genesis modules and the output of one run."""

    gs: Any
    torch: Any
    traj: Any
    flavour: Flavour
    out: Path

    def name(self, stem: str) -> str:
        """Return the file name of ``stem`` for this format version."""
        return f"{self.flavour.prefix}_{stem}.gstraj"


def walk_records(data: bytes) -> tuple[int, list[Record]]:
    """Return the end of the header and every complete record of a whole file."""
    offset = MAGIC_SIZE
    for _ in range(2):  # the manifest, then the scene description
        (length,) = LENGTH.unpack_from(data, offset)
        offset += LENGTH.size + length
    header_end = offset
    records = []
    while offset + TAG_SIZE <= len(data):
        tag = data[offset : offset + TAG_SIZE]
        if tag not in RECORD_HEADERS:
            break
        header, length_index = RECORD_HEADERS[tag]
        payload = offset + TAG_SIZE + header.size
        end = payload + header.unpack_from(data, offset + TAG_SIZE)[length_index]
        records.append(Record(tag.decode(), offset, payload, end))
        offset = end
    return header_end, records


@dataclass(frozen=True)
class Damage:
    """How a copy is damaged: cut at ``offset``, or one byte there replaced."""

    kind: str  # "truncate", "invert_byte" (all its bits) or "version_9"
    offset: int

    def apply(self, data: bytes) -> bytes:
        """Return the damaged copy of ``data``."""
        if self.kind == "truncate":
            return data[: self.offset]
        byte = data[self.offset] ^ 0xFF if self.kind == "invert_byte" else ord("9")
        return data[: self.offset] + bytes([byte]) + data[self.offset + 1 :]


def damages(data: bytes) -> dict[str, Damage]:
    """Return the crash cuts and corruptions of a whole recording, by suffix."""
    header_end, records = walk_records(data)
    (manifest_length,) = LENGTH.unpack_from(data, MAGIC_SIZE)
    chunks = [record for record in records if record.tag == "CHNK"]
    chunk = chunks[len(chunks) // 2]
    last = records[-1]
    cuts = {
        "cut_header": MAGIC_SIZE + LENGTH.size + manifest_length // 2,
        "cut_no_records": header_end,
        "cut_first_chunk": chunks[0].middle,
        "cut_chunk_header": chunk.start + TAG_SIZE + 6,
        "cut_mid_chunk": chunk.middle,
        "cut_after_chunk": chunk.end,
        "cut_before_last": last.start,
        "cut_mid_last": last.middle,
    }
    infos = [record for record in records if record.tag == "INFO"]
    if len(infos) > 1:
        cuts["cut_mid_info"] = infos[1].middle
    found = {suffix: Damage("truncate", offset) for suffix, offset in cuts.items()}
    found["flip_chunk"] = Damage("invert_byte", chunk.middle)
    found["flip_last"] = Damage("invert_byte", last.middle)
    found["bad_magic"] = Damage("version_9", MAGIC_SIZE - 2)
    return found


def _record(
    run: Run, scene: Any, stems: Sequence[str], chunk_size: int, hz: float | None
) -> list[str]:
    """Add one recorder per stem, each in its own mode (the stem's last word)."""
    names = []
    extra: dict[str, Any] = {"chunk_size": chunk_size}
    if hz is not None:
        extra["hz"] = hz
    for stem in stems:
        name = run.name(stem)
        mode = stem.rsplit("_", 1)[1]
        scene.start_recording(run.flavour.options(run.gs, name, mode, **extra))
        names.append(name)
    return names


def record_box(run: Run) -> tuple[Any, list[str]]:
    """Drop a tilted box on a plane; save a checkpoint half-way."""
    gs = run.gs
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=DT), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    scene.add_entity(
        gs.morphs.Box(size=(0.1, 0.08, 0.06), pos=(0.0, 0.0, 0.25), euler=(20, 30, 0))
    )
    modes = run.flavour.modes
    names = _record(run, scene, [f"box_{mode}" for mode in modes], 8, None)
    names += _record(run, scene, [f"box_every2_{modes[0]}"], 4, 1.0 / (2 * DT))
    scene.build()
    checkpoint = run.name("box_checkpoint")
    for i_step in range(40):
        if i_step == 20:
            scene.save_checkpoint(checkpoint)
        scene.step()
    scene.stop_recording()
    return scene, [*names, checkpoint]


def _swing_arm(scene: Any, arm: Any) -> None:
    """Build ``scene``, drive ``arm`` 20 steps along a sine around its start pose.

    The recording stops after the last step.
    """
    scene.build()
    start = arm.get_dofs_position()
    for i_step in range(20):
        arm.control_dofs_position(start + 0.4 * math.sin(0.25 * i_step))
        scene.step()
    scene.stop_recording()


def record_arm(run: Run) -> tuple[Any, list[str]]:
    """Drive the Franka arm Genesis ships along a sine around its start pose."""
    gs = run.gs
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=DT), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    # Without its visual meshes the scene description stays small (collision
    # meshes only): with them it holds megabytes.
    arm = scene.add_entity(gs.morphs.MJCF(file=PANDA, visualization=False))
    modes = run.flavour.modes
    names = _record(run, scene, [f"arm_{mode}" for mode in modes], 8, None)
    _swing_arm(scene, arm)
    return scene, names


def record_arm_visual(run: Run) -> tuple[Any, list[str]]:
    """Drive the Franka arm as ``record_arm`` does, its visual meshes loaded.

    As a user loads it (``visualization`` left on): the scene description then
    holds the visual meshes (about 135,000 triangles, 4.7 MB). Recorded in the
    first mode alone (exact), with MuJoCo's own placement of every geom of the
    same MJCF at the recorded joint positions stored beside it
    (``expected/<stem>_mujoco.npz``, see ``store_mujoco_reference``).
    """
    gs = run.gs
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=DT), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    arm = scene.add_entity(gs.morphs.MJCF(file=PANDA))
    names = _record(run, scene, [f"arm_visual_{run.flavour.modes[0]}"], 8, None)
    _swing_arm(scene, arm)
    store_mujoco_reference(run, names[0], scene)
    return scene, names


def _names(model: Any, kind: Any, count: int) -> np.ndarray:
    """Return the names of ``count`` MuJoCo objects of ``kind`` as JSON bytes."""
    mujoco = importlib.import_module("mujoco")
    found = [mujoco.mj_id2name(model, kind, i) or "" for i in range(count)]
    return np.frombuffer(json.dumps(found).encode(), np.uint8)


def store_mujoco_reference(run: Run, name: str, scene: Any) -> None:
    """Store where MuJoCo places every body and geom of the arm, frame by frame.

    MuJoCo compiles Genesis's own copy of ``PANDA``, takes the joint positions
    Genesis's reader returns for each frame of ``name``
    (``RigidSolver.rigid_info.qpos``: the plane has none, so they are the
    arm's nine in MJCF order) and runs its forward kinematics. The table holds
    ``qpos`` (frames x nq), the world poses ``body_xpos`` / ``body_xquat`` and
    ``geom_xpos`` / ``geom_xquat`` (quaternions ``w x y z``), and per geom
    its body, type, group, ``contype``, ``conaffinity``, size and mesh name,
    which tell Genesis's collision geoms (``contype`` or ``conaffinity`` set)
    from its visual ones, in the order Genesis parses them.
    """
    mujoco = importlib.import_module("mujoco")
    model = mujoco.MjModel.from_xml_path(
        str(Path(run.gs.utils.get_assets_dir()) / PANDA)
    )
    data = mujoco.MjData(model)
    trajectory = run.traj.Trajectory(name, scene=scene)
    qpos = np.stack(
        [
            _to_array(trajectory.frame(i)["RigidSolver.rigid_info.qpos"])[:, 0]
            for i in range(len(trajectory))
        ]
    ).astype(np.float64)
    poses: dict[str, list[np.ndarray]] = {
        key: [] for key in ("body_xpos", "body_xquat", "geom_xpos", "geom_xquat")
    }
    for row in qpos:
        data.qpos[:] = row
        mujoco.mj_kinematics(model, data)
        quats = np.zeros((model.ngeom, 4))
        for geom in range(model.ngeom):
            mujoco.mju_mat2Quat(quats[geom], data.geom_xmat[geom])
        poses["body_xpos"].append(data.xpos.copy())
        poses["body_xquat"].append(data.xquat.copy())
        poses["geom_xpos"].append(data.geom_xpos.copy())
        poses["geom_xquat"].append(quats)
    obj = mujoco.mjtObj
    mesh_names = _names(model, obj.mjOBJ_MESH, model.nmesh)
    meshes = json.loads(mesh_names.tobytes())
    geom_mesh = [
        meshes[index] if index >= 0 else "" for index in model.geom_dataid.tolist()
    ]
    savez: Callable[..., None] = np.savez_compressed
    savez(
        run.out / EXPECTED_DIR / f"{Path(name).stem}_mujoco.npz",
        qpos=qpos,
        **{key: np.stack(value) for key, value in poses.items()},
        body_names=_names(model, obj.mjOBJ_BODY, model.nbody),
        geom_body=model.geom_bodyid.copy(),
        geom_type=model.geom_type.copy(),
        geom_group=model.geom_group.copy(),
        geom_contype=model.geom_contype.copy(),
        geom_conaffinity=model.geom_conaffinity.copy(),
        geom_size=model.geom_size.copy(),
        geom_mesh=np.frombuffer(json.dumps(geom_mesh).encode(), np.uint8),
        mujoco_version=np.frombuffer(mujoco.__version__.encode(), np.uint8),
    )


def record_batch(run: Run) -> tuple[Any, list[str]]:
    """Step three environments apart: own heights, gravity, and a reset of one."""
    gs, torch = run.gs, run.torch
    scene = gs.Scene(sim_options=gs.options.SimOptions(dt=DT), show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    box = scene.add_entity(gs.morphs.Box(size=(0.1, 0.1, 0.1), pos=(0.0, 0.0, 0.3)))
    scene.add_entity(gs.morphs.Sphere(radius=0.05, pos=(0.2, 0.0, 0.15)))
    modes = run.flavour.modes
    names = _record(run, scene, [f"batch_{mode}" for mode in modes], 8, None)
    scene.build(n_envs=3, env_spacing=(0.5, 0.5))
    heights = torch.tensor([[0.0, 0.0, 0.2], [0.0, 0.0, 0.3], [0.0, 0.0, 0.4]])
    box.set_pos(heights)
    for i_step in range(30):
        if i_step == 12:  # a model parameter: a record of its own in GSTRAJ4
            scene.sim.rigid_solver.set_gravity((0.0, 0.0, -4.0), envs_idx=[2])
        if i_step == 20:  # environment 1 starts over: its step count drops to 0
            scene.reset(envs_idx=[1])
        scene.step()
    scene.stop_recording()
    return scene, names


def _to_array(value: Any) -> np.ndarray:
    """Return a copy of a Genesis value as a numpy array (torch tensors included)."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.array(value)


def _frame_selection(n_frames: int, frame_bytes: int) -> list[int]:
    """Return the frames a table keeps: all of a small file, else a spread."""
    if n_frames * frame_bytes <= ALL_FRAMES_BYTES:
        return list(range(n_frames))
    picks = {0, 1, n_frames // 4, n_frames // 2, 3 * n_frames // 4, n_frames - 2}
    return sorted({pick for pick in picks if 0 <= pick < n_frames} | {n_frames - 1})


def _mode(trajectory: Any) -> str:
    """Return the recording mode as the file's own version names it."""
    if hasattr(trajectory, "mode"):
        return str(trajectory.mode)
    return "exact" if trajectory.is_exact else "compressed"


def _per_frame(run: Run, trajectory: Any, arrays: dict[str, np.ndarray]) -> None:
    """Store the step counts, times (and wall timings) of every frame."""
    steps_field = run.traj.STEPS_FIELD
    n_frames = len(trajectory)
    arrays["steps"] = np.stack(
        [_to_array(trajectory.frame(i)[steps_field]) for i in range(n_frames)]
    )
    arrays["time"] = np.stack([_to_array(trajectory.time(i)) for i in range(n_frames)])
    if hasattr(trajectory, "timings"):
        rows = [trajectory.timings(i) for i in range(n_frames)]
        for phase in rows[0]:
            arrays[f"timings/{phase}"] = np.array([row[phase] for row in rows])


def _summary(trajectory: Any, frames: list[int]) -> dict[str, Any]:
    """Return what the index says of a file Genesis opened."""
    manifest = trajectory._manifest
    return {
        "n_frames": len(trajectory),
        "mode": _mode(trajectory),
        "n_envs": int(trajectory.n_envs),
        "chunk_frame_ends": [int(end) for end in trajectory._chunk_ends],
        "has_last": trajectory._last_offset is not None,
        "info_frames": [int(i) for i in getattr(trajectory, "_info_frames", [])],
        "dt": manifest["dt"],
        "chunk_size": manifest["chunk_size"],
        "layout": manifest["layout"],
        "frames_stored": frames,
    }


def pack(frames: list[dict[str, np.ndarray]]) -> tuple[np.ndarray, list[Any]]:
    """Pack frames of the same fields into rows of bytes; return them and the layout.

    Each field's value lies in its row as its C-order bytes at ``start``; a
    layout row is ``[name, dtype, shape, start, nbytes]``.
    """
    layout: list[Any] = []
    start = 0
    for field, value in frames[0].items():
        layout.append([field, value.dtype.str, list(value.shape), start, value.nbytes])
        start += value.nbytes
    rows = np.zeros((len(frames), start), dtype=np.uint8)
    for row, values in zip(rows, frames, strict=True):
        for field, _, _, begin, nbytes in layout:
            flat = np.ascontiguousarray(values[field]).reshape(-1)
            row[begin : begin + nbytes] = flat.view(np.uint8)
    return rows, layout


def _frames(
    trajectory: Any, frames: list[int], has_last: bool, arrays: dict[str, np.ndarray]
) -> None:
    """Store the fields of the chosen frames, packed (see ``pack``).

    ``frames_data`` holds the chunk frames listed in ``frames_index``, and
    ``last_data`` the LAST record; ``layout_json`` lays both out.
    """
    last = len(trajectory) - 1 if has_last else None
    chunk_frames = [index for index in frames if index != last]
    arrays["frames_index"] = np.array(chunk_frames, dtype=np.int64)
    layouts: dict[str, Any] = {}
    groups = {"frames": chunk_frames, "last": [] if last is None else [last]}
    for group, indices in groups.items():
        if indices:
            values = [
                {
                    field: _to_array(value)
                    for field, value in trajectory.frame(i).items()
                }
                for i in indices
            ]
            arrays[f"{group}_data"], layouts[group] = pack(values)
    arrays["layout_json"] = np.frombuffer(json.dumps(layouts).encode(), np.uint8)


def _bits(value: Any) -> tuple[str, tuple[int, ...], bytes]:
    """Return what a value is bit for bit, so that NaN (an untimed phase) is equal."""
    array = _to_array(value)
    return array.dtype.str, array.shape, array.tobytes()


def _equal_frames(trajectory: Any, source: Any) -> bool:
    """Tell whether every frame of ``trajectory`` is that of ``source``."""
    for index in range(len(trajectory)):
        mine, theirs = trajectory.frame(index), source.frame(index)
        if mine.keys() != theirs.keys():
            return False
        if any(_bits(value) != _bits(theirs[field]) for field, value in mine.items()):
            return False
    return True


def read_back(run: Run, name: str, scene: Any, source: str = "") -> dict[str, Any]:
    """Open ``name`` with Genesis's reader and return its index entry.

    An intact file also gets its table; a damaged copy of ``source`` is compared
    with it frame by frame instead.
    """
    entry: dict[str, Any] = {"size": (run.out / name).stat().st_size}
    arrays: dict[str, np.ndarray] = {}
    try:
        trajectory = run.traj.Trajectory(name, scene=scene)
    # Whatever Genesis raises on a damaged file is the expected outcome itself.
    except Exception as exc:  # noqa: BLE001
        entry["error"] = {"type": type(exc).__name__, "message": str(exc)}
        return entry
    frame_bytes = int(trajectory._manifest.get("frame_size", 0)) or sum(
        row[5] for row in trajectory._manifest["fields"]
    )
    frames = _frame_selection(len(trajectory), frame_bytes)
    entry.update(_summary(trajectory, [] if source else frames))
    _per_frame(run, trajectory, arrays)
    entry["steps"] = arrays["steps"].tolist()
    if source:
        original = run.traj.Trajectory(source, scene=scene)
        entry["frames_equal_source"] = _equal_frames(trajectory, original)
        return entry
    manifest = json.dumps(trajectory._manifest).encode()
    arrays["manifest_json"] = np.frombuffer(manifest, dtype=np.uint8)
    _frames(trajectory, frames, entry["has_last"], arrays)
    table = Path(EXPECTED_DIR) / f"{Path(name).stem}.npz"
    # Named arrays only: no key of a table is one of numpy's own keywords.
    savez: Callable[..., None] = np.savez_compressed
    savez(run.out / table, **arrays)
    entry["table"] = table.as_posix()
    return entry


def _damage(
    run: Run, source: str, suffixes: tuple[str, ...]
) -> Iterator[tuple[str, Damage]]:
    """Write the damaged copies of ``source`` (all, or ``suffixes``)."""
    data = (run.out / source).read_bytes()
    for suffix, damage in damages(data).items():
        if suffixes and suffix not in suffixes:
            continue
        name = f"{Path(source).stem}_{suffix}.gstraj"
        (run.out / name).write_bytes(damage.apply(data))
        yield name, damage


def _versions(run: Run) -> dict[str, str]:
    """Return the versions of everything that wrote and read the files."""
    versions = {
        "format": run.flavour.magic.decode().strip(),
        "genesis-world": run.gs.__version__,
        "torch": run.torch.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "backend": "cpu",
    }
    with contextlib.suppress(ImportError):
        versions["zstandard"] = importlib.import_module("zstandard").__version__
    return versions


def _load_index(path: Path, prefix: str, keep: bool) -> dict[str, Any]:
    """Return the index with the entries of format version ``prefix`` left out.

    With ``keep`` (a run of some scenes alone) every entry stays; those of the
    files written are replaced.
    """
    index: dict[str, Any] = {"writers": {}, "files": {}}
    if path.exists():
        index = json.loads(path.read_text(encoding="utf-8"))
    if keep:
        return index
    index["writers"].pop(prefix, None)
    index["files"] = {
        name: entry
        for name, entry in index["files"].items()
        if not name.startswith(f"{prefix}_")
    }
    return index


# The damaged copies kept as files (the others are described in the index
# alone, for a test to make from their source): the folder stays small.
STORED_DAMAGES = (
    "cut_first_chunk",
    "cut_mid_chunk",
    "cut_after_chunk",
    "cut_before_last",
    "flip_chunk",
    "bad_magic",
    "cut_mid_info",
)
# Each scene, the recording whose damaged copies follow it (none if empty) and
# which copies (all if empty).
SCENES: tuple[
    tuple[Callable[[Run], tuple[Any, list[str]]], str, tuple[str, ...]], ...
] = (
    (record_box, "box_exact", ()),
    (record_arm, "", ()),
    (record_batch, "batch_exact", ("cut_mid_info",)),
    (record_arm_visual, "", ()),
)


def scene_name(record: Callable[[Run], tuple[Any, list[str]]]) -> str:
    """Return the name ``--scene`` gives a scene: ``box``, ``arm_visual`` ..."""
    return record.__name__.removeprefix("record_")


def generate(run: Run, only: Sequence[str] = ()) -> dict[str, Any]:
    """Record every scene (or those named in ``only``), damage copies.

    Return the index entries of the files written.
    """
    files: dict[str, Any] = {}
    for record, damaged_stem, suffixes in SCENES:
        if only and scene_name(record) not in only:
            continue
        scene, names = record(run)
        for name in names:
            files[name] = read_back(run, name, scene)
            files[name]["source"] = record.__name__
        if not damaged_stem:
            continue
        source = run.name(damaged_stem)
        for name, damage in _damage(run, source, suffixes):
            files[name] = read_back(run, name, scene, source)
            files[name]["source"] = source
            files[name]["damage"] = {"kind": damage.kind, "offset": damage.offset}
            files[name]["stored"] = Path(name).stem.endswith(STORED_DAMAGES)
            if not files[name]["stored"]:
                (run.out / name).unlink()
    return files


def _load_genesis() -> tuple[Any, Any, Any, Flavour]:
    """Import Genesis on the CPU backend; return its modules and the flavour."""
    gs = importlib.import_module("genesis")
    torch = importlib.import_module("torch")
    traj = importlib.import_module("genesis.recorders.trajectory")
    flavour = FLAVOURS.get(traj.MAGIC)
    if flavour is None:
        raise SystemExit(f"unknown trajectory format {traj.MAGIC!r}")
    gs.init(backend=gs.cpu, logging_level="warning", seed=0)
    return gs, torch, traj, flavour


def main(argv: Sequence[str] | None = None) -> int:
    """Record the files of the installed Genesis's format version; return 0."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--scene",
        action="append",
        choices=[scene_name(record) for record, _, _ in SCENES],
        help="record this scene alone (repeatable); the other files stay",
    )
    args = parser.parse_args(argv)
    only = tuple(args.scene or ())
    out = args.output.resolve()
    (out / EXPECTED_DIR).mkdir(parents=True, exist_ok=True)
    gs, torch, traj, flavour = _load_genesis()
    run = Run(gs, torch, traj, flavour, out)
    if not only:
        for stale in out.glob(f"{flavour.prefix}_*.gstraj"):
            stale.unlink()
        for stale in (out / EXPECTED_DIR).glob(f"{flavour.prefix}_*.npz"):
            stale.unlink()
    # Genesis names the file it read in its messages: bare names keep them short.
    os.chdir(out)
    files = generate(run, only)
    index_path = out / EXPECTED_DIR / INDEX_NAME
    index = _load_index(index_path, flavour.prefix, keep=bool(only))
    index["writers"][flavour.prefix] = _versions(run)
    index["files"].update(files)
    index["files"] = dict(sorted(index["files"].items()))
    index["writers"] = dict(sorted(index["writers"].items()))
    text = json.dumps(index, indent=1, sort_keys=False)
    index_path.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {len(files)} files for {flavour.magic!r} into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
