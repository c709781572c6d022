"""Read a robot description file, URDF or MJCF, whichever it is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from fsr_core.errors import RobotModelError
from fsr_core.recording import RobotDescription
from fsr_core.robots.description import RobotModel
from fsr_core.robots.mjcf import read_mjcf, read_mjcf_text
from fsr_core.robots.resource_paths import ResourceRoots
from fsr_core.robots.urdf import MAX_DESCRIPTION_BYTES, read_urdf

__all__ = ["load_robot", "robot_from_text"]

_SNIFF_BYTES: Final = 4096
#: The first element of an XML text (after its declaration, comments and DTD).
_FIRST_ELEMENT: Final = re.compile(rb"<([A-Za-z_][\w.-]*)[\s/>]")


def _is_mjcf(head: bytes) -> bool:
    """Whether the text's first element is ``<mujoco>``."""
    first = _FIRST_ELEMENT.search(head)
    return first is not None and first.group(1) == b"mujoco"


def load_robot(path: Path, package_paths: tuple[Path, ...] = ()) -> RobotModel:
    """Read the robot description at ``path``: MJCF (a ``<mujoco>`` file) or URDF.

    Raises
    ------
    RobotModelError
        The file cannot be read or is not a description this viewer reads;
        the message names the file and the problem.
    """
    try:
        if not path.is_file():
            raise RobotModelError("no such robot description file", path=path)
        size = path.stat().st_size
        if size > MAX_DESCRIPTION_BYTES:
            raise RobotModelError(
                f"description is {size:,} bytes, "
                f"over the {MAX_DESCRIPTION_BYTES:,} budget",
                path=path,
            )
        text = path.read_bytes()
    except OSError as error:
        raise RobotModelError(f"cannot read ({error.strerror})", path=path) from None
    if _is_mjcf(text[:_SNIFF_BYTES]):
        return read_mjcf(path)
    return read_urdf(
        text, str(path), ResourceRoots.for_description(path, package_paths)
    )


def robot_from_text(
    description: RobotDescription, folder: Path, package_paths: tuple[Path, ...] = ()
) -> RobotModel:
    """Read a description a recording carries (an MCAP's ``/robot_description``).

    A URDF's meshes resolve against ``package_paths``, ``ROS_PACKAGE_PATH``
    and ``folder`` (the recording's) and its ancestors; an MJCF compiles with
    the assets it carries.

    Raises
    ------
    RobotModelError
        As :func:`load_robot`, naming ``description.where``.
    """
    if description.kind == "mjcf":
        return read_mjcf_text(description.text, description.where, description.assets)
    roots = ResourceRoots.for_description(
        folder / "robot_description.urdf", package_paths
    )
    return read_urdf(description.text, description.where, roots)
