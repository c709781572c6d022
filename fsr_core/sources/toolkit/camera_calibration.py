"""A ROS camera's calibration over time, and the one in force for a frame.

A calibration topic's messages (``CameraInfo``, ``CameraCalibration``) are
grouped into epochs: a new epoch starts where the intrinsics change. The
calibration of an image is the epoch in force at its time, posed where the
transform tree puts the image's frame at that time (no pose when the tree
does not know it). The image topic's camera is the calibration topic of its
frame, else of its namespace (``/cam/image_raw`` and ``/cam/camera_info``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from fsr_core.calibration import Calibration, CalibrationProfile, CameraPose
from fsr_core.calibration.profile import calibration_digest
from fsr_core.calibration.rotations import quaternion_from_matrix
from fsr_core.errors import CalibrationError
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = ["CalibrationEpochs", "Epoch", "epochs_of", "matching_calibrations"]

CalibrationSample = tuple[int, CalibrationProfile, str]
"""``(time_ns, intrinsics, frame_id)`` of one calibration message."""


@dataclass(frozen=True)
class Epoch:
    """A calibration in force from ``start_ns`` until the next one differs."""

    start_ns: int
    profile: CalibrationProfile
    digest: str


def epochs_of(found: Sequence[CalibrationSample]) -> list[Epoch]:
    """Return the calibration epochs of a calibration topic's messages."""
    epochs: list[Epoch] = []
    for time_ns, profile, _ in sorted(found, key=lambda item: item[0]):
        digest = calibration_digest(profile)
        if not epochs or epochs[-1].digest != digest:
            epochs.append(Epoch(time_ns, profile, digest))
    return epochs


def matching_calibrations(
    image_topic: str,
    image_frame: str,
    calibrations: dict[str, list[CalibrationSample]],
) -> list[CalibrationSample]:
    """Return the calibrations of an image topic's camera: same frame, else namespace.

    ``calibrations`` holds each calibration topic's samples by topic name.
    """
    if image_frame:
        for samples in calibrations.values():
            if any(frame == image_frame for _, _, frame in samples):
                return samples
    namespace = image_topic.rsplit("/", 1)[0]
    for topic, samples in calibrations.items():
        other = topic.rsplit("/", 1)[0]
        if other and (namespace.startswith(other) or other.startswith(namespace)):
            return samples
    return []


@dataclass
class CalibrationEpochs:
    """One camera's epochs, and the calibration in force at a time."""

    camera: str
    epochs: list[Epoch]
    tree: TransformTree
    origin_ns: int
    _starts: np.ndarray = field(init=False)

    def __post_init__(self) -> None:  # noqa: D105
        self._starts = np.asarray([e.start_ns for e in self.epochs], dtype=np.int64)

    def at(self, time_ns: int, frame: str) -> Calibration | None:
        """Return the calibration of a frame taken at ``time_ns`` in ``frame``."""
        if not self.epochs:
            return None
        epoch = max(int(np.searchsorted(self._starts, time_ns, "right")) - 1, 0)
        chosen = self.epochs[epoch]
        pose = None
        found = self.tree.world_pose(frame, time_ns) if frame else None
        if found is not None:
            translation, rotation = found
            try:
                pose = CameraPose.normalized(
                    translation, quaternion_from_matrix(rotation)
                )
            except (CalibrationError, ValueError):
                pose = None
        return Calibration(
            camera=self.camera,
            generation=0,
            epoch=epoch,
            digest=chosen.digest,
            profile=chosen.profile,
            pose=pose,
            first_tick=0,
            first_sim_time_s=(chosen.start_ns - self.origin_ns) / 1e9,
        )
