"""A LeRobot dataset in the player: a playlist of episodes with their tasks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from data_paths import TEST_DATA
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.canvas.panel_rows.registry import row_value
from app.window.state import EntryState
from app.window.state.playlist import PLAYABLE_ROLE
from app.window.state.session import PlayerSession
from app.window.widgets.side_panel import SidePanel
from app.window.workers.jobs import FileIdentity
from fsr_core.sources import expand_recordings

pytestmark = pytest.mark.gui

DATA = TEST_DATA / "lerobot"


def test_each_episode_is_a_row_with_its_length_and_task(session: PlayerSession) -> None:
    session.open_paths(expand_recordings([DATA / "tiny_v30"]))
    playlist = session.playlist
    rows = [playlist.data(playlist.index(row)) for row in range(playlist.rowCount())]
    assert rows == [
        "▶ episode_000000 · 0.7 s · pick the red cube",
        "episode_000001 · 0.9 s · push the blue block",
        "episode_000002 · 1.1 s · pick the red cube",
    ]
    assert all(entry.state is EntryState.VALID for entry in playlist.entries)
    assert session.step_file(1)
    assert session.model is not None
    assert session.model.metadata["episode_index"] == 1


def test_an_episode_without_its_data_is_greyed_and_the_rest_plays(
    session: PlayerSession, tmp_path: Path
) -> None:
    root = tmp_path / "tiny_v21"
    shutil.copytree(DATA / "tiny_v21", root)
    (root / "data/chunk-000/episode_000000.parquet").unlink()
    session.open_paths(expand_recordings([root]))
    playlist = session.playlist
    assert playlist.entry(0).state is EntryState.INVALID
    assert "episode_000000.parquet" in playlist.entry(0).reason
    assert playlist.data(playlist.index(0), PLAYABLE_ROLE) is False
    assert session.model is not None  # skipped to the next playable episode
    assert session.model.metadata["episode_index"] == 1


def test_a_playing_episode_is_watched_through_its_dataset_folder(
    session: PlayerSession,
) -> None:
    session.open_paths(expand_recordings([DATA / "tiny_v21"]))
    assert session.model is not None
    assert session.disk_change(FileIdentity.of(session.model.path)) == ""


def test_the_side_panel_and_export_panel_show_the_task(
    session: PlayerSession, qtbot: QtBot
) -> None:
    session.open_paths(expand_recordings([DATA / "tiny_v30"]))
    session.step_file(1)
    model = session.model
    assert model is not None
    task = row_value(model, "task", 0.3)
    assert task is not None
    assert task.texts == ("Task: push the blue block",)
    panel = SidePanel(session.clock, session.options)
    qtbot.addWidget(panel)
    panel.set_model(model)
    texts = [label.text() for label in panel.findChildren(QLabel)]
    assert "Task: push the blue block" in texts
