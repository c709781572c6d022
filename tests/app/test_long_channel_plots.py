"""A long channel is plotted from its overview and read in full only where zoomed in.

An hour of a 1 kHz joint stream is millions of samples: the plot draws each
bucket's extremes (read once, part by part), and when the user zooms in far
enough, the samples of the view are read and drawn exactly. The channel is
never read whole. The thresholds are scaled down to a 5000-sample channel
(zoomed in: a view of at most 500 samples).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from long_channels import ARM, write_long_take
from shown_widgets import show_widget

from app.window.plots import ChannelPlots, series_cache
from app.window.workers import run_inline
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

COUNT = 5000
SPIKE_AT, SPIKE = 2222, 9.5


def _values() -> np.ndarray:
    values = np.sin(np.arange(COUNT) / 40.0)
    values[SPIKE_AT] = SPIKE
    return values


@pytest.fixture
def long_recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(series_cache, "DETAIL_SAMPLES", 500)
    return write_long_take(
        tmp_path / "long.fsr", _values(), monkeypatch, buckets=100, part_rows=700
    )


def _drawn(plots: ChannelPlots) -> tuple[np.ndarray, np.ndarray]:
    item = plots.plot_widget(0).getPlotItem().listDataItems()[0]
    x, y = item.getData()
    return np.asarray(x), np.asarray(y)


def test_a_long_channel_plots_its_overview_then_the_zoomed_samples(
    qtbot: Any, long_recording: Path
) -> None:
    model = open_recording(long_recording)
    channel = model.channels[ARM]
    plots = show_widget(qtbot, ChannelPlots(runner=run_inline), (800, 500))
    plots.set_model(model)
    plots.set_plots(((ARM,),))

    assert plots.plot_count == 1
    x, y = _drawn(plots)
    assert len(x) <= 2 * 100 + 2  # each bucket's extremes, first and last
    assert SPIKE in y  # a one-sample peak survives
    assert (x[0], x[-1]) == (0.0, (COUNT - 1) / 1000.0)

    plots.plot_widget(0).setXRange(2.2, 2.3, padding=0)
    x, y = _drawn(plots)
    inside = (x >= 2.2) & (x <= 2.3)
    expected = np.arange(2200, 2301)
    np.testing.assert_array_equal(x[inside], expected / 1000.0)
    np.testing.assert_array_equal(y[inside], _values()[expected])
    assert x[0] == 0.0  # the extent is kept
    assert x[-1] == (COUNT - 1) / 1000.0
    assert not channel.loaded  # never read whole
    assert channel.overview_loaded
