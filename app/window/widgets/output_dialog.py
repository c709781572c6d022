"""The base of the dialogs that write one file: export, re-render, re-simulate.

Each has an output row (:class:`~app.window.widgets.output_row.OutputRow`),
a "Replace an existing file" box, a line that says in words what keeps the
form from running (plain text: names come from the user and from files),
and Cancel beside a run button that is enabled only when nothing does. The
run button checks the file system too (:func:`output_problem`): the name is
not a folder, its folder exists, and an existing file is replaced only when
Replace is ticked.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from app.window.widgets.output_check import output_problem
from app.window.widgets.output_row import OutputRow, SaveDialogOptions

__all__ = ["OutputDialog"]

_PROBLEM_STYLE = "color: #b00020;"


class OutputDialog(QDialog):
    """A dialog titled ``title`` whose ``run_text`` button writes ``output``.

    ``replace`` ticks Replace at first; Browse… opens ``save_dialog``. A
    subclass builds its form around :attr:`output_row` and
    :attr:`overwrite_check`, lays it out with :meth:`_lay_out`, says what is
    wrong in :meth:`problem` and refreshes itself in :meth:`_update` (after
    an edit of the name, which :meth:`_on_output_edited` receives, or a click
    on Replace).
    """

    def __init__(
        self,
        parent: QWidget | None,
        *,
        title: str,
        run_text: str,
        output: Path,
        replace: bool,
        save_dialog: SaveDialogOptions,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.output_row = OutputRow(output, save_dialog)
        self.output_edit = self.output_row.edit
        self.browse_button = self.output_row.browse_button
        self.overwrite_check = QCheckBox("Replace an existing file")
        self.overwrite_check.setChecked(replace)
        self.output_edit.textChanged.connect(self._on_output_edited)
        self.overwrite_check.toggled.connect(self._update)
        self.problem_label = QLabel()
        self.problem_label.setTextFormat(Qt.TextFormat.PlainText)
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(_PROBLEM_STYLE)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button = self.buttons.addButton(
            run_text, QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.run_button.setDefault(True)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)

    def problem(self) -> str:
        """Return why the form cannot run as it is ("" when it can; overridden)."""
        raise NotImplementedError

    def _update(self, *_: object) -> None:
        """Refresh the form after a change (overridden; say :meth:`_show_problem`)."""
        raise NotImplementedError

    def _on_output_edited(self, text: str) -> None:
        """React to the name edited to ``text`` (refreshes the form)."""
        del text
        self._update()

    def _lay_out(self, form: QFormLayout, *notes: QWidget) -> None:
        """Stack ``form``, the ``notes`` under it, the problem line and the buttons."""
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        for note in notes:
            layout.addWidget(note)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.buttons)

    def _show_problem(self) -> str:
        """Say :meth:`problem` and enable the run button without one; return it."""
        problem = self.problem()
        self.problem_label.setText(problem)
        self.run_button.setEnabled(not problem)
        return problem

    def _on_buttons_accepted(self) -> None:
        problem = self.problem() or self._existing_problem()
        if problem:
            self.problem_label.setText(problem)
            return
        self.accept()

    def _existing_problem(self) -> str:
        """Refuse an existing output unless Replace is ticked (checked on run)."""
        return output_problem(
            self.output_row.path(), replace=self.overwrite_check.isChecked()
        )
