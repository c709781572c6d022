"""What stops a dialog from writing its output file, said in words.

The export and replay dialogs check the same things when the user presses
their run button: the name is not a folder, its folder exists, and an
existing file is replaced only when the user ticked "Replace an existing
file".
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["output_problem"]


def output_problem(output: Path, *, replace: bool) -> str:
    """Return why ``output`` cannot be written ("" when it can)."""
    if output.is_dir():
        return f"{output} is a folder; choose a file name."
    if not output.parent.is_dir():
        return f"The folder {output.parent} does not exist."
    if output.exists() and not replace:
        return f"{output.name} exists; tick “Replace an existing file” to replace it."
    return ""
