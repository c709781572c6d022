"""The 3D scene of a Genesis trajectory: meshes from its description, env layout.

Hostile descriptions are made by rewriting the description of a real file
(the records after it are found by walking, so its length may change).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from genesis_data import DATA

from fsr_core.recording import GeometryMesh, RecordingModel, SceneGeometry
from fsr_core.sources import open_recording
from fsr_core.sources.genesis import mesh_budget
from fsr_core.sources.genesis.kinematics import env_offsets

Arrays = dict[str, np.ndarray]
Edit = Callable[[dict[str, Any], Arrays, dict[str, bytes]], None]


def _geometry(model: RecordingModel) -> SceneGeometry:
    assert model.geometry is not None
    return model.geometry


def _meshes_of(geometry: SceneGeometry, body: str) -> list[GeometryMesh]:
    index = geometry.bodies.index(body)
    return [mesh for mesh in geometry.meshes if mesh.body == index]


def _world(geometry: SceneGeometry, mesh: GeometryMesh, frame: int) -> np.ndarray:
    """Return a mesh's vertices in the world at ``frame`` (pose ``xyz`` + ``xyzw``)."""
    pose = geometry.poses[frame, mesh.body]
    axis, w = pose[3:6], pose[6]
    twice = 2.0 * np.cross(axis, mesh.vertices_m)
    return np.asarray(mesh.vertices_m + w * twice + np.cross(axis, twice) + pose[:3])


@pytest.mark.parametrize(
    "name",
    [
        "v4_box_exact.gstraj",
        "v4_box_minimal.gstraj",
        "v1_box_exact.gstraj",
        "v1_box_compressed.gstraj",
    ],
)
def test_box_scene_is_a_plane_and_a_ten_by_eight_by_six_box(name: str) -> None:
    geometry = _geometry(open_recording(DATA / name))
    (plane,) = _meshes_of(geometry, "plane_baselink")
    (box,) = _meshes_of(geometry, "box_baselink")
    assert plane.kind == "plane"
    assert box.kind == "box"
    np.testing.assert_allclose(np.ptp(box.vertices_m, axis=0), [0.1, 0.08, 0.06])
    assert len(box.faces) == 12
    assert box.faces.dtype == np.int64
    # The floor is a finite square under the box, not Genesis's square kilometre.
    side = np.ptp(plane.vertices_m, axis=0)
    assert side[2] == 0.0
    assert 0.3 < side[0] == side[1] < 5.0
    assert np.ptp(_world(geometry, plane, 0)[:, 2]) == 0.0
    assert _world(geometry, box, -1)[:, 2].min() > -0.005  # resting on it


def test_batch_scene_has_a_plane_a_box_and_a_sphere_per_environment() -> None:
    geometry = _geometry(open_recording(DATA / "v4_batch_exact.gstraj"))
    for env in range(3):
        kinds = {
            body.split("/")[1]: [mesh.kind for mesh in _meshes_of(geometry, body)]
            for body in geometry.bodies
            if body.startswith(f"env{env}/")
        }
        assert kinds == {
            "plane_baselink": ["plane"],
            "box_baselink": ["box"],
            "sphere_baselink": ["sphere"],
        }
    (sphere,) = _meshes_of(geometry, "env0/sphere_baselink")
    np.testing.assert_allclose(np.linalg.norm(sphere.vertices_m, axis=1), 0.05)


def test_environments_stand_where_genesis_places_them() -> None:
    geometry = _geometry(open_recording(DATA / "v1_batch_compressed.gstraj"))
    planes = [geometry.bodies.index(f"env{e}/plane_baselink") for e in range(3)]
    # n_envs 3, spacing 0.5 m, 2 per row, centred on the origin.
    np.testing.assert_allclose(
        geometry.poses[0, planes, :3],
        [[-0.25, -0.25, 0.0], [-0.25, 0.25, 0.0], [0.25, -0.25, 0.0]],
    )
    boxes = [geometry.bodies.index(f"env{e}/box_baselink") for e in range(3)]
    np.testing.assert_allclose(
        geometry.poses[0, boxes, :3],
        [[-0.25, -0.25, 0.2], [-0.25, 0.25, 0.3], [0.25, -0.25, 0.4]],
        atol=1e-6,
    )


def test_environment_offsets_follow_genesis_layout_rule() -> None:
    layout = {"env_spacing": [1.0, 2.0], "n_envs_per_row": 2}
    offsets, note = env_offsets({**layout, "center_envs_at_origin": False}, 3)
    assert note == ""
    np.testing.assert_allclose(offsets, [[0, 0, 0], [0, 2, 0], [1, 0, 0]])
    centred, _ = env_offsets({**layout, "center_envs_at_origin": True}, 3)
    np.testing.assert_allclose(centred, offsets - [0.5, 1.0, 0.0])
    square, _ = env_offsets({"env_spacing": [1.0, 1.0], "n_envs_per_row": None}, 9)
    assert len({tuple(row) for row in square}) == 9  # three rows of three
    np.testing.assert_allclose(square.min(axis=0), [-1, -1, 0])
    single, _ = env_offsets(
        {"env_spacing": [0.0, 0.0], "n_envs_per_row": 1, "center_envs_at_origin": True},
        1,
    )
    np.testing.assert_array_equal(single, np.zeros((1, 3)))
    broken, note = env_offsets({"env_spacing": "wide"}, 2)
    np.testing.assert_array_equal(broken, np.zeros((2, 3)))
    assert "layout" in note


@pytest.mark.parametrize("name", ["v4_arm_exact.gstraj", "v1_arm_compressed.gstraj"])
def test_arm_is_drawn_with_its_collision_meshes_standing_on_the_floor(
    name: str,
) -> None:
    geometry = _geometry(open_recording(DATA / name))
    assert len(geometry.bodies) == 12
    assert {mesh.kind for mesh in geometry.meshes} == {"plane", "mesh", "box"}
    assert all(_meshes_of(geometry, body) for body in geometry.bodies)
    solids = [mesh for mesh in geometry.meshes if mesh.kind != "plane"]
    assert sum(len(mesh.faces) for mesh in solids) == 2634
    for frame in (0, -1):
        points = np.vstack([_world(geometry, mesh, frame) for mesh in solids])
        assert points[:, 2].min() > -0.01  # on the floor, not through it
        assert points[:, 2].max() > 0.8  # an upright Franka arm
        (hand,) = _meshes_of(geometry, "hand")
        assert _world(geometry, hand, frame)[:, 2].min() > 0.6


def test_meshes_past_the_triangle_budget_become_triads_with_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mesh_budget, "MAX_TRIANGLES", 1000)
    model = open_recording(DATA / "v4_arm_exact.gstraj")
    geometry = _geometry(model)
    solid = [m for m in geometry.meshes if m.kind not in ("plane", "frame")]
    assert sum(len(mesh.faces) for mesh in solid) <= 1000
    assert any(mesh.kind == "frame" for mesh in _meshes_of(geometry, "hand"))
    assert any("at most 1000 triangles" in note for note in model.report["notes"])


# Hostile descriptions ------------------------------------------------------


def _split(data: bytes) -> tuple[bytes, bytes, bytes]:
    """Return a trajectory's header up to the description, the description, the rest."""
    (manifest_length,) = struct.unpack_from("<Q", data, 8)
    start = 16 + manifest_length
    (length,) = struct.unpack_from("<Q", data, start)
    return (
        data[:start],
        data[start + 8 : start + 8 + length],
        data[start + 8 + length :],
    )


def _with_description(source: str, folder: Path, blob: bytes) -> Path:
    head, _, records = _split((DATA / source).read_bytes())
    target = folder / f"hostile_{source}"
    target.write_bytes(head + struct.pack("<Q", len(blob)) + blob + records)
    return target


def _edited(source: str, folder: Path, edit: Edit) -> Path:
    """Rewrite ``source``'s description through ``edit`` (JSON, arrays, raw .npy)."""
    _, blob, _ = _split((DATA / source).read_bytes())
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        scene = json.loads(archive.read("scene.json"))
        loaded = np.load(io.BytesIO(archive.read("arrays.npz")))
        arrays = {key: loaded[key] for key in loaded.files}
    raw: dict[str, bytes] = {}
    edit(scene, arrays, raw)
    npz = io.BytesIO()
    with zipfile.ZipFile(npz, "w", zipfile.ZIP_DEFLATED) as inner:
        for key, value in arrays.items():
            if key in raw:
                inner.writestr(f"{key}.npy", raw[key])
                continue
            member = io.BytesIO()
            np.save(member, value)
            inner.writestr(f"{key}.npy", member.getvalue())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("scene.json", json.dumps(scene))
        archive.writestr("arrays.npz", npz.getvalue())
    return _with_description(source, folder, out.getvalue())


def _box_geom(scene: dict[str, Any]) -> dict[str, Any]:
    box_link = scene["held"]["scene"]["entities"][1]["links"][0]
    geom: dict[str, Any] = box_link["vgeoms"][0]
    return geom


def _notes(model: RecordingModel) -> str:
    return " | ".join(model.report["notes"])


def test_a_corrupted_description_falls_back_to_triads_with_a_note(
    tmp_path: Path,
) -> None:
    _, blob, _ = _split((DATA / "v4_box_exact.gstraj").read_bytes())
    broken = bytes(b ^ 0x5A for b in blob)
    model = open_recording(_with_description("v4_box_exact.gstraj", tmp_path, broken))
    geometry = _geometry(model)
    assert {mesh.kind for mesh in geometry.meshes} == {"frame"}
    assert geometry.poses.shape == (41, 2, 7)  # the recorded poses still play
    assert "scene description not used" in _notes(model)


def test_a_minimal_file_with_a_corrupted_description_has_no_scene(
    tmp_path: Path,
) -> None:
    _, blob, _ = _split((DATA / "v4_box_minimal.gstraj").read_bytes())
    path = _with_description("v4_box_minimal.gstraj", tmp_path, blob[: len(blob) // 2])
    model = open_recording(path)
    assert model.geometry is None
    assert "scene description not used" in _notes(model)
    assert "no 3D scene" in _notes(model)
    assert "RigidSolver.rigid_info.qpos" in model.channels


def test_a_face_past_the_vertices_drops_that_mesh_alone(tmp_path: Path) -> None:
    def edit(scene: dict[str, Any], arrays: Arrays, raw: dict[str, bytes]) -> None:
        faces = str(_box_geom(scene)["vmesh"]["geometry"]["faces"])
        arrays[faces] = arrays[faces].copy()
        arrays[faces][3, 1] = 99

    model = open_recording(_edited("v4_box_exact.gstraj", tmp_path, edit))
    geometry = _geometry(model)
    assert [m.kind for m in _meshes_of(geometry, "plane_baselink")] == ["plane"]
    # The collision box stands in for the broken visual one.
    assert [m.kind for m in _meshes_of(geometry, "box_baselink")] == ["box"]
    assert "points past the 8 vertices" in _notes(model)


def test_a_link_with_no_readable_mesh_is_drawn_as_a_triad(tmp_path: Path) -> None:
    def edit(scene: dict[str, Any], arrays: Arrays, raw: dict[str, bytes]) -> None:
        box_link = scene["held"]["scene"]["entities"][1]["links"][0]
        vertices = str(box_link["vgeoms"][0]["vmesh"]["geometry"]["verts"])
        arrays[vertices] = arrays[vertices].copy()
        arrays[vertices][0, 0] = np.nan
        del box_link["geoms"][0]["mesh"]

    model = open_recording(_edited("v4_box_exact.gstraj", tmp_path, edit))
    geometry = _geometry(model)
    assert {m.kind for m in _meshes_of(geometry, "box_baselink")} == {"frame"}
    assert "not finite" in _notes(model)
    assert "KeyError" in _notes(model)


def test_a_huge_claimed_array_is_refused_before_it_is_read(tmp_path: Path) -> None:
    def edit(scene: dict[str, Any], arrays: Arrays, raw: dict[str, bytes]) -> None:
        for geom in (
            _box_geom(scene),
            scene["held"]["scene"]["entities"][1]["links"][0]["geoms"][0],
        ):
            key = str((geom.get("vmesh") or geom["mesh"])["geometry"]["verts"])
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                header,
                {"descr": "<f8", "fortran_order": False, "shape": (10**9, 3)},
            )
            raw[key] = header.getvalue() + bytes(64)

    model = open_recording(_edited("v4_box_minimal.gstraj", tmp_path, edit))
    geometry = _geometry(model)
    assert {m.kind for m in _meshes_of(geometry, "box_baselink")} == {"frame"}
    assert "FSR_VIEWER_MEMORY_BUDGET" in _notes(model)


def test_a_description_without_entities_leaves_the_recorded_poses(
    tmp_path: Path,
) -> None:
    def edit(scene: dict[str, Any], arrays: Arrays, raw: dict[str, bytes]) -> None:
        del scene["held"]["scene"]["entities"]

    model = open_recording(_edited("v1_box_exact.gstraj", tmp_path, edit))
    geometry = _geometry(model)
    assert {mesh.kind for mesh in geometry.meshes} == {"frame"}
    assert "does not read (KeyError)" in _notes(model)


def test_a_zip_member_claiming_gigabytes_is_refused_before_inflating(
    tmp_path: Path,
) -> None:
    _, blob, _ = _split((DATA / "v4_box_exact.gstraj").read_bytes())
    data = bytearray(blob)
    entry = data.index(b"PK\x01\x02")  # the central directory entry of scene.json
    assert data[entry + 46 : entry + 56] == b"scene.json"
    struct.pack_into("<I", data, entry + 24, 0xFFFF0000)  # uncompressed size
    model = open_recording(
        _with_description("v4_box_exact.gstraj", tmp_path, bytes(data))
    )
    assert {mesh.kind for mesh in _geometry(model).meshes} == {"frame"}
    assert "FSR_VIEWER_MEMORY_BUDGET" in _notes(model)
