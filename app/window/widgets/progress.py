"""The non-modal progress dialog of a window's background job, with Cancel.

Export and replay show the same dialog: it never blocks the window, its
label is plain text (file names come from the user and from files), Cancel
asks the job to stop, and it stays up until the job reports its end.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QProgressDialog, QWidget

__all__ = ["close_progress", "open_progress"]


def open_progress(
    parent: QWidget,
    text: str,
    title: str,
    on_cancel: Callable[[], None],
    *,
    min_width_px: int = 380,
) -> QProgressDialog:
    """Show a busy progress dialog saying ``text``; Cancel calls ``on_cancel``."""
    progress = QProgressDialog(parent)
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    progress.setLabel(label)
    progress.setCancelButtonText("Cancel")
    progress.setRange(0, 0)
    progress.setWindowTitle(title)
    progress.setMinimumWidth(min_width_px)
    progress.setWindowModality(Qt.WindowModality.NonModal)
    progress.setMinimumDuration(0)
    progress.setAutoClose(False)
    progress.setAutoReset(False)
    progress.canceled.connect(on_cancel)
    progress.show()
    return progress


def close_progress(
    progress: QProgressDialog | None, on_cancel: Callable[[], None]
) -> None:
    """Close ``progress`` (if any) without it reporting a cancel."""
    if progress is None:
        return
    progress.canceled.disconnect(on_cancel)
    progress.close()
    progress.deleteLater()
