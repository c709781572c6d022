"""The LeRobot dataset with defects placed on purpose, and where they are.

``tests/`` is on ``sys.path``: ``from check_defects import CHECKS_DATASET``.
``tests/data/lerobot/checks_v30`` was written by LeRobot itself
(``tools/make_check_data.py``): episodes 0-5 are clean, 6-13 carry one
defect each, and ``checks_v30.defects.json`` (read here as :data:`TRUTH`)
says where each defect is.
"""

from __future__ import annotations

import json
from typing import Any, Final

from data_paths import TEST_DATA

__all__ = ["CHECKS_DATASET", "EXPECTED_KINDS", "FPS", "TRUTH"]

#: The dataset: fourteen episodes at :data:`FPS`, one camera.
CHECKS_DATASET: Final = TEST_DATA / "lerobot" / "checks_v30"
#: Where each defect is: ``fps``, ``episodes``, ``clean_episodes``, ``defects``.
TRUTH: Final[dict[str, Any]] = json.loads(
    (TEST_DATA / "lerobot" / "checks_v30.defects.json").read_text()
)
FPS: Final = TRUTH["fps"]
#: The kinds each defective episode gives, as ``batch check`` reports them:
#: its defect (a gap also desyncs the video; NaN is in the state and, a frame
#: earlier, in the action).
EXPECTED_KINDS: Final = {
    6: {"jerk"},
    7: {"static"},
    8: {"frozen_video"},
    9: {"timestamp_gap", "video_desync"},
    10: {"non_finite"},
    11: {"action_state_offset"},
    12: {"length_outlier"},
    13: {"end_pose_outlier"},
}
