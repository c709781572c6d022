"""The replay engine hands skelarm logs to skelarm; what it says where it cannot."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsr_core.errors import AdapterUnavailableError, ReplayError
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.simulators.skelarm.availability import unavailable_reason

LOG = Path(__file__).parents[2] / "data" / "skelarm" / "reach.sklog.npz"


def test_a_skelarm_log_cannot_be_re_rendered(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="can only be re-simulated"):
        replay_file(LOG, tmp_path / "out.fsr", ReplayOptions(mode=ReplayMode.RENDER))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(
    unavailable_reason() is None, reason="skelarm runs here (tests/skelarm covers it)"
)
def test_without_skelarm_re_simulating_a_log_names_what_to_install(
    tmp_path: Path,
) -> None:
    options = ReplayOptions(mode=ReplayMode.RESIMULATE)
    with pytest.raises(AdapterUnavailableError, match=r"fsr-viewer\[skelarm\]"):
        replay_file(LOG, tmp_path / "out.sklog.npz", options)
    assert list(tmp_path.iterdir()) == []
