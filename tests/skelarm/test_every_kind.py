"""Every kind of skelarm log opens, poses, draws its task and exports as skelarm's.

The truths (``<log>.truth.npz``) come from skelarm's own kinematics and task
code in the child that wrote the logs: the joints and tip at three frames, the
periodic curve sampled as its player samples it, the reference path, the
targets.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pytestqt.qtbot import QtBot
from skelarm_kinds import EVERY_KIND, HEADLESS_KINDS

from app.canvas.panel_rows import row_value
from app.cli import main
from app.window.plots import ChannelPlots
from app.window.state.session import PlayerSession
from app.window.workers import run_inline
from fsr_core.logs.skelarm import load_skelarm

pytestmark = pytest.mark.skelarm


def _truth(folder: Path, kind: str) -> dict[str, np.ndarray]:
    with np.load(folder / f"{kind}.truth.npz", allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_log_poses_the_arm_as_skelarm_does(kind: str, skelarm_logs: Path) -> None:
    model = load_skelarm(skelarm_logs / f"{kind}.sklog.npz")
    truth = _truth(skelarm_logs, kind)
    q = model.channels["q"]
    assert model.kinematics is not None

    for frame, points in zip(truth["frames"], truth["points"], strict=True):
        shown = model.kinematics.joint_positions(q.value_at(float(q.times_s[frame])))
        np.testing.assert_allclose(shown, points, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", HEADLESS_KINDS)
def test_task_overlay_is_what_skelarm_draws(kind: str, skelarm_logs: Path) -> None:
    model = load_skelarm(skelarm_logs / f"{kind}.sklog.npz")
    truth = _truth(skelarm_logs, kind)
    overlay = model.overlays[0]

    if kind.startswith("curve_"):
        np.testing.assert_allclose(overlay.curve_xy, truth["path"], atol=1e-12)
    elif kind.startswith("track_"):
        np.testing.assert_allclose(overlay.reference_xy, truth["path"], atol=1e-12)
    else:
        np.testing.assert_allclose(overlay.targets_xy, truth["targets"], atol=0)
    if "active" in truth:
        assert overlay.active_index == int(truth["active"])
    if "tolerance" in truth and np.isfinite(truth["tolerance"]):
        assert overlay.tolerance_m == float(truth["tolerance"])


def test_interactive_log_shows_force_and_friction_readouts(skelarm_logs: Path) -> None:
    model = load_skelarm(skelarm_logs / "gui_push.sklog.npz")
    force = model.channels["ext_force"]
    pushed = float(force.times_s[int(np.argmax(np.hypot(*force.values.T)))])

    ext = row_value(model, "ext_force", pushed)
    friction = row_value(model, "friction", pushed)

    fx, fy = force.value_at(pushed)
    assert ext is not None
    assert friction is not None
    assert ext.value == pytest.approx(float(np.hypot(fx, fy)))
    if ext.value < 1:  # skelarm's player shows three figures
        assert ext.texts == (f"Ext. force: {ext.value:.3g} N",)
    assert model.external_force_channel == "ext_force"
    late = row_value(model, "friction", float(force.times_s[-1]))
    assert late is not None
    assert late.value == pytest.approx(0.4)  # switched on halfway


@pytest.mark.parametrize("kind", ["curve_lemniscate", "track_tip", "gui_push"])
def test_log_exports_a_panel_frame(
    kind: str, skelarm_logs: Path, tmp_path: Path
) -> None:
    out = tmp_path / f"{kind}.png"
    log = skelarm_logs / f"{kind}.sklog.npz"

    status = main([str(log), "--export-frame", "0.2", str(out), "--panel"])

    assert status == 0
    image = np.asarray(Image.open(out).convert("RGB"))
    assert image.shape == (800, 1104, 3)  # 800 x 800 canvas and a 304 px panel
    assert image.std() > 1


def test_every_kind_plays_in_a_playlist_and_plots_each_channel(
    skelarm_logs: Path, qtbot: QtBot
) -> None:
    paths = [skelarm_logs / f"{kind}.sklog.npz" for kind in EVERY_KIND]
    session = PlayerSession(runner=run_inline, check_runner=run_inline)
    plots = ChannelPlots()
    qtbot.addWidget(plots)

    session.open_paths(paths)

    assert [entry.state.playable for entry in session.playlist.entries] == [True] * len(
        paths
    )
    for index, path in enumerate(paths):
        model = session.model
        assert model is not None
        assert model.path == path
        recorded = [name for name in model.channels if name != "tip_speed"]
        plots.set_model(model)
        plots.set_plots(tuple((name,) for name in recorded))
        assert plots.plot_count == len(recorded)
        legends = plots.series_names(recorded.index("q"))
        columns = model.channels["q"].columns  # skelarm's "j1", "j2", ...
        assert len(legends) == len(columns)
        assert all(c in legend for c, legend in zip(columns, legends, strict=True))
        if index + 1 < len(paths):
            assert session.step_file(1)
