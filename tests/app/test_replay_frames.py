"""Camera frames in the window's comparison: a re-render, and a doctored frame.

A re-render of a planar-arm take whose camera runs at the render-state rate
(30 Hz) reproduces every frame; a copy whose one frame was altered (written
through the writer) must be found at that frame, by that many levels, in the
status bar, the comparison dock, the inspector and on the timeline.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot
from shown_widgets import open_and_wait
from window_replays import comparison_rows

from app.window.main_window import MainWindow
from app.window.replay import ComparisonReport
from app.window.replay.comparison_plots import CAMERA, CAMERA_SUFFIX, ComparisonPlots
from app.window.replay.window_replay import WindowReplay
from fsr_core.calibration import CalibrationProfile
from fsr_core.format.catalog import camera_streams, numeric_stream
from fsr_core.format.writer import FsrWriter
from fsr_core.media import RGBFrame
from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import record_run
from fsr_core.simulators.planar_arm.scenario import Scenario

pytestmark = pytest.mark.gui

_TIMEOUT_MS = 60_000
_RGB = "sensors.front.camera.rgb"
_ALTERED_TICK, _ALTERED_BY = 6, 40


def _replay(window: MainWindow) -> WindowReplay:
    return window.menus.replay


def _plots(window: MainWindow) -> ComparisonPlots:
    return _replay(window).presenter.dock.plots


def record_camera_take(path: Path) -> Path:
    """Record 0.3 s of the reach demo with an 80x60 camera at 30 Hz."""
    document = _take_documents()["01_reach"]
    camera = dict(document["cameras"][0])
    camera.update(width=80, height=60, rate_hz=30.0)
    document.update(duration_s=0.3, cameras=[camera])
    record_run(Scenario.from_json(document), path)
    return path


def write_frames(path: Path, altered_by: int = 0) -> Path:
    """Write 10 ticks of ``q`` and a 16x12 camera every 2 ticks (0.02 s).

    ``altered_by`` raises one pixel of the frame at tick 6 (0.06 s).
    """
    specs = [
        *camera_streams("front", width=16, height=12, codec="png"),
        numeric_stream("q", ("a",), "rad"),
    ]
    with FsrWriter(path, specs) as writer:
        writer.write(
            "sensors.front.camera.intrinsics",
            CalibrationProfile(16, 12, 14.0, 14.0, 8.0, 6.0),
            tick=0,
            sim_time_s=0.0,
        )
        for tick in range(10):
            writer.write("q", [tick * 0.1], tick=tick, sim_time_s=tick * 0.01)
            if tick % 2 == 0:
                pixels = np.full((12, 16, 3), 10 * tick, dtype=np.uint8)
                if tick == _ALTERED_TICK:
                    pixels[4, 5, 2] += altered_by
                writer.write(_RGB, RGBFrame(pixels), tick=tick, sim_time_s=tick * 0.01)
    return path


def test_a_rerender_with_identical_frames_says_so_in_the_window(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    source = record_camera_take(tmp_path / "reach.fsr")
    open_and_wait(qtbot, window, source)
    _replay(window).render_action.trigger()
    dialog = _replay(window).dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    assert dialog.pixel_tolerance_spin.value() == 0

    with qtbot.waitSignal(_replay(window).finished, timeout=_TIMEOUT_MS) as done:
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)

    report = done.args[0]
    assert isinstance(report, ComparisonReport)
    assert report.comparison is not None
    assert report.comparison.camera("front").exact
    said = "re-rendered frames are identical (9 frames, bit for bit)"
    assert said in window.status_label.text()
    assert comparison_rows(window)["verdict"] == said
    assert comparison_rows(window)["camera front"].startswith(
        "exact: 9 frames, max 0 levels"
    )
    assert window.timeline.divergence is None
    plots = _plots(window)
    assert plots.channel_combo.currentText() == f"front{CAMERA_SUFFIX}"
    assert plots.shown == (CAMERA, "front")
    assert plots.legend_names(plots.overlay_plot) == ["front largest", "front mean"]
    assert plots.error_title.startswith("no error")
    assert plots.divergence_positions() == []


def test_a_doctored_frame_is_marked_where_it_differs_and_by_how_much(
    qtbot: QtBot,
    window: MainWindow,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    take = write_frames(tmp_path / "take.fsr")
    doctored = write_frames(tmp_path / "doctored.fsr", altered_by=_ALTERED_BY)
    open_and_wait(qtbot, window, take)
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *_, **__: (str(doctored), "")
    )

    with qtbot.waitSignal(_replay(window).finished, timeout=_TIMEOUT_MS):
        _replay(window).compare_action.trigger()

    said = "frame differs from t=0.060 s in camera front (max 40 levels)"
    assert said in window.status_label.text()
    rows = comparison_rows(window)
    assert rows["verdict"] == said
    assert rows["camera front"].startswith("diverges: 5 frames, max 40 levels")
    assert rows["camera front"].endswith("first differs at 0.060 s")
    assert rows["channel q"].startswith("exact")
    divergence = window.timeline.divergence
    assert divergence is not None
    assert divergence[0] == pytest.approx(0.06)
    assert divergence[1].startswith("first divergence: camera front frame at 0.060 s")
    plots = _plots(window)
    assert plots.shown == (CAMERA, "front")  # what diverges is drawn first
    largest = plots.curves(plots.overlay_plot)[0]
    assert list(largest.yData) == [0.0, 0.0, 0.0, 40.0, 0.0]
    assert plots.legend_names(plots.error_plot) == ["front (px)"]
    assert plots.divergence_positions() == pytest.approx([0.06, 0.06])


def test_the_picker_switches_between_a_channel_and_a_camera(
    qtbot: QtBot,
    window: MainWindow,
    tmp_path: Path,
) -> None:
    take = write_frames(tmp_path / "take.fsr")
    doctored = write_frames(tmp_path / "doctored.fsr", altered_by=_ALTERED_BY)
    open_and_wait(qtbot, window, take)
    with qtbot.waitSignal(_replay(window).finished, timeout=_TIMEOUT_MS):
        _replay(window).compare_with(doctored, pixel_tolerance=_ALTERED_BY)
    plots = _plots(window)
    items = [
        plots.channel_combo.itemText(i) for i in range(plots.channel_combo.count())
    ]

    plots.channel_combo.setCurrentText("q")
    channel_legend = plots.legend_names(plots.overlay_plot)
    plots.show_camera("front")
    camera_legend = plots.legend_names(plots.overlay_plot)

    assert items == ["q", f"front{CAMERA_SUFFIX}"]
    assert channel_legend == ["a recorded", "a doctored.fsr"]
    assert camera_legend == ["front largest", "front mean", "pixel tolerance 40"]
    assert "frames within 40 levels (largest pixel error 40)" in (
        window.status_label.text()
    )
    assert window.timeline.divergence is None
