"""The replay's default output name, the tolerance field and the verdict texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.window.replay.request import default_output, parse_tolerance
from fsr_core.simulation.protocol import ReplayMode


def test_the_default_output_sits_beside_the_source_and_names_the_mode(
    tmp_path: Path,
) -> None:
    source = tmp_path / "05_pushed.fsr"

    assert default_output(source, ReplayMode.RESIMULATE) == (
        tmp_path / "05_pushed.resim.fsr"
    )
    assert (
        default_output(source, ReplayMode.RENDER) == tmp_path / "05_pushed.render.fsr"
    )


def test_the_default_output_never_names_an_existing_file(tmp_path: Path) -> None:
    source = tmp_path / "take.fsr"
    (tmp_path / "take.resim.fsr").write_bytes(b"x")
    (tmp_path / "take.resim-2.fsr").write_bytes(b"x")

    assert (
        default_output(source, ReplayMode.RESIMULATE) == tmp_path / "take.resim-3.fsr"
    )


def test_an_episode_of_a_file_replays_beside_that_file(tmp_path: Path) -> None:
    # An HDF5 file of demos: its episodes are addressed inside it, but their
    # replays can only go beside it.
    demos = tmp_path / "lift.hdf5"
    demos.write_bytes(b"x")

    assert default_output(demos / "episode_000002", ReplayMode.RESIMULATE) == (
        tmp_path / "lift_episode_000002.resim.fsr"
    )


def test_a_skelarm_log_loses_its_double_extension(tmp_path: Path) -> None:
    source = tmp_path / "reach.sklog.npz"

    assert default_output(source, ReplayMode.RESIMULATE).name == "reach.resim.fsr"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0", 0.0), (" 1e-9 ", 1e-9), ("0.002", 0.002)],
)
def test_a_tolerance_is_a_finite_number_not_below_zero(
    text: str, expected: float
) -> None:
    assert parse_tolerance(text) == expected


@pytest.mark.parametrize("text", ["", "-1", "nan", "inf", "a lot"])
def test_anything_else_is_not_a_tolerance(text: str) -> None:
    assert parse_tolerance(text) is None
