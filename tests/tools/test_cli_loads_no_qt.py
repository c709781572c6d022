"""What each command loads: inspect, compare and convert never load Qt.

``inspect`` of an FSR file loads no more than it reads (the start-up of a
batch over thousands of small files).

Each case runs ``app.cli.main`` in a fresh interpreter and lists the modules
loaded afterwards, so a lazy import that became eager shows up here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from python_probe import offscreen_env, run_python

from fsr_core.synthetic import SyntheticRun, write_synthetic

REPO_ROOT = Path(__file__).resolve().parents[2]
REACH = REPO_ROOT / "tests" / "data" / "skelarm" / "reach.sklog.npz"
MULTI = REPO_ROOT / "tests" / "data" / "skelarm" / "multi_target_switch.sklog.npz"

QT_PACKAGES = ("PySide6", "shiboken6", "pyqtgraph")

# Runs the command, then prints (last line) its exit code and every loaded
# module of the packages named on the command line after "--".
_PROBE = """
import json, sys
split = sys.argv.index("--")
watched = tuple(sys.argv[split + 1:])
from app.cli import main
code = main(sys.argv[1:split])
loaded = sorted(
    name for name in sys.modules
    if any(name == top or name.startswith(top + ".") for top in watched)
)
sys.stdout.write("\\n" + json.dumps({"code": code, "loaded": loaded}) + "\\n")
"""


def _run(argv: list[str], watched: tuple[str, ...]) -> dict[str, object]:
    completed = run_python(["-c", _PROBE, *argv, "--", *watched], env=offscreen_env())
    assert completed.returncode == 0, completed.stderr
    result: dict[str, object] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture
def sample_fsr(tmp_path: Path) -> Path:
    path = tmp_path / "sample.fsr"
    write_synthetic(path, SyntheticRun(ticks=16, width=16, height=12, codec="png"))
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", str(REACH)],
        ["inspect", "--json", "--verify", "{sample}"],
        ["compare", str(REACH), str(MULTI)],
        ["compare", "{sample}", "{sample}"],
        ["convert", str(REACH), "-o", "{tmp}/reach.fsr"],
    ],
    ids=["inspect-log", "inspect-fsr", "compare-logs", "compare-fsr", "convert"],
)
def test_inspect_compare_and_convert_load_no_qt(
    argv: list[str], sample_fsr: Path, tmp_path: Path
) -> None:
    words = [w.format(sample=sample_fsr, tmp=tmp_path) for w in argv]

    result = _run(words, QT_PACKAGES)

    assert result["code"] in (0, 1)  # two different logs diverge (exit 1)
    assert result["loaded"] == []


#: What ``inspect`` of an FSR file never needs: the video and image codecs,
#: Qt, the other sources' readers, the writer, the engines, the simulators,
#: the entry-point scan (a built-in source reads the file) and ``numpy.ma``
#: (which ``np.unique`` imports on its first call).
INSPECT_NEVER_LOADS = (
    "av",
    "PIL",
    "simplejpeg",
    *QT_PACKAGES,
    "mcap",
    "zstandard",
    "fsr_core.sources.mcap.container",
    "fsr_core.sources.genesis.container",
    "rosbags",
    "fsr_core.sources.rosbag.bag_files",
    "fsr_core.sources.fsr.load",
    "fsr_core.format.writer",
    "fsr_core.compare",
    "fsr_core.replay",
    "fsr_core.simulators",
    "importlib.metadata",
    "numpy.ma",
)


@pytest.mark.parametrize("options", [[], ["--json"]], ids=["text", "json"])
def test_inspect_of_an_fsr_file_loads_only_what_it_reads(
    options: list[str], sample_fsr: Path
) -> None:
    result = _run(["inspect", *options, str(sample_fsr)], INSPECT_NEVER_LOADS)

    assert result["code"] == 0
    assert result["loaded"] == []


@pytest.mark.gui
def test_export_loads_no_window(sample_fsr: Path, tmp_path: Path) -> None:
    output = tmp_path / "sample.mp4"

    result = _run(
        [str(sample_fsr), "--export", str(output), "--size", "64x64", "--fps", "5"],
        ("app.window",),
    )

    assert result["code"] == 0
    assert output.stat().st_size > 0
    assert result["loaded"] == []
