"""robosuite re-renders and re-simulates an episode of ``lift.hdf5``, for real.

robosuite 1.5.2 runs where ``FSR_VIEWER_ROBOSUITE_PYTHON`` names it (or in
this Python with the ``robosuite`` extra); the tests are skipped elsewhere
(``conftest.py``). A render of cameras the recording did not observe, at
another size; a re-simulation of an episode whose recorded action was
changed at one step, which diverges there and is said so by the replay, the
timeline channel and ``compare``; and the refusals that need robosuite to
answer.
"""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import h5py
import numpy as np
import pytest
from cli_output import assert_mentions, command_output
from data_paths import TEST_DATA
from robosuite_episodes import restepped_copy

from app.cli import main
from fsr_core.calibration import Calibration
from fsr_core.errors import ReplayError
from fsr_core.media import RGBFrame
from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import RecordingModel
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import (
    CancelToken,
    ReplayMode,
    ReplayOptions,
    ReplayResult,
)
from fsr_core.sources import open_recording

pytestmark = pytest.mark.robosuite

LIFT = TEST_DATA / "hdf5" / "lift.hdf5"
CHANGED_STEP = 10


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReplayResult]:
    """Episode 3 rendered by frontview and agentview at 64x48."""
    out = tmp_path_factory.mktemp("render") / "front.fsr"
    options = ReplayOptions(
        mode=ReplayMode.RENDER,
        settings=(("cameras", "frontview,agentview"), ("size", "64x48")),
    )
    return out, replay_file(episode_path(LIFT, 3), out, options)


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a copy of lift.hdf5 whose demo_2 action at CHANGED_STEP differs.

    Its recorded states are first those this robosuite and MuJoCo step the
    unchanged actions to: another build of the stack than the one that
    recorded the file may differ in the last bit from the first step, which
    would hide the step the change diverges at.
    """
    copy = restepped_copy(tmp_path_factory.mktemp("changed"), 2)
    with h5py.File(copy, "r+") as handle:
        actions = handle["data/demo_2/actions"]
        row = actions[CHANGED_STEP]
        row[:3] = -row[:3] + 0.5
        actions[CHANGED_STEP] = row
    return copy


@pytest.fixture(scope="module")
def diverged(changed: Path) -> tuple[Path, ReplayResult]:
    out = changed.parent / "resim.fsr"
    options = ReplayOptions(mode=ReplayMode.RESIMULATE)
    return out, replay_file(episode_path(changed, 2), out, options)


def test_any_camera_of_the_model_renders_at_a_chosen_size(
    rendered: tuple[Path, ReplayResult],
) -> None:
    out, result = rendered
    assert result.reason_code == "REPLAY_COMPLETED"
    assert result.message.startswith("EXACT: every restored state")
    model = open_recording(out)
    assert [track.name for track in model.cameras] == ["frontview", "agentview"]
    for track in model.cameras:
        frame, calibration = track.fetch(0)
        assert frame.pixels.shape == (48, 64, 3)
        assert calibration is not None
        assert calibration.profile.width == 64
    _, agentview = _camera_calibration(model, "agentview")
    assert agentview.profile.fy == pytest.approx(24 / math.tan(math.radians(22.5)))
    with h5py.File(LIFT, "r", locking=False) as handle:
        np.testing.assert_array_equal(
            model.channels["states"].values, handle["data/demo_3/states"][()]
        )


def _camera_calibration(
    model: RecordingModel, name: str
) -> tuple[RGBFrame, Calibration]:
    track = next(track for track in model.cameras if track.name == name)
    frame, calibration = track.fetch(0)
    assert calibration is not None
    return frame, calibration


def test_a_changed_action_diverges_at_its_step(
    diverged: tuple[Path, ReplayResult],
) -> None:
    out, result = diverged
    assert result.reason_code == "REPLAY_COMPLETED"
    # The action of step 10 moves the state of step 11 first; the component
    # named is the state entry that differs most there (a robot joint).
    assert re.match(
        rf"DIVERGES at step {CHANGED_STEP + 1} \(t=0\.55 s\) in "
        r"q(pos|vel)\.robot0_joint[1-7]: error ",
        result.message,
    ), result.message
    model = open_recording(out)
    errors = model.channels["state_error"].values[:, 0]
    assert np.all(errors[: CHANGED_STEP + 1] == 0.0)
    assert np.all(errors[CHANGED_STEP + 1 :] > 0.0)
    assert model.metadata["robosuite"]["state_names"][0] == "time"
    # The timeline marks where it first diverges, naming the component.
    marks = [m for m in model.markers if m.label.startswith("diverges: q")]
    assert [m.play_time_s for m in marks] == [(CHANGED_STEP + 1) / 20]


def test_compare_says_where_it_diverges(
    diverged: tuple[Path, ReplayResult],
    changed: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, _ = diverged
    argv = ["compare", str(changed), "--episode", "2", str(out), "--channels"]
    text = command_output(capsys, main, [*argv, "states"], code=1)
    assert_mentions(
        text, "DIVERGES: first in states", f"at {(CHANGED_STEP + 1) / 20:g} s"
    )


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ("size=64", "size: '64' is not WIDTHxHEIGHT"),
        ("size=5000x64", "width and height go from 8 to 4096"),
        ("cameras=,", "name at least one camera"),
        ("cameras=agent view", "is not a camera name"),
    ],
)
def test_bad_settings_are_refused_before_robosuite_starts(
    tmp_path: Path, setting: str, said: str
) -> None:
    name, value = setting.split("=", 1)
    options = ReplayOptions(mode=ReplayMode.RENDER, settings=((name, value),))
    out = tmp_path / "out.fsr"
    with pytest.raises(ReplayError, match=r"lift\.hdf5") as raised:
        replay_file(episode_path(LIFT, 1), out, options)
    assert said in str(raised.value)
    assert not out.exists()


def test_a_camera_the_model_lacks_is_named_with_those_it_has(tmp_path: Path) -> None:
    options = ReplayOptions(mode=ReplayMode.RENDER, settings=(("cameras", "topview"),))
    out = tmp_path / "out.fsr"
    with pytest.raises(ReplayError) as raised:
        replay_file(episode_path(LIFT, 1), out, options)
    assert_mentions(str(raised.value), "no camera topview", "agentview", "frontview")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_file_robosuite_cannot_replay_fails_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.hdf5"
    cut.write_bytes(LIFT.read_bytes()[:100_000])
    aloha = TEST_DATA / "hdf5" / "aloha" / "episode_0.hdf5"
    for source, said in (
        (cut, "cannot read the HDF5 file: Unable to synchronously open file"),
        (aloha, "no data group: a robosuite file holds data/demo_N"),
    ):
        out = tmp_path / "out.fsr"
        capsys.readouterr()
        assert main(["replay", str(source), "--mode", "render", "-o", str(out)]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, err
        assert_mentions(
            err, str(source), "simulator 'robosuite' cannot replay it", said
        )
        assert not out.exists()


def test_a_cancelled_replay_publishes_nothing(tmp_path: Path) -> None:
    cancel = CancelToken()

    def progress(done: int, total: int) -> None:
        if done == 3:
            cancel.cancel()

    out = tmp_path / "out.fsr"
    result = replay_file(
        episode_path(LIFT, 1),
        out,
        ReplayOptions(mode=ReplayMode.RESIMULATE),
        progress=progress,
        cancel=cancel,
    )
    assert result.reason_code == "REPLAY_CANCELLED"
    assert result.output is None
    assert list(tmp_path.iterdir()) == []


def test_the_output_is_never_its_own_source(tmp_path: Path) -> None:
    own = tmp_path / "lift.hdf5"
    shutil.copyfile(LIFT, own)
    options = ReplayOptions(mode=ReplayMode.RENDER, overwrite=True)
    with pytest.raises(ReplayError, match="the replay output is the source file"):
        replay_file(episode_path(own, 1), own, options)
    assert own.read_bytes() == LIFT.read_bytes()
