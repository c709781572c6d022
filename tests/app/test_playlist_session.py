"""The session: playlist checks, loading, auto-advance, skipping, disk changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from app.window.state import EntryState
from app.window.state.playlist import BADGE_ROLE, PLAYABLE_ROLE
from app.window.state.session import PlayerSession
from app.window.workers import run_inline
from app.window.workers.jobs import FileIdentity

pytestmark = pytest.mark.gui


def test_opening_files_checks_each_and_loads_the_first(
    session: PlayerSession, short_takes: dict[str, Path], broken_file: Path
) -> None:
    session.open_paths([short_takes["reach"], broken_file, short_takes["multi"]])
    playlist = session.playlist
    assert [entry.name for entry in playlist.entries] == [
        "01_reach.fsr",
        "broken.fsr",
        "02_multi_target.fsr",
    ]
    assert playlist.entry(0).state is EntryState.VALID  # fast profile, digests checked
    assert playlist.entry(1).state is EntryState.INVALID
    assert "broken.fsr" in playlist.entry(1).reason
    assert session.model is not None
    assert session.model.path == short_takes["reach"]
    index = playlist.index(0)
    assert playlist.data(index).startswith("▶ ")
    assert playlist.data(playlist.index(1), PLAYABLE_ROLE) is False
    assert playlist.data(playlist.index(1), BADGE_ROLE) == "invalid"


def test_next_file_skips_a_bad_one_and_keeps_playing(
    session: PlayerSession, short_takes: dict[str, Path], broken_file: Path
) -> None:
    session.open_paths([short_takes["reach"], broken_file, short_takes["multi"]])
    session.clock.play()
    assert session.step_file(1)
    assert session.playlist.current == 2
    assert session.model is not None
    assert session.model.path == short_takes["multi"]
    assert session.clock.playing
    session.clock.pause()
    assert not session.step_file(1)
    assert session.playlist.current == 2


def test_the_end_of_a_take_plays_the_next_and_the_end_of_the_list_stops(
    session: PlayerSession, short_takes: dict[str, Path]
) -> None:
    session.open_paths([short_takes["reach"], short_takes["multi"]])
    session.clock.play()
    session.clock.advance(10.0)
    assert session.playlist.current == 1
    assert session.clock.playing
    session.clock.advance(10.0)
    assert session.playlist.current == 1
    assert not session.clock.playing


def test_a_file_added_twice_is_listed_once(
    session: PlayerSession, short_takes: dict[str, Path]
) -> None:
    session.open_paths([short_takes["reach"]])
    session.open_paths([short_takes["reach"]])
    assert session.playlist.rowCount() == 1


def test_threaded_loading_reports_the_model(
    qtbot: QtBot, short_takes: dict[str, Path]
) -> None:
    threaded = PlayerSession()
    with qtbot.waitSignal(threaded.model_changed, timeout=10_000) as blocker:
        threaded.open_paths([short_takes["pushed"]])
    assert blocker.args[0].path == short_takes["pushed"]
    assert threaded.wait_idle()


def test_a_deleted_or_replaced_file_is_noticed(
    session: PlayerSession, short_takes: dict[str, Path], tmp_path: Path
) -> None:
    copy = tmp_path / "copy.fsr"
    copy.write_bytes(short_takes["reach"].read_bytes())
    session.open_paths([copy])
    assert session.disk_change(FileIdentity.of(copy)) == ""
    replacement = tmp_path / "other.fsr"
    replacement.write_bytes(copy.read_bytes())
    replacement.replace(copy)
    assert "replaced" in session.disk_change(FileIdentity.of(copy))
    copy.unlink()
    assert "deleted on disk" in session.disk_change(FileIdentity.of(copy))


def test_a_file_inserted_after_another_lands_beside_it_and_checks_still_match(
    qapp: object, short_takes: dict[str, Path], broken_file: Path
) -> None:
    del qapp
    pending: list[Any] = []  # checks run later, as on the pool
    session = PlayerSession(runner=run_inline, check_runner=pending.append)
    reach, multi, pushed = (short_takes[k] for k in ("reach", "multi", "pushed"))
    session.open_paths([reach, broken_file, multi])
    session.load_row(2)

    session.insert_paths_after(reach, [pushed])

    playlist = session.playlist
    assert [entry.path for entry in playlist.entries] == [
        reach,
        pushed,
        broken_file,
        multi,
    ]
    assert playlist.current == 3  # still the file that plays
    assert session.model is not None
    assert session.model.path == multi
    for job in list(pending):
        job.run()
    assert playlist.entry(2).state is EntryState.INVALID  # the broken file's check
    assert playlist.entry(1).state is EntryState.VALID
    assert playlist.entry(0).state is EntryState.VALID


def test_inserting_after_a_file_not_listed_appends(
    session: PlayerSession, short_takes: dict[str, Path], tmp_path: Path
) -> None:
    session.open_paths([short_takes["reach"]])
    session.insert_paths_after(tmp_path / "elsewhere.fsr", [short_takes["multi"]])
    assert [entry.path for entry in session.playlist.entries] == [
        short_takes["reach"],
        short_takes["multi"],
    ]
