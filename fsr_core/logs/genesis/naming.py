"""How the channels of a Genesis trajectory are named: entities, axes, columns.

* **Scene names** (:func:`scene_names_of`): the links, joints, dofs and
  positions of the scene description's entities in solver order; a free
  joint's positions are ``x y z qw qx qy qz`` and its dofs ``x y z rx ry rz``.
* **Environment axis** (:func:`batch_axis`): the second axis of rigid-solver
  arrays, the first of ``(B,)`` arrays and of gravity; none for the model
  parameters of ``dyn_info`` shared by all environments (equalities aside).
* **Columns** (:func:`field_columns`): link, joint, dof or position names
  along the first axis when the description gives as many; ``x y z`` and
  quaternion ``w x y z`` along the last; indices otherwise, joined with dots;
  ``value`` for one number.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["SceneNames", "batch_axis", "field_columns", "scene_names_of"]

_FREE_Q: Final = ("x", "y", "z", "qw", "qx", "qy", "qz")
_FREE_DOF: Final = ("x", "y", "z", "rx", "ry", "rz")
_UNBATCHED: Final = ("RigidSolver.dyn_info.", "RigidSolver.dyn_state.fixed_verts.")


@dataclass(frozen=True)
class SceneNames:
    """Names in solver order (empty when the description did not give them)."""

    links: tuple[str, ...] = ()
    joints: tuple[str, ...] = ()
    dofs: tuple[str, ...] = ()
    qs: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()


def _joint_names(joint: dict[str, Any]) -> tuple[list[str], list[str]]:
    name = str(joint.get("name", "joint"))
    n_qs = joint.get("n_qs", 0)
    n_dofs = joint.get("n_dofs", 0)
    if not isinstance(n_qs, int) or not isinstance(n_dofs, int):
        raise TypeError("joint sizes are not integers")
    if n_qs == 7 and n_dofs == 6:
        return [f"{name}.{q}" for q in _FREE_Q], [f"{name}.{d}" for d in _FREE_DOF]
    qs = [name] if n_qs == 1 else [f"{name}.{k}" for k in range(n_qs)]
    dofs = [name] if n_dofs == 1 else [f"{name}.{k}" for k in range(n_dofs)]
    return qs, dofs


def scene_names_of(scene: Any) -> SceneNames:
    """Return the names the parsed ``scene.json`` of a description gives.

    Raises
    ------
    LookupError, TypeError, AttributeError
        The document is not shaped as a scene description (callers fall back
        to indices: names are a convenience).
    """
    entities = scene["held"]["scene"]["entities"]
    links: list[str] = []
    joints: list[str] = []
    dofs: list[str] = []
    qs: list[str] = []
    entity_names: list[str] = []
    for number, entity in enumerate(entities):
        entity_names.append(str(entity.get("name") or f"entity{number}"))
        for link in entity.get("links") or []:
            links.append(str(link.get("name", f"link{len(links)}")))
            for joint in link.get("joints") or []:
                joints.append(str(joint.get("name", f"joint{len(joints)}")))
                joint_qs, joint_dofs = _joint_names(joint)
                qs.extend(joint_qs)
                dofs.extend(joint_dofs)
    return SceneNames(
        tuple(links), tuple(joints), tuple(dofs), tuple(qs), tuple(entity_names)
    )


def batch_axis(name: str, shape: tuple[int, ...], batch: int) -> int | None:
    """Return the environment axis of a field's canonical shape (None: none).

    Rigid-solver arrays put the entity first and the environment second; a
    few put it elsewhere. The model parameters of ``dyn_info`` (but its
    equalities) are shared by all environments, and gravity is ``(B, 3)``.
    """
    if not shape:
        return None
    if name.startswith(_UNBATCHED) and ".equalities." not in name:
        return None
    if name.endswith("gravity") or len(shape) == 1:
        return 0 if shape[0] == batch else None
    if shape[1] == batch:
        return 1
    for axis in range(2, len(shape)):
        if shape[axis] == batch:
            return axis
    return 0 if shape[0] == batch else None


def _axis_labels(
    name: str, size: int, position: int, ndim: int, names: SceneNames
) -> list[str]:
    if position == ndim - 1 and ndim >= 1:
        if size == 4 and "quat" in name:
            return ["w", "x", "y", "z"]
        if size == 3 and ndim >= 2:
            return ["x", "y", "z"]
    if position == 0:
        for marker, known in (
            (".links.", names.links),
            (".joints.", names.joints),
            (".dofs.", names.dofs),
        ):
            if marker in name and len(known) == size:
                return list(known)
        if (
            name.endswith(("rigid_info.qpos", "rigid_info.qpos0"))
            and len(names.qs) == size
        ):
            return list(names.qs)
    return [str(k) for k in range(size)]


def field_columns(
    name: str, shape: tuple[int, ...], names: SceneNames
) -> tuple[str, ...]:
    """Return the column names of field ``name`` whose values have ``shape``."""
    if not shape or (len(shape) == 1 and shape[0] == 1):
        return ("value",)
    labels = [
        _axis_labels(name, size, position, len(shape), names)
        for position, size in enumerate(shape)
    ]
    return tuple(".".join(parts) for parts in itertools.product(*labels))
