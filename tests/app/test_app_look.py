"""The player's application carries the project's style sheet and window icon."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import resources

pytestmark = pytest.mark.gui

REPO_ROOT = Path(__file__).resolve().parents[2]

# A fresh interpreter: the test session's own QApplication (pytest-qt's) is
# not one that ensure_app creates, so it is left as it is.
_PROBE = """
import json
from PySide6.QtGui import QGuiApplication
from app.canvas.qt_app import ensure_app

app = ensure_app(headless=True)
icon = QGuiApplication.windowIcon()
print(json.dumps({
    "style_sheet": app.styleSheet(),
    "icon_sizes": sorted(size.width() for size in icon.availableSizes()),
}))
"""


def test_the_application_gets_the_style_sheet_and_the_icon() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE],
        cwd=REPO_ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert completed.returncode == 0, completed.stderr
    look = json.loads(completed.stdout)
    assert look["style_sheet"] == resources.style_sheet()  # empty: no rule yet
    assert {16, 32, 256} <= set(look["icon_sizes"])
