"""The transform tree as a 3D scene: every frame drawn as an axis triad.

Each frame of the tree is a body of the scene, posed in the tree's root frame
at every time a moving link was sampled (evenly thinned to at most
:data:`MAX_POSE_SAMPLES`); its x, y and z axes are thin red, green and blue
bars sized to the scene, so the scene view shows where every frame is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.recording import SceneGeometry
from fsr_core.sources.toolkit.axis_triads import triad_length, triad_meshes
from fsr_core.sources.toolkit.transform_tree import TransformTree

__all__ = [
    "MAX_FRAMES",
    "MAX_POSE_SAMPLES",
    "frame_poses",
    "frames_geometry",
    "sample_times",
]

MAX_POSE_SAMPLES: Final = 2048
MAX_FRAMES: Final = 256


def sample_times(tree: TransformTree, origin_ns: int) -> np.ndarray:
    """Return the times (ns) a moving link was sampled, thinned evenly.

    At most :data:`MAX_POSE_SAMPLES`; ``origin_ns`` alone when nothing moves.
    """
    times = tree.dynamic_times_ns
    if times.size == 0:
        return np.asarray([origin_ns], dtype=np.int64)
    if times.size > MAX_POSE_SAMPLES:
        picks = np.linspace(0, times.size - 1, MAX_POSE_SAMPLES).round().astype(int)
        times = times[np.unique(picks)]
    return times


def frame_poses(
    tree: TransformTree, frames: Sequence[str | None], times: np.ndarray
) -> FloatArray:
    """Return each frame's pose in the root frame at ``times``.

    The array is ``(times, frames, 7)``: the translation, then the rotation
    ``x, y, z, w`` (:meth:`TransformTree.world_poses`); a frame that is
    ``None``, or that the tree does not hold, stays at the identity.
    """
    poses = np.zeros((times.size, len(frames), 7), dtype=np.float64)
    poses[..., 6] = 1.0
    for index, frame in enumerate(frames):
        found = None if frame is None else tree.world_poses(frame, times)
        if found is not None:
            poses[:, index, :3], poses[:, index, 3:] = found
    return poses


def frames_geometry(tree: TransformTree, origin_ns: int) -> SceneGeometry | None:
    """Return the scene of ``tree``'s frames, or ``None`` when it has none."""
    frames = tree.frames[:MAX_FRAMES]
    if not frames:
        return None
    times = sample_times(tree, origin_ns)
    poses = frame_poses(tree, frames, times)
    length = triad_length(poses[..., :3], share=0.12, shortest=0.05, longest=1.0)
    meshes = triad_meshes(frames, length)
    play = (times - origin_ns).astype(np.float64) / 1e9
    return SceneGeometry(bodies=frames, meshes=meshes, times_s=play, poses=poses)
