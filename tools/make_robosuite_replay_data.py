r"""Replay episodes of ``tests/data/hdf5/lift.hdf5`` through robosuite, for tests.

The files of ``tests/data/robosuite`` are what the viewer's own robosuite
replay writes (``fsr-viewer replay``), robosuite 1.5.2 itself rebuilding the
``Lift`` environment from the episode's ``env_args`` and ``model_file``:

``lift_demo1_render.fsr``
    episode 1 re-rendered from its recorded states: the recorded cameras
    (``agentview``, ``robot0_eye_in_hand``) at the recorded 32x32;
``lift_demo2_resimulate.fsr``
    episode 2 re-simulated from its first state with its recorded actions.

robosuite runs in the Python ``FSR_VIEWER_ROBOSUITE_PYTHON`` names (or in this
one when the ``robosuite`` extra is installed here); this script runs in the
viewer's environment::

    FSR_VIEWER_ROBOSUITE_PYTHON=/work/venvs/robosuite/bin/python \
        .venv/bin/python tools/make_robosuite_replay_data.py --out tests/data/robosuite

A run replaces the two files (about 20 s on two cores). Each embeds the
episode's MJCF with the Panda's meshes as MuJoCo ``.msh`` (about 4.7 MB a
file); ``lift_demo1_render.fsr`` in ``tests/data`` was last written so, the
older ``lift_demo2_resimulate.fsr`` still embeds the MJCF alone.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fsr_core.playlists.episodes import episode_path
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions

REPO_ROOT = Path(__file__).resolve().parents[1]
LIFT = REPO_ROOT / "tests" / "data" / "hdf5" / "lift.hdf5"

RUNS = (
    ("lift_demo1_render.fsr", 1, ReplayMode.RENDER),
    ("lift_demo2_resimulate.fsr", 2, ReplayMode.RESIMULATE),
)


def main() -> None:
    """Write the replays named in :data:`RUNS` into ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, episode, mode in RUNS:
        result = replay_file(
            episode_path(LIFT, episode),
            args.out / name,
            ReplayOptions(mode=mode, overwrite=True),
        )
        print(f"{name}: {result.reason_code}; {result.message}")


if __name__ == "__main__":
    main()
