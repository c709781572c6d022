"""The comparison view on its own: what it draws for a report, and file-given names.

Recordings are built in memory, so each case states exactly what differs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from shown_widgets import show_widget

from app.window.replay import ComparisonReport
from app.window.replay.comparison_plots import ComparisonPlots
from app.window.replay.report import verdict_text
from fsr_core.compare import compare_recordings
from fsr_core.media import RGBFrame
from fsr_core.recording import (
    CameraTrack,
    Channel,
    RecordingModel,
    Segment,
    Timeline,
)

pytestmark = pytest.mark.gui

_TIMES_S = np.linspace(0.0, 1.0, 101)
_HOSTILE = "<b>arm</b>\u202e"


def _model(path: Path, name: str, values: np.ndarray) -> RecordingModel:
    segment = Segment(0, 0.0, 1.0, 0.0, 0, len(_TIMES_S) - 1)
    channel = Channel(name, _TIMES_S, values, unit="rad", columns=("a", "b"))
    return RecordingModel(
        path=path,
        source="fsr",
        title=path.stem,
        timeline=Timeline((segment,)),
        channels={name: channel},
    )


def _report(tmp_path: Path, name: str, *, step_at_s: float | None) -> ComparisonReport:
    recorded = np.column_stack([np.sin(_TIMES_S), np.cos(_TIMES_S)])
    replayed = recorded.copy()
    if step_at_s is not None:
        later = np.greater_equal(_TIMES_S, step_at_s)
        replayed[later, 1] += 0.5
    reference = _model(tmp_path / "run.fsr", name, recorded)
    candidate = _model(tmp_path / "other.fsr", name, replayed)
    comparison = compare_recordings(reference, candidate, tolerance=0.1)
    return ComparisonReport(reference, candidate, comparison)


@pytest.fixture
def plots(qtbot: QtBot) -> ComparisonPlots:
    return show_widget(qtbot, ComparisonPlots(), (800, 400))


def test_a_step_in_one_column_is_drawn_and_marked_where_it_starts(
    plots: ComparisonPlots, tmp_path: Path
) -> None:
    report = _report(tmp_path, "q", step_at_s=0.6)

    plots.set_report(report)

    assert plots.legend_names(plots.overlay_plot) == [
        "a recorded",
        "a other.fsr",
        "b recorded",
        "b other.fsr",
    ]
    styles = [c.opts["pen"].style() for c in plots.curves(plots.overlay_plot)]
    assert styles[1] == Qt.PenStyle.DashLine
    assert plots.divergence_positions() == [pytest.approx(0.6)] * 2
    assert plots.legend_names(plots.error_plot) == ["q", "tolerance 0.1"]
    assert plots.verdict_label.text() == verdict_text(report)
    assert plots.verdict_label.text().startswith("diverges at 0.600 s in q (b)")


def test_equal_recordings_draw_no_error_and_say_so(
    plots: ComparisonPlots, tmp_path: Path
) -> None:
    plots.set_report(_report(tmp_path, "q", step_at_s=None))

    assert plots.legend_names(plots.error_plot) == ["tolerance 0.1"]
    assert plots.error_title.startswith("no error")
    assert plots.divergence_positions() == []
    assert plots.verdict_label.text().startswith("reproduces exactly")


def test_names_from_the_file_are_shown_literally_never_as_markup(
    plots: ComparisonPlots, tmp_path: Path
) -> None:
    plots.set_report(_report(tmp_path, _HOSTILE, step_at_s=0.3))

    verdict = plots.verdict_label.text()
    assert "<b>arm</b>⟨U+202E⟩" in verdict
    assert "\u202e" not in verdict
    assert plots.verdict_label.textFormat() == Qt.TextFormat.PlainText
    assert plots.legend_names(plots.error_plot)[0] == "&lt;b&gt;arm&lt;/b&gt;⟨U+202E⟩"
    assert plots.channel_combo.currentText() == _HOSTILE


def test_no_report_shows_how_to_get_one(plots: ComparisonPlots, tmp_path: Path) -> None:
    plots.set_report(_report(tmp_path, "q", step_at_s=0.6))

    plots.set_report(None)

    assert "Replay → Re-simulate…" in plots.verdict_label.text()
    assert plots.curves(plots.overlay_plot) == []
    assert plots.curves(plots.error_plot) == []
    assert plots.divergence_positions() == []


def _camera_model(path: Path, name: str, bright_frame: int | None) -> RecordingModel:
    """Return a model with one 8x6 camera of 5 black frames, one maybe brightened."""
    times_s = np.linspace(0.0, 0.8, 5)

    def fetch(index: int) -> tuple[RGBFrame, None]:
        pixels = np.zeros((6, 8, 3), dtype=np.uint8)
        if index == bright_frame:
            pixels[0, 0] = 90
        return RGBFrame(pixels), None

    segment = Segment(0, 0.0, 0.8, 0.0, 0, 80)
    return RecordingModel(
        path=path,
        source="fsr",
        title=path.stem,
        timeline=Timeline((segment,)),
        channels={},
        cameras=(CameraTrack(name, times_s, fetch),),
    )


def test_a_camera_that_differs_draws_its_pixel_error_with_its_name_as_text(
    plots: ComparisonPlots, tmp_path: Path
) -> None:
    reference = _camera_model(tmp_path / "run.fsr", _HOSTILE, None)
    candidate = _camera_model(tmp_path / "other.fsr", _HOSTILE, 2)
    report = ComparisonReport(
        reference, candidate, compare_recordings(reference, candidate)
    )

    plots.set_report(report)

    assert plots.shown == ("camera", _HOSTILE)
    assert plots.channel_combo.currentText() == f"{_HOSTILE} (camera)"
    largest, mean = plots.curves(plots.overlay_plot)
    assert list(largest.yData) == [0.0, 0.0, 90.0, 0.0, 0.0]
    assert list(mean.yData) == pytest.approx([0, 0, 90 * 3 / (8 * 6 * 3), 0, 0])
    escaped = "&lt;b&gt;arm&lt;/b&gt;⟨U+202E⟩"
    assert plots.legend_names(plots.overlay_plot) == [
        f"{escaped} largest",
        f"{escaped} mean",
    ]
    assert plots.legend_names(plots.error_plot) == [f"{escaped} (px)"]
    assert plots.divergence_positions() == [pytest.approx(0.4)] * 2
    verdict = plots.verdict_label.text()
    assert verdict.startswith("frame differs from t=0.400 s in camera <b>arm</b>")
    assert verdict.endswith("(max 90 levels)")
    assert "\u202e" not in verdict
