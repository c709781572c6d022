"""What opening a planar-arm take reads: none of its samples, whatever its length.

The joint angles, the external force and the active target are columns of
``observations.arm`` picked without reading it; the panel reads the sample
it shows, the clock the times alone, and a channel read whole holds the same
values as the columns it was picked from.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fsr_core.recording import RecordingModel
from fsr_core.simulators.planar_arm.demos import demo_scenario
from fsr_core.simulators.planar_arm.observations import OBSERVATIONS
from fsr_core.simulators.planar_arm.recorder import ExternalPush, record_run
from fsr_core.sources import open_recording

PICKED = ("q", "ext_force", "active_target")


@pytest.fixture(scope="module")
def take(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("planar") / "pushed.fsr"
    scenario = replace(demo_scenario("05_pushed"), duration_s=0.6, cameras=())
    record_run(scenario, path, external_pushes=(ExternalPush(0.2, 0.3, (-9.0, 3.0)),))
    return path


def _opened(take: Path) -> RecordingModel:
    return open_recording(take)


def test_opening_reads_none_of_the_channels(take: Path) -> None:
    model = _opened(take)

    assert not any(channel.loaded for channel in model.channels.values())
    assert [model.channels[name].width for name in PICKED] == [3, 2, 1]


def test_the_times_and_one_sample_are_read_without_the_values(take: Path) -> None:
    model = _opened(take)
    whole = _opened(take).channels[OBSERVATIONS]
    q = model.channels["q"]

    times = q.times_s
    sample = q.value_at(0.25)

    assert not q.loaded
    assert not model.channels[OBSERVATIONS].loaded
    np.testing.assert_array_equal(times, whole.times_s)
    columns = [whole.columns.index(name) for name in ("q0", "q1", "q2")]
    np.testing.assert_array_equal(sample, whole.values[whole.index_at(0.25), columns])


@pytest.mark.parametrize("name", PICKED)
def test_a_picked_channel_read_whole_is_its_columns_of_the_observations(
    take: Path, name: str
) -> None:
    model = _opened(take)
    picked = model.channels[name]
    whole = _opened(take).channels[OBSERVATIONS]

    values = picked.values

    assert not model.channels[OBSERVATIONS].loaded  # read alone, column by column
    columns = [whole.columns.index(column) for column in picked.columns]
    np.testing.assert_array_equal(values, whole.values[:, columns])
    np.testing.assert_array_equal(picked.times_s, whole.times_s)


def test_the_recorded_push_is_in_the_force_read_alone(take: Path) -> None:
    force = _opened(take).channels["ext_force"]

    assert force.columns == ("ext_fx", "ext_fy")
    assert np.abs(force.values).max() == pytest.approx(9.0)
