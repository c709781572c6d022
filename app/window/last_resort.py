"""The last resort for an exception nobody caught: logged, shown, never silent.

A bug in a Qt slot unwinds to no caller: PySide hands the exception to
``sys.excepthook`` and the event loop goes on; one on a plain thread goes to
``threading.excepthook``. Python's defaults print a traceback on a terminal
the user may never see, and the window may stay half updated without a
word. :class:`LastResort` takes both hooks while the window runs:

* with the window, it logs the traceback and shows one non-modal message
  box over the window, on the GUI thread whichever thread raised. Its text
  is plain (never rich text), one line per error and elided when long; a
  box stays while more errors come, counting them;
* headless (``--screenshot``), it logs the traceback at debug level and
  keeps the first exception; :meth:`LastResort.raise_pending`, called by the
  code that waits for the window, raises it there, so the command ends with
  its one line and exit status 1 instead of a dialog nobody sees.

``KeyboardInterrupt`` and ``SystemExit`` go to the hooks that were there
before. :meth:`LastResort.uninstall` puts those hooks back.
"""

from __future__ import annotations

import logging
import sys
import threading
from types import TracebackType
from typing import Final

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from app.window.widgets.plain_text import visible_text
from app.window.workers.error_message import error_message

__all__ = ["LastResort"]

logger = logging.getLogger(__name__)

#: The longest error line shown; the log keeps the whole text.
MAX_LINE_CHARS: Final = 300
_TITLE: Final = "Internal error"
_ADVICE: Final = (
    "The window may not show everything right; saving your work and "
    "restarting is safest. The details are in the log; please report them."
)
_PASSED_ON: Final = (KeyboardInterrupt, SystemExit)


class LastResort(QObject):
    """Catches what nobody else caught, while installed (see the module text).

    Parameters
    ----------
    headless
        Keep the exception for :meth:`raise_pending` instead of showing it.
    parent
        The QObject that owns the hook (it must live on the GUI thread).
    """

    #: An uncaught exception was shown: its line (GUI thread).
    error_shown = Signal(str)
    #: An uncaught exception was caught on some thread: its line.
    _caught = Signal(str)

    def __init__(self, *, headless: bool = False, parent: QObject | None = None):
        super().__init__(parent)
        self._headless = headless
        self._window: QWidget | None = None
        self._pending: BaseException | None = None
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self._installed = False
        self._previous_hook = sys.excepthook
        self._previous_thread_hook = threading.excepthook
        self.dialog: QMessageBox | None = None
        self._caught.connect(self._on_self_caught)

    # -- installing -------------------------------------------------------

    def install(self) -> None:
        """Take ``sys.excepthook`` and ``threading.excepthook`` (once)."""
        if self._installed:
            return
        self._previous_hook = sys.excepthook
        self._previous_thread_hook = threading.excepthook
        sys.excepthook = self._sys_excepthook
        threading.excepthook = self._thread_excepthook
        self._installed = True

    def uninstall(self) -> None:
        """Put back the hooks that were there before :meth:`install`."""
        if not self._installed:
            return
        sys.excepthook = self._previous_hook
        threading.excepthook = self._previous_thread_hook
        self._installed = False

    def watch(self, window: QWidget | None) -> None:
        """Show the error box over ``window`` (None: on its own)."""
        self._window = window

    def raise_pending(self) -> None:
        """Raise the first exception caught headless since the last call, if any."""
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is not None:
            raise pending

    # -- the hooks (any thread) -------------------------------------------

    def _sys_excepthook(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        traceback: TracebackType | None,
    ) -> None:
        if isinstance(exc, _PASSED_ON):
            self._previous_hook(exc_type, exc, traceback)
            return
        self._catch(exc, traceback)

    def _thread_excepthook(self, args: threading.ExceptHookArgs) -> None:
        exc = args.exc_value
        if exc is None or isinstance(exc, _PASSED_ON):
            self._previous_thread_hook(args)
            return
        self._catch(exc, args.exc_traceback)

    def _catch(self, exc: BaseException, traceback: TracebackType | None) -> None:
        details = (type(exc), exc, traceback)
        if self._headless:
            logger.debug("uncaught exception", exc_info=details)
            with self._lock:
                if self._pending is None:
                    self._pending = exc.with_traceback(traceback)
            return
        logger.error("uncaught exception", exc_info=details)
        line = visible_text(error_message(exc, log_unexpected=False), MAX_LINE_CHARS)
        self._caught.emit(line)

    # -- the box (GUI thread) ---------------------------------------------

    def _on_self_caught(self, line: str) -> None:
        box = self.dialog
        if box is None:
            self._lines = [line]
            box = QMessageBox(
                QMessageBox.Icon.Critical, _TITLE, "", parent=self._window
            )
            box.setTextFormat(Qt.TextFormat.PlainText)
            box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            box.setModal(False)
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.destroyed.connect(self._on_dialog_destroyed)
            self.dialog = box
        else:
            self._lines.append(line)
        box.setText(self._text())
        box.show()
        self.error_shown.emit(line)

    def _text(self) -> str:
        first, more = self._lines[0], len(self._lines) - 1
        later = f"\n({more} more since; see the log)" if more else ""
        return f"{first}{later}\n\n{_ADVICE}"

    def _on_dialog_destroyed(self) -> None:
        self.dialog = None
        self._lines = []
