"""Where the tests' recordings and example scenarios are, named once.

The folders under ``tests/data`` (one per recording source) and the MuJoCo
examples of the repository, with the files several test modules open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tool_scripts import import_tool

__all__ = [
    "GENESIS_BATCH",
    "GENESIS_BOX",
    "GENESIS_DATA",
    "HDF5_DATA",
    "MCAP_DATA",
    "MUJOCO_EXAMPLES",
    "RERUN_DATA",
    "ROSBAG1_DATA",
    "ROSBAG2_DATA",
    "SKELARM_DATA",
    "SKELARM_REACH",
    "SO100_JOINTS",
    "TEST_DATA",
]

#: ``tests/data``: the recordings the tests read, a folder per source.
TEST_DATA: Final = Path(__file__).resolve().parent / "data"
#: The MuJoCo scenarios of ``examples/mujoco``.
MUJOCO_EXAMPLES: Final = TEST_DATA.parents[1] / "examples" / "mujoco"
GENESIS_DATA: Final = TEST_DATA / "genesis"
#: A Genesis trajectory of one box, with everything a replay needs.
GENESIS_BOX: Final = GENESIS_DATA / "v4_box_exact.gstraj"
#: A Genesis trajectory of a batched scene (several environments).
GENESIS_BATCH: Final = GENESIS_DATA / "v4_batch_exact.gstraj"
HDF5_DATA: Final = TEST_DATA / "hdf5"
MCAP_DATA: Final = TEST_DATA / "mcap"
RERUN_DATA: Final = TEST_DATA / "rerun"
SKELARM_DATA: Final = TEST_DATA / "skelarm"
#: ROS 1 bags and ROS 2 bag folders written by ``rosbags``' writers.
ROSBAG1_DATA: Final = TEST_DATA / "rosbag1"
ROSBAG2_DATA: Final = TEST_DATA / "rosbag2"
#: A skelarm state log of a reach.
SKELARM_REACH: Final = SKELARM_DATA / "reach.sklog.npz"
#: The joints of the LeRobot datasets under ``tests/data/lerobot`` (an SO-100
#: arm), in their order: as ``tools/make_lerobot_data.py`` wrote them.
SO100_JOINTS: Final = tuple(import_tool("make_lerobot_data").JOINTS)
