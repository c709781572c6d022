"""Benchmark the robosuite re-render against robosuite's own playback loop.

The episode: ``--episode`` (default 1) of ``--file`` (default
``tests/data/hdf5/lift.hdf5``, written by robosuite itself). Both sides
render the same camera (``--camera``, default ``agentview``) at the same
size (``--size``, default 128x128) for every recorded state, in the same run:

- **robosuite's loop** (what robomimic's ``playback_dataset.py`` and
  robosuite's ``playback_demonstrations_from_hdf5`` do): ``robosuite.make``,
  ``reset_from_xml_string`` of the episode's model, then per state
  ``set_state_from_flattened``, ``forward`` and ``sim.render``; nothing is
  written. Run in the Python robosuite runs in, timed there.
- **ours**: ``fsr-viewer replay FILE --episode N --mode render --set
  cameras=CAMERA --set size=WxH`` through :func:`replay_file`: the same loop
  in robosuite's Python, each image flipped right side up, handed over with
  its camera pose and state, compared with the recording and written as PNG
  into the FSR file, published atomically.

Printed: the environment build (``make`` + the model) and the frames per
second of the loop on each side (ours: from the first frame written to the
last, so the hand-over, the comparison and the PNG encoding count), the
ratio, and our whole replay's wall time. robosuite runs in the Python
``FSR_VIEWER_ROBOSUITE_PYTHON`` names, or in this one::

    FSR_VIEWER_ROBOSUITE_PYTHON=/work/venvs/robosuite/bin/python \
        .venv/bin/python tools/bench_robosuite_replay.py --rounds 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from fsr_core.playlists.episodes import episode_path
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.simulation.registry import get_adapter

REPO_ROOT = Path(__file__).resolve().parents[1]
LIFT = REPO_ROOT / "tests" / "data" / "hdf5" / "lift.hdf5"

# robosuite's playback loop, run in robosuite's Python: argv[1] is a JSON
# object with file, group, camera, width, height; one JSON line out.
PEER: Final = r"""
import json, os, sys, time
os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("PYOPENGL_PLATFORM", os.environ["MUJOCO_GL"])
job = json.loads(sys.argv[1])
started = time.perf_counter()
import h5py
import robosuite
with h5py.File(job["file"], "r") as handle:
    data = handle["data"]
    args = json.loads(data.attrs["env_args"])
    demo = data[job["group"]]
    states = demo["states"][()]
    xml = demo.attrs["model_file"]
kwargs = dict(args["env_kwargs"])
kwargs.update(has_renderer=False, has_offscreen_renderer=True,
              use_camera_obs=False, ignore_done=True)
kwargs.pop("camera_depths", None)
env = robosuite.make(args["env_name"], **kwargs)
env.reset()
env.reset_from_xml_string(env.edit_model_xml(xml))
env.sim.reset()
built = time.perf_counter()
for state in states:
    env.sim.set_state_from_flattened(state)
    env.sim.forward()
    env.sim.render(camera_name=job["camera"], width=job["width"],
                   height=job["height"])
done = time.perf_counter()
env.close()
print(json.dumps({"build_s": built - started, "loop_s": done - built,
                  "frames": len(states)}))
"""


def _peer(python: str, job: dict[str, Any]) -> dict[str, float]:
    done = subprocess.run(
        [python, "-c", PEER, json.dumps(job)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _ours(source: Path, out: Path, camera: str, size: str) -> tuple[float, float, int]:
    """Return (loop seconds from first to last frame, wall seconds, frames)."""
    stamps: list[float] = []
    options = ReplayOptions(
        mode=ReplayMode.RENDER, settings=(("cameras", camera), ("size", size))
    )
    started = time.perf_counter()
    result = replay_file(
        source, out, options, progress=lambda done, total: stamps.append(
            time.perf_counter()
        ),
    )  # fmt: skip
    wall = time.perf_counter() - started
    if result.reason_code != "REPLAY_COMPLETED":
        raise SystemExit(f"our replay failed: {result.message}")
    return stamps[-1] - stamps[0], wall, len(stamps)


def main(argv: list[str] | None = None) -> int:
    """Run both sides ``--rounds`` times; print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=LIFT)
    parser.add_argument("--episode", type=int, default=1)
    parser.add_argument("--camera", default="agentview")
    parser.add_argument("--size", default="128x128")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    reason = get_adapter("robosuite").unavailable_reason()
    if reason is not None:
        print(f"robosuite cannot run here: {reason}")
        return 1
    from fsr_core.simulators.robosuite.availability import Runtime, find_runtime

    runtime = find_runtime()
    assert isinstance(runtime, Runtime)
    python = runtime.python or sys.executable
    width, height = (int(v) for v in args.size.split("x"))
    job = {
        "file": str(args.file.resolve()),
        "group": f"demo_{args.episode}",
        "camera": args.camera,
        "width": width,
        "height": height,
    }
    peers, loops, walls = [], [], []
    frames = 0
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(args.rounds):
            peers.append(_peer(python, job))
            out = Path(scratch) / f"render{round_}.fsr"
            loop, wall, frames = _ours(
                episode_path(args.file, args.episode), out, args.camera, args.size
            )
            loops.append(loop)
            walls.append(wall)
    peer_fps = statistics.median(p["frames"] / p["loop_s"] for p in peers)
    peer_build = statistics.median(p["build_s"] for p in peers)
    ours_fps = statistics.median((frames - 1) / loop for loop in loops)
    print(
        f"{args.file.name} episode {args.episode}: {frames} states, {args.camera} "
        f"at {args.size}, {runtime.describe()}, median of {args.rounds}"
    )
    print(f"robosuite's loop: build {peer_build:.2f} s, {peer_fps:.1f} frames/s")
    print(
        f"ours (replay --mode render): {ours_fps:.1f} frames/s, whole replay "
        f"{statistics.median(walls):.2f} s"
    )
    print(f"ratio ours/robosuite frames/s: {ours_fps / peer_fps:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
