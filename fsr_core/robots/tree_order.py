"""Put a description's joints in tree order from its one root, or say why not."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from fsr_core.errors import RobotModelError
from fsr_core.robots.description import RobotJoint

__all__ = ["tree_ordered"]


def tree_ordered(
    links: tuple[str, ...], joints: list[RobotJoint], path: str | Path
) -> tuple[int, tuple[RobotJoint, ...]]:
    """Return ``(root link, joints in tree order)``.

    Raises
    ------
    RobotModelError
        A link is the child of two joints, there is not exactly one root, or
        some link is not reached from the root (a loop).
    """
    by_parent: dict[int, list[RobotJoint]] = {}
    children: set[int] = set()
    for joint in joints:
        if joint.child in children:
            raise RobotModelError(
                f"link {links[joint.child]!r} is the child of two joints", path=path
            )
        children.add(joint.child)
        by_parent.setdefault(joint.parent, []).append(joint)
    roots = [index for index in range(len(links)) if index not in children]
    if len(roots) != 1:
        named = ", ".join(repr(links[index]) for index in roots[:5]) or "none"
        raise RobotModelError(
            f"a robot needs exactly one root link; found {len(roots)} ({named})",
            path=path,
        )
    ordered: list[RobotJoint] = []
    queue = deque([roots[0]])
    while queue:
        for joint in by_parent.get(queue.popleft(), ()):
            ordered.append(joint)
            queue.append(joint.child)
    if len(ordered) != len(joints):
        raise RobotModelError(
            "the joints form a loop: some links hang from nothing", path=path
        )
    return roots[0], tuple(ordered)
