"""View → Dataset on a LeRobot dataset with defects placed on purpose.

``tests/data/lerobot/checks_v30`` was written by LeRobot itself
(``tools/make_check_data.py``): episodes 0-5 are clean, 6-13 carry one
defect each, and ``checks_v30.defects.json`` says where. One window is
checked once for the module, its playlist six episodes of a copy of the
dataset (three clean, the jerky one, the one with a timestamp gap, the too
long one: enough for the dataset's outliers, and quick): the checks are
cancelled after the first episode, then resumed, as a user would. Key F runs
first, while its window is the only one (F is an application-wide key).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from check_defects import CHECKS_DATASET, EXPECTED_KINDS, FPS, TRUTH
from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QEvent, QPoint, Qt
from pytestqt.qtbot import QtBot
from shown_widgets import (
    activate_window,
    ini_settings,
    inline_session,
    new_main_window,
    show_widget,
)

from app.window.dataset.table_model import FLAGGED_COLUMN, KINDS_COLUMN
from app.window.main_window import MainWindow
from app.window.state import EntryState
from app.window.state.playlist import FLAG_BADGE_ROLE
from app.window.widgets.flag_text import flag_tooltip
from fsr_core.playlists.index_file import read_index
from fsr_core.playlists.pinned import pinned_entries
from fsr_core.sources import expand_recordings

pytestmark = pytest.mark.gui

#: The episodes of the module's playlist.
EPISODES: Final = (0, 1, 2, 6, 9, 12)
KEPT: Final = (0, 1, 2)
_FRAMES_COLUMN: Final = 5  # entry, flagged, flags, kinds, duration, frames


def _wait_for(condition: object, what: str, timeout_ms: int = 60_000) -> None:
    """Process events until ``condition()`` holds (no test-scoped qtbot here)."""
    assert callable(condition)
    deadline = QDeadlineTimer(timeout_ms)
    while not condition():
        assert not deadline.hasExpired(), f"timed out waiting for {what}"
        QCoreApplication.processEvents()


def test_key_f_flags_the_playing_episode_and_a_new_window_remembers(
    qtbot: QtBot, tmp_path: Path
) -> None:
    root = CHECKS_DATASET
    episodes = [root / "episode_000000", root / "episode_000001"]
    before = sorted(path.name for path in root.rglob("*"))
    first = show_widget(qtbot, new_main_window(ini_settings(tmp_path)), (900, 600))
    first.open_files(episodes)
    qtbot.waitUntil(lambda: first.session.model is not None)
    qtbot.keyClick(activate_window(qtbot, first), Qt.Key.Key_F)
    playlist = first.session.playlist
    assert playlist.data(playlist.index(0), FLAG_BADGE_ROLE) == "flagged"
    assert playlist.data(playlist.index(1), FLAG_BADGE_ROLE) == ""
    first.close()

    second = show_widget(qtbot, new_main_window(ini_settings(tmp_path)), (900, 600))
    second.open_files(episodes)
    qtbot.waitUntil(lambda: second.session.model is not None)
    playlist = second.session.playlist
    assert playlist.data(playlist.index(0), FLAG_BADGE_ROLE) == "flagged"
    second.show_dataset()
    overview = second.dataset
    qtbot.waitUntil(lambda: not overview.running and not overview.pending)
    kinds = overview.dock.histograms.plots["kinds"]
    assert kinds.titleLabel.text == "flags by kind: none"  # two clean takes
    box = overview.table.index(0, FLAGGED_COLUMN)
    assert overview.table.data(box, Qt.ItemDataRole.CheckStateRole) == (
        Qt.CheckState.Checked
    )
    # The table's box unflags it; the dataset itself is never written.
    overview.table.setData(box, Qt.CheckState.Unchecked, Qt.ItemDataRole.CheckStateRole)
    assert playlist.data(playlist.index(0), FLAG_BADGE_ROLE) == ""
    assert overview.selected("flagged") == []
    second.close()
    assert sorted(path.name for path in root.rglob("*")) == before


class Checked:
    """The module's window, and what its first, cancelled checks left."""

    def __init__(self, window: MainWindow, root: Path, measured_before: int) -> None:
        self.window = window
        self.root = root
        self.measured_before_resume = measured_before


@pytest.fixture(scope="module")
def checked(
    qapp: object, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Checked]:
    del qapp
    folder = tmp_path_factory.mktemp("overview")
    root = folder / "checks_v30"
    shutil.copytree(CHECKS_DATASET, root)
    window = new_main_window(ini_settings(folder))
    window.resize(1400, 1000)
    window.show()
    window.open_files([root / f"episode_{episode:06d}" for episode in EPISODES])
    _wait_for(lambda: window.session.model is not None, "the first episode")
    overview = window.dataset
    cancelled: list[int] = []

    def cancel_once(_: object) -> None:
        if not cancelled:
            cancelled.append(1)
            overview.cancel()

    window.show_dataset()  # the checks start
    job = overview.job
    assert job is not None
    job.results.measured.connect(cancel_once)
    _wait_for(lambda: not overview.running, "the cancelled checks")
    measured = len(overview.data.rows)
    assert overview.check_pending()  # the Check button resumes
    _wait_for(lambda: not overview.running, "the checks")
    yield Checked(window, root, measured)
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _episode(member: str) -> int:
    return int(member.rsplit("_", 1)[1])


def test_cancel_keeps_what_was_measured_and_check_resumes(checked: Checked) -> None:
    assert 1 <= checked.measured_before_resume < len(EPISODES)
    overview = checked.window.dataset
    assert len(overview.data.rows) == len(EPISODES)
    assert overview.dock.summary.text() == "6 of 6 checked · 3 flagged · 3 kept"


def test_the_table_lists_each_episode_with_its_metrics_and_flags(
    checked: Checked,
) -> None:
    table = checked.window.dataset.table
    assert table.rowCount() == len(EPISODES)
    for row in range(len(EPISODES)):
        member = table.data(table.index(row, 0))
        episode = _episode(member)
        frames = table.data(table.index(row, _FRAMES_COLUMN))
        assert frames == str(TRUTH["episodes"][episode]["frames"])
        kinds = table.data(table.index(row, KINDS_COLUMN))
        expected = EXPECTED_KINDS.get(episode, set())
        assert set(filter(None, kinds.split(", "))) == expected, member
        box = table.data(
            table.index(row, FLAGGED_COLUMN), Qt.ItemDataRole.CheckStateRole
        )
        assert (box == Qt.CheckState.Checked) == bool(expected), member
        for column in range(_FRAMES_COLUMN - 1, table.columnCount()):
            text = table.data(table.index(row, column))
            float(text)  # a number as read: 8097, never 8.1e+03
            assert "e" not in text, (member, column, text)
    flagged = checked.window.dataset.selected("flagged")
    assert [row.episode for row in flagged] == [6, 9, 12]


def test_clicking_a_heading_sorts_the_rows_by_its_numbers(
    qtbot: QtBot, checked: Checked
) -> None:
    dock = checked.window.dataset.dock
    header = dock.table.horizontalHeader()
    middle = header.sectionViewportPosition(_FRAMES_COLUMN) + 10
    where = QPoint(middle, header.height() // 2)
    for _ in range(2):  # ascending, then descending
        qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=where)
        assert header.sortIndicatorSection() == _FRAMES_COLUMN
        shown = [
            int(dock.proxy.data(dock.proxy.index(row, _FRAMES_COLUMN)))
            for row in range(dock.proxy.rowCount())
        ]
        descending = header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
        assert shown == sorted(shown, reverse=descending)  # as numbers: 180 > 64
    too_long = 0 if descending else dock.proxy.rowCount() - 1
    assert dock.proxy.data(dock.proxy.index(too_long, 0)) == "episode_000012"
    dock.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)


def test_clicking_a_row_opens_the_episode_at_its_first_flag_with_its_marks(
    qtbot: QtBot, checked: Checked
) -> None:
    window = checked.window
    dock = window.dataset.dock
    view = dock.table
    view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    index = dock.proxy.index(EPISODES.index(9), 0)
    assert dock.proxy.data(index) == "episode_000009"
    rect = view.visualRect(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    session = window.session
    qtbot.waitUntil(
        lambda: (
            session.model is not None and session.model.path.name == "episode_000009"
        )
    )
    placed = next(d for d in TRUTH["defects"] if d["kind"] == "timestamp_gap")
    gap = (placed["frame"] - 1) / FPS  # the step before the jump
    assert session.clock.position_s == pytest.approx(gap, abs=1.01 / FPS)
    marks = window.timeline.flags
    assert {flag.kind.value for flag in marks} == EXPECTED_KINDS[9]
    first = min(marks, key=lambda flag: flag.start_s)
    assert first.start_s == pytest.approx(session.clock.position_s, abs=1.01 / FPS)
    hovered = window.timeline.flag_at(window.timeline.x_of(first.start_s))
    assert hovered == first
    lines = flag_tooltip(first)
    assert f"measured: {first.value:.4g}" in lines
    assert f"threshold: {first.threshold:.4g}" in lines
    playlist = session.playlist
    badges = {
        entry.path.name: playlist.data(playlist.index(row), FLAG_BADGE_ROLE)
        for row, entry in enumerate(playlist.entries)
    }
    assert badges["episode_000009"] == "timestamp_gap +1"
    assert badges["episode_000006"] == "jerk"
    assert badges["episode_000000"] == ""


def test_export_kept_writes_an_index_that_opens_as_a_playlist_of_them(
    qtbot: QtBot, checked: Checked, tmp_path: Path
) -> None:
    overview = checked.window.dataset
    inside = checked.root / "kept.json"
    assert overview.export_index("kept", inside)
    qtbot.waitUntil(lambda: not overview.running, timeout=30_000)
    assert not inside.exists()  # an index in the dataset would change its digest
    assert "outside the dataset" in checked.window.status_label.text()

    output = checked.root.parent / "kept.json"
    assert overview.export_index("kept", output)
    qtbot.waitUntil(lambda: not overview.running, timeout=30_000)
    index = read_index(output)
    assert [entry.relative for entry in index.entries] == [
        f"checks_v30/episode_{episode:06d}" for episode in KEPT
    ]
    assert all(entry.valid and entry.digest_of == "folder" for entry in index.entries)
    session = inline_session()
    session.open_paths(expand_recordings([output]), indexed=pinned_entries([output]))
    names = [entry.name for entry in session.playlist.entries]
    assert names == [f"episode_{n:06d}" for n in KEPT]
    assert all(e.state is EntryState.VALID for e in session.playlist.entries)
    written = output.read_bytes()
    assert overview.export_index("flagged", output)
    qtbot.waitUntil(lambda: not overview.running, timeout=30_000)
    assert output.read_bytes() == written  # never overwritten
    assert "never overwritten" in checked.window.status_label.text()
    command = overview.dock.command.text()
    assert command.startswith("lerobot-edit-dataset --repo_id checks_v30 ")
    assert "--operation.type delete_episodes" in command
    assert "--operation.episode_indices '[6, 9, 12]'" in command


def test_the_histograms_count_every_entry_and_mark_its_outliers(
    checked: Checked,
) -> None:
    histograms = checked.window.dataset.dock.histograms
    # Per metric: entries drawn, of which beyond the dataset's fence (red).
    assert histograms.counts["frames"] == (len(EPISODES), 1)  # the too long take
    assert histograms.counts["jerk_p95"] == (len(EPISODES), 1)  # the jerky one
    assert histograms.counts["static_fraction"] == (len(EPISODES), 0)
    expected = [
        kind for episode in EPISODES for kind in EXPECTED_KINDS.get(episode, ())
    ]
    assert histograms.kind_counts == {kind: expected.count(kind) for kind in expected}
    # The jerky take stretches jerk p95 to thousands: the labels stay short.
    axis = histograms.plots["jerk_p95"].getAxis("bottom")
    (spacing, values), *_ = axis.tickValues(*axis.range, axis.width())
    labels = axis.tickStrings(values, 1.0, spacing)
    assert "2k" in labels
    assert all(len(label) <= 4 for label in labels)
