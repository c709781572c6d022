"""A Genesis trajectory opens from its record headers, then its checked model follows.

The window asks for a provisional model (``OpenOptions(provisional=True)``):
the frames counted from the record headers, their steps carried on from the
first chunk, no payload read for its CRC. Its ``refine`` gives what opening
the file the full way gives, a record that fails its check cutting it there.
Every other open (commands, exports, checks) is the checked one at once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fsr_core.errors import FsrError
from fsr_core.recording import Integrity, RecordingModel
from fsr_core.sources import OpenOptions, open_recording
from fsr_core.sources.genesis import container

DATA = Path(__file__).resolve().parents[2] / "data" / "genesis"
QUICK = OpenOptions(provisional=True)
READABLE = sorted(
    path.name
    for path in DATA.glob("*.gstraj")
    if "bad_magic" not in path.name and "cut_first_chunk" not in path.name
)


def _same(refined: RecordingModel, full: RecordingModel) -> None:
    assert refined.timeline == full.timeline
    assert (refined.integrity, refined.integrity_reason) == (
        full.integrity,
        full.integrity_reason,
    )
    assert refined.markers == full.markers
    assert list(refined.channels) == list(full.channels)
    assert refined.refine is None
    assert refined.geometry is not None
    assert full.geometry is not None
    assert refined.geometry.bodies == full.geometry.bodies


@pytest.mark.parametrize("name", READABLE)
def test_the_quick_model_refines_to_the_checked_one(name: str) -> None:
    quick = open_recording(DATA / name, options=QUICK)
    assert quick.integrity is Integrity.UNVERIFIED
    assert "being checked" in quick.integrity_reason
    assert quick.refine is not None
    seen: list[tuple[int, int]] = []
    refined = quick.refine(lambda done, total: seen.append((done, total)))
    full = open_recording(DATA / name)
    _same(refined, full)
    if seen:
        assert seen[-1][0] == seen[-1][1]
    if full.integrity is Integrity.VALID and "every2" not in name:
        # Steps of one a frame: the carried-on steps were the recorded ones.
        assert quick.timeline == full.timeline


def test_a_chunk_that_fails_its_check_cuts_the_refined_model_there() -> None:
    path = DATA / "v4_box_exact_flip_chunk.gstraj"
    quick = open_recording(path, options=QUICK)
    assert quick.duration_s == pytest.approx(0.4)  # every frame the headers count
    assert quick.refine is not None
    refined = quick.refine(lambda done, total: None)
    assert refined.integrity is Integrity.RECOVERED
    assert "CRC" in refined.integrity_reason
    assert refined.duration_s == pytest.approx(0.15)


def test_the_quick_open_reads_no_payload_for_its_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_payload(*_: object) -> int:
        raise AssertionError("a payload was read for its CRC")

    monkeypatch.setattr(container, "_crc", no_payload)
    quick = open_recording(DATA / "v4_arm_exact.gstraj", options=QUICK)
    assert quick.integrity is Integrity.UNVERIFIED
    with pytest.raises(AssertionError, match="payload"):
        open_recording(DATA / "v4_arm_exact.gstraj")


def test_a_file_without_a_first_chunk_fails_as_the_full_open_does() -> None:
    path = DATA / "v4_box_exact_cut_first_chunk.gstraj"
    with pytest.raises(FsrError) as full:
        open_recording(path)
    with pytest.raises(FsrError) as quick:
        open_recording(path, options=QUICK)
    assert str(quick.value) == str(full.value)


def test_other_opens_are_checked_at_once() -> None:
    model = open_recording(DATA / "v4_arm_exact.gstraj")
    assert model.integrity is Integrity.VALID
    assert model.refine is None
    # An option the source does not read changes nothing.
    timed = open_recording(DATA / "v4_arm_exact.gstraj", options=OpenOptions("log"))
    assert timed.refine is None


def test_the_checked_report_shows_the_whole_last_frame_scratch_included() -> None:
    import json
    import math

    from fsr_core.sources import inspect_recording
    from fsr_core.sources.genesis.container import index_file
    from fsr_core.sources.genesis.frames import FrameDecoder

    path = DATA / "v4_box_exact.gstraj"
    rows = open_recording(path).report["last_frame"]
    index = index_file(path)
    last = FrameDecoder(index).last_frame()
    assert [row["name"] for row in rows] == [f.name for f in index.manifest.last_fields]
    assert "SCRATCH" in {row["kind"] for row in rows}
    for row in rows:
        values = last[row["name"]].reshape(-1)
        if not values.size:
            continue
        assert row.get("more_values", 0) == max(values.size - 8, 0)
        for value, shown in zip(values[:8].tolist(), row["values"], strict=True):
            if isinstance(value, float) and not math.isfinite(value):
                assert shown == str(value)
            else:
                assert shown == value
    # Read before its checks, the run has not read its LAST record yet.
    assert open_recording(path, options=QUICK).report["last_frame"] == []
    # The report stays plain JSON: non-finite values are written as text.
    json.loads(json.dumps(inspect_recording(path), allow_nan=False))
