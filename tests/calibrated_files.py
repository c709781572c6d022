"""Build small camera recordings whose calibration may be deliberately wrong.

The readers and the command line are both tested against such files, so the
builder lives here, beside :func:`calibration_epoch` for tests that build a
:class:`~fsr_core.calibration.Calibration` in memory. ``tests/`` is on
``sys.path``, so a test imports this as
``from calibrated_files import write_calibrated_camera, calibration_k``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fsr_core.calibration import (
    Calibration,
    CalibrationProfile,
    CameraPose,
    calibration_digest,
)
from fsr_core.format.catalog import camera_streams
from fsr_core.format.writer import FsrWriter

__all__ = [
    "CAMERA_BASE",
    "PROFILE",
    "calibration_epoch",
    "calibration_k",
    "write_calibrated_camera",
]

#: The stream prefix of the one camera, ``cam``, in every file built here.
CAMERA_BASE = "sensors.cam.camera"
#: The calibration profile every file built here claims (8 x 6, fx = fy = 7).
PROFILE = CalibrationProfile(8, 6, 7.0, 7.0, 4.0, 3.0)


def calibration_epoch(
    camera: str,
    profile: CalibrationProfile,
    pose: CameraPose | None,
    *,
    generation: int = 0,
    epoch: int = 0,
    first_tick: int = 0,
    first_sim_time_s: float = 0.0,
) -> Calibration:
    """Return a valid epoch of ``camera``, its digest computed from ``profile``."""
    return Calibration(
        camera=camera,
        generation=generation,
        epoch=epoch,
        digest=calibration_digest(profile),
        profile=profile,
        pose=pose,
        first_tick=first_tick,
        first_sim_time_s=first_sim_time_s,
    )


def calibration_k(**changes: float) -> np.ndarray:
    """``PROFILE.K`` with entries ``fx``, ``fy`` or ``cx`` replaced."""
    k = PROFILE.K.copy()
    for name, value in changes.items():
        row, column = {"fx": (0, 0), "fy": (1, 1), "cx": (0, 2)}[name]
        k[row, column] = value
    return k


def write_calibrated_camera(
    path: Path, quaternion: list[float], k: np.ndarray | None
) -> Path:
    """Write a one-frame camera file at ``path`` and return ``path``.

    ``quaternion`` goes in as a copied payload (``write_encoded``), unchecked.
    With ``k`` the intrinsics are copied in raw too, as ``k`` beside
    ``PROFILE``'s JSON; with ``None`` they are written normally from ``PROFILE``.
    """
    streams = camera_streams("cam", width=8, height=6, codec="rgb24")
    with FsrWriter(path, streams, metadata={"run": {"name": "cal"}}) as writer:
        if k is None:
            writer.write(f"{CAMERA_BASE}.intrinsics", PROFILE, tick=0, sim_time_s=0.0)
        else:
            writer.write_encoded(
                f"{CAMERA_BASE}.intrinsics",
                k.astype("<f8").tobytes(),
                raw_length=72,
                tick=0,
                sim_time_s=0.0,
                value=PROFILE.to_json(),
            )
        writer.write(
            f"{CAMERA_BASE}.extrinsics.translation",
            np.array([0.0, 0.0, 1.0]),
            tick=0,
            sim_time_s=0.0,
        )
        writer.write_encoded(
            f"{CAMERA_BASE}.extrinsics.quaternion_xyzw",
            np.asarray(quaternion, "<f8").tobytes(),
            raw_length=32,
            tick=0,
            sim_time_s=0.0,
        )
        writer.write(
            f"{CAMERA_BASE}.rgb", np.zeros((6, 8, 3), np.uint8), tick=0, sim_time_s=0.0
        )
    return path
