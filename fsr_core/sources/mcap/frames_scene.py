"""The transform tree as a 3D scene: every frame drawn as an axis triad.

Each frame of the tree is a body of the scene, posed in the tree's root frame
at every time a moving link was sampled (evenly thinned to at most
:data:`MAX_POSE_SAMPLES`); its x, y and z axes are thin red, green and blue
bars sized to the scene, so the scene view shows where every frame is.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.calibration.rotations import quaternion_from_matrix
from fsr_core.recording import GeometryMesh, SceneGeometry
from fsr_core.sources.mcap.transform_tree import TransformTree

__all__ = ["MAX_FRAMES", "MAX_POSE_SAMPLES", "frames_geometry"]

MAX_POSE_SAMPLES: Final = 2048
MAX_FRAMES: Final = 256
_AXIS_COLOURS: Final = (
    (0.90, 0.25, 0.22, 1.0),
    (0.30, 0.75, 0.30, 1.0),
    (0.25, 0.45, 0.95, 1.0),
)
_BOX_FACES: Final = np.array(
    [
        [0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6],
        [0, 4, 5], [0, 5, 1], [1, 5, 6], [1, 6, 2],
        [2, 6, 7], [2, 7, 3], [3, 7, 4], [3, 4, 0],
    ],
    dtype=np.int64,
)  # fmt: skip


def _bar(axis: int, length: float) -> FloatArray:
    """Return the 8 corners of a thin bar from the origin along ``axis``."""
    half = length / 30.0
    low = np.full(3, -half)
    high = np.full(3, half)
    high[axis] = length
    low[axis] = 0.0
    corners = np.array(
        [
            [low[0], low[1], low[2]],
            [high[0], low[1], low[2]],
            [high[0], high[1], low[2]],
            [low[0], high[1], low[2]],
            [low[0], low[1], high[2]],
            [high[0], low[1], high[2]],
            [high[0], high[1], high[2]],
            [low[0], high[1], high[2]],
        ]
    )
    return corners


def _sample_times(tree: TransformTree, origin_ns: int) -> np.ndarray:
    times = tree.dynamic_times_ns
    if times.size == 0:
        return np.asarray([origin_ns], dtype=np.int64)
    if times.size > MAX_POSE_SAMPLES:
        picks = np.linspace(0, times.size - 1, MAX_POSE_SAMPLES).round().astype(int)
        times = times[np.unique(picks)]
    return times


def frames_geometry(tree: TransformTree, origin_ns: int) -> SceneGeometry | None:
    """Return the scene of ``tree``'s frames, or ``None`` when it has none."""
    frames = tree.frames[:MAX_FRAMES]
    if not frames:
        return None
    times = _sample_times(tree, origin_ns)
    poses = np.zeros((times.size, len(frames), 7), dtype=np.float64)
    poses[..., 6] = 1.0
    for t_index, time_ns in enumerate(times):
        for f_index, frame in enumerate(frames):
            found = tree.world_pose(frame, int(time_ns))
            if found is None:
                continue
            translation, rotation = found
            poses[t_index, f_index, :3] = translation
            poses[t_index, f_index, 3:] = quaternion_from_matrix(rotation)
    spread = float(np.ptp(poses[..., :3].reshape(-1, 3), axis=0).max())
    length = min(max(spread * 0.12, 0.05), 1.0)
    meshes = tuple(
        GeometryMesh(
            name=f"{frame}:{'xyz'[axis]}",
            body=index,
            kind="frame",
            vertices_m=_bar(axis, length),
            faces=_BOX_FACES,
            rgba=_AXIS_COLOURS[axis],
        )
        for index, frame in enumerate(frames)
        for axis in range(3)
    )
    play = (times - origin_ns).astype(np.float64) / 1e9
    return SceneGeometry(bodies=frames, meshes=meshes, times_s=play, poses=poses)
