"""A robosuite episode recorded on another machine, drawn with the robosuite here.

robosuite writes a demo's ``model_file`` with the absolute paths of the
robosuite that recorded it. Here ``lift.hdf5`` is copied with those paths
moved to a folder that exists nowhere, as on any machine but the recording
one; the robot is drawn when a robosuite is found beside the Python
``FSR_VIEWER_ROBOSUITE_PYTHON`` names (a folder laid out as robosuite's
assets, with a small stand-in for each mesh and texture), and the inspector
says which files came from it. With no robosuite anywhere it is a note
naming the extra. The render replay in ``tests/data/robosuite`` carries its
meshes and draws its robot with no robosuite at all.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import struct
from pathlib import Path

import h5py
import numpy as np
import pytest
from data_paths import TEST_DATA
from PIL import Image

from fsr_core.playlists.episodes import episode_path
from fsr_core.recording import RecordingModel
from fsr_core.robots.robosuite_assets import PYTHON_VARIABLE
from fsr_core.sources import open_recording

pytest.importorskip("mujoco")

LIFT = TEST_DATA / "hdf5" / "lift.hdf5"
RENDER = TEST_DATA / "robosuite" / "lift_demo1_render.fsr"
RECORDED_AT = re.compile(r'file="(/[^"]*/)robosuite/models/assets/([^"]+)"')
ELSEWHERE = "/nonexistent/recording-machine/site-packages/"
_TETRAHEDRON = np.array(
    [[0.0, 0.0, 0.0], [0.05, 0.0, 0.0], [0.0, 0.05, 0.0], [0.0, 0.0, 0.05]]
)
_FACES = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def _model_file(path: Path, demo: str = "data/demo_1") -> str:
    with h5py.File(path, "r", locking=False) as handle:
        value = handle[demo].attrs["model_file"]
    return value.decode() if isinstance(value, bytes) else str(value)


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``lift.hdf5`` as another machine sees it: its robosuite is nowhere."""
    copy = tmp_path_factory.mktemp("moved") / "lift.hdf5"
    shutil.copyfile(LIFT, copy)
    with h5py.File(copy, "r+", locking=False) as handle:
        for demo in handle["data"].values():
            text = demo.attrs["model_file"]
            text = text.decode() if isinstance(text, bytes) else str(text)
            demo.attrs["model_file"] = RECORDED_AT.sub(
                lambda m: f'file="{ELSEWHERE}robosuite/models/assets/{m.group(2)}"',
                text,
            )
    return copy


def _stand_in(path: Path) -> None:
    """Write a small mesh or texture of the kind ``path``'s suffix names."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".png":
        Image.new("RGB", (8, 8), (120, 90, 60)).save(path)
    elif path.suffix == ".obj":
        lines = [f"v {x} {y} {z}" for x, y, z in _TETRAHEDRON]
        lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in _FACES]
        path.write_text("\n".join(lines) + "\n")
    else:
        triangles = b"".join(
            struct.pack("<12fH", 0.0, 0.0, 0.0, *_TETRAHEDRON[face].ravel(), 0)
            for face in _FACES
        )
        path.write_bytes(b"\0" * 80 + struct.pack("<I", len(_FACES)) + triangles)


@pytest.fixture(scope="module")
def side_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Make a Python environment whose site-packages hold robosuite's assets."""
    environment = tmp_path_factory.mktemp("robosuite-env")
    python = environment / "bin" / "python"
    python.parent.mkdir()
    python.write_text("#!/bin/sh\nexit 1\n")  # found beside, never run
    python.chmod(0o755)
    assets = environment / "lib/python3.11/site-packages/robosuite/models/assets"
    for match in RECORDED_AT.finditer(_model_file(LIFT)):
        _stand_in(assets / match.group(2))
    return python


@pytest.fixture(autouse=True)
def _no_robosuite_here() -> None:
    spec = importlib.util.find_spec("robosuite")  # tests/robosuite has no origin
    if spec is not None and spec.origin is not None:
        pytest.skip("robosuite is installed in this Python: its files would be found")


def _notes(model: RecordingModel) -> str:
    return " ".join(str(note) for note in model.report.get("notes", []))


def test_the_robot_is_drawn_from_the_robosuite_beside_the_named_python(
    moved: Path, side_python: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PYTHON_VARIABLE, str(side_python))
    model = open_recording(episode_path(moved, 1))
    assert model.geometry is not None, _notes(model)
    assert "robot0_link7" in model.geometry.bodies
    assert "robot/robot0_right_hand" in model.channels
    warnings = model.metadata["robot"]["warnings"]
    assets = side_python.parent.parent / "lib/python3.11/site-packages"
    said = [w for w in warnings if str(assets / "robosuite/models/assets") in w]
    assert said, warnings
    assert "69 robosuite mesh and texture file(s)" in said[0]
    assert "robots/panda/meshes (8)" in said[0]


def test_without_robosuite_anywhere_a_note_names_the_extra(
    moved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PYTHON_VARIABLE, raising=False)
    model = open_recording(episode_path(moved, 1))
    assert model.geometry is None
    notes = _notes(model)
    assert "robot not drawn" in notes
    assert "pip install 'fsr-viewer[robosuite]'" in notes
    assert PYTHON_VARIABLE in notes


def test_a_robosuite_lacking_a_file_is_named(
    moved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.write_text("#!/bin/sh\nexit 1\n")
    assets = tmp_path / "lib/python3.11/site-packages/robosuite/models/assets"
    _stand_in(assets / "textures" / "ceramic.png")  # and nothing else
    monkeypatch.setenv(PYTHON_VARIABLE, str(python))
    model = open_recording(episode_path(moved, 1))
    assert model.geometry is None
    assert f"{assets} has no " in _notes(model)


def test_the_render_replay_draws_its_robot_with_no_robosuite_anywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(PYTHON_VARIABLE, raising=False)
    model = open_recording(RENDER)
    assert model.geometry is not None, _notes(model)
    assert "robot0_link7" in model.geometry.bodies
    episode = open_recording(episode_path(LIFT, 1))
    assert episode.geometry is not None
    assert sum(len(mesh.faces) for mesh in model.geometry.meshes) == sum(
        len(mesh.faces) for mesh in episode.geometry.meshes
    )
    assert not any("robosuite" in w for w in model.metadata["robot"]["warnings"])
    assert "robosuite/models/assets" not in model.robot_description.text.decode()  # type: ignore[union-attr]
