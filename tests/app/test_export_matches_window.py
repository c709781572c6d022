"""Exported frames are the window's own drawing; a killed export leaves no file.

Frames taken out of an exported MP4 and GIF are compared with the player
window's scene view at the same play time; an export killed half-way (SIGKILL,
no cleanup possible) leaves nothing under the final name.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot
from shown_widgets import ini_settings, new_main_window, open_and_wait
from view_models import export_video_as

from app.canvas.qimage_arrays import qimage_to_rgb
from app.cli import main
from app.headless.export.atomic import partial_name
from app.headless.export.video import frame_times
from fsr_core.simulators.planar_arm.recorder import ExternalPush
from tests.app.conftest import record_short_take

pytestmark = pytest.mark.gui

SCENE_SIZE = (480, 400)


@pytest.fixture(scope="module")
def pushed_take(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record a short pushed take: the force arrow shows from 0.1 s to 0.4 s."""
    folder = tmp_path_factory.mktemp("pushed")
    return record_short_take(
        folder, "05_pushed", pushes=(ExternalPush(0.1, 0.4, (-18.0, 6.0)),)
    )


def _window_scene(qtbot: QtBot, tmp_path: Path, take: Path, at_s: float) -> QImage:
    """Return the window's scene view drawn at ``at_s``, as it is on screen."""
    window = new_main_window(ini_settings(tmp_path))
    qtbot.addWidget(window)
    window.scene_view.setFixedSize(*SCENE_SIZE)
    window.resize(1280, 800)
    window.show()
    open_and_wait(qtbot, window, take)
    window.session.clock.seek(at_s)
    scene = window.scene_view
    image = scene.grab().toImage()
    assert scene.painted_s == at_s
    window.close()
    return image


def _frame(path: Path, index: int) -> np.ndarray:
    with av.open(str(path)) as container:
        for number, frame in enumerate(container.decode(video=0)):
            if number == index:
                return frame.to_ndarray(format="rgb24").astype(int)
    raise AssertionError(f"{path} has no frame {index}")


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_an_exported_frame_is_the_window_scene_at_that_time(
    qtbot: QtBot, tmp_path: Path, pushed_take: Path, suffix: str, qapp: Any
) -> None:
    from fsr_core.sources import open_recording

    model = open_recording(pushed_take)
    out = tmp_path / f"pushed{suffix}"
    export_video_as(model, out, size=SCENE_SIZE)
    index = 9  # 0.3 s at 30 frames/s: the push arrow is drawn
    at_s = float(frame_times(model.duration_s, fps=30.0, speed=1.0)[index])

    window = qimage_to_rgb(_window_scene(qtbot, tmp_path, pushed_take, at_s))
    exported = _frame(out, index)

    assert exported.shape == window.shape == (SCENE_SIZE[1], SCENE_SIZE[0], 3)
    difference = np.abs(exported - window.astype(int))
    assert difference.mean() < 4.0
    # Not just a matching background: the arm and the red force arrow agree.
    reddish = (window[..., 0] > 180) & (window[..., 1] < 90) & (window[..., 2] < 90)
    assert reddish.sum() > 50
    assert difference[reddish].mean() < 40.0


def test_a_killed_export_leaves_nothing_under_the_final_name(
    pushed_take: Path, tmp_path: Path
) -> None:
    out = tmp_path / "killed.mp4"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    # A long, large export so that it is surely half-way when killed.
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app",
            str(pushed_take),
            "--export",
            str(out),
            "--fps",
            "240",
            "--speed",
            "0.05",
            "--size",
            "1600x1600",
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen = ""
    while seen.count(" frames") < 3:  # the progress bar moves: frames are written
        char = process.stderr.read(1)
        assert char, f"the export ended before it started: {seen}"
        seen += char
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    process.stderr.close()

    assert process.returncode == -signal.SIGKILL
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name == out.name] == []
    assert (tmp_path / partial_name(out)).exists()  # the killed export's leftover

    # Exporting the same file again replaces the dead export's partial file.
    assert main([str(pushed_take), "--export", str(out), "--end", "0.1"]) == 0
    assert out.is_file()
    assert not (tmp_path / partial_name(out)).exists()


def test_a_partial_file_of_a_running_export_is_never_taken_over(
    pushed_take: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "busy.mp4"
    staging = tmp_path / partial_name(out)
    with staging.open("wb") as busy:  # another export holds its lock
        fcntl.flock(busy.fileno(), fcntl.LOCK_EX)
        assert main([str(pushed_take), "--export", str(out), "--end", "0.1"]) == 1
    assert "another export is writing this file" in capsys.readouterr().err
    assert staging.exists()
    assert not out.exists()
