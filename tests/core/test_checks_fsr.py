"""The checks on FSR recordings written by the built-in planar-arm simulator.

Each defective take (``tests/check_takes.py``) is flagged with its kind, its
channel and its time; the clean takes get no flag at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from check_takes import CHECK_TAKES, record_check_takes

from fsr_core.checks import (
    CheckResult,
    Flag,
    FlagKind,
    Thresholds,
    check_recording,
    dataset_flags,
)
from fsr_core.recording import MarkerKind
from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import record_run
from fsr_core.simulators.planar_arm.scenario import Scenario
from fsr_core.sources import open_recording

EXPECTED = {
    "still": {FlagKind.STATIC},
    "too_long": {FlagKind.LENGTH_OUTLIER},
    "wrong_end": {FlagKind.END_POSE_OUTLIER},
    "jerky": {FlagKind.JERK},
    "over_limit": {FlagKind.LIMIT_VIOLATION},
}


@pytest.fixture(scope="module")
def flags(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Flag]]:
    paths = record_check_takes(tmp_path_factory.mktemp("takes"))
    results: list[CheckResult] = [
        check_recording(open_recording(paths[name])) for name in CHECK_TAKES
    ]
    found = dataset_flags(results, Thresholds())
    return {
        name: [*result.flags, *more]
        for name, result, more in zip(CHECK_TAKES, results, found, strict=True)
    }


def test_clean_takes_have_no_flag(flags: dict[str, list[Flag]]) -> None:
    for name in CHECK_TAKES:
        if name.startswith("clean_"):
            assert flags[name] == [], name


def test_each_defect_gives_its_kind_and_only_it(flags: dict[str, list[Flag]]) -> None:
    for name, kinds in EXPECTED.items():
        assert {flag.kind for flag in flags[name]} == kinds, (name, flags[name])


def test_flags_say_where_and_how_much(flags: dict[str, list[Flag]]) -> None:
    (jerk,) = flags["jerky"]
    assert jerk.channel == "q"
    assert jerk.start_s <= 0.4 + 0.005  # the push
    assert jerk.end_s >= 0.4 - 0.005
    assert jerk.value is not None
    assert jerk.threshold is not None
    assert jerk.value > jerk.threshold
    (limit,) = flags["over_limit"]
    assert limit.channel == "q/q1"
    assert limit.start_s == 0.0  # it starts below its limit of 0.8 rad at 0.6
    assert limit.value == pytest.approx(0.2, abs=1e-3)
    assert 0.02 < limit.end_s < 0.3
    (length,) = flags["too_long"]
    assert length.value == pytest.approx(4 * 300, rel=0.01)  # 2.4 s against 0.6 s
    (still,) = flags["still"]
    assert still.value == pytest.approx(1.0)
    (end,) = flags["wrong_end"]
    assert end.end_s == pytest.approx(0.6, abs=0.01)


def test_a_reset_is_a_seam_not_a_timestamp_disorder(tmp_path: Path) -> None:
    # The generations meet at one play time: the sample before the reset
    # and the one after share it (the demo's reset take was flagged so, and
    # inspect --verify called it invalid).
    document = _take_documents()["06_reset_and_recalibration"]
    document.update(duration_s=0.4, cameras=[])
    document["resets"] = [{"after_s": 0.2, "q_rad": [-1.0, 0.9, 0.2]}]
    path = tmp_path / "reset.fsr"
    record_run(Scenario.from_json(document), path)
    model = open_recording(path)
    (reset,) = [m for m in model.markers if m.kind is MarkerKind.GENERATION_RESET]
    times = model.channels["q"].times_s
    assert (times == reset.play_time_s).sum() == 2  # the seam this is about
    result = check_recording(model)
    timing = {FlagKind.TIMESTAMP_DISORDER, FlagKind.TIMESTAMP_GAP}
    assert [flag for flag in result.flags if flag.kind in timing] == []


def test_thresholds_file_rows_match_the_documented_table() -> None:
    from fsr_core.checks import threshold_rows

    table = Path(__file__).parents[2] / "docs" / "checks.md"
    text = table.read_text(encoding="utf-8")
    for key, default, _unit, _meaning in threshold_rows():
        assert f"| `{key}` | {default:g} |" in text, key
