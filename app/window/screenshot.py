"""``fsr-viewer FILE... --screenshot OUT.png [--at SECONDS] [--size WxH] [--dataset]``.

Builds the real window offscreen, loads the files as the window would,
waits until every view shows the requested time (camera frames decoded),
grabs the whole window and writes the PNG atomically; with ``--dataset``, once
the Dataset overview has checked every file. An exception a Qt slot or a
paint event raises meanwhile (the grab included) is raised again here
(:class:`~app.window.last_resort.LastResort`, headless) as a
:class:`ScreenshotError` naming the file, so the command ends with one line and
exit status 1 and writes no half-drawn picture, never a dialog.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCoreApplication,
    QDeadlineTimer,
    QEvent,
    QIODevice,
    QSettings,
)
from PySide6.QtWidgets import QApplication

from app.canvas.qt_app import ensure_app
from app.canvas.view_model import DEFAULT_WINDOW_SIZE, ViewModel
from app.headless.export.atomic import atomic_output, write_failed
from app.window.last_resort import LastResort
from app.window.workers.collector import GuiCollector
from app.window.workers.error_message import error_message
from fsr_core.errors import FsrError
from fsr_core.sources import OpenOptions

__all__ = ["Screenshot", "take_screenshot"]

#: Longest wait for loading and decoding, in milliseconds.
WAIT_MS: Final = 60_000


@dataclass(frozen=True)
class Screenshot:
    """What was written."""

    path: Path
    width: int
    height: int
    play_time_s: float


class ScreenshotError(FsrError):
    """The window could not be drawn for a screenshot."""


def _raise_pending(last_resort: LastResort, paths: Sequence[Path]) -> None:
    """Raise what a slot or paint event raised meanwhile, as one line naming a file.

    The window drew (or tried to draw) ``paths``; a picture taken after a
    slot failed would be half drawn, so the command fails instead.
    """
    try:
        last_resort.raise_pending()
    except Exception as exc:
        line = error_message(exc, files=paths, log_unexpected=False)
        raise ScreenshotError(f"{line} while drawing the window") from exc


def _wait(
    app: QApplication,
    last_resort: LastResort,
    paths: Sequence[Path],
    ready: Callable[[], bool],
    what: str,
) -> None:
    deadline = QDeadlineTimer(WAIT_MS)
    while not ready():
        if deadline.hasExpired():
            raise ScreenshotError(f"screenshot: timed out waiting for {what}")
        app.processEvents()
        _raise_pending(last_resort, paths)


def take_screenshot(
    paths: Sequence[Path],
    output: Path,
    *,
    at_s: float | None = None,
    size: tuple[int, int] = DEFAULT_WINDOW_SIZE,
    overwrite: bool = False,
    shown: ViewModel | None = None,
    inspector: bool = False,
    open_options: OpenOptions | None = None,
    dataset: bool = False,
) -> Screenshot:
    """Draw the player window on ``paths`` at play time ``at_s`` into ``output``.

    ``size`` is the window's; ``shown`` is what it shows (overlays, plots,
    the batched scene's environment drawn in full), the defaults without it.
    The files open as ``open_options`` ask (the command line's
    ``--time-base``). ``dataset`` shows the Dataset overview, checked.
    """
    app = ensure_app(headless=True)
    last_resort = LastResort(headless=True)
    last_resort.install()
    collector = GuiCollector()
    collector.install()
    try:
        return _draw(
            app,
            last_resort,
            paths,
            output,
            at_s,
            size,
            overwrite,
            shown or ViewModel(),
            inspector,
            open_options or OpenOptions(),
            dataset,
        )
    finally:
        collector.uninstall()
        collector.deleteLater()
        last_resort.uninstall()
        last_resort.deleteLater()


def _draw(
    app: QApplication,
    last_resort: LastResort,
    paths: Sequence[Path],
    output: Path,
    at_s: float | None,
    size: tuple[int, int],
    overwrite: bool,
    shown: ViewModel,
    inspector: bool,
    open_options: OpenOptions,
    dataset: bool,
) -> Screenshot:
    from app.window.main_window import MainWindow

    settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "x")
    settings.clear()
    window = MainWindow(settings=settings)
    try:
        window.resize(*size)
        window.show()
        window.session.set_open_options(open_options)
        failures: list[str] = []
        window.session.load_failed.connect(
            lambda _path, reason: failures.append(str(reason))
        )
        window.open_files(list(paths))
        session = window.session
        _wait(
            app,
            last_resort,
            paths,
            lambda: session.model is not None or not session.loading,
            "loading",
        )
        if session.model is None:
            why = f": {failures[0]}" if failures else ""
            raise ScreenshotError(
                f"screenshot: no playable file among {', '.join(map(str, paths))}{why}"
            )
        _wait(
            app, last_resort, paths, lambda: not session.loading, "the playlist checks"
        )
        plots = shown.plots or session.options.options.plots
        session.options.set(replace(shown, plots=plots))
        if inspector:
            window.inspector_dock.show()
        if dataset:
            overview = window.dataset
            window.show_dataset()
            _wait(
                app,
                last_resort,
                paths,
                lambda: not overview.running and not overview.pending,
                "the dataset checks",
            )
        if at_s is not None:
            session.clock.seek(at_s)
        views = window.camera_area.views
        _wait(
            app,
            last_resort,
            paths,
            lambda: all(view.settled for view in views),
            "camera frames",
        )
        _wait(app, last_resort, paths, lambda: window.plots.settled, "plotted channels")
        window.resize(*size)
        app.processEvents()
        window.scene_view.draw_whole()
        _raise_pending(last_resort, paths)
        image = window.grab().toImage()
        # Painting happens in grab(): a paint event that raised leaves a
        # broken picture, which is not written.
        _raise_pending(last_resort, paths)
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")  # type: ignore[call-overload]
        buffer.close()
        with atomic_output(output, overwrite=overwrite) as handle:
            try:
                handle.write(bytes(data.data()))
            except OSError as exc:
                raise write_failed(exc, output) from exc
        return Screenshot(
            output, image.width(), image.height(), session.clock.position_s
        )
    finally:
        window.close()
        window.deleteLater()
        # Destroyed here, on the GUI thread: left to Python's collector, the
        # window could be deleted by whichever thread collects it (a job's),
        # against the GUI thread's own deletions (a deadlock seen in the tests).
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()
