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
from fsr_core.calibration.rotations import (
    matrices_from_quaternions,
    matrix_from_quaternion,
)
from fsr_core.sources.toolkit.message_kinds import Transform

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

    @staticmethod
    def _arrays(link: _Link) -> tuple[np.ndarray, FloatArray, FloatArray]:
        """Return a link's times, translations and rotations, sorted by time."""
        if link.arrays is None:
            order = np.argsort(np.asarray(link.times_ns, dtype=np.int64), kind="stable")
            link.arrays = (
                np.asarray(link.times_ns, dtype=np.int64)[order],
                np.asarray(link.translations, dtype=np.float64)[order],
                np.asarray(link.rotations, dtype=np.float64)[order],
            )
        return link.arrays

    def _link_pose(self, link: _Link, time_ns: int) -> tuple[FloatArray, FloatArray]:
        times, translations, rotations = self._arrays(link)
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

    def world_poses(
        self, frame: str, times_ns: np.ndarray
    ) -> tuple[FloatArray, FloatArray] | None:
        """Return ``frame``'s translations ``(n, 3)`` and unit quaternions ``(n, 4)``.

        The pose in its root frame at each of ``times_ns``, as
        :meth:`world_pose` gives it (quaternions ``x, y, z, w`` with ``w >= 0``),
        computed for all the times at once. ``None`` as :meth:`world_pose`.
        """
        if frame not in self._links and not any(
            link.parent == frame for link in self._links.values()
        ):
            return None
        count = int(times_ns.size)
        translation: FloatArray = np.zeros((count, 3))
        rotation: FloatArray = np.zeros((count, 4))
        rotation[:, 3] = 1.0
        current = frame
        for _ in range(_MAX_DEPTH):
            link = self._links.get(current)
            if link is None:
                break
            times, translations, rotations = self._arrays(link)
            if link.static:
                index = np.zeros(count, dtype=np.int64)
            else:
                index = np.searchsorted(times, times_ns, "right") - 1
            index = np.clip(index, 0, len(times) - 1)
            outer = rotations[index] / np.linalg.norm(
                rotations[index], axis=1, keepdims=True
            )
            matrices = matrices_from_quaternions(outer, normalise=False)
            translation = translations[index] + np.einsum(
                "nij,nj->ni", matrices, translation
            )
            rotation = _product(outer, rotation)
            current = link.parent
        else:
            return None
        rotation /= np.linalg.norm(rotation, axis=1, keepdims=True)
        rotation[rotation[:, 3] < 0] *= -1.0
        return translation, rotation + 0.0

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


def _product(outer: FloatArray, inner: FloatArray) -> FloatArray:
    """Return the quaternion products ``outer * inner`` (rows ``x, y, z, w``)."""
    x1, y1, z1, w1 = outer.T
    x2, y2, z2, w2 = inner.T
    return np.stack(
        [
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        ],
        axis=1,
    )
