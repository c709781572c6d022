"""The Genesis simulator adapter where Genesis does not run (tests/genesis runs it).

Registration, the one-line refusals of the command line, the requests and
cameras a run accepts, the worker's own refusal of a bad request (a real child
interpreter), the channel names a replay writes (checked against the Genesis
source on every test trajectory), and a replay file written from the frames
Genesis's own reader returned (``tests/data/genesis/expected``), compared
with the source.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from data_paths import GENESIS_BOX as BOX
from data_paths import GENESIS_DATA as DATA
from tool_scripts import load_tool

from app.cli import main
from fsr_core.compare import compare_recordings
from fsr_core.errors import AdapterUnavailableError, ReplayError
from fsr_core.format.reader import FsrReader
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.protocol import (
    ReplayMode,
    ReplayOptions,
    Simulator,
)
from fsr_core.simulation.registry import (
    adapter_names,
    claiming_simulator,
    get_adapter,
    replay_suffix,
    source_simulator,
)
from fsr_core.simulators.genesis import availability
from fsr_core.simulators.genesis.availability import Runtime
from fsr_core.simulators.genesis.channels import (
    TIME_CHANNEL,
    TIMINGS_PREFIX,
    channel_specs,
    play_times,
)
from fsr_core.simulators.genesis.comparison import (
    ComparisonLog,
    FieldDifference,
    FrameComparison,
)
from fsr_core.simulators.genesis.output import ReplayFile, Source
from fsr_core.simulators.genesis.replay import format_problem, trajectory_problem
from fsr_core.simulators.genesis.request import (
    CAMERA_VARIABLE,
    START_VARIABLE,
    CameraSpec,
    GenesisRequest,
    RequestError,
    camera_from_environment,
    parse_camera,
    start_from_environment,
)
from fsr_core.simulators.genesis.session import FrameOut, authored_inputs, difference
from fsr_core.simulators.genesis.trajectory_file import HeaderError, read_header
from fsr_core.sources import open_recording

INSTALL = "pip install 'fsr-viewer[genesis]'"
INTACT = sorted(
    path
    for path in DATA.glob("*.gstraj")
    if not any(
        word in path.name for word in ("_cut_", "_flip_", "_bad_magic", "checkpoint")
    )
)


@pytest.fixture
def genesis_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make Genesis run nowhere: not importable here, no worker interpreter."""
    monkeypatch.setattr(availability, "_installed_here", lambda: None)
    monkeypatch.delenv(availability.PYTHON_VARIABLE, raising=False)


# ---------------------------------------------------------------- registration


def test_genesis_is_a_registered_simulator_for_trajectories() -> None:
    assert "genesis" in adapter_names()
    adapter = get_adapter("genesis", require_available=False)

    assert isinstance(adapter, Simulator)
    assert adapter.capabilities() == {ReplayMode.RENDER, ReplayMode.RESIMULATE}
    assert source_simulator("genesis") == "genesis"
    assert replay_suffix("genesis") == ".fsr"
    assert claiming_simulator(BOX) is not None
    assert claiming_simulator(BOX).name == "genesis"  # type: ignore[union-attr]


def test_only_trajectories_are_claimed(small_recording: Path) -> None:
    adapter = get_adapter("genesis", require_available=False)

    assert adapter.claims_source(BOX)
    assert not adapter.claims_source(small_recording)
    assert not adapter.claims_source(DATA / "README.md")


# ---------------------------------------------------------------- unavailable


@pytest.mark.usefixtures("genesis_missing")
def test_missing_genesis_names_the_extra() -> None:
    reason = get_adapter("genesis", require_available=False).unavailable_reason()

    assert reason is not None
    assert INSTALL in reason
    assert availability.PYTHON_VARIABLE in reason
    with pytest.raises(AdapterUnavailableError, match=r"fsr-viewer\[genesis\]"):
        get_adapter("genesis")


def _skip_where_installed(module: str) -> None:
    """Skip the test when ``module`` imports in this interpreter (a child asks)."""
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import importlib.util as u; print(u.find_spec({module!r}))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    if probe.stdout.strip() != "None":
        pytest.skip(f"{module} is installed in this interpreter")


def test_a_worker_python_without_genesis_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(availability, "_installed_here", lambda: None)
    monkeypatch.setenv(availability.PYTHON_VARIABLE, str(tmp_path / "nope"))
    assert "does not exist" in (availability.unavailable_reason() or "")

    # This interpreter has no genesis-world when the suite runs without it.
    _skip_where_installed("genesis")
    monkeypatch.setenv(availability.PYTHON_VARIABLE, sys.executable)
    reason = availability.unavailable_reason() or ""
    assert "has no genesis-world" in reason
    assert sys.executable in reason


@pytest.mark.usefixtures("genesis_missing")
def test_replay_menu_says_what_to_install_for_an_open_trajectory() -> None:
    from app.window.replay.availability import replay_block_reason, simulator_choices

    model = open_recording(BOX)

    assert simulator_choices(model) == ["genesis"]
    for mode in ReplayMode:
        reason = replay_block_reason(model, mode)
        assert reason is not None
        assert INSTALL in reason


@pytest.mark.usefixtures("genesis_missing")
@pytest.mark.parametrize("mode", ["render", "resimulate"])
@pytest.mark.parametrize("named", [True, False])
def test_replay_command_refuses_in_one_line_without_genesis(
    mode: str, named: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.fsr"
    argv = ["replay", str(BOX), "--mode", mode, "-o", str(output)]
    if named:
        argv[1:1] = ["--simulator", "genesis"]

    status = main(argv)

    said = capsys.readouterr()
    lines = [line for line in said.err.splitlines() if line.strip()]
    assert status == 1
    assert len(lines) == 1, said.err
    assert lines[0].startswith("fsr-viewer replay: ")
    assert INSTALL in lines[0]
    assert said.out == ""
    assert not output.exists()


def test_a_format_the_installed_genesis_cannot_read_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(availability, "find_runtime", lambda: Runtime(None, "1.4.5"))
    monkeypatch.setattr(
        "fsr_core.simulators.genesis.replay.find_runtime",
        lambda: Runtime(None, "1.4.5"),
    )
    monkeypatch.setattr(availability, "_installed_here", lambda: "1.4.5")
    source = DATA / "v1_box_exact.gstraj"

    status = main(
        ["replay", str(source), "--mode", "resimulate", "-o", str(tmp_path / "o.fsr")]
    )

    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1
    assert len(err) == 1
    assert "GSTRAJ1" in err[0]
    assert "1.4.0 to 1.4.4" in err[0]


def test_plan_says_how_faithful_the_replay_is() -> None:
    adapter = get_adapter("genesis", require_available=False)
    resimulate = ReplayOptions(mode=ReplayMode.RESIMULATE)

    exact = adapter.plan_replay(BOX, resimulate)
    minimal = adapter.plan_replay(DATA / "v4_box_minimal.gstraj", resimulate)

    assert exact.fidelity == "exact"
    assert "compared bit for bit" in exact.notes[0]
    assert minimal.fidelity == "recomputed"
    assert adapter.plan_replay(BOX, ReplayOptions(mode=ReplayMode.RENDER)).notes
    with pytest.raises(ReplayError, match="not a replayable Genesis trajectory"):
        adapter.plan_replay(DATA / "README.md", resimulate)


def test_header_problems_are_said() -> None:
    header = read_header(BOX)
    assert format_problem(header, "1.4.5") is None
    assert "only genesis-world 1.4.5 reads" in (format_problem(header, "1.4.4") or "")
    with pytest.raises(HeaderError, match="version 9"):
        read_header(DATA / "v4_box_exact_bad_magic.gstraj")
    assert "no GSTRAJ magic" in (trajectory_problem(DATA / "README.md") or "")


# ---------------------------------------------------------------- requests


def test_request_round_trips_through_json() -> None:
    camera = CameraSpec(
        (1.0, 2.0, 3.0), (0.0, 0.0, 0.5), fov_deg=50.0, width=320, height=200
    )
    request = GenesisRequest("render", "/data/run.gstraj", 3, camera)

    assert GenesisRequest.from_json(request.to_json()) == request


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ({"mode": "paint"}, "mode must be one of"),
        ({"source": ""}, "source must be"),
        ({"start_frame": -1}, "start_frame"),
        ({"start_frame": True}, "start_frame"),
        ({"start_frame": 1.5}, "start_frame"),
    ],
)
def test_bad_requests_are_refused(fields: dict[str, object], complaint: str) -> None:
    given: dict[str, object] = {"mode": "render", "source": "/r.gstraj", **fields}
    with pytest.raises(RequestError, match=complaint):
        GenesisRequest(**given)  # type: ignore[arg-type]


def _with_camera(fields: str) -> str:
    head = '{"mode": "render", "source": "/r", "start_frame": 0, "camera": '
    return head + "{" + fields + "}}"


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("[]", "JSON object"),
        ("{", "not JSON"),
        ('{"mode": "render"}', "fields differ"),
        (
            _with_camera('"fov_deg": 40, "width": 64, "height": 48, "zoom": 2'),
            "unknown",
        ),
        (_with_camera('"fov_deg": 400, "width": 64, "height": 48'), "fov must be"),
        (_with_camera('"fov_deg": 40, "width": 64, "height": 99999'), "each side"),
    ],
)
def test_bad_request_json_is_refused(text: str, complaint: str) -> None:
    with pytest.raises(RequestError, match=complaint):
        GenesisRequest.from_json(text)


def test_camera_text_gives_pose_and_intrinsics() -> None:
    camera = parse_camera("pos=1,2,3 lookat=0,0,0.5;fov=55 size=800x600 up=0,1,0")

    assert camera == CameraSpec(
        (1.0, 2.0, 3.0), (0.0, 0.0, 0.5), (0.0, 1.0, 0.0), 55.0, 800, 600
    )
    assert parse_camera("fov=30").posed is False


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("pos=1,2,3", "both pos and lookat"),
        ("pos=1,2 lookat=0,0,0", "three numbers"),
        ("pos=1,1,1 lookat=1,1,1", "same point"),
        ("pos=0,0,5 lookat=0,0,0", "parallel"),
        ("pos=nan,0,1 lookat=0,0,0", "finite"),
        ("zoom=2", "unknown camera setting"),
        ("fov=30 fov=40", "given twice"),
        ("size=64", "WIDTHxHEIGHT"),
        ("size=4x4", "8 to 4096"),
        ("fov", "key=value"),
    ],
)
def test_bad_cameras_are_refused(text: str, complaint: str) -> None:
    with pytest.raises(RequestError, match=complaint):
        parse_camera(text)


def test_camera_and_start_frame_come_from_the_environment() -> None:
    assert camera_from_environment({}) is None
    assert start_from_environment({}) == 0
    assert start_from_environment({START_VARIABLE: " 12 "}) == 12
    camera = camera_from_environment({CAMERA_VARIABLE: "size=64x48"})
    assert camera is not None
    assert (camera.width, camera.height) == (64, 48)
    with pytest.raises(RequestError, match=CAMERA_VARIABLE):
        camera_from_environment({CAMERA_VARIABLE: "pos=1"})
    with pytest.raises(RequestError, match=START_VARIABLE):
        start_from_environment({START_VARIABLE: "-3"})


def test_a_bad_camera_in_the_environment_fails_the_replay_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(availability, "_installed_here", lambda: "1.4.5")
    monkeypatch.setenv(CAMERA_VARIABLE, "pos=1,1,1")
    options = ReplayOptions(mode=ReplayMode.RENDER)

    with pytest.raises(ReplayError, match="both pos and lookat") as caught:
        replay_file(BOX, tmp_path / "o.fsr", options, simulator="genesis")

    assert "\n" not in str(caught.value)
    assert not (tmp_path / "o.fsr").exists()


@pytest.mark.parametrize(
    ("content", "complaint"),
    [("not json", "bad request"), ('{"mode": "paint"}', "bad request")],
)
def test_the_worker_refuses_a_bad_request(
    content: str, complaint: str, tmp_path: Path
) -> None:
    request = tmp_path / "request.json"
    request.write_text(content, encoding="utf-8")

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "fsr_core.simulators.genesis.worker",
            str(request),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 2
    assert complaint in done.stderr
    assert done.stdout == ""


# ---------------------------------------------------------------- channels


@pytest.mark.parametrize("path", INTACT, ids=lambda path: path.name)
def test_replay_channels_are_named_as_the_source_names_them(path: Path) -> None:
    model = open_recording(path)
    header = read_header(path)

    ours = {spec.name: spec.columns for spec in channel_specs(header)}
    theirs = {
        name: channel.columns
        for name, channel in model.channels.items()
        if name != TIME_CHANNEL and not name.startswith(TIMINGS_PREFIX)
    }

    assert ours == theirs
    field = header.steps_field
    names = [f"env{e}/{field}" for e in range(header.batch)]
    series = [model.channels[name] for name in names if name in model.channels]
    series = series or [model.channels[field]]
    counts = np.max([np.asarray(c.values).reshape(-1) for c in series], axis=0)
    play = play_times(counts.astype(np.int64).tolist(), header.dt)
    times = model.channels[TIME_CHANNEL].times_s
    assert play.tobytes() == np.asarray(times, dtype=np.float64).tobytes()


def test_authored_inputs_are_controls_forces_and_model_parameters() -> None:
    inputs = authored_inputs(read_header(DATA / "v4_arm_exact.gstraj"))

    assert "RigidSolver.dyn_state.dofs.ctrl_pos" in inputs
    assert "RigidSolver.dyn_state.links.cfrc_applied_vel" in inputs
    assert "RigidSolver.rigid_info.gravity" in inputs
    assert "RigidSolver.rigid_info.qpos" not in inputs


# ---------------------------------------------------------------- comparison


def test_difference_says_field_environment_and_error() -> None:
    recorded = np.zeros((4, 3, 2), dtype=np.float32)
    live = recorded.copy()
    assert difference("RigidSolver.rigid_info.qpos", live, recorded, 3) is None

    live[1, 2, 0] = 0.25
    found = difference("RigidSolver.rigid_info.qpos", live, recorded, 3)
    assert found is not None
    assert found["envs"] == [2]
    assert found["elements"] == 1
    assert found["max_abs_error"] == 0.25

    signed = np.array([-0.0], dtype=np.float32)
    bits = difference("x", signed, np.zeros(1, dtype=np.float32), 1)
    assert bits is not None
    assert (bits["max_abs_error"], bits["elements"]) == (0.0, 1)
    nan = np.array([np.nan], dtype=np.float32)
    assert difference("x", nan, nan.copy(), 1) is None
    assert difference("x", None, recorded, 3)["what"] == "missing"  # type: ignore[index]
    assert difference("x", live[:1], recorded, 3)["what"] == "shape"  # type: ignore[index]


def test_comparison_log_finds_the_first_divergence() -> None:
    log = ComparisonLog("resimulate", 0, ["RigidSolver.dyn_state.dofs.ctrl_pos"])
    log.compared_fields = 10
    log.add(FrameComparison(0, 0, 0.0))
    log.add(FrameComparison(1, 1, 0.01))
    late = FieldDifference("RigidSolver.rigid_info.qpos", 1e-6, (1,), 2)
    worse = FieldDifference("Simulator.steps", 20.0, (1,), 1)
    log.add(FrameComparison(2, 2, 0.02, (late, worse)))
    log.add(FrameComparison(3, 3, 0.03, (FieldDifference("x", math.nan, None, 1),)))

    summary = log.to_json()
    assert not log.exact
    assert summary["first_divergence"]["frame"] == 2
    assert summary["first_divergence"]["field"] == "Simulator.steps"
    assert summary["first_divergence"]["envs"] == [1]
    assert summary["max_abs_error"] == "nan"
    assert summary["diverging_field_count"] == 3
    assert "diverges at frame 2 (step 2, t=0.02 s) in Simulator.steps in env1" in (
        log.sentence()
    )
    json.dumps(summary, allow_nan=False)

    clean = ComparisonLog("render", 5, ())
    clean.add(FrameComparison(5, 5, 0.05))
    assert clean.exact
    assert clean.sentence().startswith("bit for bit")


# ---------------------------------------------------------------- output file


def _genesis_reader_frames(path: Path) -> tuple[list[dict[str, np.ndarray]], list[int]]:
    """Return every frame Genesis's own reader returned for ``path``, and its steps."""
    table = np.load(DATA / "expected" / f"{path.stem}.npz")
    layout = json.loads(table["layout_json"].tobytes())
    assert list(table["frames_index"]) == list(range(len(table["frames_index"])))

    def arrays(rows: list[list[object]], data: np.ndarray) -> dict[str, np.ndarray]:
        found = {}
        for name, dtype, shape, start, nbytes in rows:
            raw = data[int(start) : int(start) + int(nbytes)]  # type: ignore[call-overload]
            found[str(name)] = raw.view(str(dtype)).reshape(shape)
        return found

    frames = [arrays(layout["frames"], row) for row in table["frames_data"]]
    frames.append(arrays(layout["last"], table["last_data"][0]))
    steps = [int(np.asarray(row).max()) for row in table["steps"]]
    return frames, steps


def test_replay_file_of_exact_frames_compares_equal_with_the_source(
    tmp_path: Path,
) -> None:
    frames, steps = _genesis_reader_frames(BOX)
    header = read_header(BOX)
    request = GenesisRequest("resimulate", str(BOX))
    output = tmp_path / "box.resim.fsr"
    sink = ReplayFile(
        output,
        Source(BOX, "0" * 64, header),
        request,
        ReplayOptions(mode=ReplayMode.RESIMULATE),
        "replay-000000000000",
    )
    sink.scene(
        {"genesis_version": "1.4.5", "frames": len(frames), "frame_steps": steps}
    )
    for index, arrays in enumerate(frames):
        counts = tuple(int(s) for s in arrays[header.steps_field])
        sink.frame(FrameOut(index, counts, arrays))
    sink.finish()

    source, replayed = open_recording(BOX), open_recording(output)
    comparison = compare_recordings(source, replayed)
    assert comparison.within_tolerance
    assert all(channel.exact for channel in comparison.channels)
    assert set(comparison.only_in_reference) == {
        name for name in source.channels if name.startswith(TIMINGS_PREFIX)
    }
    assert comparison.only_in_candidate == ()
    with FsrReader.open(output) as reader:
        provenance = reader.footer.provenance  # type: ignore[union-attr]
        assert provenance["source"]["sha256"] == "0" * 64
        assert provenance["genesis_version"] == "1.4.5"
        assert provenance["comparison"]["bit_for_bit"] is True
        assert reader.metadata["replay"]["mode"] == "resimulate"


# ---------------------------------------------------------------- check.py


def test_check_step_says_genesis_tests_did_not_run_without_a_genesis_python(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    check = load_tool("check", "tool_check_genesis")
    monkeypatch.delenv("FSR_VIEWER_GENESIS_PYTHON", raising=False)
    monkeypatch.setattr(check, "GENESIS_VENV", tmp_path / "none")

    assert check._genesis_tests() == 0
    assert (
        "genesis tests NOT RUN: no FSR_VIEWER_GENESIS_PYTHON" in capfd.readouterr().out
    )

    _skip_where_installed("torch")
    monkeypatch.setenv("FSR_VIEWER_GENESIS_PYTHON", sys.executable)
    assert check._genesis_tests() == 0
    assert "lacks genesis-world, torch or pytest" in capfd.readouterr().out


# ------------------------------------------------------ replay --set settings


def test_replay_settings_give_the_camera_and_the_start_frame(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from fsr_core.simulation.replay_call import ReplayCall
    from fsr_core.simulators.genesis import replay as genesis_replay

    monkeypatch.delenv("FSR_VIEWER_GENESIS_CAMERA", raising=False)
    monkeypatch.setenv("FSR_VIEWER_GENESIS_START_FRAME", "2")  # --set wins
    settings = (
        ("camera", "pos=1,2,3 lookat=0,0,0.5 fov=40 size=320x240"),
        ("start_frame", "7"),
    )
    call = ReplayCall(
        BOX,
        tmp_path / "out.fsr",
        ReplayOptions(mode=ReplayMode.RESIMULATE, settings=settings),
    )

    request = genesis_replay._request(call, None, None)

    assert request.start_frame == 7
    assert request.camera.pos == (1.0, 2.0, 3.0)
    assert request.camera.lookat == (0.0, 0.0, 0.5)
    assert (request.camera.fov_deg, request.camera.width) == (40.0, 320)
    bad = ReplayCall(
        BOX,
        tmp_path / "out.fsr",
        ReplayOptions(mode=ReplayMode.RENDER, settings=(("camera", "zoom=2"),)),
    )
    with pytest.raises(ReplayError, match="unknown camera setting 'zoom'"):
        genesis_replay._request(bad, None, None)


def test_a_setting_the_simulator_does_not_take_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.fsr"
    argv = ["replay", str(BOX), "--mode", "render", "-o", str(output)]

    status = main([*argv, "--set", "fov=30"])

    said = capsys.readouterr()
    lines = [line for line in said.err.splitlines() if line.strip()]
    assert status == 1
    assert len(lines) == 1, said.err
    assert "has no replay setting 'fov' (it takes camera, start_frame)" in lines[0]
    assert not output.exists()


def test_a_setting_without_a_value_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["replay", str(BOX), "--mode", "render", "-o", str(tmp_path / "o.fsr")]

    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--set", "camera"])

    assert stopped.value.code == 2
    assert "expected NAME=VALUE" in capsys.readouterr().err
