"""One non-modal message box at a time, for a window's background work.

Export and replay report their outcome in a message box that does not block
the window (playback goes on), shows its text as plain text (file names and
errors come from untrusted files), lets the user select and copy it, and
replaces the previous one instead of stacking up.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

__all__ = ["MessageSlot"]


class MessageSlot:
    """Shows at most one non-modal, plain-text message box over ``parent``."""

    def __init__(self, parent: QWidget, title: str) -> None:
        self._parent = parent
        self._title = title
        self.box: QMessageBox | None = None

    def show(self, text: str, icon: QMessageBox.Icon) -> QMessageBox:
        """Close the box shown before, if any, and show ``text``."""
        if self.box is not None:
            self.box.close()
        box = QMessageBox(icon, self._title, text, parent=self._parent)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setModal(False)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda: self._forget(box))
        self.box = box
        box.show()
        return box

    def _forget(self, box: QMessageBox) -> None:
        if self.box is box:
            self.box = None
