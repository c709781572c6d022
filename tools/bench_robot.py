"""Benchmark robot models: forward kinematics over a take, and loading a URDF.

Measured against the libraries' own per-frame calls, in the same run:

* **Forward kinematics.** Every link's pose for N frames (default 10,000) of
  a 7-DoF arm: :func:`fsr_core.robots.link_transforms` over all frames at
  once against yourdfpy's ``update_cfg`` + ``get_transform`` per frame (the
  URDF), and against MuJoCo's ``mj_kinematics`` per frame (the MJCF). The
  target is at least 20x faster than the per-frame library call.
* **Loading.** Reading the Franka URDF with its meshes cold (the mesh cache
  emptied) against trimesh loading the same mesh files alone. The target is
  at most 1.5x; a second load of the same file is served from the cache.

Run: ``.venv/bin/python tools/bench_robot.py [--frames N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import times
from fsr_core.robots import RobotModel, link_transforms, load_robot
from fsr_core.robots import meshes as robot_meshes

_DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "robots"
URDF = _DATA / "franka_panda" / "panda.urdf"
MJCF = _DATA / "franka_sim" / "franka_panda.xml"
FK_TARGET = 20.0
LOAD_TARGET = 1.5


def _best(run: Callable[[], object], repeats: int) -> float:
    """Return the fastest of ``repeats`` runs, in seconds (the least disturbed)."""
    return min(times(run, repeats))


def _configurations(robot: RobotModel, frames: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    low = np.array(
        [j.lower if j.lower is not None else -np.pi for j in robot.moving_joints]
    )
    high = np.array(
        [j.upper if j.upper is not None else np.pi for j in robot.moving_joints]
    )
    return rng.uniform(low, high, size=(frames, len(low)))


def _yourdfpy_per_frame(
    values: np.ndarray, names: list[str], links: list[str]
) -> float:
    import yourdfpy

    urdf = yourdfpy.URDF.load(str(URDF), load_meshes=False)
    order = [urdf.actuated_joint_names.index(name) for name in names]

    def run() -> None:
        for row in values:
            config = np.zeros(len(urdf.actuated_joint_names))
            config[order] = row
            urdf.update_cfg(config)
            for link in links:
                urdf.get_transform(link)

    return _best(run, 1)


def _mujoco_per_frame(values: np.ndarray) -> float:
    import mujoco

    model = mujoco.MjModel.from_xml_path(str(MJCF))
    data = mujoco.MjData(model)
    count = values.shape[1]

    def run() -> None:
        for row in values:
            data.qpos[:count] = row
            mujoco.mj_kinematics(model, data)

    return _best(run, 3)


def _forward_kinematics(frames: int) -> dict[str, Any]:
    urdf = load_robot(URDF)
    arm = [j.name for j in urdf.moving_joints]
    values = _configurations(urdf, frames)
    ours = _best(lambda: link_transforms(urdf, values), 5)
    library = _yourdfpy_per_frame(values, arm, list(urdf.links))
    mjcf = load_robot(MJCF)
    mj_values = _configurations(mjcf, frames)
    ours_mj = _best(lambda: link_transforms(mjcf, mj_values), 5)
    library_mj = _mujoco_per_frame(mj_values)
    return {
        "frames": frames,
        "urdf": {
            "joints": len(arm),
            "links": len(urdf.links),
            "ours_ms": 1e3 * ours,
            "yourdfpy_per_frame_ms": 1e3 * library,
            "speedup": library / ours,
        },
        "mjcf": {
            "joints": len(mjcf.moving_joints),
            "links": len(mjcf.links),
            "ours_ms": 1e3 * ours_mj,
            "mujoco_per_frame_ms": 1e3 * library_mj,
            "speedup": library_mj / ours_mj,
        },
    }


def _mesh_files(robot: RobotModel) -> list[Path]:
    from fsr_core.robots.resource_paths import ResourceRoots

    roots = ResourceRoots.for_description(URDF, environ={})
    text = URDF.read_text()
    found = []
    for chunk in text.split('filename="')[1:]:
        path = roots.resolve(chunk.split('"', 1)[0])
        if path is not None and "collision" not in str(path):
            found.append(path)
    return found


def _loading() -> dict[str, Any]:
    import trimesh

    def cold() -> RobotModel:
        robot_meshes._cache.clear()
        return load_robot(URDF)

    robot = cold()
    files = _mesh_files(robot)
    ours = statistics.median(_best(cold, 1) for _ in range(3))
    alone = statistics.median(
        _best(lambda: [trimesh.load_scene(str(path)).dump() for path in files], 1)
        for _ in range(3)
    )
    cached = _best(lambda: load_robot(URDF), 3)
    return {
        "mesh_files": len(files),
        "triangles": robot.triangles,
        "ours_cold_s": ours,
        "trimesh_alone_s": alone,
        "ratio": ours / alone,
        "ours_cached_s": cached,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = {
        "forward_kinematics": _forward_kinematics(args.frames),
        "load": _loading(),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    fk, load = figures["forward_kinematics"], figures["load"]
    print(f"forward kinematics, {fk['frames']:,} frames:")
    for kind, library in (
        ("urdf", "yourdfpy_per_frame_ms"),
        ("mjcf", "mujoco_per_frame_ms"),
    ):
        row = fk[kind]
        print(
            f"  {kind}: {row['joints']} joints, {row['links']} links: ours "
            f"{row['ours_ms']:.1f} ms, {library.split('_')[0]} per frame "
            f"{row[library]:.1f} ms: {row['speedup']:.0f}x (target >= {FK_TARGET:.0f}x)"
        )
    print(
        f"loading the URDF with {load['mesh_files']} mesh files "
        f"({load['triangles']:,} triangles): ours {load['ours_cold_s']:.3f} s cold, "
        f"trimesh alone {load['trimesh_alone_s']:.3f} s: {load['ratio']:.2f}x "
        f"(target <= {LOAD_TARGET}x); cached {1e3 * load['ours_cached_s']:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
