"""Robot models: URDF and MJCF descriptions, posed by recorded joints.

A description is read into a :class:`RobotModel` (links, joints, meshes) by
the field's libraries (yourdfpy with trimesh for URDF, MuJoCo's compiler for
MJCF); :func:`with_robot` poses it over a whole recording at once and gives
the recording its meshes to draw and a ``robot/<link>`` pose channel per
link.
"""

from fsr_core.robots.description import JointType, LinkVisual, RobotJoint, RobotModel
from fsr_core.robots.kinematics import link_poses, link_transforms
from fsr_core.robots.loading import load_robot, robot_from_text
from fsr_core.robots.matching import JointMatch, match_joints, read_joint_map
from fsr_core.robots.posing import (
    LINK_POSE_COLUMNS,
    ROBOT_PREFIX,
    RobotRequest,
    pose_robot,
    with_carried_robot,
    with_robot,
)

__all__ = [
    "LINK_POSE_COLUMNS",
    "ROBOT_PREFIX",
    "JointMatch",
    "JointType",
    "LinkVisual",
    "RobotJoint",
    "RobotModel",
    "RobotRequest",
    "link_poses",
    "link_transforms",
    "load_robot",
    "match_joints",
    "pose_robot",
    "read_joint_map",
    "robot_from_text",
    "with_carried_robot",
    "with_robot",
]
