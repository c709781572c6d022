"""Copy real robot descriptions into ``tests/data/robots`` with reference poses.

The descriptions come from packages that ship them, copied as shipped (only
the files the description references, and its licence):

* ``franka_panda/``: pybullet's ``pybullet_data/franka_panda`` (``panda.urdf``),
* ``xarm/``: pybullet's ``pybullet_data/xarm`` (``xarm6_robot.urdf``),
* ``franka_sim/``: genesis-world's ``genesis/assets/xml/franka_sim``
  (``franka_panda.xml``, MJCF with includes).

Then an independent forward kinematics is run once and its answers are saved
beside them (``<name>.fk.json``): pybullet for the URDFs (``getLinkState`` with
``computeForwardKinematics=True``, outputs 4 and 5: the URDF link frame, not
the inertial frame) and MuJoCo for the MJCF (``mj_kinematics``, ``xpos`` and
``xquat`` per body). Before saving, the pybullet poses are checked against a
small chain product of the URDF origins written here, so a mistake of frame
(inertial instead of link) cannot slip into the references.

None of these libraries is a dependency of the project. Run this script in a
side venv outside the repository (genesis-world is installed without its
dependencies: only its asset files are read, genesis is never imported)::

    python3 -m venv /work/venvs/robot-fk
    /work/venvs/robot-fk/bin/pip install pybullet==3.2.7 mujoco==4.0.1 numpy
    /work/venvs/robot-fk/bin/pip install --no-deps genesis-world==1.4.5
    /work/venvs/robot-fk/bin/python tools/make_robot_data.py

``xarm/LICENSE`` is not in the pybullet wheel; it was copied from the folder
the wheel's files come from (bullet3, ``examples/pybullet/gym/pybullet_data/
xarm/LICENSE``) and this script leaves it in place.
"""

from __future__ import annotations

import importlib
import math
import platform
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from importlib.metadata import distribution, version
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from robot_descriptions import (
    ROBOTS_DIR,
    UrdfJoint,
    dumps_compact,
    urdf_joints,
    urdf_link_names,
)

Json = dict[str, Any]

# Neither is a dependency of the project; both are untyped here.
mujoco: Any = importlib.import_module("mujoco")
pybullet: Any = importlib.import_module("pybullet")

SEED: Final = 38
RANDOM_CONFIGS: Final = 17
"""Configs: zeros, every joint at its lower limit, at its upper limit, 17 random."""
CHAIN_TOLERANCE: Final = 1e-6
"""pybullet's wheel computes in single precision: its poses differ from the
exact chain by up to about 3e-7 (rotation) and 5e-8 m (position)."""
QUATERNION_ORDER: Final = "wxyz"


@dataclass(frozen=True)
class Description:
    """A robot description a package ships, and where its copy goes."""

    folder: str
    dist: str
    source: str
    entry: str
    licence_files: tuple[str, ...]


DESCRIPTIONS: Final = (
    Description(
        "franka_panda", "pybullet", "pybullet_data/franka_panda", "panda.urdf",
        ("LICENSE.txt",),
    ),
    Description("xarm", "pybullet", "pybullet_data/xarm", "xarm6_robot.urdf", ()),
    Description(
        "franka_sim", "genesis-world", "genesis/assets/xml/franka_sim",
        "franka_panda.xml", ("LICENSE", "README.md"),
    ),
)  # fmt: skip


# -- which files a description needs ---------------------------------------------------


def _mesh_companions(mesh: Path, missing: list[str]) -> list[Path]:
    """Return the MTL files an OBJ names and the textures those MTLs name."""
    if mesh.suffix.lower() != ".obj":
        return []
    found = []
    for line in mesh.read_text(errors="replace").splitlines():
        if not line.startswith("mtllib "):
            continue
        mtl = mesh.parent / line.split(maxsplit=1)[1].strip()
        if not mtl.is_file():
            missing.append(f"{mesh.name}: mtllib {mtl.name}")
            continue
        found.append(mtl)
        for entry in mtl.read_text(errors="replace").splitlines():
            if re.match(r"\s*map_\w+\s", entry):
                texture = entry.split()[-1]
                if (mtl.parent / texture).is_file():
                    found.append(mtl.parent / texture)
                else:
                    missing.append(f"{mtl.name}: {entry.strip()}")
    return found


def _urdf_files(urdf: Path, missing: list[str]) -> list[Path]:
    """Return the URDF and every mesh, MTL and texture it references."""
    files = [urdf]
    for mesh in ET.parse(urdf).getroot().iter("mesh"):
        name = mesh.attrib["filename"]
        # package://NAME/rest: NAME is a folder beside the URDF in both packages.
        relative = name.removeprefix("package://")
        path = urdf.parent / relative
        if not path.is_file():
            missing.append(f"{urdf.name}: {name}")
            continue
        files.append(path)
        files.extend(_mesh_companions(path, missing))
    return files


def _mjcf_files(xml: Path, meshdir: str, found: list[Path]) -> str:
    """Add ``xml``, its includes and its mesh files to ``found``; return meshdir.

    MuJoCo resolves an include and a mesh file against the folder of the file
    that names it, joined with the compiler's ``meshdir`` for meshes.
    """
    found.append(xml)
    for element in ET.parse(xml).getroot().iter():
        if element.tag == "compiler" and "meshdir" in element.attrib:
            meshdir = element.attrib["meshdir"]
        elif element.tag == "include":
            meshdir = _mjcf_files(xml.parent / element.attrib["file"], meshdir, found)
        elif element.tag == "mesh" and "file" in element.attrib:
            found.append(xml.parent / meshdir / element.attrib["file"])
    return meshdir


def _copy_description(item: Description) -> tuple[Path, list[str]]:
    """Copy ``item`` into ``tests/data/robots``; return the copy and missing refs."""
    source = Path(str(distribution(item.dist).locate_file(item.source)))
    missing: list[str] = []
    if item.entry.endswith(".urdf"):
        files = _urdf_files(source / item.entry, missing)
    else:
        files = []
        _mjcf_files(source / item.entry, "", files)
    files += [source / name for name in item.licence_files]
    target = ROBOTS_DIR / item.folder
    for path in sorted({path.resolve() for path in files}):
        relative = path.relative_to(source.resolve())
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / relative)
    return target / item.entry, sorted(set(missing))


# -- quaternions and transforms --------------------------------------------------------


def _canonical(quat_wxyz: NDArray[np.float64]) -> list[float]:
    """Return a unit quaternion with ``w >= 0`` (q and -q are the same rotation)."""
    quat = quat_wxyz / np.linalg.norm(quat_wxyz)
    if quat[0] < 0:
        quat = -quat
    return [float(value) for value in quat]


def _rpy_matrix(rpy: tuple[float, float, float]) -> NDArray[np.float64]:
    """Return the rotation of URDF ``rpy``: fixed axes X, then Y, then Z."""
    roll, pitch, yaw = rpy
    cr, sr, cp, sp = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    rotation: NDArray[np.float64] = rz @ ry @ rx
    return rotation


def _axis_angle(axis: NDArray[np.float64], angle: float) -> NDArray[np.float64]:
    x, y, z = axis / np.linalg.norm(axis)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    rotation: NDArray[np.float64] = (
        np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)
    )
    return rotation


def _matrix_quat_wxyz(matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, np.ascontiguousarray(matrix).reshape(9))
    return quat


# -- URDF references with pybullet -----------------------------------------------------


def _configs(
    lower: NDArray[np.float64], upper: NDArray[np.float64]
) -> tuple[NDArray[np.float64], list[str]]:
    """Return the configs (zeros, lower, upper, random within limits) and kinds."""
    rng = np.random.default_rng(SEED)
    random = rng.uniform(lower, upper, size=(RANDOM_CONFIGS, len(lower)))
    configs = np.vstack([np.zeros_like(lower), lower, upper, random])
    kinds = ["zeros", "lower", "upper"] + ["random"] * RANDOM_CONFIGS
    return configs, kinds


def _apply_mimic(joints: list[UrdfJoint], configs: NDArray[np.float64]) -> None:
    index = {joint.name: i for i, joint in enumerate(joints)}
    for i, joint in enumerate(joints):
        if joint.mimic is not None:
            leader = configs[:, index[joint.mimic.leader]]
            configs[:, i] = joint.mimic.multiplier * leader + joint.mimic.offset


def _chain_poses(
    joints: list[UrdfJoint], root: str, values: dict[str, float]
) -> dict[str, NDArray[np.float64]]:
    """Return each link's 4x4 world pose by multiplying the URDF origins."""
    poses = {root: np.eye(4)}
    pending = list(joints)
    while pending:
        joint = next(joint for joint in pending if joint.parent in poses)
        pending.remove(joint)
        origin = np.eye(4)
        origin[:3, :3] = _rpy_matrix(joint.rpy)
        origin[:3, 3] = joint.xyz
        motion = np.eye(4)
        value = values.get(joint.name, 0.0)
        axis = np.array(joint.axis, dtype=float)
        if joint.kind in ("revolute", "continuous"):
            motion[:3, :3] = _axis_angle(axis, value)
        elif joint.kind == "prismatic":
            motion[:3, 3] = value * axis / np.linalg.norm(axis)
        poses[joint.child] = poses[joint.parent] @ origin @ motion
    return poses


def _mismatch(
    expected: NDArray[np.float64], position: Any, quat: list[float]
) -> NDArray[np.float64]:
    """Return the largest difference of position (m) and of rotation matrix entry."""
    rotation = np.zeros(9)
    mujoco.mju_quat2Mat(rotation, np.asarray(quat, dtype=float))
    rotation_error = float(np.abs(expected[:3, :3] - rotation.reshape(3, 3)).max())
    position_error = float(np.abs(expected[:3, 3] - np.asarray(position)).max())
    return np.array([position_error, rotation_error])


def _pybullet_links(client: int, body: int) -> list[tuple[int, str]]:
    """Return ``(link index, link name)``; the base is index -1."""
    links = [(-1, pybullet.getBodyInfo(body, physicsClientId=client)[0].decode())]
    for index in range(pybullet.getNumJoints(body, physicsClientId=client)):
        info = pybullet.getJointInfo(body, index, physicsClientId=client)
        links.append((index, info[12].decode()))
    return links


def _pybullet_link_pose(client: int, body: int, index: int) -> tuple[Any, Any]:
    """Return the URDF link frame ``(position, quaternion xyzw)`` in the world."""
    if index >= 0:
        state = pybullet.getLinkState(
            body, index, computeForwardKinematics=True, physicsClientId=client
        )
        return state[4], state[5]
    # The base: pybullet reports its inertial frame; undo the local inertial offset.
    com_position, com_orientation = pybullet.getBasePositionAndOrientation(
        body, physicsClientId=client
    )
    dynamics = pybullet.getDynamicsInfo(body, -1, physicsClientId=client)
    inverse = pybullet.invertTransform(dynamics[3], dynamics[4])
    position, orientation = pybullet.multiplyTransforms(
        com_position, com_orientation, inverse[0], inverse[1]
    )
    return position, orientation


def _set_pybullet_joints(client: int, body: int, values: dict[str, float]) -> None:
    for index in range(pybullet.getNumJoints(body, physicsClientId=client)):
        name = pybullet.getJointInfo(body, index, physicsClientId=client)[1].decode()
        if name in values:
            pybullet.resetJointState(body, index, values[name], physicsClientId=client)


def _pybullet_pose_table(
    urdf: Path, joints: list[UrdfJoint], configs: NDArray[np.float64]
) -> tuple[Json, NDArray[np.float64]]:
    """Return per link its poses over ``configs`` and the largest chain mismatch."""
    movable = [joint for joint in joints if joint.movable]
    client = pybullet.connect(pybullet.DIRECT)
    try:
        body = pybullet.loadURDF(str(urdf), useFixedBase=True, physicsClientId=client)
        links = _pybullet_links(client, body)
        table: Json = {name: {"position": [], "quaternion": []} for _, name in links}
        worst = np.zeros(2)
        for config in configs:
            pairs = zip(movable, config, strict=True)
            values = {joint.name: float(value) for joint, value in pairs}
            _set_pybullet_joints(client, body, values)
            chain = _chain_poses(joints, links[0][1], values)
            for index, name in links:
                position, xyzw = _pybullet_link_pose(client, body, index)
                quat = _canonical(np.array([xyzw[3], xyzw[0], xyzw[1], xyzw[2]]))
                table[name]["position"].append([float(v) for v in position])
                table[name]["quaternion"].append(quat)
                worst = np.maximum(worst, _mismatch(chain[name], position, quat))
        return table, worst
    finally:
        pybullet.disconnect(physicsClientId=client)


def urdf_reference(urdf: Path, item: Description, missing: list[str]) -> Json:
    """Return the FK reference of one URDF (see ``tests/data/robots/README.md``)."""
    joints = urdf_joints(urdf)
    movable = [joint for joint in joints if joint.movable]
    lower = np.array([-math.pi if j.lower is None else j.lower for j in movable])
    upper = np.array([math.pi if j.upper is None else j.upper for j in movable])
    configs, kinds = _configs(lower, upper)
    _apply_mimic(movable, configs)
    table, worst = _pybullet_pose_table(urdf, joints, configs)
    if worst.max() > CHAIN_TOLERANCE:
        raise SystemExit(f"{urdf}: pybullet and the URDF chain differ by {worst}")
    if set(table) != set(urdf_link_names(urdf)):
        raise SystemExit(f"{urdf}: pybullet's links differ from the URDF's")
    return {
        **_header(item, urdf, "pybullet", missing),
        "fk_call": "pybullet.getLinkState(body, link, computeForwardKinematics=True)"
        " outputs 4 and 5 (worldLinkFramePosition/Orientation); the base link from"
        " getBasePositionAndOrientation with its local inertial frame undone",
        "frame": "URDF link frames (not pybullet's inertial/COM frames) in the"
        " frame of the root link, which is loaded at the world origin",
        "root_link": next(iter(table)),
        "chain_check": {
            "max_position_diff_m": float(worst[0]),
            "max_rotation_matrix_diff": float(worst[1]),
        },
        "joint_names": [joint.name for joint in movable],
        "joint_types": [joint.kind for joint in movable],
        "joint_lower": lower.tolist(),
        "joint_upper": upper.tolist(),
        "mimic": {
            joint.name: {
                "joint": joint.mimic.leader,
                "multiplier": joint.mimic.multiplier,
                "offset": joint.mimic.offset,
            }
            for joint in movable
            if joint.mimic is not None
        },
        "config_kinds": kinds,
        "configs": configs.tolist(),
        "links": table,
    }


def _header(item: Description, model: Path, tool: str, missing: list[str]) -> Json:
    return {
        "generator": "tools/make_robot_data.py",
        "model": model.relative_to(ROBOTS_DIR).as_posix(),
        "shipped_by": {"package": item.dist, "version": version(item.dist),
                       "path": f"{item.source}/{item.entry}"},
        "tool": {"name": tool, "version": version(tool)},
        "versions": {"python": platform.python_version(), "numpy": np.__version__},
        "seed": SEED,
        "units": {"position": "m", "revolute": "rad", "prismatic": "m"},
        "quaternion_order": QUATERNION_ORDER,
        "quaternion_sign": "w >= 0 (q and -q are the same rotation)",
        "references_not_found": missing,
    }  # fmt: skip


# -- MJCF references with MuJoCo -------------------------------------------------------


def _mujoco_name(model: Any, kind: Any, index: int) -> str | None:
    name: str | None = mujoco.mj_id2name(model, kind, index)
    return name


def _mjcf_joints(model: Any) -> list[int]:
    kinds = {int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)}
    joints = [j for j in range(model.njnt) if int(model.jnt_type[j]) in kinds]
    if len(joints) != model.njnt:
        raise SystemExit("free and ball joints are not expected in this model")
    return joints


def _mesh_table(model: Any) -> Json:
    meshes = {}
    for mesh in range(model.nmesh):
        meshes[_mujoco_name(model, mujoco.mjtObj.mjOBJ_MESH, mesh) or str(mesh)] = {
            "scale": model.mesh_scale[mesh].tolist(),
            "mesh_pos": model.mesh_pos[mesh].tolist(),
            "mesh_quat": model.mesh_quat[mesh].tolist(),
            "vertices": int(model.mesh_vertnum[mesh]),
            "faces": int(model.mesh_facenum[mesh]),
        }
    return meshes


def _mjcf_pose_tables(model: Any, configs: NDArray[np.float64]) -> tuple[Json, Json]:
    """Return per body and per mesh geom the poses over ``configs``."""
    data = mujoco.MjData(model)
    bodies: Json = {}
    geoms: Json = {}
    body_names = [
        _mujoco_name(model, mujoco.mjtObj.mjOBJ_BODY, b) or str(b)
        for b in range(model.nbody)
    ]
    mesh_type = int(mujoco.mjtGeom.mjGEOM_MESH)
    mesh_geoms = [g for g in range(model.ngeom) if int(model.geom_type[g]) == mesh_type]
    for name in body_names:
        bodies[name] = {"position": [], "quaternion": []}
    for g in mesh_geoms:
        geoms[str(g)] = {
            "name": _mujoco_name(model, mujoco.mjtObj.mjOBJ_GEOM, g),
            "body": body_names[model.geom_bodyid[g]],
            "mesh": _mujoco_name(model, mujoco.mjtObj.mjOBJ_MESH, model.geom_dataid[g]),
            "position": [],
            "quaternion": [],
        }
    for config in configs:
        data.qpos[model.jnt_qposadr[_mjcf_joints(model)]] = config
        mujoco.mj_kinematics(model, data)
        for b, name in enumerate(body_names):
            bodies[name]["position"].append(data.xpos[b].tolist())
            bodies[name]["quaternion"].append(_canonical(data.xquat[b].copy()))
        for g in mesh_geoms:
            quat = _matrix_quat_wxyz(data.geom_xmat[g].reshape(3, 3))
            geoms[str(g)]["position"].append(data.geom_xpos[g].tolist())
            geoms[str(g)]["quaternion"].append(_canonical(quat))
    return bodies, geoms


def mjcf_reference(xml: Path, item: Description) -> Json:
    """Return the FK reference of one MJCF (see ``tests/data/robots/README.md``)."""
    model = mujoco.MjModel.from_xml_path(str(xml.resolve()))
    joints = _mjcf_joints(model)
    if not all(model.jnt_limited[j] for j in joints):
        raise SystemExit(f"{xml}: every joint is expected to have a range")
    lower = np.array([model.jnt_range[j][0] for j in joints])
    upper = np.array([model.jnt_range[j][1] for j in joints])
    configs, kinds = _configs(lower, upper)
    bodies, geoms = _mjcf_pose_tables(model, configs)
    return {
        **_header(item, xml, "mujoco", []),
        "fk_call": "mujoco.mj_kinematics; data.xpos / data.xquat per body,"
        " data.geom_xpos / data.geom_xmat per mesh geom",
        "frame": "MuJoCo body frames (xpos/xquat, not the inertial xipos) in the"
        " world frame of the model",
        "joint_names": [
            _mujoco_name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in joints
        ],
        "joint_types": [
            "hinge"
            if int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_HINGE)
            else "slide"
            for j in joints
        ],
        "joint_lower": lower.tolist(),
        "joint_upper": upper.tolist(),
        "config_kinds": kinds,
        "configs": configs.tolist(),
        "bodies": bodies,
        "mesh_geoms": geoms,
        "meshes": _mesh_table(model),
    }


def main() -> None:
    """Copy every description, then write its ``<folder>.fk.json`` beside it."""
    print(f"python {sys.version.split()[0]}, pybullet {version('pybullet')}, "
          f"mujoco {version('mujoco')}")  # fmt: skip
    for item in DESCRIPTIONS:
        entry, missing = _copy_description(item)
        if entry.suffix == ".urdf":
            reference = urdf_reference(entry, item, missing)
        else:
            reference = mjcf_reference(entry, item)
        out = ROBOTS_DIR / f"{item.folder}.fk.json"
        out.write_text(dumps_compact(reference))
        size = out.stat().st_size
        print(f"wrote {out.name} ({size} bytes); not found: {missing}")


if __name__ == "__main__":
    main()
