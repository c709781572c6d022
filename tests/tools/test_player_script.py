"""``tools/player.py`` is the ``fsr-viewer`` command under another name."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "tools"


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
    spec = importlib.util.spec_from_file_location("player_script", TOOLS / "player.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        code = module.main(["a.fsr", "b.fsr", "--export", "x.mp4"])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
