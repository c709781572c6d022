"""Comparing two recordings: channel by channel, camera by camera (fsr_core.compare)."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from fsr_core.calibration import Calibration, CalibrationProfile
from fsr_core.compare import CameraStatus, ChannelStatus, compare_recordings
from fsr_core.errors import CompareError
from fsr_core.format.catalog import camera_streams, numeric_stream
from fsr_core.format.writer import FsrWriter
from fsr_core.media import RGBFrame
from fsr_core.recording import CameraTrack, Channel, RecordingModel, Segment, Timeline
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import ReplayMode, ReplayOptions
from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import ExternalPush, record_run
from fsr_core.simulators.planar_arm.scenario import Scenario, load_scenario
from fsr_core.sources import open_recording

SKELARM_DATA = Path(__file__).parents[1] / "data" / "skelarm"
PUSH = ExternalPush(0.2, 0.35, (-18.0, 6.0))

Series = tuple[npt.NDArray[np.float64], str, tuple[str, ...]]


def write_series(path: Path, streams: dict[str, Series], dt_s: float = 0.01) -> Path:
    """Write numeric streams (one row per tick, ``dt_s`` apart) through the writer."""
    specs = [
        numeric_stream(name, columns, unit)
        for name, (_, unit, columns) in streams.items()
    ]
    with FsrWriter(path, specs) as writer:
        for name, (values, _, _) in streams.items():
            for tick, row in enumerate(values):
                writer.write(name, row, tick=tick, sim_time_s=tick * dt_s)
    return path


def ramp(ticks: int, columns: int = 2) -> npt.NDArray[np.float64]:
    """Return a table whose column ``c`` at tick ``k`` is ``k + 100 c``."""
    return np.arange(ticks, dtype=np.float64)[:, None] + 100.0 * np.arange(columns)


def short_take(name: str, **changes: Any) -> Scenario:
    """Return demo take ``name`` cut to half a second, without cameras."""
    document = _take_documents()[name]
    document.update(duration_s=0.5, cameras=[])
    for reset in document.get("resets", []):
        reset["after_s"] = 0.25
    for push in document.get("pushes", []):
        push.update(start_s=0.1, end_s=0.2)
    document.update(changes)
    return Scenario.from_json(document)


def series_pair(
    folder: Path, reference: dict[str, Series], candidate: dict[str, Series]
) -> list[RecordingModel]:
    """Write ``a.fsr`` and ``b.fsr`` in ``folder`` and return them opened."""
    return opened(
        write_series(folder / "a.fsr", reference),
        write_series(folder / "b.fsr", candidate),
    )


def opened(*paths: Path) -> list[RecordingModel]:
    return [open_recording(path) for path in paths]


def test_a_recording_and_its_copy_compare_exact_across_a_generation_reset(
    tmp_path: Path, small_recording: Path
) -> None:
    copy = tmp_path / "copy.fsr"
    shutil.copyfile(small_recording, copy)
    reference, candidate = opened(small_recording, copy)
    assert len(reference.timeline.segments) == 2  # two samples share the reset time
    comparison = compare_recordings(reference, candidate)
    assert comparison.exact
    assert comparison.within_tolerance
    assert comparison.first_divergence is None
    assert comparison.only_in_reference == comparison.only_in_candidate == ()
    assert comparison.notes == ()
    for channel in comparison.channels:
        assert channel.exact
        assert channel.max_abs_error == 0.0
        assert channel.rms_error == 0.0
        assert channel.samples_compared == channel.reference_samples
        times, errors = comparison.error_series(channel.name)
        assert np.array_equal(times, reference.channels[channel.name].times_s)
        assert not errors.any()


def test_a_demo_take_rerun_from_its_own_scenario_toml_reproduces_bit_for_bit(
    tmp_path: Path,
) -> None:
    scenario = short_take("06_reset_and_recalibration")
    record_run(scenario, tmp_path / "take.fsr")
    toml = tmp_path / "take.toml"
    toml.write_text(scenario.to_toml(), encoding="utf-8")
    record_run(load_scenario(toml), tmp_path / "rerun.fsr")
    reference, candidate = opened(tmp_path / "take.fsr", tmp_path / "rerun.fsr")
    comparison = compare_recordings(reference, candidate)
    assert len(reference.timeline.segments) == 2
    assert comparison.exact
    assert {c.name for c in comparison.channels} >= {"observations.arm", "q"}


def test_a_pushed_take_diverges_from_its_config_where_the_push_starts(
    tmp_path: Path,
) -> None:
    scenario = short_take("05_pushed")
    record_run(scenario, tmp_path / "pushed.fsr", external_pushes=(PUSH,))
    record_run(scenario, tmp_path / "plain.fsr")
    pushed, plain = opened(tmp_path / "pushed.fsr", tmp_path / "plain.fsr")
    force = pushed.channels["ext_force"]
    push_start_s = float(force.times_s[np.flatnonzero(force.values[:, 0])[0]])

    comparison = compare_recordings(pushed, plain, tolerance=1e-9)

    assert not comparison.within_tolerance
    assert not comparison.exact
    divergence = comparison.first_divergence
    assert divergence is not None
    assert divergence.channel == "observations.arm"
    assert divergence.column == "ext_fx"
    assert divergence.time_s == pytest.approx(push_start_s)
    assert divergence.time_s == pytest.approx(PUSH.start_s, abs=0.002)
    assert divergence.error == 18.0
    ext_force = comparison.channel("ext_force")
    assert ext_force.max_abs_error == 18.0
    assert ext_force.worst_column == "ext_fx"
    joints = comparison.channel("q")
    assert joints.first_exceed_s is not None
    assert joints.first_exceed_s > push_start_s
    assert joints.max_abs_error > 0.01
    assert comparison.channel("active_target").exact


def test_a_known_offset_is_found_at_its_channel_column_time_and_size(
    tmp_path: Path,
) -> None:
    values = ramp(60)
    shifted = values.copy()
    shifted[30:, 1] += 0.5
    reference = write_series(tmp_path / "a.fsr", {"arm": (values, "m", ("x", "y"))})
    candidate = write_series(tmp_path / "b.fsr", {"arm": (shifted, "m", ("x", "y"))})

    comparison = compare_recordings(*opened(reference, candidate), tolerance=0.1)

    assert comparison.first_divergence is not None
    assert comparison.first_divergence.channel == "arm"
    assert comparison.first_divergence.column == "y"
    assert comparison.first_divergence.time_s == pytest.approx(0.30)
    arm = comparison.channel("arm")
    assert arm.max_abs_error == pytest.approx(0.5)
    assert arm.rms_error == pytest.approx(0.5 * math.sqrt(30 / 120))
    assert arm.samples_compared == 60
    assert arm.verdict == "diverges"
    _, errors = comparison.error_series("arm")
    assert np.array_equal(errors > 0.1, np.arange(60) >= 30)


def test_an_error_equal_to_the_tolerance_is_within_it(tmp_path: Path) -> None:
    values = ramp(20)
    reference = write_series(tmp_path / "a.fsr", {"arm": (values, "m", ("x", "y"))})
    candidate = write_series(
        tmp_path / "b.fsr", {"arm": (values + 0.25, "m", ("x", "y"))}
    )
    comparison = compare_recordings(*opened(reference, candidate), tolerance=0.25)
    assert comparison.within_tolerance
    assert not comparison.exact
    assert comparison.first_divergence is None
    assert comparison.channel("arm").verdict == "within"


def test_the_candidate_is_sampled_as_the_viewer_shows_it(tmp_path: Path) -> None:
    values = ramp(40)
    reference = write_series(tmp_path / "a.fsr", {"arm": (values, "", ("x", "y"))})
    candidate = write_series(
        tmp_path / "b.fsr", {"arm": (values[::2], "", ("x", "y"))}, dt_s=0.02
    )
    comparison = compare_recordings(*opened(reference, candidate))
    arm = comparison.channel("arm")
    _, errors = comparison.error_series("arm")
    # At an odd tick the candidate still shows the previous (even) tick's row.
    assert np.array_equal(errors, np.arange(39) % 2)
    assert arm.samples_compared == 39  # the candidate ends at tick 38
    assert "arm: 40 samples in the reference, 20 in the candidate" in comparison.notes


def test_a_unit_mismatch_is_reported_and_not_compared(tmp_path: Path) -> None:
    values = ramp(10)
    reference = write_series(tmp_path / "a.fsr", {"arm": (values, "m", ("x", "y"))})
    candidate = write_series(tmp_path / "b.fsr", {"arm": (values, "mm", ("x", "y"))})
    comparison = compare_recordings(*opened(reference, candidate))
    arm = comparison.channel("arm")
    assert arm.status is ChannelStatus.UNIT_MISMATCH
    assert (arm.unit, arm.candidate_unit) == ("m", "mm")
    assert arm.samples_compared == 0
    assert not comparison.within_tolerance
    assert any("unit 'm'" in note and "'mm'" in note for note in comparison.notes)
    assert len(comparison.error_series("arm")[0]) == 0


def test_different_columns_are_reported_and_not_compared(tmp_path: Path) -> None:
    reference = write_series(tmp_path / "a.fsr", {"arm": (ramp(10), "", ("x", "y"))})
    candidate = write_series(
        tmp_path / "b.fsr", {"arm": (ramp(10, 3), "", ("x", "y", "z"))}
    )
    comparison = compare_recordings(*opened(reference, candidate))
    assert comparison.channel("arm").status is ChannelStatus.COLUMN_MISMATCH
    assert not comparison.within_tolerance
    assert "arm: columns x, y in the reference, x, y, z in the candidate" in (
        " ".join(comparison.notes)
    )


def test_channels_on_one_side_only_are_listed(tmp_path: Path) -> None:
    values = ramp(10)
    comparison = compare_recordings(
        *series_pair(
            tmp_path,
            {"arm": (values, "", ("x", "y")), "left": (values, "", ("x", "y"))},
            {"arm": (values, "", ("x", "y")), "right": (values, "", ("x", "y"))},
        )
    )
    assert [c.name for c in comparison.channels] == ["arm"]
    assert comparison.only_in_reference == ("left",)
    assert comparison.only_in_candidate == ("right",)
    assert comparison.within_tolerance
    assert not comparison.exact


def test_disjoint_recordings_raise_a_compare_error_naming_both_files(
    tmp_path: Path,
) -> None:
    reference = write_series(tmp_path / "a.fsr", {"left": (ramp(5), "", ("x", "y"))})
    candidate = write_series(tmp_path / "b.fsr", {"right": (ramp(5), "", ("x", "y"))})
    with pytest.raises(CompareError, match="no channel in common") as caught:
        compare_recordings(*opened(reference, candidate))
    assert str(reference) in str(caught.value)
    assert str(candidate) in str(caught.value)
    assert caught.value.reference == str(reference)


def test_recordings_without_common_time_raise_a_compare_error(tmp_path: Path) -> None:
    reference = write_series(tmp_path / "a.fsr", {"arm": (ramp(10), "", ("x", "y"))})
    late = tmp_path / "late.fsr"
    specs = [numeric_stream("arm", ("x", "y")), numeric_stream("clock", ("t",))]
    with FsrWriter(late, specs) as writer:
        for tick in range(100):
            writer.write("clock", [tick], tick=tick, sim_time_s=tick * 0.01)
            if tick >= 50:
                writer.write("arm", [tick, tick], tick=tick, sim_time_s=tick * 0.01)
    with pytest.raises(CompareError, match="no overlapping time") as caught:
        compare_recordings(*opened(reference, late))
    assert str(late) in str(caught.value)


def test_a_channel_with_no_sample_in_the_common_time_is_reported(
    tmp_path: Path,
) -> None:
    reference = tmp_path / "a.fsr"
    candidate = tmp_path / "b.fsr"
    specs = [numeric_stream("arm", ("x", "y")), numeric_stream("clock", ("t",))]
    for path, arm_ticks in ((reference, range(50)), (candidate, range(80, 100))):
        with FsrWriter(path, specs) as writer:
            for tick in range(100):
                writer.write("clock", [tick], tick=tick, sim_time_s=tick * 0.01)
                if tick in arm_ticks:
                    writer.write("arm", [1, 2], tick=tick, sim_time_s=tick * 0.01)
    comparison = compare_recordings(*opened(reference, candidate))
    assert comparison.channel("arm").status is ChannelStatus.NO_OVERLAP
    assert comparison.channel("clock").exact
    assert not comparison.within_tolerance
    assert "arm: no sample in the time both recordings cover" in comparison.notes


def test_only_the_requested_channels_are_compared(tmp_path: Path) -> None:
    values = ramp(10)
    models = series_pair(
        tmp_path,
        {"arm": (values, "", ("x", "y")), "cam": (values, "", ("u", "v"))},
        {"arm": (values, "", ("x", "y")), "cam": (values + 1, "", ("u", "v"))},
    )
    assert compare_recordings(*models, channels=["arm"]).within_tolerance
    assert not compare_recordings(*models).within_tolerance
    with pytest.raises(CompareError, match="no channel named wrist"):
        compare_recordings(*models, channels=["arm", "wrist"])


def test_a_shorter_candidate_is_judged_on_the_overlap_and_the_note_says_so(
    tmp_path: Path,
) -> None:
    values = ramp(50)
    reference = write_series(tmp_path / "a.fsr", {"arm": (values, "", ("x", "y"))})
    candidate = write_series(tmp_path / "b.fsr", {"arm": (values[:30], "", ("x", "y"))})
    comparison = compare_recordings(*opened(reference, candidate))
    assert comparison.within_tolerance
    assert not comparison.exact
    assert comparison.overlap_s == pytest.approx((0.0, 0.29))
    assert comparison.channel("arm").samples_compared == 30
    assert "durations differ: reference 0.49 s, candidate 0.29 s" in comparison.notes


def model_of(name: str, values: npt.NDArray[np.float64]) -> RecordingModel:
    """Return a recording model with one channel ``arm`` at 100 Hz (no file)."""
    times = np.arange(len(values), dtype=np.float64) * 0.01
    segment = Segment(0, 0.0, float(times[-1]), 0.0, 0, len(values) - 1)
    channel = Channel("arm", times, values, columns=("x", "y"))
    return RecordingModel(
        Path(name), "test", name, Timeline((segment,)), {"arm": channel}
    )


def test_nan_against_nan_is_equal_and_nan_against_a_number_is_infinite() -> None:
    values = ramp(10)
    values[2, 0] = np.nan
    other = values.copy()
    other[5, 1] = np.nan
    reference, candidate = model_of("a", values), model_of("b", other)
    comparison = compare_recordings(reference, candidate)
    arm = comparison.channel("arm")
    assert arm.max_abs_error == math.inf
    assert comparison.first_divergence is not None
    assert comparison.first_divergence.time_s == pytest.approx(0.05)
    assert compare_recordings(reference, model_of("c", values.copy())).exact
    encoded = json.loads(json.dumps(comparison.to_json(), allow_nan=False))
    assert encoded["channels"][0]["max_abs_error"] == "inf"


def test_the_json_form_has_stable_keys(small_recording: Path) -> None:
    reference, candidate = opened(small_recording, small_recording)
    encoded = compare_recordings(reference, candidate).to_json()
    assert list(encoded) == [
        "reference",
        "candidate",
        "tolerance",
        "within_tolerance",
        "exact",
        "first_divergence",
        "overlap_s",
        "channels",
        "only_in_reference",
        "only_in_candidate",
        "notes",
        "pixel_tolerance",
        "cameras",
        "cameras_only_in_reference",
        "cameras_only_in_candidate",
    ]
    assert encoded["reference"] == {
        "path": str(small_recording),
        "duration_s": reference.duration_s,
        "generations": 2,
    }
    assert set(encoded["channels"][0]) >= {
        "name",
        "unit",
        "status",
        "samples_compared",
        "max_abs_error",
        "rms_error",
        "first_exceed_s",
        "exact",
        "within_tolerance",
    }


def test_a_skelarm_log_compares_exact_with_itself() -> None:
    log = SKELARM_DATA / "reach.sklog.npz"
    comparison = compare_recordings(*opened(log, log))
    assert comparison.exact
    speed = comparison.channel("tip_speed")
    assert speed.samples_compared == speed.reference_samples > 100


@pytest.mark.parametrize("tolerance", [-1.0, math.nan, math.inf])
def test_a_tolerance_that_is_not_a_finite_non_negative_number_is_refused(
    small_recording: Path, tolerance: float
) -> None:
    reference, candidate = opened(small_recording, small_recording)
    with pytest.raises(ValueError, match="tolerance"):
        compare_recordings(reference, candidate, tolerance=tolerance)


# -- cameras ---------------------------------------------------------------

CAMERA_RGB = "sensors.front.camera.rgb"
WIDTH, HEIGHT = 16, 12


def frame_at(tick: int) -> npt.NDArray[np.uint8]:
    """Return the frame a synthetic camera sees at ``tick``: a level per tick."""
    return np.full((HEIGHT, WIDTH, 3), 10 * tick, dtype=np.uint8)


def write_camera_take(
    path: Path,
    *,
    every: int = 2,
    ticks: int = 10,
    channel: str | None = "q",
    size: tuple[int, int] = (WIDTH, HEIGHT),
    doctor: dict[int, npt.NDArray[np.uint8]] | None = None,
) -> Path:
    """Write a take with a numeric channel and a PNG camera every ``every`` ticks.

    ``doctor`` replaces the frames at some ticks (tick -> pixels).
    """
    width, height = size
    specs = [
        *camera_streams("front", width=width, height=height, codec="png"),
        *([numeric_stream(channel, ("a",), "rad")] if channel else []),
    ]
    profile = CalibrationProfile(width, height, 14.0, 14.0, width / 2, height / 2)
    with FsrWriter(path, specs) as writer:
        writer.write(
            CAMERA_RGB.replace("rgb", "intrinsics"), profile, tick=0, sim_time_s=0.0
        )
        for tick in range(ticks):
            if channel:
                writer.write(channel, [tick * 0.1], tick=tick, sim_time_s=tick * 0.01)
            if tick % every:
                continue
            pixels = (doctor or {}).get(tick, frame_at(tick))
            if pixels.shape[:2] != (height, width):
                pixels = np.resize(pixels, (height, width, 3))
            writer.write(
                CAMERA_RGB, RGBFrame(pixels), tick=tick, sim_time_s=tick * 0.01
            )
    return path


def take_and_doctored(folder: Path, tick: int, *, by: int) -> tuple[Path, Path]:
    """Write a camera take and a copy whose frame at ``tick`` is one pixel off."""
    take = write_camera_take(folder / "take.fsr")
    doctored = write_camera_take(
        folder / "doctored.fsr", doctor={tick: one_pixel_off(tick, by)}
    )
    return take, doctored


def one_pixel_off(tick: int, by: int) -> npt.NDArray[np.uint8]:
    pixels = frame_at(tick).copy()
    pixels[5, 7, 1] += by
    return pixels


def test_a_copy_with_a_camera_compares_exact_frame_by_frame(tmp_path: Path) -> None:
    take = write_camera_take(tmp_path / "take.fsr")
    copy = Path(shutil.copyfile(take, tmp_path / "copy.fsr"))

    comparison = compare_recordings(*opened(take, copy))

    front = comparison.camera("front")
    assert comparison.exact
    assert front.exact
    assert front.status is CameraStatus.COMPARED
    assert front.frames_compared == 5
    assert front.size == front.candidate_size == (WIDTH, HEIGHT)
    assert front.max_abs_error == front.mean_abs_error == 0.0
    assert front.min_psnr_db == math.inf
    assert list(front.errors) == [0.0] * 5
    assert list(front.error_times_s) == pytest.approx([0.0, 0.02, 0.04, 0.06, 0.08])


def test_an_altered_frame_is_the_first_divergence_with_its_time_and_levels(
    tmp_path: Path,
) -> None:
    take, doctored = take_and_doctored(tmp_path, 6, by=9)

    comparison = compare_recordings(*opened(take, doctored))

    front = comparison.camera("front")
    assert not comparison.within_tolerance
    assert not comparison.exact
    assert comparison.channel("q").exact  # only the frame differs
    divergence = comparison.first_divergence
    assert divergence is not None
    assert divergence.is_camera
    assert (divergence.channel, divergence.error) == ("front", 9.0)
    assert divergence.time_s == pytest.approx(0.06)
    assert front.verdict == "diverges"
    assert front.max_abs_error == 9.0
    assert front.mean_abs_error == pytest.approx(9 / (WIDTH * HEIGHT * 3) / 5)
    mse = 81 / (WIDTH * HEIGHT * 3)
    assert front.min_psnr_db == pytest.approx(10 * math.log10(255**2 / mse))
    assert list(front.errors) == [0.0, 0.0, 0.0, 9.0, 0.0]


@pytest.mark.parametrize(("pixel_tolerance", "within"), [(9, True), (8, False)])
def test_a_frame_error_up_to_the_pixel_tolerance_is_within_it(
    tmp_path: Path, pixel_tolerance: int, within: bool
) -> None:
    take, doctored = take_and_doctored(tmp_path, 2, by=9)

    comparison = compare_recordings(
        *opened(take, doctored), pixel_tolerance=pixel_tolerance
    )

    assert comparison.within_tolerance is within
    assert comparison.camera("front").within_tolerance is within
    assert not comparison.exact
    assert (comparison.first_divergence is None) is within


def test_frames_of_another_size_are_reported_and_not_compared(tmp_path: Path) -> None:
    take = write_camera_take(tmp_path / "take.fsr")
    smaller = write_camera_take(tmp_path / "smaller.fsr", size=(8, 6))

    comparison = compare_recordings(*opened(take, smaller))

    front = comparison.camera("front")
    assert front.status is CameraStatus.SIZE_MISMATCH
    assert front.verdict == "size mismatch"
    assert (front.size, front.candidate_size) == ((16, 12), (8, 6))
    assert front.frames_compared == 0
    assert not comparison.within_tolerance
    assert comparison.first_divergence is None
    assert any(
        "16x12 in the reference, 8x6 in the candidate" in n for n in comparison.notes
    )


def test_the_candidate_frame_is_the_one_shown_at_the_reference_frame_time(
    tmp_path: Path,
) -> None:
    take = write_camera_take(tmp_path / "take.fsr", every=2)
    sparser = write_camera_take(tmp_path / "sparser.fsr", every=4)

    comparison = compare_recordings(*opened(take, sparser))

    front = comparison.camera("front")
    # At 0.02 s the candidate still shows its frame of tick 0 (level 0 vs 20).
    assert list(front.errors) == [0.0, 20.0, 0.0, 20.0, 0.0]
    assert comparison.first_divergence is not None
    assert comparison.first_divergence.time_s == pytest.approx(0.02)
    assert "camera front: 5 frames in the reference, 3 in the candidate" in (
        comparison.notes
    )


def test_each_frame_is_decoded_once(tmp_path: Path) -> None:
    reference, candidate = opened(
        write_camera_take(tmp_path / "take.fsr", every=2),
        write_camera_take(tmp_path / "sparser.fsr", every=4),
    )
    fetched: list[tuple[str, int]] = []

    def counted(model: RecordingModel, side: str) -> RecordingModel:
        track = model.cameras[0]

        def fetch(index: int) -> tuple[RGBFrame, Calibration | None]:
            fetched.append((side, index))
            return track.fetch(index)

        return dataclasses.replace(
            model, cameras=(CameraTrack(track.name, track.times_s, fetch),)
        )

    compare_recordings(counted(reference, "ref"), counted(candidate, "cand"))

    assert sorted(fetched) == [
        *(("cand", i) for i in range(3)),
        *(("ref", i) for i in range(5)),
    ]


def test_a_candidate_with_cameras_and_no_channel_in_common_is_compared_on_its_frames(
    tmp_path: Path,
) -> None:
    take = write_camera_take(tmp_path / "take.fsr")
    frames_only = write_camera_take(tmp_path / "frames.fsr", channel=None)

    comparison = compare_recordings(*opened(take, frames_only))

    assert comparison.channels == ()
    assert comparison.only_in_reference == ("q",)
    assert comparison.camera("front").exact
    assert comparison.within_tolerance
    assert comparison.compared_exact
    assert not comparison.exact  # the candidate lacks q
    assert comparison.overlap_s == pytest.approx((0.0, 0.08))  # its last frame


def test_no_channel_and_no_camera_in_common_is_a_compare_error(tmp_path: Path) -> None:
    take = write_camera_take(tmp_path / "take.fsr", channel="q")
    other = write_series(tmp_path / "other.fsr", {"wheel": (ramp(5, 1), "", ("v",))})

    with pytest.raises(CompareError, match="no channel or camera in common") as caught:
        compare_recordings(*opened(take, other))

    assert "cameras front" in str(caught.value)
    assert str(other) in str(caught.value)


def test_filters_choose_channels_cameras_or_both(tmp_path: Path) -> None:
    reference, candidate = opened(
        write_camera_take(tmp_path / "take.fsr"),
        write_camera_take(tmp_path / "doctored.fsr", doctor={4: one_pixel_off(4, 3)}),
    )

    channels_only = compare_recordings(reference, candidate, channels=["q"])
    cameras_only = compare_recordings(reference, candidate, cameras=["front"])
    both = compare_recordings(reference, candidate, channels=["q"], cameras=["front"])

    assert (len(channels_only.channels), channels_only.cameras) == (1, ())
    assert channels_only.within_tolerance
    assert (cameras_only.channels, len(cameras_only.cameras)) == ((), 1)
    assert not cameras_only.within_tolerance
    assert (len(both.channels), len(both.cameras)) == (1, 1)
    with pytest.raises(CompareError, match="no camera named side in either"):
        compare_recordings(reference, candidate, cameras=["side"])


def test_a_pixel_tolerance_outside_0_to_255_is_refused(tmp_path: Path) -> None:
    take = write_camera_take(tmp_path / "take.fsr")
    for bad in (-1, 256, math.nan):
        with pytest.raises(ValueError, match="pixel_tolerance"):
            compare_recordings(*opened(take, take), pixel_tolerance=bad)


def test_the_json_form_lists_cameras_with_an_infinite_psnr_as_text(
    tmp_path: Path,
) -> None:
    take, doctored = take_and_doctored(tmp_path, 8, by=4)

    encoded = json.loads(
        json.dumps(compare_recordings(*opened(take, take)).to_json(), allow_nan=False)
    )
    diverging = compare_recordings(*opened(take, doctored)).to_json()

    assert encoded["cameras"] == [
        {
            "name": "front",
            "status": "compared",
            "size": [WIDTH, HEIGHT],
            "candidate_size": [WIDTH, HEIGHT],
            "reference_frames": 5,
            "candidate_frames": 5,
            "frames_compared": 5,
            "max_abs_error": 0.0,
            "mean_abs_error": 0.0,
            "min_psnr_db": "inf",
            "first_exceed_s": None,
            "exact": True,
            "within_tolerance": True,
        }
    ]
    assert diverging["first_divergence"]["kind"] == "camera"
    assert diverging["first_divergence"]["channel"] == "front"
    assert diverging["cameras"][0]["first_exceed_s"] == pytest.approx(0.08)


def test_a_re_rendered_planar_arm_take_has_identical_frames(tmp_path: Path) -> None:
    document = _take_documents()["01_reach"]
    camera = dict(document["cameras"][0])
    camera.update(width=80, height=60, rate_hz=30.0)
    document.update(duration_s=0.3, cameras=[camera])
    source = tmp_path / "reach.fsr"
    record_run(Scenario.from_json(document), source)
    rendered = replay_file(
        source, tmp_path / "reach.render.fsr", ReplayOptions(mode=ReplayMode.RENDER)
    )
    assert rendered.output is not None

    comparison = compare_recordings(*opened(source, rendered.output))

    front = comparison.camera("front")
    assert comparison.channels == ()
    assert front.exact
    assert front.frames_compared == 9  # 0.3 s at 30 Hz
    assert comparison.compared_exact
    assert comparison.within_tolerance
