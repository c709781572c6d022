"""Fixtures for the MuJoCo adapter: short runs of the example scenes.

MuJoCo picks its OpenGL backend once, when it is first imported, so the
offscreen backend (EGL, else OSMesa) is chosen here, before any test imports
it. Recordings are the shipped example scenes cut to a few tenths of a second,
with small lossless (PNG) cameras so pixels can be compared exactly; each is
recorded once per session.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fsr_core.format.streams import StreamSpec
from fsr_core.simulators.mujoco.runtime import select_gl_backend
from fsr_core.simulators.mujoco.scenario import MujocoScenario, load_mujoco_scenario

select_gl_backend()

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "mujoco"


def short_scenario(
    name: str, *, duration_s: float, cameras: bool = True
) -> MujocoScenario:
    """Return example scene ``name`` cut to ``duration_s``, cameras small and PNG."""
    scenario = load_mujoco_scenario(EXAMPLES / f"{name}.toml")
    specs = tuple(
        dataclasses.replace(
            camera,
            width=camera.width // 2,
            height=camera.height // 2,
            codec="png",
        )
        for camera in scenario.cameras
    )
    return dataclasses.replace(
        scenario, duration_s=duration_s, cameras=specs if cameras else ()
    )


@pytest.fixture(scope="session")
def example_scenario() -> Callable[..., MujocoScenario]:
    """Return :func:`short_scenario`: an example scene cut short, PNG cameras."""
    return short_scenario


def _record(scenario: MujocoScenario, path: Path) -> Path:
    pytest.importorskip("mujoco")  # CI has it (the test extra); a guard for local runs
    from fsr_core.simulators.mujoco.recorder import record_mujoco_run

    record_mujoco_run(scenario, path)
    return path


@pytest.fixture(scope="session")
def reach_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record the reach arm for 0.4 s: PNG cameras 160x120 at 30 Hz, 120x90 at 15."""
    folder = tmp_path_factory.mktemp("mujoco_reach")
    return _record(short_scenario("reach_arm", duration_s=0.4), folder / "reach.fsr")


@pytest.fixture(scope="session")
def contacts_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record the contact scene for 1.0 s (bodies land, the pusher starts at 0.8 s)."""
    folder = tmp_path_factory.mktemp("mujoco_contacts")
    return _record(short_scenario("contacts", duration_s=1.0), folder / "contacts.fsr")


@pytest.fixture(scope="session")
def commands_only_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record a short contact run without render state (control only)."""
    pytest.importorskip("mujoco")
    from fsr_core.format.catalog import json_stream
    from fsr_core.format.streams import StreamKind
    from fsr_core.simulation import recorded_streams
    from fsr_core.simulators.mujoco import capture, recorder

    def no_render_state(name: str = "render.state", **_: Any) -> StreamSpec:
        return json_stream(name, StreamKind.EVENT, schema="fsr.event/1")

    scenario = short_scenario("contacts", duration_s=0.02, cameras=False)
    path = tmp_path_factory.mktemp("mujoco_commands") / "commands.fsr"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(recorded_streams, "render_state_stream", no_render_state)
        patch.setattr(capture.SceneCapture, "capture", lambda self, stamp: None)
        recorder.record_mujoco_run(scenario, path)
    return path
