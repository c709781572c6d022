"""MJCF descriptions, compiled by MuJoCo, into a :class:`RobotModel`.

MuJoCo's own compiler reads the file (includes, defaults, meshes and all), so
the model drawn is the model MuJoCo simulates. Each body becomes a link; a
body with several joints gets hidden links between them, each hinge turning
about its anchor (a ball joint too, by its quaternion). The world body is
the root; a free joint is a floating base, posed in the world as MuJoCo's
``qpos`` poses it. Each joint keeps its ``qpos`` address, so a recorded
MuJoCo state poses every joint. Drawn geoms are those MuJoCo's viewer shows
by default (groups 0 to 2), with their material colour.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration import matrices_from_quaternions
from fsr_core.errors import RobotModelError
from fsr_core.mujoco_gl import select_gl_backend
from fsr_core.robots.description import (
    IDENTITY,
    JointType,
    LinkVisual,
    RobotJoint,
    RobotModel,
)
from fsr_core.robots.meshes import MeshPart, box, cylinder, sphere
from fsr_core.robots.robosuite_assets import ASSETS_MARKER, resolve_robosuite_paths
from fsr_core.robots.urdf import MAX_DESCRIPTION_BYTES, MAX_LINKS, MAX_ROBOT_TRIANGLES

__all__ = ["read_mjcf", "read_mjcf_text"]

#: Geom groups MuJoCo's viewer shows by default.
_SHOWN_GROUPS: Final = 2
_FREE, _BALL, _SLIDE, _HINGE = 0, 1, 2, 3
_PLANE, _SPHERE, _CAPSULE, _ELLIPSOID, _CYLINDER, _BOX, _MESH = 0, 2, 3, 4, 5, 6, 7


def _transform(position: FloatArray, quaternion_wxyz: FloatArray) -> FloatArray:
    result = np.eye(4)
    result[:3, :3] = matrices_from_quaternions(quaternion_wxyz, scalar_first=True)
    result[:3, 3] = position
    return result


def _shift(offset: FloatArray) -> FloatArray:
    result = np.eye(4)
    result[:3, 3] = offset
    return result


def _name(model: Any, kind: Any, index: int, fallback: str) -> str:
    select_gl_backend()
    import mujoco

    return mujoco.mj_id2name(model, kind, index) or fallback


def _geom_part(model: Any, geom: int) -> MeshPart | None:
    kind, size = int(model.geom_type[geom]), model.geom_size[geom]
    if kind == _SPHERE:
        return sphere(float(size[0]))
    if kind == _ELLIPSOID:
        unit = sphere(1.0)
        return MeshPart(unit.vertices_m * size, unit.faces, None)
    if kind == _CYLINDER:
        return cylinder(float(size[0]), 2.0 * float(size[1]))
    if kind == _CAPSULE:
        shaft = cylinder(float(size[0]), 2.0 * float(size[1]))
        ends = [sphere(float(size[0])) for _ in range(2)]
        vertices = [shaft.vertices_m]
        faces = [shaft.faces]
        offset = len(shaft.vertices_m)
        for sign, end in zip((-1.0, 1.0), ends, strict=True):
            vertices.append(
                end.vertices_m + np.array([0.0, 0.0, sign * float(size[1])])
            )
            faces.append(end.faces + offset)
            offset += len(end.vertices_m)
        return MeshPart(np.concatenate(vertices), np.concatenate(faces), None)
    if kind == _BOX:
        return box(2.0 * size)
    if kind == _MESH:
        mesh = int(model.geom_dataid[geom])
        start, count = int(model.mesh_vertadr[mesh]), int(model.mesh_vertnum[mesh])
        first, triangles = int(model.mesh_faceadr[mesh]), int(model.mesh_facenum[mesh])
        return MeshPart(
            np.array(model.mesh_vert[start : start + count], dtype=np.float64),
            np.array(model.mesh_face[first : first + triangles], dtype=np.int64),
            None,
        )
    return None  # planes and height fields are the world, not the robot


def _visuals(
    model: Any, link_of_body: list[int], where: str
) -> tuple[list[LinkVisual], list[str], set[int]]:
    select_gl_backend()
    import mujoco

    visuals: list[LinkVisual] = []
    warnings: list[str] = []
    framed: set[int] = set()
    triangles = 0
    for geom in range(model.ngeom):
        if int(model.geom_group[geom]) > _SHOWN_GROUPS:
            continue
        part = _geom_part(model, geom)
        if part is None:
            continue
        triangles += len(part.faces)
        name = _name(model, mujoco.mjtObj.mjOBJ_GEOM, geom, f"geom{geom}")
        if triangles > MAX_ROBOT_TRIANGLES:
            warnings.append(
                f"{where}: geom {name!r}: the robot's meshes pass "
                f"{MAX_ROBOT_TRIANGLES:,} triangles; drawn as a frame"
            )
            framed.add(link_of_body[int(model.geom_bodyid[geom])])
            continue
        material = int(model.geom_matid[geom])
        rgba = model.mat_rgba[material] if material >= 0 else model.geom_rgba[geom]
        if rgba[3] <= 0.0:
            continue
        pose = _transform(model.geom_pos[geom], model.geom_quat[geom])
        r, g, b, a = (float(item) for item in np.clip(rgba, 0.0, 1.0))
        visuals.append(
            LinkVisual(
                link=link_of_body[int(model.geom_bodyid[geom])],
                name=name,
                vertices_m=part.vertices_m @ pose[:3, :3].T + pose[:3, 3],
                faces=part.faces,
                rgba=(r, g, b, a),
            )
        )
    return visuals, warnings, framed


def _joints(
    model: Any, where: str
) -> tuple[list[str], list[RobotJoint], list[int], set[int]]:
    """Links, joints, the link of each body and the hidden links."""
    select_gl_backend()
    import mujoco

    links = [_name(model, mujoco.mjtObj.mjOBJ_BODY, 0, "world")]
    link_of_body = [0]
    hidden: set[int] = set()
    joints: list[RobotJoint] = []
    for body in range(1, model.nbody):
        body_name = _name(model, mujoco.mjtObj.mjOBJ_BODY, body, f"body{body}")
        parent = link_of_body[int(model.body_parentid[body])]
        origin = _transform(model.body_pos[body], model.body_quat[body])
        first = int(model.body_jntadr[body])
        own = (
            list(range(first, first + int(model.body_jntnum[body])))
            if first >= 0
            else []
        )
        if not own:
            links.append(body_name)
            joints.append(
                RobotJoint(
                    f"{body_name}_fixed",
                    JointType.FIXED,
                    parent,
                    len(links) - 1,
                    origin,
                )
            )
        for position, joint in enumerate(own):
            kind = int(model.jnt_type[joint])
            name = _name(model, mujoco.mjtObj.mjOBJ_JOINT, joint, f"joint{joint}")
            last = position == len(own) - 1
            links.append(body_name if last else f"{body_name}~{position}")
            child = len(links) - 1
            if not last:
                hidden.add(child)
            anchor = np.array(model.jnt_pos[joint], dtype=np.float64)
            address = int(model.jnt_qposadr[joint])
            if kind in (_HINGE, _SLIDE):
                limited = bool(model.jnt_limited[joint])
                low, high = (float(item) for item in model.jnt_range[joint])
                joints.append(
                    RobotJoint(
                        name,
                        JointType.REVOLUTE if kind == _HINGE else JointType.PRISMATIC,
                        parent,
                        child,
                        origin=origin @ _shift(anchor),
                        axis=np.array(model.jnt_axis[joint], dtype=np.float64),
                        after=_shift(-anchor),
                        lower=low if limited else None,
                        upper=high if limited else None,
                        offset=-float(model.qpos0[address]),
                        qpos_address=address,
                    )
                )
            elif kind == _BALL:
                # Turns about its anchor, as a hinge does, by a quaternion.
                joints.append(
                    RobotJoint(
                        name,
                        JointType.BALL,
                        parent,
                        child,
                        origin=origin @ _shift(anchor),
                        after=_shift(-anchor),
                        qpos_address=address,
                    )
                )
            else:
                # MuJoCo's qpos of a free joint is its body's pose in the
                # world, not a motion from the body's place: at rest that
                # place (its qpos0).
                joints.append(
                    RobotJoint(
                        name,
                        JointType.FLOATING,
                        parent,
                        child,
                        rest=origin,
                        qpos_address=address,
                    )
                )
            parent, origin = child, IDENTITY
        link_of_body.append(len(links) - 1)
        if len(links) > MAX_LINKS:
            raise RobotModelError(
                f"more than {MAX_LINKS:,} bodies and joints", path=where
            )
    return links, joints, link_of_body, hidden


def _compiled(compile_model: Callable[[Any], Any], where: str) -> Any:
    """Run MuJoCo's compiler; its first line of complaint becomes the error."""
    try:
        select_gl_backend()
        import mujoco
    except ImportError:
        raise RobotModelError(
            "MJCF robots need MuJoCo: pip install 'fsr-viewer[mujoco]'", path=where
        ) from None
    try:
        return compile_model(mujoco)
    except Exception as error:  # noqa: BLE001 - the compiler's message says what is wrong
        text = str(error).strip()
        first = text.splitlines()[0] if text else type(error).__name__
        raise RobotModelError(
            f"MuJoCo cannot compile it: {first}", path=where
        ) from None


def _robot(model: Any, where: str, fallback_name: str) -> RobotModel:
    links, joints, link_of_body, hidden = _joints(model, where)
    visuals, warnings, framed = _visuals(model, link_of_body, where)
    return RobotModel(
        name=bytes(model.names).split(b"\0", 1)[0].decode("utf-8", "replace")
        or fallback_name,
        path=where,
        links=tuple(links),
        root=0,
        joints=tuple(joints),
        visuals=tuple(visuals),
        warnings=tuple(warnings),
        hidden_links=frozenset(hidden),
        framed_links=frozenset(framed),
        qpos_size=int(model.nq),
        qvel_size=int(model.nv),
    )


def _check_size(size: int, where: str) -> None:
    if size > MAX_DESCRIPTION_BYTES:
        raise RobotModelError(
            f"description is {size:,} bytes, over the {MAX_DESCRIPTION_BYTES:,} budget",
            path=where,
        )


def read_mjcf(path: Path) -> RobotModel:
    """Compile MJCF file ``path`` with MuJoCo and read its robot.

    Raises
    ------
    RobotModelError
        The file is too big, MuJoCo is not installed, or MuJoCo cannot
        compile it (the message is MuJoCo's).
    """
    where = str(path)
    try:
        _check_size(path.stat().st_size, where)
    except OSError as error:
        raise RobotModelError(f"cannot read ({error.strerror})", path=where) from None
    # MuJoCo finds meshes relative to the file: hand it the resolved path.
    located = str(path.resolve())
    model = _compiled(lambda mujoco: mujoco.MjModel.from_xml_path(located), where)
    return _robot(model, where, path.stem)


def read_mjcf_text(text: bytes, where: str, assets: Mapping[str, bytes]) -> RobotModel:
    """Compile MJCF ``text`` with the ``assets`` it names (meshes, includes).

    robosuite's meshes and textures named by absolute paths this machine
    lacks are read from a robosuite installed here
    (:mod:`fsr_core.robots.robosuite_assets`); the robot's warnings say so.

    Raises
    ------
    RobotModelError
        As :func:`read_mjcf`; the text and the assets count against the
        description budget together. robosuite's files are missing and no
        robosuite here holds them (the message names the extra).
    """
    _check_size(len(text) + sum(len(item) for item in assets.values()), where)
    note = ""
    if ASSETS_MARKER.encode() in text:
        # robosuite names its meshes where it was installed when it recorded.
        resolved = resolve_robosuite_paths(text, where)
        text, note = resolved.text, resolved.note()
    xml = text.decode("utf-8", "replace")
    model = _compiled(
        lambda mujoco: mujoco.MjModel.from_xml_string(xml, dict(assets)), where
    )
    robot = _robot(model, where, "robot")
    if not note:
        return robot
    return dataclasses.replace(robot, warnings=(note, *robot.warnings))
