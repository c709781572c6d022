"""An MCAP file exports, screenshots and plots like an FSR take (command line)."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest
from channel_tables import exported_rows
from data_paths import MCAP_DATA

from app.cli import main
from fsr_core.sources import open_recording

DATA = MCAP_DATA


def test_export_with_a_camera_topic_and_the_panel(tmp_path: Path) -> None:
    video = tmp_path / "ros2.mp4"
    code = main(
        [
            str(DATA / "ros2.mcap"),
            "--export",
            str(video),
            "--panel",
            "--camera",
            "/camera/image_raw",
            "--view",
            "camera",
            "--size",
            "320x240",
        ]
    )
    assert code == 0
    model = open_recording(DATA / "ros2.mcap")
    with av.open(str(video)) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    assert len(frames) == int(model.duration_s * 30) + 1
    # The camera frames change (a square moves): the video is not one still.
    first, last = frames[0].astype(int), frames[-1].astype(int)
    assert np.abs(first - last).mean() > 1.0


def test_export_channels_writes_every_joint_column(tmp_path: Path) -> None:
    rows = exported_rows(tmp_path / "ros2.csv", str(DATA / "ros2.mcap"))
    header = rows[0]
    assert "/joint_states:position.joint_1" in header
    assert len(rows) == 1 + 200


def test_a_folder_of_mcap_files_screenshots_as_a_playlist(tmp_path: Path) -> None:
    shot = tmp_path / "player.png"
    assert main([str(DATA), "--screenshot", str(shot), "--at", "0.5"]) == 0
    assert shot.stat().st_size > 10_000


def test_the_earlier_mcap_time_option_still_places_messages_at_header_stamps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --time-base is the option now (test_mcap_time_base.py); --mcap-time, out
    # of --help, still sets the default of every command, as it did.
    monkeypatch.setenv("FSR_VIEWER_MCAP_TIME", "log")  # restored after the test
    arguments = ["--mcap-time", "header", str(DATA / "time_bases.mcap")]
    rows = exported_rows(tmp_path / "header.csv", *arguments)[1:]
    # The joint states were stamped on a 100 ms grid and logged with jitter.
    assert [float(row[0]) for row in rows] == pytest.approx(
        [0.1 * index for index in range(10)], abs=1e-9
    )


@pytest.mark.parametrize(
    "words",
    [
        ["--mcap-time", "publish", "inspect", "--json"],
        ["inspect", "--mcap-time", "publish", "--json"],
    ],
    ids=["before", "after"],
)
def test_mcap_time_is_taken_before_or_after_the_command(
    words: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FSR_VIEWER_MCAP_TIME", "log")  # restored after the test
    assert main([*words, str(DATA / "ros2.mcap")]) == 0
    assert '"time_base": "publish"' in capsys.readouterr().out


def _ros2_file(
    path: Path, *, numbers: bool = True, repeat_at: int | None = None
) -> Path:
    """Write ten 100 Hz steps of ``/value`` (Float64), ``/text`` and ``/empty``.

    ``repeat_at`` gives ``/value`` a second message (100.0) at that step's time.
    """
    from mcap_ros2.writer import Writer

    with path.open("wb") as stream:
        writer = Writer(stream)
        text = writer.register_msgdef("std_msgs/msg/String", "string data\n")
        empty = writer.register_msgdef("std_msgs/msg/Empty", "")
        value = writer.register_msgdef("std_msgs/msg/Float64", "float64 data\n")
        for step in range(10):
            at = 1_000_000_000 + step * 10_000_000
            times = {"log_time": at, "publish_time": at}
            if numbers:
                writer.write_message("/value", value, {"data": float(step)}, **times)
                if step == repeat_at:
                    writer.write_message("/value", value, {"data": 100.0}, **times)
            writer.write_message("/text", text, {"data": f"step {step}"}, **times)
            writer.write_message("/empty", empty, {}, **times)
        writer.finish()
    return path


def test_two_messages_at_one_time_export_both_values(tmp_path: Path) -> None:
    source = _ros2_file(tmp_path / "same.mcap", repeat_at=3)
    rows = exported_rows(tmp_path / "same.csv", str(source))
    assert rows[0] == ["play_time_s", "/value:data"]
    values = [float(row[1]) for row in rows[1:]]
    assert values == [0.0, 1.0, 2.0, 3.0, 100.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]


def test_topics_without_numbers_are_left_out_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _ros2_file(tmp_path / "text.mcap")
    capsys.readouterr()
    rows = exported_rows(tmp_path / "text.csv", str(source))
    printed = capsys.readouterr().out
    assert "2 channel(s) without numbers left out: /text, /empty" in printed
    assert rows[0] == ["play_time_s", "/value:data"]
    assert len(rows) == 1 + 10


def test_a_file_without_numbers_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _ros2_file(tmp_path / "words.mcap", numbers=False)
    table = tmp_path / "words.csv"
    capsys.readouterr()
    assert main([str(source), "--export-channels", str(table)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == f"fsr-viewer: {source}: no numeric channels to export"
    assert not table.exists()
