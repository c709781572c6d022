"""The command line over HDF5 datasets: episodes convert, verify, export, batch.

Uses the robosuite file and the ALOHA files of ``tests/data/hdf5``
(``tools/make_hdf5_data.py``); a copy without the demos' ``model_file``
keeps the batch runs from compiling the robot's meshes in every worker.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import av
import h5py
import numpy as np
import pytest

from app.cli import main
from app.headless.batch.items import Verb
from app.headless.batch.plan import plan_items
from fsr_core.sources import open_recording

DATA = Path(__file__).resolve().parents[1] / "data" / "hdf5"
LIFT = DATA / "lift.hdf5"


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


@pytest.fixture(scope="module")
def takes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a folder with the robosuite demos (no model_file) and ALOHA files."""
    folder = tmp_path_factory.mktemp("takes")
    lift = folder / "lift.hdf5"
    shutil.copyfile(LIFT, lift)
    with h5py.File(lift, "r+") as handle:
        for demo in handle["data"].values():
            del demo.attrs["model_file"]
    shutil.copyfile(DATA / "aloha" / "episode_0.hdf5", folder / "aloha_0.hdf5")
    return folder


def test_convert_an_episode(tmp_path: Path, takes: Path) -> None:
    out = tmp_path / "run.fsr"
    lift = str(takes / "lift.hdf5")
    assert main(["convert", lift, "--episode", "2", "-o", str(out)]) == 0
    converted = open_recording(out)
    with h5py.File(LIFT, "r", locking=False) as handle:
        actions = handle["data/demo_2/actions"][()]
    np.testing.assert_array_equal(converted.channels["actions"].values, actions)


def test_verify_names_the_bad_episode_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "lift.hdf5"
    shutil.copyfile(LIFT, bad)
    with h5py.File(bad, "r+") as handle:
        states = handle["data/demo_3/states"][()]
        states[5, 2] = np.inf
        handle["data/demo_3/states"][...] = states
    assert main(["inspect", "--verify", str(bad)]) == 1
    line = _one_error_line(capsys)
    assert line == (
        f"fsr-viewer: {bad}: episode 3 (demo_3): states holds 1 values that are "
        "not finite (the first in row 5)"
    )


def test_verify_checks_each_demo_of_an_intact_file(
    takes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The file stands for its demos: each is opened and checked, the file
    # itself (which opens as none of them) is not.
    lift = str(takes / "lift.hdf5")
    assert main(["inspect", "--verify", "--json", lift]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is True
    assert report["checks"] == []


@pytest.mark.parametrize("cut_at", [0.05, 0.5])
def test_a_cut_file_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cut_at: float
) -> None:
    cut = tmp_path / "cut.hdf5"
    cut.write_bytes(LIFT.read_bytes()[: int(LIFT.stat().st_size * cut_at)])
    assert main(["inspect", str(cut)]) == 1
    assert str(cut) in _one_error_line(capsys)


def test_export_an_episode_video(tmp_path: Path, takes: Path) -> None:
    out = tmp_path / "aloha.mp4"
    aloha = str(takes / "aloha_0.hdf5")
    assert main([aloha, "--export", str(out), "--size", "64x48"]) == 0
    with av.open(str(out)) as container:
        frames = sum(1 for _ in container.decode(video=0))
    assert frames >= 20  # 40 steps at 50 Hz, 0.78 s at 30 fps


def test_every_batch_verb_takes_each_episode(tmp_path: Path, takes: Path) -> None:
    lift = takes / "lift.hdf5"
    episodes = [lift / f"episode_{n:06d}" for n in (1, 2, 3)]
    for verb in Verb:
        for given in ([takes], [lift]):
            items = plan_items(verb, given, out_dir=tmp_path, suffix=".fsr")
            assert [item.input for item in items][-3:] == episodes, verb
    items = plan_items(Verb.CONVERT, [takes], out_dir=tmp_path, suffix=".fsr")
    assert [item.output.name for item in items if item.output] == [
        "aloha_0.fsr",
        "lift_episode_000001.fsr",
        "lift_episode_000002.fsr",
        "lift_episode_000003.fsr",
    ]
