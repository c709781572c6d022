"""The time base of an MCAP log: ``--time-base`` and View → Time base.

``time_bases.mcap`` holds joint states stamped on a 100 ms grid, sent later
and later and logged with jitter, a battery voltage without a header and a
target whose first stamps are unset (``tools/make_mcap_data.py``); the same
file plays 0.957 s on log times, 0.927 s on publish times and 0.9 s on
header stamps.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from channel_tables import exported_rows
from data_paths import MCAP_DATA
from PySide6.QtWidgets import QTreeWidgetItem
from shown_widgets import checked_time_bases, time_base_entries

from app.cli import main
from app.window.main_window import MainWindow
from fsr_core.sources import open_recording
from fsr_core.sources.mcap.recording_model import TIME_VARIABLE

DATA = MCAP_DATA
TIME_BASES_FILE = DATA / "time_bases.mcap"
SKELARM_LOG = DATA.parent / "skelarm" / "reach.sklog.npz"
DURATIONS = {"log": 0.957, "publish": 0.927, "header": 0.9}


@pytest.fixture(autouse=True)
def _no_default_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIME_VARIABLE, raising=False)


def _expected(base: str) -> dict[str, Any]:
    facts = json.loads((DATA / "expected.json").read_text())
    return facts["files"]["time_bases.mcap"]["time_bases"][base]  # type: ignore[no-any-return]


def _inspect_json(words: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(words) == 0
    return json.loads(capsys.readouterr().out)


# -- the command line ----------------------------------------------------------


@pytest.mark.parametrize("base", ["log", "publish", "header"])
def test_inspect_json_reports_the_span_of_the_time_base_asked_for(
    base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    words = ["inspect", str(TIME_BASES_FILE), "--json", "--time-base", base]
    report = _inspect_json(words, capsys)
    assert report["duration_s"] == pytest.approx(DURATIONS[base], abs=1e-9)
    assert report["metadata"]["time_base"] == base
    assert report["metadata"]["start_time_ns"] == _expected(base)["start_ns"]


def test_inspect_defaults_to_log_time_and_takes_the_option_before_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    default = _inspect_json(["inspect", str(TIME_BASES_FILE), "--json"], capsys)
    assert default["duration_s"] == pytest.approx(DURATIONS["log"], abs=1e-9)
    words = ["--time-base", "header", "inspect", str(TIME_BASES_FILE), "--json"]
    before = _inspect_json(words, capsys)
    assert before["duration_s"] == pytest.approx(DURATIONS["header"], abs=1e-9)
    assert any("/battery/voltage (all 5)" in note for note in before["notes"])


def test_the_option_wins_over_the_environment_default(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(TIME_VARIABLE, "header")
    words = ["inspect", str(TIME_BASES_FILE), "--json"]
    assert _inspect_json(words, capsys)["metadata"]["time_base"] == "header"
    chosen = _inspect_json([*words, "--time-base", "publish"], capsys)
    assert chosen["metadata"]["time_base"] == "publish"


@pytest.mark.parametrize(
    "words",
    [
        ["inspect", str(TIME_BASES_FILE), "--time-base", "stamp"],
        [str(TIME_BASES_FILE), "--export-channels", "out.csv", "--time-base", "stamp"],
    ],
    ids=["inspect", "export"],
)
def test_an_unknown_time_base_is_one_line_naming_the_file(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # Any timeline name passes the command line (a Rerun recording offers its
    # own); the MCAP source refuses a name it does not offer, in one line.
    assert main(words) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert errors == [
        f"fsr-viewer: {TIME_BASES_FILE}: time base 'stamp': an MCAP log is "
        "placed by log, publish, header"
    ]


def test_exported_channels_sit_at_their_header_stamps(tmp_path: Path) -> None:
    source = str(TIME_BASES_FILE)
    _, *logged_rows = exported_rows(tmp_path / "logged.csv", source)
    stamped = exported_rows(tmp_path / "stamped.csv", source, "--time-base", "header")
    header, *stamped_rows = stamped
    joints = [i for i, name in enumerate(header) if name.startswith("/joint_states:")]
    assert [float(row[0]) for row in stamped_rows] == pytest.approx(
        [0.1 * index for index in range(10)], abs=1e-9
    )
    offsets = _expected("log")["offsets_ns"]["/joint_states"]
    assert [float(row[0]) for row in logged_rows] == pytest.approx(
        [offset / 1e9 for offset in offsets], abs=1e-9
    )
    # The same joint states, placed differently.
    assert [[row[i] for i in joints] for row in stamped_rows] == [
        [row[i] for i in joints] for row in logged_rows
    ]


def test_convert_writes_the_time_base_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "stamped.fsr"
    words = ["convert", str(TIME_BASES_FILE), "-o", str(output), "--time-base"]
    assert main([*words, "header"]) == 0
    capsys.readouterr()
    report = _inspect_json(["inspect", str(output), "--json"], capsys)
    assert report["duration_s"] == pytest.approx(DURATIONS["header"], abs=1e-9)
    assert report["provenance"]["mcap_time_base"] == "header"


def test_a_recording_of_another_kind_ignores_the_time_base(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plain = _inspect_json(["inspect", str(SKELARM_LOG), "--json"], capsys)
    words = ["inspect", str(SKELARM_LOG), "--json", "--time-base", "header"]
    based = _inspect_json(words, capsys)
    assert based == plain


def test_a_screenshot_plays_on_the_time_base_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shot = tmp_path / "stamped.png"
    words = [str(TIME_BASES_FILE), "--screenshot", str(shot), "--at", "0.95"]
    assert main([*words, "--time-base", "header"]) == 0
    # Past the 0.9 s the header stamps span, the window stops at their end.
    assert "at t = 0.900 s" in capsys.readouterr().out
    assert shot.stat().st_size > 10_000


# -- the window ----------------------------------------------------------------


def _texts(item: QTreeWidgetItem) -> list[str]:
    """Every row below ``item`` as ``"name: value"``, depth first."""
    found: list[str] = []
    for row in range(item.childCount()):
        child = item.child(row)
        if child is not None:
            found.append(f"{child.text(0)}: {child.text(1)}")
            found.extend(_texts(child))
    return found


def _inspector_rows(window: MainWindow) -> list[str]:
    # The top-level sections are the children of the tree's invisible root.
    return _texts(window.inspector_dock.panel.tree.invisibleRootItem())


@pytest.mark.gui
def test_view_time_base_reopens_the_recording_at_the_same_play_time(
    window: MainWindow,
) -> None:
    window.open_files([TIME_BASES_FILE])
    session = window.session
    before = session.model
    assert before is not None
    assert before.metadata["time_base"] == "log"
    assert time_base_entries(window) == ["Log time", "Publish time", "Header stamp"]
    assert checked_time_bases(window) == ["log"]
    window.inspector_dock.show()
    session.clock.seek(0.5)

    window.menus.time_base_actions["header"].trigger()

    after = session.model
    assert after is not None
    assert after is not before
    assert after.metadata["time_base"] == "header"
    assert session.clock.position_s == pytest.approx(0.5)
    assert session.clock.duration_s == pytest.approx(DURATIONS["header"])
    assert checked_time_bases(window) == ["header"]
    rows = _inspector_rows(window)
    assert "time_base: header stamp" in rows
    assert any("/target (2 of 4)" in row for row in rows)


@pytest.mark.gui
def test_the_play_time_is_kept_as_far_as_the_new_base_reaches(
    window: MainWindow,
) -> None:
    window.open_files([TIME_BASES_FILE])
    clock = window.session.clock
    clock.seek(0.95)
    window.menus.time_base_actions["publish"].trigger()
    assert clock.duration_s == pytest.approx(DURATIONS["publish"])
    assert clock.position_s == pytest.approx(DURATIONS["publish"])


@pytest.mark.gui
def test_the_chosen_time_base_opens_the_next_mcap_file_too(window: MainWindow) -> None:
    window.open_files([TIME_BASES_FILE, DATA / "json_schemaless.mcap"])
    window.menus.time_base_actions["header"].trigger()
    assert window.session.step_file(1)
    model = window.session.model
    assert model is not None
    assert model.path.name == "json_schemaless.mcap"
    assert model.metadata["time_base"] == "header"
    assert checked_time_bases(window) == ["header"]
    assert any("/metrics/cpu (all 20)" in note for note in model.report["notes"])


@pytest.mark.gui
def test_the_menu_is_disabled_for_a_recording_without_a_time_base(
    window: MainWindow,
) -> None:
    assert not window.menus.time_base_menu.isEnabled()  # nothing open
    window.open_files([SKELARM_LOG, TIME_BASES_FILE])
    model = window.session.model
    assert model is not None
    assert model.source == "skelarm"
    assert not window.menus.time_base_menu.isEnabled()
    assert window.session.step_file(1)
    assert window.menus.time_base_menu.isEnabled()
    assert window.session.step_file(-1)
    assert not window.menus.time_base_menu.isEnabled()


@pytest.mark.gui
def test_a_reopen_that_fails_keeps_what_played(
    window: MainWindow, tmp_path: Path
) -> None:
    path = tmp_path / "run.mcap"
    shutil.copyfile(TIME_BASES_FILE, path)
    window.open_files([path])
    session = window.session
    before = session.model
    assert before is not None
    path.write_bytes(b"no longer an MCAP file\n")

    window.menus.time_base_actions["header"].trigger()

    assert session.model is before
    assert session.open_options.time_base is None
    assert checked_time_bases(window) == ["log"]
    assert "could not reopen" in window.status_label.text()


@pytest.mark.parametrize("base", ["log", "header"])
def test_batch_converts_and_indexes_on_the_time_base_asked_for(
    base: str, tmp_path: Path
) -> None:
    log = Path(shutil.copy(TIME_BASES_FILE, tmp_path / "run.mcap"))
    out, index = tmp_path / "fsr", tmp_path / "index.json"
    words = ["--jobs", "1", "--time-base", base]
    assert main(["batch", "convert", str(log), "--out", str(out), *words]) == 0
    converted = open_recording(out / "run.fsr")
    assert converted.duration_s == pytest.approx(DURATIONS[base], abs=1e-6)
    assert main(["batch", "index", str(log), "-o", str(index), *words]) == 0
    (entry,) = json.loads(index.read_text())["recordings"]
    assert entry["duration_s"] == pytest.approx(DURATIONS[base], abs=1e-6)
