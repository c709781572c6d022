"""The transform tree gives a frame's world pose at one time or at many at once."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fsr_core.calibration.rotations import quaternion_from_matrix
from fsr_core.sources.toolkit.message_kinds import Transform
from fsr_core.sources.toolkit.transform_tree import TransformTree


def _turn(axis: int, angle: float) -> tuple[float, float, float, float]:
    half = [0.0, 0.0, 0.0]
    half[axis] = math.sin(angle / 2)
    return (half[0], half[1], half[2], math.cos(angle / 2))


def _tree() -> TransformTree:
    tree = TransformTree()
    tree.add(0, Transform("world", "base", (1.0, 2.0, 0.0), _turn(2, 2.5)), static=True)
    for step in range(50):
        time_ns = 1000 + step * 100
        tree.add(
            time_ns,
            Transform("base", "arm", (0.1 * step, 0.0, 0.3), _turn(0, 0.2 * step)),
            static=False,
        )
        if step % 4 == 0:  # sampled less often than its parent
            tree.add(
                time_ns + 7,
                Transform("arm", "tool", (0.0, 0.5, 0.0), _turn(1, -0.3 * step)),
                static=False,
            )
    return tree


def test_poses_at_many_times_are_the_poses_at_each() -> None:
    tree = _tree()
    times = np.arange(0, 7000, 37, dtype=np.int64)  # before, between and after samples
    for frame in ("world", "base", "arm", "tool"):
        found = tree.world_poses(frame, times)
        assert found is not None
        translations, rotations = found
        for index, time_ns in enumerate(times.tolist()):
            one = tree.world_pose(frame, time_ns)
            assert one is not None
            np.testing.assert_allclose(translations[index], one[0], atol=1e-12)
            np.testing.assert_allclose(
                rotations[index], quaternion_from_matrix(one[1]), atol=1e-12
            )
        assert (rotations[:, 3] >= 0).all()


def test_an_unknown_frame_or_a_loop_has_no_pose() -> None:
    tree = _tree()
    assert tree.world_poses("elsewhere", np.zeros(3, dtype=np.int64)) is None
    looped = TransformTree()
    looped.add(0, Transform("b", "a", (0.0, 0.0, 0.0), (0, 0, 0, 1)), static=True)
    looped.add(0, Transform("a", "b", (0.0, 0.0, 0.0), (0, 0, 0, 1)), static=True)
    assert looped.world_pose("a", 0) is None
    assert looped.world_poses("a", np.zeros(2, dtype=np.int64)) is None


@pytest.mark.parametrize("count", [0, 1])
def test_few_times(count: int) -> None:
    found = _tree().world_poses("tool", np.full(count, 2000, dtype=np.int64))
    assert found is not None
    assert found[0].shape == (count, 3)
    assert found[1].shape == (count, 4)
