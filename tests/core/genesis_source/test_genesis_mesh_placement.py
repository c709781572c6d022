"""The Franka arm's meshes sit where MuJoCo puts the same MJCF's geoms, every frame.

``v4_arm_visual_exact.gstraj`` is the Franka Genesis ships, loaded as users
load it (visual meshes on), and ``expected/v4_arm_visual_exact_mujoco.npz``
is MuJoCo's forward kinematics of the same MJCF at each frame's recorded joint
positions (``tools/make_genesis_data.py``): the world pose of every geom. A
mesh's vertices, in its geom's frame, are those of the description (Genesis
took them from MuJoCo's compiled model), so MuJoCo's pose of that geom says
where each of them belongs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from genesis_data import DATA

from fsr_core.recording import GeometryMesh, RecordingModel, SceneGeometry
from fsr_core.sources import open_recording
from fsr_core.sources.genesis import mesh_budget
from fsr_core.sources.genesis.container import index_file
from fsr_core.sources.genesis.scene_geometry import Description, read_description

VISUAL_ARM = DATA / "v4_arm_visual_exact.gstraj"
LINKS = (
    "link0",
    "link1",
    "link2",
    "link3",
    "link4",
    "link5",
    "link6",
    "link7",
    "hand",
    "left_finger",
    "right_finger",
)
TOLERANCE_M = 1e-4


def _reference() -> dict[str, Any]:
    loaded = np.load(DATA / "expected" / "v4_arm_visual_exact_mujoco.npz")
    table: dict[str, Any] = {key: loaded[key] for key in loaded.files}
    table["body_names"] = json.loads(table["body_names"].tobytes())
    return table


def _description(path: Path) -> Description:
    description, problem = read_description(index_file(path))
    assert description is not None, problem
    return description


def _rotate(quat_wxyz: np.ndarray, points: np.ndarray) -> np.ndarray:
    w, axis = quat_wxyz[0], quat_wxyz[1:]
    twice = 2.0 * np.cross(axis, points)
    return np.asarray(points + w * twice + np.cross(axis, twice))


def _drawn(geometry: SceneGeometry, mesh: GeometryMesh, frame: int) -> np.ndarray:
    """Return a drawn mesh's vertices in the world (pose ``xyz`` + ``xyzw``)."""
    pose = geometry.poses[frame, mesh.body]
    quat = np.array([pose[6], *pose[3:6]])
    return _rotate(quat, mesh.vertices_m) + pose[:3]


def _mujoco_geom(reference: dict[str, Any], link: str, kind: str, number: int) -> int:
    """Return MuJoCo's geom behind Genesis's ``kind`` geom ``number`` of ``link``.

    Genesis parses MuJoCo's geoms in order: one with ``contype`` or
    ``conaffinity`` set is a collision geom, one without a visual geom (none of
    the Franka's collision geoms is in a visual group).
    """
    body = reference["body_names"].index(link)
    colliding = (reference["geom_contype"] | reference["geom_conaffinity"]) != 0
    wanted = colliding if kind == "collision" else ~colliding
    geoms = np.flatnonzero((reference["geom_body"] == body) & wanted)
    return int(geoms[number])


def _geom_vertices(
    description: Description, link: str, kind: str, number: int
) -> np.ndarray:
    """Return the vertices of a geom of the description, in the geom's frame."""
    entry = next(item for item in description.links if item.name == link)
    if kind == "visual":
        mesh = entry.data["vgeoms"][number]["vmesh"]
    else:
        mesh = entry.data["geoms"][number]["mesh"]
    return description.arrays.floats(mesh["geometry"]["verts"], (None, 3), "verts")


def _check_every_mesh_on_its_link(model: RecordingModel, kind: str) -> int:
    """Assert every link is drawn whole, each mesh where MuJoCo puts it."""
    geometry = model.geometry
    assert geometry is not None
    reference = _reference()
    description = _description(model.path)
    compared = 0
    for link in LINKS:
        body = geometry.bodies.index(link)
        meshes = [mesh for mesh in geometry.meshes if mesh.body == body]
        assert [mesh.kind for mesh in meshes if mesh.kind == "frame"] == [], link
        labels = sorted(mesh.name.split(":")[1] for mesh in meshes)
        count = len(_geoms_of(reference, link, kind))
        assert labels == sorted(f"{kind}{n}" for n in range(count)), link
        for mesh in meshes:
            number = int(mesh.name.split(":")[1].removeprefix(kind))
            geom = _mujoco_geom(reference, link, kind, number)
            local = _geom_vertices(description, link, kind, number)
            for frame in range(len(geometry.times_s)):
                drawn = _drawn(geometry, mesh, frame)
                truth = reference["geom_xpos"][frame, geom] + _rotate(
                    reference["geom_xquat"][frame, geom], local
                )
                centroid_error = np.linalg.norm(drawn.mean(0) - truth.mean(0))
                assert centroid_error < TOLERANCE_M, (mesh.name, frame)
                assert np.abs(drawn - truth).max() < TOLERANCE_M, (mesh.name, frame)
                compared += 1
    return compared


def _geoms_of(reference: dict[str, Any], link: str, kind: str) -> list[int]:
    found = []
    number = 0
    while True:
        try:
            found.append(_mujoco_geom(reference, link, kind, number))
        except IndexError:
            return found
        number += 1


def test_the_recorded_joints_are_those_mujoco_was_given() -> None:
    model = open_recording(VISUAL_ARM)
    qpos = model.channels["RigidSolver.rigid_info.qpos"].values
    np.testing.assert_array_equal(qpos, _reference()["qpos"])


def test_the_visual_franka_is_drawn_whole_with_its_visual_meshes() -> None:
    model = open_recording(VISUAL_ARM)

    compared = _check_every_mesh_on_its_link(model, "visual")

    assert compared == 58 * 21  # 58 visual meshes, 21 frames
    assert not any("collision meshes" in note for note in model.report["notes"])


def test_past_the_budget_it_is_drawn_with_its_collision_meshes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mesh_budget, "MAX_TRIANGLES", 100_000)
    model = open_recording(VISUAL_ARM)

    # 134,888 visual triangles are past this budget: the arm is drawn with its
    # collision meshes, every link whole, none as an axis triad.
    compared = _check_every_mesh_on_its_link(model, "collision")

    assert compared == 23 * 21  # 23 collision meshes, 21 frames
    notes = " | ".join(model.report["notes"])
    assert "drawn with its collision meshes (2634 triangles)" in notes
    assert "instead of its visual ones (134888)" in notes


def test_past_the_budget_a_link_is_drawn_whole_or_as_a_triad(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mesh_budget, "MAX_TRIANGLES", 1200)
    model = open_recording(VISUAL_ARM)
    geometry = model.geometry
    assert geometry is not None
    reference = _reference()

    triads = 0
    for link in LINKS:
        body = geometry.bodies.index(link)
        kinds = [mesh.kind for mesh in geometry.meshes if mesh.body == body]
        if "frame" in kinds:
            assert set(kinds) == {"frame"}, link  # no piece beside a triad
            triads += 1
        else:
            assert len(kinds) == len(_geoms_of(reference, link, "collision")), link
    solid = [m for m in geometry.meshes if m.kind not in ("plane", "frame")]
    assert sum(len(mesh.faces) for mesh in solid) <= 1200
    assert 0 < triads < len(LINKS)
    notes = " | ".join(model.report["notes"])
    assert f"{triads} links" in notes
    assert "drawn as axis triads" in notes
