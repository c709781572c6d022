"""A playlist index opens as a playlist whose files are checked against digests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from replay_indexes import write_replay_index
from shown_widgets import inline_session

from app.window.main_window import MainWindow
from app.window.state import EntryState
from app.window.state.playlist import PLAYABLE_ROLE
from app.window.state.session import PlayerSession
from fsr_core.playlists.index_file import IndexEntry, write_index
from fsr_core.playlists.pinned import pinned_entries, recording_digest
from fsr_core.sources import expand_recordings

pytestmark = pytest.mark.gui


@pytest.fixture
def index(short_takes: dict[str, Path], tmp_path: Path) -> Path:
    """Index copies of two short takes, then change the second one on disk."""
    entries = []
    for name in ("reach", "multi"):
        copy = tmp_path / short_takes[name].name
        shutil.copy(short_takes[name], copy)
        found = recording_digest(copy)
        entries.append(
            IndexEntry(copy, copy.name, found.size_bytes, found.sha256, valid=True)
        )
    path = tmp_path / "takes.json"
    write_index(path, entries, generator="test", created_utc="")
    changed = entries[1].path
    changed.write_bytes(changed.read_bytes()[:-1] + b"\0")  # one byte differs
    return path


def _session_of(index: Path, *names: str) -> PlayerSession:
    """Return a session (jobs run inline) that opened ``index`` as its playlist.

    The playlist lists the entries ``names``, in that order.
    """
    session = inline_session()
    session.open_paths(expand_recordings([index]), indexed=pinned_entries([index]))
    assert [entry.name for entry in session.playlist.entries] == list(names)
    return session


def test_a_file_changed_since_it_was_indexed_is_greyed_with_the_reason(
    qapp: object, index: Path
) -> None:
    del qapp
    session = _session_of(index, "01_reach.fsr", "02_multi_target.fsr")

    playlist = session.playlist
    assert playlist.entry(0).state is EntryState.VALID
    changed = playlist.entry(1)
    assert changed.state is EntryState.INVALID
    assert "changed since it was indexed: SHA-256" in changed.reason
    assert playlist.data(playlist.index(1), PLAYABLE_ROLE) is False
    assert session.model is not None
    assert session.model.path.name == "01_reach.fsr"
    assert not session.step_file(1)  # the changed file is never played


def test_the_window_opens_an_index_as_its_playlist(
    window: MainWindow, index: Path
) -> None:
    window.open_files([index])

    playlist = window.session.playlist
    assert [entry.path for entry in playlist.entries] == expand_recordings([index])
    assert playlist.entry(1).state is EntryState.INVALID
    assert "changed since it was indexed" in playlist.entry(1).tooltip
    assert window.session.model is not None


def test_a_replay_index_greys_an_episode_whose_artifact_changed(
    qapp: object, tmp_path: Path
) -> None:
    del qapp
    index, root = write_replay_index(tmp_path)
    (root / "meta/real2sim/episode_0/trace.json").write_bytes(b"edited")
    session = _session_of(index, "episode_000000", "episode_000001")
    playlist = session.playlist
    assert playlist.entry(0).state is EntryState.INVALID
    assert "trace.json" in playlist.entry(0).reason
    assert "changed" in playlist.entry(0).reason
    assert playlist.entry(1).state is EntryState.VALID
    model = session.model
    assert model is not None
    assert model.metadata["episode_index"] == 1
    # The receipt and lineage the index gives are in the inspector's report.
    assert model.report["index"]["receipt"]["confirmed"] is True
