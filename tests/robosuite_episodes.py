"""A copy of ``lift.hdf5`` whose recorded states are what this robosuite steps to.

robosuite re-steps an episode's actions bit for bit on the build of MuJoCo
and numpy that recorded it; another build may differ in the last bit from
the first step. A test that needs the recording to be exactly reproducible
(a change diverging at its own step, an exact re-simulation) first
re-simulates the episode here and writes those states into its copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import h5py
from data_paths import TEST_DATA

from fsr_core.playlists.episodes import episode_path
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.sources import open_recording

LIFT = TEST_DATA / "hdf5" / "lift.hdf5"


def restepped_copy(folder: Path, episode: int) -> Path:
    """Copy ``lift.hdf5`` into ``folder`` with ``demo_<episode>`` re-stepped here."""
    copy = folder / "lift.hdf5"
    shutil.copyfile(LIFT, copy)
    baseline = folder / f"baseline_{episode}.fsr"
    options = ReplayOptions(mode=ReplayMode.RESIMULATE)
    replay_file(episode_path(LIFT, episode), baseline, options)
    stepped = open_recording(baseline).channels["states"].values
    baseline.unlink()
    with h5py.File(copy, "r+") as handle:
        states = handle[f"data/demo_{episode}/states"]
        if stepped.shape != states.shape:
            raise AssertionError(f"re-stepped {stepped.shape}, recorded {states.shape}")
        states[...] = stepped
    return copy
