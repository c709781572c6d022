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

import numpy as np
import numpy.typing as npt
import pytest
from hostile_e2e.cli_run import assert_succeeded, run_cli

REACH = Path(__file__).parents[1] / "data" / "skelarm" / "reach.sklog.npz"
IMG = '<img src="/dev/zero">'
#: Well under the 90 s hang limit: the markup case took over 60 s before.
FAST_S = 45.0


def _reach() -> tuple[dict[str, npt.NDArray[np.generic]], str]:
    with np.load(REACH, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return arrays, str(arrays.pop("__meta__"))


def _write(path: Path, meta: str, arrays: dict[str, npt.NDArray[np.generic]]) -> Path:
    np.savez_compressed(path, **arrays, __meta__=np.array(meta))
    return path


def _edit(meta: str, old: str, new: str) -> str:
    assert old in meta, old
    return meta.replace(old, new, 1)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile_window")
    arrays, meta = _reach()
    markup = _edit(meta, 'label = "joint angle"', f'label = "{"<b>" * 70_000}"')
    markup = _edit(markup, 'unit = "rad"\n', f"unit = '{IMG}'\n")
    markup = _edit(
        markup,
        'columns = ["j1", "j2"]\n\n[channels.dq]',
        f"columns = ['{IMG}', \"<h1>x</h1>\"]\n\n[channels.dq]",
    )
    markup = _edit(markup, 'producer = "ComputedTorque"', f"producer = '{IMG}'")
    huge_link = _edit(meta, "length = 1.0\nm = 1.0", "length = 1e308\nm = 1.0")
    huge_link = _edit(huge_link, "qmax = 3.141592653589793", "qmax = 1e300")
    huge_values = dict(arrays, q=np.full_like(arrays["q"], 1e308))
    huge_values["time"] = arrays["time"] * 1e9
    wide = dict(arrays)
    wide["tau"] = np.random.default_rng(0).standard_normal((len(arrays["tau"]), 5000))
    return {
        "markup": _write(folder / "markup.sklog.npz", markup, arrays),
        "huge_link": _write(folder / "huge_link.sklog.npz", huge_link, arrays),
        "huge_values": _write(folder / "huge_values.sklog.npz", meta, huge_values),
        "wide": _write(folder / "wide.sklog.npz", meta, wide),
    }


def _assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_markup_everywhere_draws_the_window_quickly(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "markup.png"

    outcome = run_cli(
        logs["markup"], "--screenshot", out, "--inspector", "--plot", "q",
        timeout_s=FAST_S,
    )  # fmt: skip

    assert_succeeded(outcome)
    _assert_png(out)


@pytest.mark.parametrize("name", ["huge_link", "huge_values"])
def test_extreme_values_draw_the_window_with_values_as_text(
    logs: dict[str, Path], tmp_path: Path, name: str
) -> None:
    out = tmp_path / f"{name}.png"

    outcome = run_cli(
        logs[name], "--screenshot", out, "--inspector", "--plot", "q",
        "--plot", "tau", "--at", "1", timeout_s=FAST_S,
    )  # fmt: skip

    assert_succeeded(outcome)
    if name == "huge_link":  # the skelarm reader still warns on 1e308 angles
        assert "RuntimeWarning" not in outcome.stderr, outcome.describe()
    _assert_png(out)


@pytest.mark.parametrize("name", ["huge_link", "huge_values"])
def test_extreme_values_export_a_still_with_the_panel(
    logs: dict[str, Path], tmp_path: Path, name: str
) -> None:
    out = tmp_path / f"{name}_still.png"

    outcome = run_cli(
        logs[name], "--export-frame", "1", out, "--panel", timeout_s=FAST_S
    )

    assert_succeeded(outcome)
    _assert_png(out)


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


def test_a_channel_of_5000_columns_plots_and_inspects_quickly(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "wide.png"

    outcome = run_cli(
        logs["wide"], "--screenshot", out, "--inspector", "--plot", "tau",
        timeout_s=FAST_S,
    )  # fmt: skip

    assert_succeeded(outcome)
    _assert_png(out)


def test_a_bad_file_among_good_ones_still_draws_the_good_one(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.sklog.npz"
    broken.write_bytes(b"PK\x03\x04" + b"\x00" * 64)
    out = tmp_path / "mixed.png"

    outcome = run_cli(broken, logs["markup"], "--screenshot", out, timeout_s=FAST_S)

    assert_succeeded(outcome)
    _assert_png(out)
