"""A mixed folder of recordings for the batch tests; a batch's report and summary.

``tests/`` is on ``sys.path`` (pytest puts the folder of ``tests/conftest.py``
there), so any test imports this as ``from batch_inputs import mixed_folder``.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from demo_recordings import record_demo_take

from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import ExternalPush, record_run
from fsr_core.simulators.planar_arm.scenario import Scenario

__all__ = ["BROKEN", "VALID", "assert_summary", "make_mixed_folder", "read_report"]

DATA = Path(__file__).resolve().parent / "data"

#: The recordings of the mixed folder that every verb can read.
VALID = (
    "01_reach.fsr",
    "05_pushed.fsr",
    "reach.sklog.npz",
    "ros2.mcap",
    "v4_arm_exact.gstraj",
)
#: The broken ones: a cut FSR file and a file that is no recording at all.
BROKEN = ("truncated.fsr", "garbage.fsr")


def make_mixed_folder(folder: Path) -> Path:
    """Fill ``folder`` with valid and broken recordings of every landed source.

    Two short demo takes (FSR, half a second, with the take's cameras; the
    second pushed by a hand at 0.2 s that a re-simulation does not replay),
    the first one cut at 60 % (``truncated.fsr``), text named ``garbage.fsr``, and
    in ``logs/`` a skelarm log and a ROS 2 MCAP file, plus a Genesis
    trajectory at the top.
    """
    folder.mkdir(parents=True, exist_ok=True)
    reach = record_demo_take(folder / "01_reach.fsr", "01_reach", duration_s=0.5)
    pushed = _take_documents()["05_pushed"]
    pushed.update(duration_s=0.5)
    hand = ExternalPush(0.2, 0.35, (-18.0, 6.0))
    record_run(
        Scenario.from_json(pushed), folder / "05_pushed.fsr", external_pushes=(hand,)
    )
    data = reach.read_bytes()
    truncated = folder / "truncated.fsr"
    truncated.write_bytes(data[: len(data) * 6 // 10])
    # A crashed writer's file, an hour old: cut a moment ago, it would be a
    # recording still being written, which batch refuses without --wait.
    hour_ago = time.time() - 3600
    os.utime(truncated, (hour_ago, hour_ago))
    (folder / "garbage.fsr").write_text("not a recording, just text\n" * 3)
    logs = folder / "logs"
    logs.mkdir()
    shutil.copy(DATA / "skelarm" / "reach.sklog.npz", logs)
    shutil.copy(DATA / "mcap" / "ros2.mcap", logs)
    shutil.copy(DATA / "genesis" / "v4_arm_exact.gstraj", folder)
    return folder


def read_report(path: Path) -> dict[str, dict[str, Any]]:
    """Return the report's lines by the input's file name (the last line wins)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return {Path(line["input"]).name: line for line in lines}


def assert_summary(
    stdout: str, verb: str, recordings: int, *, ok: int, skipped: int, failed: int
) -> None:
    """Check the summary a batch run prints: the verb, the count, each status's."""
    assert f"batch {verb}: {recordings} recordings" in stdout
    assert f"{ok} ok, {skipped} skipped, {failed} failed" in stdout
