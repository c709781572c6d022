"""The logs ``make_skelarm_logs.py`` writes, by what they exercise."""

from __future__ import annotations

from pathlib import Path

SHARED_LOGS = Path(__file__).parents[1] / "data" / "skelarm"
"""The real logs skelarm 0.5.0 wrote on another machine."""

HEADLESS_KINDS = (
    "reach",
    "multi_target",
    "curve_circle",
    "curve_ellipse",
    "curve_lemniscate",
    "curve_vertical_lemniscate",
    "curve_rose",
    "base_offset_three_links",
    "track_tip",
    "track_joints",
)
"""Logs ``run_scenario`` writes: every task kind and every periodic curve."""
EVERY_KIND = (*HEADLESS_KINDS, "gui_push", "programmatic_noconfig")
"""Plus an interactive simulator's log and a log without an embedded config."""
