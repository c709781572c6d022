"""The window and its canvases on hostile files, through the real command line.

Each case runs ``fsr-viewer`` in a fresh offscreen process under a memory and
a time limit (:mod:`hostile_e2e.cli_run`) on a skelarm log built from the real
``tests/data/skelarm/reach.sklog.npz``: markup in every string the window
shows (it once hung for minutes and took 11 GiB), a link of ``1e308`` m,
angles of ``1e308`` over a billion seconds, a channel of 5,000 columns. The
screenshot, the still and the video share the canvases, so each is run once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_e2e.cli_run import CliOutcome, assert_succeeded, run_cli
from hostile_logs import huge_link_log, huge_values_log, markup_log, wide_log

#: Well under the 90 s hang limit: the markup case took over 60 s before.
FAST_S = 45.0


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile_window")
    return {
        "markup": markup_log(folder),
        "huge_link": huge_link_log(folder),
        "huge_values": huge_values_log(folder),
        "wide": wide_log(folder, keep_names=True),
    }


def _assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _draw_png(out: Path, *args: str | Path) -> CliOutcome:
    """Run ``fsr-viewer ARGS`` quickly; assert it succeeded and wrote ``out``."""
    outcome = run_cli(*args, timeout_s=FAST_S)

    assert_succeeded(outcome)
    _assert_png(out)
    return outcome


_EXTREME_PLOTS = ("--inspector", "--plot", "q", "--plot", "tau", "--at", "1")


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("markup", ("--inspector", "--plot", "q")),
        ("huge_link", _EXTREME_PLOTS),
        ("huge_values", _EXTREME_PLOTS),
        ("wide", ("--inspector", "--plot", "tau")),
    ],
    ids=["markup everywhere", "huge_link", "huge_values", "5000 columns"],
)
def test_a_hostile_log_draws_the_window_quickly(
    logs: dict[str, Path], tmp_path: Path, name: str, options: tuple[str, ...]
) -> None:
    out = tmp_path / f"{name}.png"

    outcome = _draw_png(out, logs[name], "--screenshot", out, *options)

    if name == "huge_link":  # the skelarm reader still warns on 1e308 angles
        assert "RuntimeWarning" not in outcome.stderr, outcome.describe()


@pytest.mark.parametrize("name", ["huge_link", "huge_values"])
def test_extreme_values_export_a_still_with_the_panel(
    logs: dict[str, Path], tmp_path: Path, name: str
) -> None:
    out = tmp_path / f"{name}_still.png"

    _draw_png(out, logs[name], "--export-frame", "1", out, "--panel")


def test_a_link_of_1e308_m_exports_a_short_video_with_the_panel(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "huge_link.mp4"

    outcome = run_cli(
        logs["huge_link"], "--export", out, "--panel", "--end", "0.2",
        "--size", "320x240", timeout_s=FAST_S,
    )  # fmt: skip

    assert_succeeded(outcome)
    assert out.stat().st_size > 0


def test_a_bad_file_among_good_ones_still_draws_the_good_one(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.sklog.npz"
    broken.write_bytes(b"PK\x03\x04" + b"\x00" * 64)
    out = tmp_path / "mixed.png"

    _draw_png(out, broken, logs["markup"], "--screenshot", out)
