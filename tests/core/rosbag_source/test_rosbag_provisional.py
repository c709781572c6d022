"""The window's open of a bag: the first second of transforms, the rest after.

The test bags (``tools/make_rosbag_data.py``) hold two seconds of ``/tf`` at
20 Hz. Opened as the window opens them (``provisional``), the scene is posed
from the first second at once and the model read with every transform
(``refine``) follows; a ``/tf:<frame>`` channel shown before then reads every
transform itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.recording import Integrity
from fsr_core.sources import open_recording
from fsr_core.sources.open_options import OpenOptions
from tests.data_paths import ROSBAG1_DATA, ROSBAG2_DATA

BAGS = [ROSBAG1_DATA / "lz4.bag", ROSBAG2_DATA / "plain"]


@pytest.mark.parametrize("path", BAGS, ids=lambda path: path.name)
def test_the_window_gets_the_scene_at_once_and_every_transform_after(
    path: Path,
) -> None:
    whole = open_recording(path)
    quick = open_recording(path, options=OpenOptions(provisional=True))
    assert whole.refine is None
    assert whole.integrity is Integrity.VALID
    assert quick.integrity is Integrity.UNVERIFIED
    assert quick.refine is not None
    # What the first paint shows: the scene at the start, cameras, channels.
    assert quick.geometry is not None
    assert whole.geometry is not None
    assert quick.geometry.bodies == whole.geometry.bodies
    np.testing.assert_allclose(
        quick.geometry.poses_at(0.0), whole.geometry.poses_at(0.0)
    )
    assert quick.duration_s == pytest.approx(whole.duration_s)
    assert [c.name for c in quick.cameras] == [c.name for c in whole.cameras]
    assert set(quick.channels) == set(whole.channels)
    # The moving frame's channel, shown early (here by the robot the bag
    # carries, posed on it), reads every transform, not the first second's.
    early = quick.channels["/tf:base_link"]
    assert early.times_s[-1] > 1.5
    np.testing.assert_allclose(early.times_s, whole.channels["/tf:base_link"].times_s)
    np.testing.assert_allclose(early.values, whole.channels["/tf:base_link"].values)
    refined = quick.refine(lambda done, total: None)
    assert refined.refine is None
    assert refined.integrity is Integrity.VALID
    assert refined.geometry is not None
    np.testing.assert_allclose(refined.geometry.poses, whole.geometry.poses)
    assert refined.report["topics"] == whole.report["topics"]
