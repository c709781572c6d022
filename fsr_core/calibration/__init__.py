"""Camera calibration values, calibration epochs and projection math.

A camera's *intrinsics* (image size, focal lengths, principal point, skew and
lens distortion) are held by :class:`CalibrationProfile`; its *extrinsics* (where
the camera sits in the world) by :class:`CameraPose`. The SHA-256 digest of a
profile's canonical JSON (:func:`calibration_digest`) names an intrinsic
calibration epoch: every frame recorded under the same digest shares the same
intrinsics. :class:`Calibration` ties a profile and an optional pose to the
camera, runtime generation and first tick at which that epoch began.

Camera frames follow the OpenCV convention: x to the right of the image, y
down, z forward along the optical axis. Quaternions are stored ``(x, y, z, w)``.
This package depends on numpy only.
"""

from fsr_core.calibration.epoch import Calibration
from fsr_core.calibration.pose import QUATERNION_NORM_TOLERANCE, CameraPose, look_at
from fsr_core.calibration.profile import (
    CAMERA_FRAMES,
    DISTORTION_LENGTHS,
    LENGTH_UNITS,
    CalibrationProfile,
    calibration_digest,
    centred_pinhole,
    distortion_model_for,
)
from fsr_core.calibration.projection import project_points
from fsr_core.calibration.rotations import (
    matrices_from_quaternions,
    matrix_from_quaternion,
    quaternion_from_matrix,
    quaternions_from_matrices,
)

__all__ = [
    "CAMERA_FRAMES",
    "DISTORTION_LENGTHS",
    "LENGTH_UNITS",
    "QUATERNION_NORM_TOLERANCE",
    "Calibration",
    "CalibrationProfile",
    "CameraPose",
    "calibration_digest",
    "centred_pinhole",
    "distortion_model_for",
    "look_at",
    "matrices_from_quaternions",
    "matrix_from_quaternion",
    "project_points",
    "quaternion_from_matrix",
    "quaternions_from_matrices",
]
