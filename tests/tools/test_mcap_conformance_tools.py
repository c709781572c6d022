"""The MCAP scripts of ``tools/``: the conformance files and the flip check."""

from __future__ import annotations

import re
from pathlib import Path

from tool_scripts import load_tool, run_main

DATA = Path(__file__).resolve().parents[1] / "data" / "mcap"


def test_the_flip_check_prints_its_figures_and_no_rejected_copy_passes() -> None:
    tool = load_tool("mcap_flip_check")
    run = run_main(tool.main, [str(DATA / "layout_data_crc.mcap"), "--flips", "12"])
    assert run.code == 0
    found = re.fullmatch(
        r"layout_data_crc\.mcap: 12 one-bit flips; the mcap library rejects (\d+); "
        r"inspect --verify passes (\d+), (\d+) of which the library rejects\n",
        run.stdout,
    )
    assert found is not None, run.stdout
    rejected, _, both = (int(group) for group in found.groups())
    assert rejected > 0  # the flips reach what the library checks
    assert both == 0


def test_the_conformance_script_writes_the_416_files(tmp_path: Path) -> None:
    tool = load_tool("mcap_conformance")
    run = run_main(tool.main, [str(tmp_path)])
    assert run.code == 0
    assert len(list(tmp_path.rglob("*.mcap"))) == 416
    assert run.stdout == f"wrote 416 files under {tmp_path}\n"
