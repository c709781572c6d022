"""The arm's description and state: links, limits, gravity, friction.

Conventions (used by every module of the simulator):

- The arm moves in a vertical plane. Plane coordinates are ``(x, y)`` in
  metres with ``y`` up; the world embeds the plane as ``(x, 0, y)`` (world
  ``z`` is up, the arm plane is world ``x``-``z``).
- Joint ``i`` is revolute; its angle ``q[i]`` (radians) is measured from the
  previous link (for joint 0, from the plane's ``+x`` axis), counter-clockwise.
  The absolute angle of link ``i`` is ``theta_i = q[0] + ... + q[i]``.
- Link ``i`` starts at joint ``i`` and ends at joint ``i + 1`` (the last ends
  at the tip). Its centre of mass lies on the link, ``com_m`` from its joint.
- Gravity is a plane vector, ``(0, -9.81)`` by default. Viscous friction acts
  at every joint: ``tau_friction = -friction_nms_per_rad * dq``.
- An external force acts at the tip, in plane coordinates (newtons).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError

__all__ = ["ArmModel", "ArmState", "Link"]


def _positive(value: float, name: str) -> float:
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise SchemaError(f"{name} must be a positive number, got {value!r}")
    return number


def _finite(value: float, name: str) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise SchemaError(f"{name} must be a finite number, got {value!r}")
    return number


@dataclass(frozen=True)
class Link:
    """One rigid link and the revolute joint at its start.

    Parameters
    ----------
    length_m
        Joint-to-joint length.
    mass_kg
        Link mass.
    inertia_kgm2
        Rotational inertia about the link's centre of mass (plane normal).
    com_m
        Distance of the centre of mass from the link's joint, along the link.
    q_min_rad, q_max_rad
        Joint limits (``-inf``/``inf`` for none).
    """

    length_m: float
    mass_kg: float
    inertia_kgm2: float
    com_m: float
    q_min_rad: float = -math.pi
    q_max_rad: float = math.pi

    def __post_init__(self) -> None:
        """Check the values."""
        _positive(self.length_m, "link length_m")
        _positive(self.mass_kg, "link mass_kg")
        if not math.isfinite(self.inertia_kgm2) or self.inertia_kgm2 < 0:
            raise SchemaError(
                f"link inertia_kgm2 must be >= 0, got {self.inertia_kgm2!r}"
            )
        _finite(self.com_m, "link com_m")
        if not self.q_min_rad < self.q_max_rad:
            raise SchemaError("link q_min_rad must be below q_max_rad")

    def to_json(self) -> dict[str, Any]:
        """Return the link as canonical-JSON-ready values (infinite limits as null)."""
        return {
            "length_m": self.length_m,
            "mass_kg": self.mass_kg,
            "inertia_kgm2": self.inertia_kgm2,
            "com_m": self.com_m,
            "q_min_rad": self.q_min_rad if math.isfinite(self.q_min_rad) else None,
            "q_max_rad": self.q_max_rad if math.isfinite(self.q_max_rad) else None,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Link:
        """Inverse of :meth:`to_json`."""
        low, high = obj.get("q_min_rad"), obj.get("q_max_rad")
        return cls(
            length_m=float(obj["length_m"]),
            mass_kg=float(obj["mass_kg"]),
            inertia_kgm2=float(obj["inertia_kgm2"]),
            com_m=float(obj["com_m"]),
            q_min_rad=-math.inf if low is None else float(low),
            q_max_rad=math.inf if high is None else float(high),
        )

    @classmethod
    def uniform_rod(cls, length_m: float, mass_kg: float, **limits: float) -> Link:
        """Make a slender uniform rod: centre of mass mid-length, I = m L^2 / 12."""
        return cls(
            length_m, mass_kg, mass_kg * length_m**2 / 12.0, length_m / 2.0, **limits
        )


@dataclass(frozen=True)
class ArmModel:
    """A planar serial arm.

    Parameters
    ----------
    links
        The links from the base outwards (one revolute joint each).
    base_m
        Position of joint 0 in the plane.
    gravity_mps2
        Gravity in the plane.
    friction_nms_per_rad
        Viscous joint friction coefficient (the same at every joint).
    enforce_limits
        Whether the integrator stops joints at their limits.
    """

    links: tuple[Link, ...]
    base_m: tuple[float, float] = (0.0, 0.0)
    gravity_mps2: tuple[float, float] = (0.0, -9.81)
    friction_nms_per_rad: float = 0.0
    enforce_limits: bool = True

    def __post_init__(self) -> None:
        """Check the values."""
        if not self.links:
            raise SchemaError("an arm needs at least one link")
        object.__setattr__(self, "links", tuple(self.links))
        for value in (*self.base_m, *self.gravity_mps2):
            _finite(value, "base_m/gravity_mps2")
        if (
            not math.isfinite(self.friction_nms_per_rad)
            or self.friction_nms_per_rad < 0
        ):
            raise SchemaError("friction_nms_per_rad must be >= 0")

    @property
    def dof(self) -> int:
        """Number of joints."""
        return len(self.links)

    @property
    def reach_m(self) -> float:
        """Sum of the link lengths."""
        return float(sum(link.length_m for link in self.links))

    @property
    def joint_names(self) -> tuple[str, ...]:
        """``q0``, ``q1``, ... (axis names of control chunks and channels)."""
        return tuple(f"q{i}" for i in range(self.dof))

    def limits(self) -> tuple[FloatArray, FloatArray]:
        """Lower and upper joint limits as arrays."""
        return (
            np.array([link.q_min_rad for link in self.links]),
            np.array([link.q_max_rad for link in self.links]),
        )

    def to_json(self) -> dict[str, Any]:
        """Return the model as canonical-JSON-ready values."""
        return {
            "links": [link.to_json() for link in self.links],
            "base_m": list(self.base_m),
            "gravity_mps2": list(self.gravity_mps2),
            "friction_nms_per_rad": self.friction_nms_per_rad,
            "enforce_limits": self.enforce_limits,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ArmModel:
        """Inverse of :meth:`to_json`."""
        return cls(
            links=tuple(Link.from_json(item) for item in obj["links"]),
            base_m=(float(obj["base_m"][0]), float(obj["base_m"][1])),
            gravity_mps2=(float(obj["gravity_mps2"][0]), float(obj["gravity_mps2"][1])),
            friction_nms_per_rad=float(obj["friction_nms_per_rad"]),
            enforce_limits=bool(obj["enforce_limits"]),
        )


@dataclass
class ArmState:
    """Joint positions and velocities (mutable: the integrator updates it).

    Parameters
    ----------
    q
        Joint angles, radians, shape (dof,).
    dq
        Joint velocities, rad/s, shape (dof,).
    """

    q: FloatArray
    dq: FloatArray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:
        """Make float64 copies; default ``dq`` to zeros."""
        self.q = np.array(self.q, dtype=np.float64)
        self.dq = (
            np.zeros_like(self.q)
            if len(self.dq) == 0
            else np.array(self.dq, dtype=np.float64)
        )
        if self.q.shape != self.dq.shape or self.q.ndim != 1:
            raise SchemaError("q and dq must be 1-D arrays of the same length")

    def copy(self) -> ArmState:
        """Return an independent copy."""
        return ArmState(self.q.copy(), self.dq.copy())
