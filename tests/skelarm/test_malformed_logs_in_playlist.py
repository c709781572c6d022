"""Malformed skelarm logs are greyed in the playlist with the reason, and skipped.

No skelarm needed: this is the viewer's own reader, on logs broken on purpose
(no ``time``, a channel shape that does not fit, bad TOML, a malformed
playback task, a pickle inside).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from skelarm_kinds import SHARED_LOGS

from app.window.state import EntryState
from app.window.state.playlist import PLAYABLE_ROLE
from app.window.state.session import PlayerSession
from app.window.workers import run_inline

pytestmark = pytest.mark.gui

_META = (
    'schema_version = 1\nproducer = "x"\n[skeleton]\nbase_length = 0.0\n'
    "[[skeleton.links]]\nlength = 1.0\nm = 1.0\ni = 0.1\nrgx = 0.5\nrgy = 0.0\n"
    "qmin = -3.0\nqmax = 3.0\n"
)
_TIME = np.linspace(0.0, 0.1, 6)

BROKEN = {
    "no time": ({"q": np.zeros((6, 1))}, _META, "no 'time' member"),
    "shape mismatch": (
        {"time": _TIME, "q": np.zeros((6, 1)), "dq": np.zeros((4, 1))},
        _META,
        "channel 'dq' has shape (4, 1)",
    ),
    "bad toml": ({"time": _TIME, "q": np.zeros((6, 1))}, "x = = [", "not valid TOML"),
    "malformed playback task": (
        {"time": _TIME, "q": np.zeros((6, 1))},
        _META + '[extra.playback.task]\ntype = "reaching"\ntarget = [1.0]\n',
        "malformed extra.playback.task",
    ),
    "pickle inside": (
        {"time": _TIME, "q": np.array([{}, 1], dtype=object)},
        _META,
        "it would need pickle",
    ),
}


def _write(path: Path, arrays: dict[str, np.ndarray], meta: str) -> Path:
    with path.open("wb") as handle:
        np.savez(handle, **arrays, __meta__=np.array(meta), allow_pickle=True)
    return path


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_malformed_log_is_greyed_with_the_reason_and_skipped(
    kind: str, qapp: object, tmp_path: Path
) -> None:
    del qapp
    arrays, meta, reason = BROKEN[kind]
    broken = _write(tmp_path / "broken.sklog.npz", arrays, meta)
    good = shutil.copy(SHARED_LOGS / "reach.sklog.npz", tmp_path / "reach.sklog.npz")
    session = PlayerSession(runner=run_inline, check_runner=run_inline)

    session.open_paths([Path(good), broken])

    playlist = session.playlist
    entry = playlist.entry(1)
    assert entry.state is EntryState.INVALID
    assert str(broken) in entry.reason
    assert reason in entry.reason
    assert playlist.data(playlist.index(1), PLAYABLE_ROLE) is False
    assert not session.step_file(1)  # nothing playable after it
    assert session.model is not None
    assert session.model.path == Path(good)
