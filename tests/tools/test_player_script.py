"""``tools/player.py`` is the ``fsr-viewer`` command under another name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tool_scripts import TOOLS, load_tool


def test_player_script_exports_like_fsr_viewer(tmp_path: Path) -> None:
    from fsr_core.synthetic import SyntheticRun, write_synthetic

    recording = tmp_path / "run.fsr"
    write_synthetic(recording, SyntheticRun(ticks=12))
    still = tmp_path / "still.png"
    done = subprocess.run(
        [
            sys.executable,
            str(TOOLS / "player.py"),
            str(recording),
            "--export-frame",
            "0.02",
            str(still),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert still.read_bytes().startswith(b"\x89PNG")


def test_player_script_main_returns_usage_errors_as_exit_2() -> None:
    module = load_tool("player", "player_script")
    try:
        code = module.main(["a.fsr", "b.fsr", "--export", "x.mp4"])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
