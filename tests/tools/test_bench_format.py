"""tools/bench_format.py: a one-second run, its JSON keys and figures (no timings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_output import assert_mentions
from tool_scripts import ToolRun, fake_free_disk, load_tool, run_main

bench_format = load_tool("bench_format")

FORMAT_FIGURES = [
    ("write_encoded", "mb_per_s"),
    ("write_encoded", "records_per_s"),
    ("write_full", "mb_per_s"),
    ("write_full", "records_per_s"),
    ("file_bytes",),
    ("open_ms",),
    ("seek_numeric_us",),
    ("seek_camera_us",),
    ("seek_decode_camera_ms",),
    ("seek_decode_over_decoder",),
    ("scan", "mb_per_s"),
    ("scan", "records_per_s"),
]


@pytest.fixture(scope="module")
def one_second_run() -> ToolRun:
    return run_main(bench_format.main, ["--seconds", "1", "--json"])


def _figure(figures: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = figures
    for key in path:
        value = value[key]
    return value


def test_a_short_run_exits_0_with_every_section(one_second_run: ToolRun) -> None:
    assert one_second_run.code == 0
    assert set(one_second_run.result) >= {
        "config",
        "data",
        "formats",
        "ratios",
        "decoder",
        "jpeg_decoders",
        "big",
        "targets",
    }
    assert one_second_run.result["big"] is None


@pytest.mark.parametrize("fmt", ["fsr", "mcap"])
@pytest.mark.parametrize("path", FORMAT_FIGURES, ids=".".join)
def test_every_figure_is_positive_for_both_formats(
    one_second_run: ToolRun, fmt: str, path: tuple[str, ...]
) -> None:
    value = _figure(one_second_run.result["formats"][fmt], path)

    assert isinstance(value, int | float)
    assert value > 0


def test_both_files_hold_the_same_records(one_second_run: ToolRun) -> None:
    data = one_second_run.result["data"]
    formats = one_second_run.result["formats"]

    assert data["records"] == 1 + 120 + 30 + 30  # intrinsics, numeric, camera, render
    for fmt in ("fsr", "mcap"):
        assert formats[fmt]["scan"]["records"] == data["records"]
    assert formats["fsr"]["scan"]["payload_bytes"] >= data["payload_bytes"]


def test_ratios_and_targets_are_reported(one_second_run: ToolRun) -> None:
    result = one_second_run.result

    assert all(value > 0 for value in result["ratios"].values())
    names = [target["name"] for target in result["targets"]]
    assert "median numeric seek" in names
    assert all(isinstance(target["met"], bool) for target in result["targets"])


def test_the_decoder_table_names_the_backend_of_fsr_core_media(
    one_second_run: ToolRun,
) -> None:
    result = one_second_run.result
    rows = {row["name"]: row for row in result["jpeg_decoders"]}

    assert {"Pillow", "simplejpeg", "PyTurboJPEG", "cv2.imdecode"} <= set(rows)
    assert rows["Pillow"]["available"]
    assert rows["Pillow"]["median_ms"] > 0
    for row in rows.values():
        assert row["available"] == ("median_ms" in row)
        assert row["available"] or row["note"]
    assert result["decoder"]["fsr_core_media_backend"] in ("simplejpeg", "pillow")


def test_the_text_report_renders_from_the_json(one_second_run: ToolRun) -> None:
    text = bench_format.render_text(one_second_run.result)

    assert_mentions(text, "FSR/MCAP", "Targets:", "not measured (run with --big)")


def test_big_is_refused_without_3_gb_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_free_disk(monkeypatch, 10**9)

    code = bench_format.main(["--seconds", "1", "--big", "--out", str(tmp_path)])

    assert code == 1
    assert "--big needs 3 GB free" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_existing_files_in_out_are_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bench.fsr").write_bytes(b"mine")

    code = bench_format.main(["--seconds", "1", "--out", str(tmp_path)])

    assert code == 1
    assert "exists" in capsys.readouterr().err
    assert (tmp_path / "bench.fsr").read_bytes() == b"mine"
