"""How a transform's pose reads as a channel: columns, unit and label.

A ``tf:<frame>`` channel (MCAP, ROS bags, Rerun) holds a frame's pose in its
parent: the translation in metres, then the rotation as a unit quaternion,
which has no unit. One unit string says both, so neither the plot's axis nor
the inspector calls the quaternion metres.
"""

from __future__ import annotations

from typing import Final

__all__ = ["POSE_COLUMNS", "POSE_UNIT", "pose_label"]

POSE_COLUMNS: Final = ("x", "y", "z", "qx", "qy", "qz", "qw")
"""Translation, then the rotation as ``qx, qy, qz, qw``."""

POSE_UNIT: Final = "m, quat"
"""Metres for ``x, y, z``; a unitless quaternion for the rest."""


def pose_label(frame: str) -> str:
    """Return the label of ``frame``'s pose channel."""
    return f"pose of {frame} in its parent"
