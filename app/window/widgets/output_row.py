"""The output file row of a dialog: the name to write, and Browse… beside it.

The export and replay dialogs ask for their output the same way: a wide line
edit (a name typed, pasted or chosen) and a Browse… button that opens the
save file dialog on the name shown and puts the name chosen back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLineEdit, QPushButton, QWidget

__all__ = ["OutputRow", "SaveDialogOptions"]

#: The least width of the name, so a usual path shows whole.
_EDIT_MIN_WIDTH_PX = 380


@dataclass(frozen=True)
class SaveDialogOptions:
    """What Browse… opens: a save file dialog titled ``caption``."""

    caption: str
    name_filter: str
    """The file types offered (``"Videos (*.mp4);;All files (*)"``)."""
    confirm_overwrite: bool
    """Ask before an existing file is chosen (False where Replace decides)."""


class OutputRow(QWidget):
    """A file name to write (``edit``, first ``output``) and its ``browse_button``.

    Browse… opens the save dialog ``save_dialog`` describes. The row is
    made without a parent: the dialog's layout adopts it.
    """

    def __init__(self, output: Path, save_dialog: SaveDialogOptions) -> None:
        super().__init__()
        self._save_dialog = save_dialog
        self.edit = QLineEdit(str(output))
        self.edit.setMinimumWidth(_EDIT_MIN_WIDTH_PX)
        self.browse_button = QPushButton("Browse…")
        self.browse_button.clicked.connect(self._on_browse_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.browse_button)

    def text(self) -> str:
        """Return the name typed, without surrounding blanks ("" when none)."""
        return self.edit.text().strip()

    def path(self) -> Path:
        """Return the file the name says (``~`` expanded)."""
        return Path(self.text()).expanduser()

    def _on_browse_clicked(self) -> None:
        save_dialog = self._save_dialog
        options = QFileDialog.Option(0)
        if not save_dialog.confirm_overwrite:
            options = QFileDialog.Option.DontConfirmOverwrite
        name, _ = QFileDialog.getSaveFileName(
            self.window(),
            save_dialog.caption,
            self.edit.text(),
            save_dialog.name_filter,
            options=options,
        )
        if name:
            self.edit.setText(name)
