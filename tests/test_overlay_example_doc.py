"""The overlay example in docs/architecture.md is the real calibration overlay."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_the_documented_overlay_is_the_module_it_names() -> None:
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("### Adding an overlay", 1)[1]
    example = re.search(r"```python\n(.*?)```", section, re.S)
    module = REPO / "app" / "canvas" / "overlays" / "calibration.py"

    assert example is not None
    assert _normalised(example.group(1)) in _normalised(module.read_text("utf-8"))


def test_the_documented_registration_line_is_in_the_registry() -> None:
    from app.canvas.overlay_registry import BUILTIN_OVERLAYS

    assert "calibration" in BUILTIN_OVERLAYS
