"""The source registry: sniffing by content, refusals, plugins (fsr_core.sources)."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from data_paths import SKELARM_REACH as REACH

from fsr_core.errors import (
    NotRegularFileError,
    SourceUnavailableError,
    SymlinkRefusedError,
    UnknownSourceError,
)
from fsr_core.sources import (
    convert_recording,
    inspect_recording,
    open_recording,
    source_for,
    source_names,
)
from fsr_core.sources.inspection import COMMON_KEYS
from fsr_core.sources.registry import (
    ENTRY_POINT_GROUP,
    plugin_problems,
    refresh_sources,
    register_source,
    sources,
    unregister_source,
)

# A source an outside package could ship: text logs starting with "DEMOLOG".
_DEMO_PLUGIN = """
import numpy as np

from fsr_core.recording import Channel, RecordingModel, Segment, Timeline
from fsr_core.sources.head import read_head


class DemoSource:
    name = "demo"
    description = "demo text log"
    patterns = ("*.demolog",)

    def sniff(self, path):
        return read_head(path).startswith(b"DEMOLOG\\n")

    def open(self, path):
        rows = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        times = rows[:, 0] - rows[0, 0]
        last = len(times) - 1
        segment = Segment(0, 0.0, float(times[-1]), float(rows[0, 0]), 0, last)
        channel = Channel("x", times, rows[:, 1:], "m", "position", ("x",))
        return RecordingModel(
            path=path,
            source=self.name,
            title=path.stem,
            timeline=Timeline((segment,)),
            channels={"x": channel},
            report={"rows": len(times), "notes": ["read by the demo plugin"]},
        )

    def unavailable_reason(self):
        return None


class NeedsExtraSource(DemoSource):
    name = "needs_extra"

    def sniff(self, path):
        return read_head(path).startswith(b"EXTRALOG\\n")

    def unavailable_reason(self):
        return "pip install 'fsr-viewer[extra]'"


class NotASource:
    name = "nothing"


class Crashes(DemoSource):
    name = "crashes"

    def sniff(self, path):
        raise RuntimeError("plugin bug")
"""

Install = Callable[..., None]


@pytest.fixture
def install_plugins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Install]:
    """Return ``install(name=target, ...)``: entry points the registry will find."""
    plugin_dir = tmp_path / "plugins"
    plugin_dir.mkdir()
    (plugin_dir / "fsr_demo_plugin.py").write_text(_DEMO_PLUGIN)
    monkeypatch.syspath_prepend(str(plugin_dir))
    monkeypatch.delitem(sys.modules, "fsr_demo_plugin", raising=False)
    original = importlib.metadata.entry_points

    def install(**targets: str) -> None:
        found = [
            importlib.metadata.EntryPoint(name, target, ENTRY_POINT_GROUP)
            for name, target in targets.items()
        ]

        def entry_points(**params: Any) -> Any:
            if params.get("group") == ENTRY_POINT_GROUP:
                return found
            return original(**params)

        monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
        refresh_sources()

    yield install
    monkeypatch.undo()
    refresh_sources()


def _demo_log(path: Path) -> Path:
    rows = "\n".join(f"{10 + 0.1 * i:.1f},{i * i}" for i in range(5))
    path.write_text(f"DEMOLOG\n{rows}\n")
    return path


def test_the_built_in_sources_are_fsr_then_skelarm() -> None:
    assert source_names()[:2] == ("fsr", "skelarm")


def test_the_content_not_the_name_picks_the_source(
    tmp_path: Path, small_recording: Path
) -> None:
    log_named_fsr = tmp_path / "log.fsr"
    shutil.copyfile(REACH, log_named_fsr)
    fsr_named_log = tmp_path / "take.sklog.npz"
    shutil.copyfile(small_recording, fsr_named_log)

    assert open_recording(log_named_fsr).source == "skelarm"
    assert open_recording(fsr_named_log).source == "fsr"
    assert source_for(REACH).name == "skelarm"


@pytest.mark.timeout(20)  # a blocking open of a FIFO would hang here
def test_a_fifo_is_refused_at_once_by_the_registry_and_each_sniff(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "take.fsr"
    os.mkfifo(fifo)

    with pytest.raises(NotRegularFileError, match="fifo") as caught:
        source_for(fifo)
    assert caught.value.path == str(fifo)
    for source in sources():
        with pytest.raises(NotRegularFileError, match="fifo"):
            source.sniff(fifo)
    with pytest.raises(NotRegularFileError, match="fifo"):
        open_recording(fifo)


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (lambda tmp: tmp, UnknownSourceError, "a folder, and no source reads it"),
        (lambda tmp: Path(os.devnull), NotRegularFileError, "character device"),
        (lambda tmp: _loop(tmp / "loop.fsr"), SymlinkRefusedError, "symbolic link"),
    ],
    ids=["directory", "dev-null", "symlink-loop"],
)
def test_what_is_not_a_regular_file_is_refused_before_any_sniff(
    tmp_path: Path,
    make: Callable[[Path], Path],
    error: type[Exception],
    words: str,
) -> None:
    path = make(tmp_path)

    with pytest.raises(error, match=words) as caught:
        open_recording(path)

    assert str(path) in str(caught.value)


def _loop(path: Path) -> Path:
    path.symlink_to(path.name)
    return path


@pytest.mark.parametrize(
    ("content", "seen"),
    [
        (np.random.default_rng(5).bytes(300), "no FSR magic"),
        (b"\x89PNG\r\n\x1a\n" + bytes(64), "this is a PNG image"),
        (b"PK\x03\x04" + bytes(26) + b"word/document.xml", "ZIP archive"),
        (b"", "empty file"),
    ],
    ids=["random", "png", "docx", "empty"],
)
def test_an_unknown_file_names_itself_and_every_known_kind(
    tmp_path: Path, content: bytes, seen: str
) -> None:
    path = tmp_path / "mystery.fsr"
    path.write_bytes(content)

    with pytest.raises(UnknownSourceError) as caught:
        open_recording(path)

    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert seen in message
    assert "fsr (FSR recording: *.fsr)" in message
    assert "skelarm (skelarm state log: *.sklog.npz, *.npz)" in message
    assert "\n" not in message


def test_every_report_has_the_common_keys_and_fsr_keeps_its_own(
    small_recording: Path,
) -> None:
    fsr = inspect_recording(small_recording, verify=True)
    log = inspect_recording(REACH, verify=True)

    for report in (fsr, log):
        assert set(COMMON_KEYS) <= report.keys()
        assert report["valid"] is True
        assert report["verification"]["problem_count"] == 0
    assert fsr["source"] == "fsr"
    assert {"version", "profile", "records", "streams", "gaps"} <= fsr.keys()
    assert fsr["cameras"][0]["frames"] > 0
    assert log["source"] == "skelarm"
    assert log["skelarm"]["frames"] == 1001
    assert log["duration_s"] == pytest.approx(2.0)
    assert {"q", "tip_speed"} <= {channel["name"] for channel in log["channels"]}


def test_an_entry_point_source_is_found_by_open_recording(
    install_plugins: Install, tmp_path: Path
) -> None:
    install_plugins(demo="fsr_demo_plugin:DemoSource")
    log = _demo_log(tmp_path / "run.demolog")

    model = open_recording(log)

    assert source_names() == (
        "fsr",
        "skelarm",
        "mcap",
        "genesis",
        "lerobot",
        "rosbag1",
        "rosbag2",
        "rerun",
        "hdf5",
        "image_sequence",
        "demo",
    )
    assert model.source == "demo"
    assert model.channels["x"].values[-1, 0] == 16.0
    report = inspect_recording(log)
    assert set(COMMON_KEYS) <= report.keys()
    assert report["notes"] == ["read by the demo plugin"]
    assert report["demo"] == {"rows": 5}
    with pytest.raises(SourceUnavailableError, match="cannot be written as FSR"):
        convert_recording(log, tmp_path / "run.fsr")
    assert not (tmp_path / "run.fsr").exists()


def test_a_broken_plugin_is_reported_and_the_others_still_work(
    install_plugins: Install, tmp_path: Path, small_recording: Path
) -> None:
    install_plugins(
        missing="fsr_no_such_plugin:Source",
        wrong="fsr_demo_plugin:NotASource",
        twin="fsr_core.sources.fsr.source:FsrSource",
        crashes="fsr_demo_plugin:Crashes",
    )
    unknown = tmp_path / "unknown.bin"
    unknown.write_bytes(b"neither FSR nor a zip")

    assert open_recording(small_recording).source == "fsr"
    assert open_recording(REACH).source == "skelarm"
    problems = plugin_problems()
    assert len(problems) == 3
    assert "fsr_no_such_plugin" in problems[0]
    assert "not a recording source" in problems[1]
    assert "'fsr' is already taken" in problems[2]
    with pytest.raises(UnknownSourceError, match="3 source plugin"):
        open_recording(unknown)


def test_a_source_missing_its_extra_says_what_to_install(
    install_plugins: Install, tmp_path: Path
) -> None:
    install_plugins(extra="fsr_demo_plugin:NeedsExtraSource")
    log = tmp_path / "run.extralog"
    log.write_text("EXTRALOG\n0,1\n")

    with pytest.raises(SourceUnavailableError) as caught:
        open_recording(log)

    assert str(log) in str(caught.value)
    assert "pip install 'fsr-viewer[extra]'" in str(caught.value)


def test_a_source_registered_in_code_is_found_until_unregistered(
    install_plugins: Install, tmp_path: Path
) -> None:
    install_plugins()
    demo_class = importlib.import_module("fsr_demo_plugin").DemoSource
    log = _demo_log(tmp_path / "run.demolog")

    register_source(demo_class())
    assert open_recording(log).source == "demo"
    with pytest.raises(ValueError, match="demo"):
        register_source(demo_class())
    unregister_source("demo")

    with pytest.raises(UnknownSourceError):
        open_recording(log)


def test_the_entry_points_are_scanned_only_for_a_file_no_built_in_claims(
    install_plugins: Install, tmp_path: Path, small_recording: Path
) -> None:
    # The scan reads every installed package's metadata: inspecting an FSR
    # file must not pay for it, nor import a plugin.
    install_plugins(demo="fsr_demo_plugin:DemoSource")

    assert source_for(small_recording).name == "fsr"
    assert "fsr_demo_plugin" not in sys.modules

    assert source_for(_demo_log(tmp_path / "run.demolog")).name == "demo"
    assert "fsr_demo_plugin" in sys.modules
