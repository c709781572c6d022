"""The shared output check (fsr_core.output_paths) and the option types, in-process."""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

import pytest

from app.cli import main
from app.headless.export.video import FrameTimes, frame_count, frame_times
from app.headless.options import fps_option, speed_option, time_option
from app.headless.signals import StopRequested, stop_on_signals
from fsr_core.errors import TargetExistsError
from fsr_core.output_paths import (
    OutputIsInputError,
    OutputNotFileError,
    check_output_path,
    same_file,
)


def test_the_input_under_any_name_is_refused_even_with_overwrite(
    tmp_path: Path,
) -> None:
    source = tmp_path / "in.fsr"
    source.write_bytes(b"x")
    os.link(source, tmp_path / "hard.fsr")
    (tmp_path / "soft.fsr").symlink_to(source)
    for name in ("in.fsr", "hard.fsr", "soft.fsr", "sub/../in.fsr"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        with pytest.raises(OutputIsInputError, match="the output is the input"):
            check_output_path(tmp_path / name, [source], overwrite=True)
    assert same_file(tmp_path / "hard.fsr", source)
    assert source.read_bytes() == b"x"


def test_special_files_and_bad_folders_are_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "file").write_bytes(b"")
    cases = {
        tmp_path / "fifo": "a FIFO",
        Path("/dev/full"): "a character device",
        tmp_path: "a folder",
        tmp_path / "loop": "symbolic link loop",
        tmp_path / "gone" / "x.fsr": "cannot open output folder",
        tmp_path / "file" / "x.fsr": "cannot use the output",
    }
    for path, said in cases.items():
        with pytest.raises(OutputNotFileError, match=said):
            check_output_path(path, overwrite=True)


def test_an_existing_file_needs_overwrite(tmp_path: Path) -> None:
    (tmp_path / "old.fsr").write_bytes(b"")
    with pytest.raises(TargetExistsError, match=r"overwritten \(use --overwrite"):
        check_output_path(tmp_path / "old.fsr", hint=" (use --overwrite)")
    check_output_path(tmp_path / "old.fsr", overwrite=True)
    check_output_path(tmp_path / "new.fsr")


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (fps_option, "inf"),
        (fps_option, "nan"),
        (fps_option, "0"),
        (fps_option, "-1"),
        (fps_option, "1e9"),
        (speed_option, "0"),
        (speed_option, "-2"),
        (speed_option, "inf"),
        (speed_option, "nan"),
        (time_option, "nan"),
        (time_option, "-inf"),
        (time_option, "-1"),
    ],
)
def test_option_numbers_refuse_non_finite_and_absurd_values(
    parse: object, text: str
) -> None:
    assert callable(parse)
    with pytest.raises(argparse.ArgumentTypeError, match=repr(text)):
        parse(text)


def test_frame_times_are_lazy_and_a_huge_span_counts_without_overflow() -> None:
    times = frame_times(1e9, fps=30.0, speed=1.0)
    assert isinstance(times, FrameTimes)
    assert len(times) == 30_000_000_001
    assert times[-1] == 1e9
    assert times[1:3] == pytest.approx([1 / 30, 2 / 30])
    assert frame_count(1e300, fps=1000.0, speed=1e-300) > 10**18


@pytest.mark.parametrize(
    "argv",
    [
        ["sample", "out.fsr", "--ticks", "0"],
        ["sample", "out.fsr", "--ticks", "1e12"],
        ["replay", "a.fsr", "--mode", "render", "-o", "b.fsr", "--max-in-flight", "0"],
        ["compare", "a.fsr", "b.fsr", "--tolerance", "nan"],
        ["compare", "a.fsr", "b.fsr", "--pixel-tolerance", "256"],
    ],
)
def test_subcommand_numbers_are_checked_before_any_work(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2


def test_a_signal_inside_stop_on_signals_raises_stop_requested() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(StopRequested) as stopped, stop_on_signals():
        signal.raise_signal(signal.SIGTERM)
    assert stopped.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN  # deaf while exiting
    signal.signal(signal.SIGTERM, before)


def test_a_command_after_a_stopped_one_fails_for_its_own_reason() -> None:
    before = {
        signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        with pytest.raises(StopRequested), stop_on_signals():
            signal.raise_signal(signal.SIGTERM)
        # The next command (a long-lived process, a test run) is not "stopped"
        # when it fails: its own error comes out.
        with pytest.raises(ValueError, match="its own"), stop_on_signals():
            raise ValueError("its own")
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
