"""The ``fsr-viewer replay`` command: modes, progress, exit codes, Ctrl-C."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from app.cli import main
from app.headless import replay_commands
from app.headless.terminal_progress import TerminalProgress
from fsr_core.format.reader import FsrReader
from fsr_core.simulators.planar_arm.demos import demo_scenario
from fsr_core.simulators.planar_arm.recorder import ExternalPush, record_run
from fsr_core.simulators.planar_arm.scenario import Scenario


@pytest.fixture(scope="module")
def pushed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Record 0.5 s of the pushed demo take (no camera), pushed at 0.2-0.35 s."""
    document = demo_scenario("05_pushed").resolved()
    document.update(duration_s=0.5, cameras=[])
    path = tmp_path_factory.mktemp("replay_command") / "pushed.fsr"
    push = ExternalPush(0.2, 0.35, (-18.0, 6.0))
    record_run(Scenario.from_json(document), path, external_pushes=(push,))
    return path


def test_resimulate_writes_the_replay_with_a_progress_bar(
    pushed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "again.fsr"

    code = main(["replay", str(pushed), "--mode", "resimulate", "-o", str(output)])

    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.startswith(f"{output}: resimulate replay of {pushed} on ")
    assert "REPLAY_COMPLETED, 250 ticks" in captured.out
    assert "note: the source was pushed from outside its config" in captured.out
    assert f"compare it: fsr-viewer compare {pushed} {output}" in captured.out
    assert "[##############################] 250/250 ticks" in captured.err
    with FsrReader.open(output) as reader:
        assert reader.footer.provenance["mode"] == "resimulate"


def test_pushed_take_diverges_without_the_recorded_force_and_matches_with_it(
    pushed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain, forced = tmp_path / "plain.fsr", tmp_path / "forced.fsr"
    base = ["replay", str(pushed), "--mode", "resimulate"]
    assert main([*base, "-o", str(plain)]) == 0
    assert main([*base, "--with-recorded-force", "-o", str(forced)]) == 0
    capsys.readouterr()

    diverges = main(["compare", str(pushed), str(plain)])
    diverges_out = capsys.readouterr().out
    matches = main(["compare", str(pushed), str(forced)])
    matches_out = capsys.readouterr().out

    assert diverges == 1
    assert "DIVERGES: first in observations.arm (ext_fx) at 0.2 s" in diverges_out
    assert matches == 0
    assert "EXACT" in matches_out


def test_render_writes_a_replay_whose_footer_names_the_mode(
    pushed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "rendered.fsr"

    code = main(["replay", str(pushed), "--mode", "render", "-o", str(output)])

    assert code == 0
    out = capsys.readouterr().out
    assert "render replay of" in out
    assert "(REPLAY_COMPLETED, 15 frames in" in out  # 0.5 s of render state at 30 Hz
    with FsrReader.open(output) as reader:
        assert reader.footer.provenance["mode"] == "render"


@pytest.mark.parametrize(
    "options",
    [
        ["--execution", "sequential", "--timing", "as_fast_as_valid"],
        ["--execution", "recorded_preemption", "--max-in-flight", "1"],
    ],
    ids=["sequential_fast", "window_of_one"],
)
def test_execution_and_timing_options_reach_the_replay(
    pushed: Path, tmp_path: Path, options: list[str]
) -> None:
    output = tmp_path / "out.fsr"

    code = main(
        ["replay", str(pushed), "--mode", "resimulate", *options, "-o", str(output)]
    )

    assert code == 0
    with FsrReader.open(output) as reader:
        chosen = reader.footer.provenance["options"]
    given = dict(zip(options[::2], options[1::2], strict=True))
    assert chosen["execution"] == given["--execution"]
    assert chosen["timing"] == given.get("--timing", "recorded_sim_time")
    assert chosen["max_in_flight"] == int(given.get("--max-in-flight", "4"))


def test_existing_output_fails_with_one_line_and_is_kept(
    pushed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "taken.fsr"
    output.write_bytes(b"mine")

    code = main(["replay", str(pushed), "--mode", "render", "-o", str(output)])

    err = capsys.readouterr().err
    assert code == 1
    assert err == (
        f"fsr-viewer replay: {output}: file already exists; pass --overwrite to "
        "replace it\n"
    )
    assert output.read_bytes() == b"mine"


def test_overwrite_replaces_an_existing_output(pushed: Path, tmp_path: Path) -> None:
    output = tmp_path / "taken.fsr"
    output.write_bytes(b"mine")

    code = main(
        ["replay", str(pushed), "--mode", "render", "--overwrite", "-o", str(output)]
    )

    assert code == 0
    with FsrReader.open(output) as reader:
        assert reader.footer.provenance["mode"] == "render"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--simulator", "nowhere"], "no simulator adapter named 'nowhere'"),
        # Whatever MuJoCo says (another contract, or not installed), it is one line.
        (["--simulator", "mujoco"], "'mujoco'"),
    ],
    ids=["unknown_simulator", "other_simulator"],
)
def test_refused_replay_fails_with_one_line_naming_the_file(
    pushed: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    expected: str,
) -> None:
    output = tmp_path / "out.fsr"

    code = main(
        ["replay", str(pushed), "--mode", "resimulate", *extra, "-o", str(output)]
    )

    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"fsr-viewer replay: {pushed}: ")
    assert expected in err
    assert err.count("\n") == 1
    assert not output.exists()


def test_missing_source_fails_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.fsr"

    code = main(
        ["replay", str(missing), "--mode", "render", "-o", str(tmp_path / "o.fsr")]
    )

    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"fsr-viewer replay: {missing}: ")
    assert err.count(str(missing)) == 1
    assert "the source cannot be opened: no such file" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["-o", "out.fsr"],
        ["--mode", "replay", "-o", "out.fsr"],
        ["--mode", "resimulate"],
        ["--mode", "resimulate", "--timing", "wall_clock", "-o", "out.fsr"],
        ["--mode", "resimulate", "--execution", "parallel", "-o", "out.fsr"],
        ["--mode", "resimulate", "--max-in-flight", "0", "-o", "out.fsr"],
    ],
    ids=["no_mode", "bad_mode", "no_output", "bad_timing", "bad_execution", "window"],
)
def test_usage_errors_exit_2(
    pushed: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["replay", str(pushed), *argv])

    assert caught.value.code == 2
    assert "usage: fsr-viewer replay" in capsys.readouterr().err


class _InterruptedProgress(TerminalProgress):
    """The progress bar, with the user pressing Ctrl-C at the first update."""

    def __call__(self, done: int, total: int) -> None:
        super().__call__(done, total)
        if done == 0:
            os.kill(os.getpid(), signal.SIGINT)


def test_ctrl_c_cancels_cleanly_and_leaves_nothing(
    pushed: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replay_commands, "TerminalProgress", _InterruptedProgress)
    before = signal.getsignal(signal.SIGINT)

    code = main(
        ["replay", str(pushed), "--mode", "resimulate", "-o", str(tmp_path / "o.fsr")]
    )

    err = capsys.readouterr().err
    assert code == replay_commands.EXIT_CANCELLED == 130
    assert "cancelling the replay" in err
    assert "replay cancelled after 0 of 250 steps; nothing was written" in err
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGINT) is before
