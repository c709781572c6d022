"""Fixtures of the window tests: short takes, a broken file, skelarm logs, a session.

The takes are recorded once per test session with the built-in simulator
(half a second each, the first with a small camera), so every window test
plays real recordings without waiting for the full demo.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from data_paths import SKELARM_DATA
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QThreadPool
from pytestqt.qtbot import QtBot
from shown_widgets import ini_settings, inline_session, new_main_window, show_widget

from app.window.main_window import MainWindow
from app.window.state.session import PlayerSession
from fsr_core.simulators.planar_arm.demos import _take_documents
from fsr_core.simulators.planar_arm.recorder import ExternalPush, record_run
from fsr_core.simulators.planar_arm.scenario import Scenario


def _camera(document: dict[str, Any]) -> list[dict[str, Any]]:
    front = dict(document["cameras"][0])
    front.update(width=160, height=120, rate_hz=20.0)
    return [front]


def record_short_take(
    folder: Path,
    name: str,
    *,
    duration_s: float = 0.5,
    camera: bool = False,
    pushes: tuple[ExternalPush, ...] = (),
    **task_changes: Any,
) -> Path:
    """Record demo take ``name`` shortened to ``duration_s`` into ``folder``."""
    document = _take_documents()[name]
    cameras = _camera(document) if camera else []
    document.update(duration_s=duration_s, cameras=cameras)
    document["task"].update(task_changes)
    path = folder / f"{name}.fsr"
    record_run(Scenario.from_json(document), path, external_pushes=pushes)
    return path


@pytest.fixture(scope="session")
def short_takes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Short demo takes: reach (with a 160x120 camera), multi-target, pushed."""
    folder = tmp_path_factory.mktemp("short_takes")
    return {
        "reach": record_short_take(folder, "01_reach", camera=True),
        "multi": record_short_take(folder, "02_multi_target", switches=[[0.25, 1]]),
        "pushed": record_short_take(
            folder, "05_pushed", pushes=(ExternalPush(0.2, 0.35, (-18.0, 6.0)),)
        ),
    }


@pytest.fixture
def broken_file(tmp_path: Path) -> Path:
    """Return a file named like a recording that is not one."""
    path = tmp_path / "broken.fsr"
    path.write_bytes(b"this is not an FSR file at all\n" * 4)
    return path


@pytest.fixture
def skelarm_logs() -> list[Path]:
    """Return the real skelarm logs shipped in tests/data/skelarm."""
    return sorted(SKELARM_DATA.glob("*.sklog.npz"))


@pytest.fixture
def session(qapp: object) -> PlayerSession:
    """Return a player session whose jobs run inline (a QApplication exists)."""
    del qapp
    return inline_session()


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """Return window settings of this test alone (``tmp_path/settings.ini``)."""
    return ini_settings(tmp_path)


@pytest.fixture
def window(
    qtbot: QtBot, settings: QSettings, request: pytest.FixtureRequest
) -> Iterator[MainWindow]:
    """Show a player window, sized by the module's ``WINDOW_SIZE`` (1200x800).

    When the test ends the window closes and its export and replay are done.
    """
    size = getattr(request.module, "WINDOW_SIZE", (1200, 800))
    made = show_widget(qtbot, new_main_window(settings), size)
    yield made
    made.close()
    assert made.menus.export.wait_done(10_000), "the export is still running"
    assert made.menus.replay.wait_done(10_000), "the replay is still running"
    # Destroyed now, on the GUI thread (not later by a job thread's collector).
    made.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True, scope="module")
def _collected_after_module() -> Iterator[None]:
    """Collect all garbage, the objects ``_pool_drained`` froze too, per module."""
    yield
    gc.unfreeze()
    gc.collect()


@pytest.fixture(autouse=True)
def _pool_drained(_collected_after_module: None) -> Iterator[None]:
    """Check that every background job finished when a test ends.

    Python's collector runs between window tests, once their jobs are done,
    not during them: collecting while a job thread runs has crashed the
    window tests (a known hazard of the app: docs/robustness.md, "Faults
    while the window runs").

    What survives the collection before a test is frozen (``gc.freeze``):
    the collections after it, the test's own and the window's idle ones,
    then scan only the objects made since, not the whole heap of every
    imported library again (a full collection took 0.15 s, twice per test).
    ``_collected_after_module`` collects the frozen objects too.
    """
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
        assert QThreadPool.globalInstance().waitForDone(10_000), "jobs still running"
    finally:
        gc.enable()
        gc.collect()
