"""Run every check of the project, stopping at the first failure.

The one definition of "checks pass" (docs/style.md, Tooling). In order: ``ruff format
--check``, ``ruff check``, ``mypy``, ``lint-imports``, a grep that bans sleeps in
tests, then ``pytest -q`` with ``QT_QPA_PLATFORM=offscreen``, then the tests
that run skelarm itself in ``.venv312`` when a Python 3.12 or 3.13 exists, then
those that run Genesis in the Python ``FSR_VIEWER_GENESIS_PYTHON`` names (or
``.venv-genesis``) when there is one, and those that run robosuite in the
Python ``FSR_VIEWER_ROBOSUITE_PYTHON`` names (or ``.venv-robosuite``). With
``--fix``, ``ruff format`` and ``ruff check --fix`` run first. Every tool comes from the
environment of the Python running this script, so run it as
``.venv/bin/python tools/check.py``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# Built from pieces so that this file never contains the patterns it bans.
BANNED_IN_TESTS = (
    "time" + ".sleep(",
    "from time import " + "sleep",
    "qtbot" + ".wait(",
)


@dataclass(frozen=True)
class Step:
    """One check: a name to report and the callable that runs it (0 means pass)."""

    name: str
    run: Callable[[], int]


def _command(*argv: str, env: dict[str, str] | None = None) -> Callable[[], int]:
    """Return a callable that runs ``argv`` in the repository root."""

    def run() -> int:
        return subprocess.run(argv, cwd=REPO_ROOT, env=env, check=False).returncode

    return run


def _python(*args: str) -> tuple[str, ...]:
    """Return the argv that runs this interpreter with ``args``."""
    return (sys.executable, *args)


def _script(name: str) -> str:
    """Return the path of console script ``name`` installed next to this Python."""
    return str(Path(sysconfig.get_path("scripts")) / name)


def find_banned_calls(root: Path) -> list[str]:
    """Return ``path:line: text`` for every banned sleep or wait under ``root``.

    Parameters
    ----------
    root
        Directory searched recursively for ``*.py`` files.

    Returns
    -------
    list of str
        One entry per offending line, sorted by path and line number.
    """
    hits: list[str] = []
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if any(pattern in line for pattern in BANNED_IN_TESTS):
                hits.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    return hits


def _check_no_sleeps() -> int:
    hits = find_banned_calls(REPO_ROOT / "tests")
    for hit in hits:
        print(hit)
    if hits:
        print(
            "tests must not sleep: use qtbot.waitSignal / qtbot.waitUntil "
            "or the synchronous worker runner (docs/style.md, Testing)"
        )
    return 1 if hits else 0


SKELARM_TESTS = ("tests/skelarm",)
"""What the skelarm step runs (``-m skelarm`` selects the tests that need it)."""
NO_SKELARM_PYTHON = 3
"""``ensure_skelarm_venv``'s status when no Python 3.12 or 3.13 exists."""


def _skelarm_tests() -> int:
    """Run the skelarm tests in ``.venv312`` (Python >= 3.12, '.[test,skelarm]').

    skelarm needs Python >= 3.12, and this script usually runs on 3.11, where
    those tests skip. ``tools/venv.sh`` finds a Python 3.12 or 3.13 (``python3.12``,
    ``python3.13`` or a pyenv version), creates or reuses ``.venv312`` and installs
    the project with the skelarm extra, then pytest runs the marked tests there.
    Without such a Python the step says so and passes: nothing could be run.
    """
    setup = subprocess.run(
        ["bash", "-c", "source tools/venv.sh && ensure_skelarm_venv"],
        cwd=REPO_ROOT,
        check=False,
    )
    if setup.returncode == NO_SKELARM_PYTHON:
        print(
            "skelarm tests NOT RUN: skelarm needs Python 3.12 or 3.13 and none exists"
        )
        return 0
    if setup.returncode != 0:
        return setup.returncode
    python = REPO_ROOT / ".venv312" / "bin" / "python"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    argv = [str(python), "-m", "pytest", "-q", "-m", "skelarm", *SKELARM_TESTS]
    return subprocess.run(argv, cwd=REPO_ROOT, env=env, check=False).returncode


def _side_python(variable: str, venv: Path) -> str | None:
    """Return the Python ``variable`` names, else ``venv``'s when it is there."""
    named = os.environ.get(variable, "").strip()
    if named:
        return named
    candidate = venv / "bin" / "python"
    return str(candidate) if candidate.exists() else None


GENESIS_TESTS = ("tests/genesis",)
"""What the Genesis step runs (``-m genesis`` selects the tests that need it)."""
GENESIS_VARIABLE = "FSR_VIEWER_GENESIS_PYTHON"
GENESIS_VENV = REPO_ROOT / ".venv-genesis"
_GENESIS_PROBE = (
    "import importlib.util as u, sys\n"
    "sys.exit(any(u.find_spec(m) is None for m in ('genesis', 'torch', 'pytest')))\n"
)


def genesis_python() -> str | None:
    """Return the Python the Genesis tests run in: the variable's, or .venv-genesis."""
    return _side_python(GENESIS_VARIABLE, GENESIS_VENV)


def _genesis_tests() -> int:
    """Run the Genesis tests where genesis-world, torch and pytest are installed.

    Genesis (with torch) is too large to install here on every run, so the
    step uses a Python that has it: ``FSR_VIEWER_GENESIS_PYTHON``, else
    ``.venv-genesis`` (e.g. ``python3.12 -m venv .venv-genesis`` then
    ``.venv-genesis/bin/pip install -e '.[genesis]' pytest pytest-timeout
    pytest-qt hypothesis``). Without one, or when it lacks a package, the step
    says so and passes: nothing could be run. The repository goes first on
    the child's path, so its code is tested even if an older copy is installed.
    """
    python = genesis_python()
    if python is None:
        print(
            f"genesis tests NOT RUN: no {GENESIS_VARIABLE} and no .venv-genesis "
            "(a Python with genesis-world, torch and pytest)"
        )
        return 0
    try:
        probe = subprocess.run(
            [python, "-c", _GENESIS_PROBE], cwd=REPO_ROOT, check=False, timeout=60
        )
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"genesis tests NOT RUN: {python} cannot be run ({exc})")
        return 0
    if probe.returncode != 0:
        print(f"genesis tests NOT RUN: {python} lacks genesis-world, torch or pytest")
        return 0
    paths = [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH", "")])]
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": os.pathsep.join(paths),
    }
    argv = [python, "-m", "pytest", "-q", "-m", "genesis", *GENESIS_TESTS]
    return subprocess.run(argv, cwd=REPO_ROOT, env=env, check=False).returncode


ROBOSUITE_TESTS = ("tests/robosuite",)
"""What the robosuite step runs (``-m robosuite`` selects the tests that need it)."""
ROBOSUITE_VARIABLE = "FSR_VIEWER_ROBOSUITE_PYTHON"
ROBOSUITE_VENV = REPO_ROOT / ".venv-robosuite"


def robosuite_python() -> str | None:
    """Return the Python robosuite runs in: the variable's, or .venv-robosuite."""
    return _side_python(ROBOSUITE_VARIABLE, ROBOSUITE_VENV)


def _robosuite_tests() -> int:
    """Run the robosuite tests here, robosuite running in its own Python.

    robosuite pins a MuJoCo older than the one the tests install, so it lives
    in another Python: ``FSR_VIEWER_ROBOSUITE_PYTHON``, else
    ``.venv-robosuite`` (``python3 -m venv .venv-robosuite`` then
    ``.venv-robosuite/bin/pip install 'robosuite==1.5.2' 'mujoco<3.4' h5py``).
    The tests run in this Python and start robosuite's worker there. Without
    one the step says so and passes: nothing could be run.
    """
    python = robosuite_python()
    if python is None:
        print(
            f"robosuite tests NOT RUN: no {ROBOSUITE_VARIABLE} and no "
            ".venv-robosuite (a Python with robosuite 1.5.2, mujoco<3.4, h5py)"
        )
        return 0
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        ROBOSUITE_VARIABLE: python,
    }
    argv = [*_python("-m", "pytest", "-q", "-m", "robosuite"), *ROBOSUITE_TESTS]
    return subprocess.run(argv, cwd=REPO_ROOT, env=env, check=False).returncode


def build_steps(*, fix: bool) -> list[Step]:
    """Return the checks in the order they run.

    Parameters
    ----------
    fix
        Prepend ``ruff format`` and ``ruff check --fix``, which rewrite files.

    Returns
    -------
    list of Step
        The steps; running stops at the first one that fails.
    """
    ruff = _python("-m", "ruff")
    steps: list[Step] = []
    if fix:
        steps += [
            Step("ruff format", _command(*ruff, "format")),
            Step("ruff check --fix", _command(*ruff, "check", "--fix")),
        ]
    test_env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    steps += [
        Step("ruff format --check", _command(*ruff, "format", "--check")),
        Step("ruff check", _command(*ruff, "check")),
        Step("mypy", _command(*_python("-m", "mypy"))),
        Step("lint-imports", _command(_script("lint-imports"), "--no-logo")),
        Step("no sleeps in tests", _check_no_sleeps),
        Step("pytest", _command(*_python("-m", "pytest", "-q"), env=test_env)),
        Step("skelarm tests on Python >= 3.12 (.venv312)", _skelarm_tests),
        Step(f"genesis tests ({GENESIS_VARIABLE} or .venv-genesis)", _genesis_tests),
        Step(
            f"robosuite tests ({ROBOSUITE_VARIABLE} or .venv-robosuite)",
            _robosuite_tests,
        ),
    ]
    return steps


def main(argv: Sequence[str] | None = None) -> int:
    """Run the checks; return 0 if all pass, 1 at the first failure."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--fix",
        action="store_true",
        help="apply `ruff format` and `ruff check --fix` before checking",
    )
    args = parser.parse_args(argv)
    for step in build_steps(fix=args.fix):
        print(f"==> {step.name}", flush=True)
        status = step.run()
        if status != 0:
            print(f"check.py: {step.name} failed (exit {status})", file=sys.stderr)
            return 1
    print("check.py: all checks passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
