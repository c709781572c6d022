"""The transform tree of a recording (``/tf``, ``/tf_static``, frame transforms).

Each child frame has one parent and a time series of its pose in the parent
(a static transform holds for all time). :meth:`TransformTree.world_pose`
chains them up to the tree's root at a given time, taking each link's last
sample at or before it (its first sample before the series starts), as
``tf2`` does without interpolation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration.rotations import matrix_from_quaternion
from fsr_core.sources.mcap.known_types import Transform

__all__ = ["TransformTree"]

_MAX_DEPTH: Final = 256


@dataclass
class _Link:
    parent: str
    times_ns: list[int] = field(default_factory=list)
    translations: list[tuple[float, float, float]] = field(default_factory=list)
    rotations: list[tuple[float, float, float, float]] = field(default_factory=list)
    static: bool = False
    arrays: tuple[np.ndarray, FloatArray, FloatArray] | None = None


def _compose(
    outer: tuple[FloatArray, FloatArray], inner: tuple[FloatArray, FloatArray]
) -> tuple[FloatArray, FloatArray]:
    """Return ``outer ∘ inner`` for ``(translation, rotation matrix)`` pairs."""
    t_outer, r_outer = outer
    t_inner, r_inner = inner
    return t_outer + r_outer @ t_inner, r_outer @ r_inner


class TransformTree:
    """Parent links over time, and world poses from them."""

    def __init__(self) -> None:
        self._links: dict[str, _Link] = {}
        self.problems: list[str] = []

    def _link_for(self, parent: str, child: str, static: bool) -> _Link | None:
        """Return ``child``'s link, new or known; ``None`` if its parent changed."""
        link = self._links.get(child)
        if link is None:
            link = _Link(parent, static=static)
            self._links[child] = link
        elif link.parent != parent:
            note = (
                f"frame {child[:80]!r} changes parent from "
                f"{link.parent[:80]!r} to {parent[:80]!r}; the first is kept"
            )
            if note not in self.problems:
                self.problems.append(note)
            return None
        return link

    def add(self, time_ns: int, transform: Transform, *, static: bool) -> None:
        """Add one sample of ``transform`` (the child's pose in its parent)."""
        link = self._link_for(transform.parent, transform.child, static)
        if link is None:
            return
        link.times_ns.append(time_ns)
        link.translations.append(transform.translation)
        link.rotations.append(transform.rotation_xyzw)
        link.arrays = None

    def add_many(
        self,
        times_ns: list[int],
        parent: str,
        child: str,
        translations: FloatArray,
        rotations_xyzw: FloatArray,
        *,
        static: bool,
    ) -> None:
        """Add samples of one link, as :meth:`add` of each in turn would."""
        link = self._link_for(parent, child, static) if times_ns else None
        if link is None:
            return
        link.times_ns.extend(times_ns)
        link.translations.extend(map(tuple, translations.tolist()))
        link.rotations.extend(map(tuple, rotations_xyzw.tolist()))
        link.arrays = None

    @property
    def frames(self) -> tuple[str, ...]:
        """Every frame named, roots first, then children in the order seen."""
        roots = [
            link.parent
            for link in self._links.values()
            if link.parent not in self._links
        ]
        ordered = list(dict.fromkeys(roots))
        ordered.extend(self._links)
        return tuple(dict.fromkeys(ordered))

    def root_of(self, frame: str) -> str:
        """Return the top of ``frame``'s chain (the frame itself at the top)."""
        current = frame
        for _ in range(_MAX_DEPTH):
            link = self._links.get(current)
            if link is None:
                return current
            current = link.parent
        return current

    @property
    def dynamic_times_ns(self) -> np.ndarray:
        """Every time a moving link was sampled, sorted and unique."""
        times = [link.times_ns for link in self._links.values() if not link.static]
        if not times:
            return np.zeros(0, dtype=np.int64)
        return np.unique(np.concatenate([np.asarray(t, dtype=np.int64) for t in times]))

    def _link_pose(self, link: _Link, time_ns: int) -> tuple[FloatArray, FloatArray]:
        if link.arrays is None:
            order = np.argsort(np.asarray(link.times_ns, dtype=np.int64), kind="stable")
            link.arrays = (
                np.asarray(link.times_ns, dtype=np.int64)[order],
                np.asarray(link.translations, dtype=np.float64)[order],
                np.asarray(link.rotations, dtype=np.float64)[order],
            )
        times, translations, rotations = link.arrays
        index = 0 if link.static else int(np.searchsorted(times, time_ns, "right")) - 1
        index = min(max(index, 0), len(times) - 1)
        return translations[index], matrix_from_quaternion(rotations[index])

    def world_pose(
        self, frame: str, time_ns: int
    ) -> tuple[FloatArray, FloatArray] | None:
        """Return ``(translation, rotation matrix)`` of ``frame`` in its root frame.

        ``None`` when the tree does not know the frame, or its chain loops.
        """
        if frame not in self._links and not any(
            link.parent == frame for link in self._links.values()
        ):
            return None
        pose: tuple[FloatArray, FloatArray] = (np.zeros(3), np.eye(3))
        current = frame
        for _ in range(_MAX_DEPTH):
            link = self._links.get(current)
            if link is None:
                return pose
            pose = _compose(self._link_pose(link, time_ns), pose)
            current = link.parent
        return None

    def series(self) -> list[tuple[str, list[int], FloatArray, FloatArray]]:
        """Return ``(frame, times, translations, rotations xyzw)`` of moving links."""
        found = []
        for child, link in self._links.items():
            if link.static:
                continue
            found.append(
                (
                    child,
                    list(link.times_ns),
                    np.asarray(link.translations, dtype=np.float64),
                    np.asarray(link.rotations, dtype=np.float64),
                )
            )
        return found
