"""What a planar-arm recording is known by: its simulator and observation record.

Every tick writes one atomic record, :data:`OBSERVATIONS`, whose channels
:func:`observation_channels` names: the joint angles, velocities and torques,
the tip, the reference, the errors, the active target, the external force and
the friction.
"""

from __future__ import annotations

__all__ = [
    "OBSERVATIONS",
    "SIMULATOR_NAME",
    "observation_channels",
]

SIMULATOR_NAME = "planar_arm"
OBSERVATIONS = "observations.arm"
"""The arm's atomic per-tick record (:func:`observation_channels`)."""


def observation_channels(dof: int) -> list[tuple[str, str]]:
    """Names and units of the atomic per-tick observation record, in order."""
    channels: list[tuple[str, str]] = []
    for prefix, unit in (("q", "rad"), ("dq", "rad/s"), ("tau", "N*m")):
        channels += [(f"{prefix}{i}", unit) for i in range(dof)]
    channels += [("tip_x", "m"), ("tip_y", "m"), ("tip_speed", "m/s")]
    channels += [("ref_x", "m"), ("ref_y", "m")]
    channels += [(f"q_ref{i}", "rad") for i in range(dof)]
    channels += [(f"error{i}", "rad") for i in range(dof)]
    channels += [("active_target", "1"), ("ext_fx", "N"), ("ext_fy", "N")]
    channels += [("friction", "N*m*s/rad")]
    return channels
