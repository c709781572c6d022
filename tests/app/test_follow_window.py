"""The window follows a recording that a real FsrWriter process is writing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live_writers import WriterProcess, running_fsr_writer
from pytestqt.qtbot import QtBot

from app.window import main_window
from app.window.main_window import MainWindow
from app.window.state.playlist import EntryState


@pytest.fixture
def fsr_writer(tmp_path: Path) -> Iterator[WriterProcess]:
    with running_fsr_writer(tmp_path / "run.fsr", 32, 24) as process:
        yield process


def test_a_growing_recording_plays_live_scrubs_back_and_is_checked_at_the_end(
    qtbot: QtBot,
    window: MainWindow,
    tmp_path: Path,
    fsr_writer: WriterProcess,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The plots' LIVE window, shortened so a short recording scrolls.
    monkeypatch.setattr(main_window, "LIVE_WINDOW_S", 1.0)
    session, clock = window.session, window.session.clock
    final = tmp_path / "run.fsr"
    fsr_writer.send("numeric 500")
    fsr_writer.send("camera 5")
    window.open_files([final])  # not published yet: its writer is followed
    assert session.following
    playlist = session.playlist
    qtbot.waitUntil(lambda: clock.duration_s > 0.3, timeout=20_000)
    assert playlist.entry(playlist.current).state is EntryState.LIVE
    assert session.live
    assert clock.position_s == clock.duration_s
    assert window.live_label.text() == "● LIVE"
    assert window.plots.plot_count == 1
    first = clock.duration_s

    fsr_writer.send("numeric 2500")
    qtbot.waitUntil(lambda: clock.duration_s > 2.5, timeout=20_000)
    # LIVE: the cursor at the newest sample, the plots on the last second.
    assert clock.position_s == clock.duration_s > first
    x_min, x_max = window.plots.plot_widget(0).getPlotItem().getViewBox().viewRange()[0]
    assert x_max == pytest.approx(clock.duration_s, abs=0.05)
    assert x_max - x_min == pytest.approx(1.0, abs=0.05)

    clock.seek(1.0)  # dragging back leaves LIVE
    assert not session.live
    assert "End returns to LIVE" in window.live_label.text()
    fsr_writer.send("numeric 500")
    qtbot.waitUntil(lambda: clock.duration_s > 3.2, timeout=20_000)
    assert clock.position_s == 1.0
    clock.to_end()  # End: LIVE again
    assert session.live

    assert fsr_writer.send("finish").startswith("published")
    qtbot.waitUntil(
        lambda: (
            not session.following
            and playlist.entry(playlist.current).state is not EntryState.LIVE
            and not session.loading
        ),
        timeout=20_000,
    )
    entry = playlist.entry(playlist.current)
    assert entry.path == final
    assert entry.state is EntryState.UNVERIFIED  # a structural FSR's integrity
    model = session.model
    assert model is not None
    assert model.path == final
    assert clock.position_s == pytest.approx(clock.duration_s)
