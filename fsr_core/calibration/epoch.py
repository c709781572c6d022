"""Calibration epochs: the intrinsics (and pose) a camera had from a tick on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fsr_core.calibration._fields import describe, float_field, int_field
from fsr_core.calibration.pose import CameraPose
from fsr_core.calibration.profile import CalibrationProfile, calibration_digest
from fsr_core.errors import CalibrationError

__all__ = ["Calibration"]

_EPOCH: Final = "calibration"


@dataclass(frozen=True)
class Calibration:
    """One calibration epoch of one camera within one runtime generation.

    Parameters
    ----------
    camera
        Camera name.
    generation
        Runtime generation the epoch belongs to.
    epoch
        0-based index of this epoch among the camera's epochs in ``generation``.
    digest
        :func:`calibration_digest` of ``profile``.
    profile
        The intrinsics in force during the epoch.
    pose
        The camera's pose at the start of the epoch, when recorded.
    first_tick
        Simulation tick at which the epoch begins.
    first_sim_time_s
        Simulation time at which the epoch begins, seconds.

    Raises
    ------
    CalibrationError
        A field is invalid or ``digest`` does not match ``profile``.
    """

    camera: str
    generation: int
    epoch: int
    digest: str
    profile: CalibrationProfile
    pose: CameraPose | None
    first_tick: int
    first_sim_time_s: float

    def __post_init__(self) -> None:
        """Check fields and that the digest names the profile."""
        camera: object = self.camera
        if not isinstance(camera, str) or not camera:
            raise CalibrationError(
                f"/camera: expected a non-empty string, found {describe(camera)}",
                section=_EPOCH,
            )
        for name in ("generation", "epoch"):
            int_field(getattr(self, name), f"/{name}", _EPOCH, minimum=0)
        # Ticks are signed 64-bit in FSR: a run may count warm-up ticks below 0.
        int_field(self.first_tick, "/first_tick", _EPOCH, minimum=-(1 << 63))
        time_s = float_field(self.first_sim_time_s, "/first_sim_time_s", _EPOCH)
        object.__setattr__(self, "first_sim_time_s", time_s)
        if not isinstance(self.profile, CalibrationProfile):
            raise CalibrationError(
                "/profile: expected a CalibrationProfile", section=_EPOCH
            )
        if self.pose is not None and not isinstance(self.pose, CameraPose):
            raise CalibrationError(
                "/pose: expected a CameraPose or None", section=_EPOCH
            )
        expected = calibration_digest(self.profile)
        if self.digest != expected:
            raise CalibrationError(
                f"/digest: camera {self.camera!r} epoch {self.epoch} has digest "
                f"{describe(self.digest)}, expected {expected}",
                section=_EPOCH,
            )
