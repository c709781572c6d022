"""The inspector: badge, stream inventory, plain-text untrusted strings, filter."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QDockWidget, QLabel, QTreeWidgetItem
from shown_widgets import show_widget

from app.window.widgets.inspector import BIG_SECTION_ROWS, InspectorDock, InspectorPanel
from app.window.widgets.playlist_dock import BADGE_COLORS
from fsr_core.recording import Integrity, RecordingModel
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui

HOSTILE = "<b>bold</b>\u202e\u200b"


@pytest.fixture
def panel(qtbot: Any) -> InspectorPanel:
    return show_widget(qtbot, InspectorPanel(), (500, 700), exposed=False)


@pytest.fixture(scope="module")
def reach(short_takes: dict[str, Path]) -> RecordingModel:
    return open_recording(short_takes["reach"])


def _children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [item.child(i) for i in range(item.childCount())]


def _section(panel: InspectorPanel, title: str) -> QTreeWidgetItem:
    section = panel.section(title)
    assert section is not None, f"no section {title!r}"
    return section


def _row(parent: QTreeWidgetItem, field: str) -> QTreeWidgetItem:
    found = [child for child in _children(parent) if child.text(0) == field]
    assert found, f"no row {field!r} under {parent.text(0)!r}"
    return found[0]


def _with_metadata(model: RecordingModel, **extra: Any) -> RecordingModel:
    return dataclasses.replace(model, metadata={**model.metadata, **extra})


def test_demo_take_lists_every_stream_with_the_reports_records_and_codec(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    panel.set_model(reach)

    streams = _section(panel, "Streams")
    assert streams.isExpanded()
    assert [row.text(0) for row in _children(streams)] == [
        entry["name"] for entry in reach.report["streams"]
    ]
    for entry in reach.report["streams"]:
        row = _row(streams, entry["name"])
        assert _row(row, "records").text(1) == str(entry["records"])
        assert _row(row, "codec").text(1) == entry["codec"]
        assert f"{entry['records']} records" in row.text(1)
        assert entry["codec"] in row.text(1)
    arm = _row(streams, "observations.arm")
    assert "500.0 Hz" in arm.text(1)
    assert _row(arm, "payload_bytes").text(1) == "46.9 KiB (48000 bytes)"


def test_demo_take_shows_file_epochs_lifecycle_and_provenance(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    panel.set_model(reach)

    file = _section(panel, "File")
    assert _row(file, "records").text(1) == str(reach.report["records"])
    assert _row(file, "integrity profile").text(1) == "fast"
    assert _row(file, "verified").text(1) == "no"
    assert _children(_section(panel, "Calibration epochs"))[0].text(0) == (
        "front epoch 0"
    )
    lifecycle = [
        row.text(1) for row in _children(_section(panel, "Lifecycle and events"))
    ]
    assert any(text.startswith("terminal_semantic_cut") for text in lifecycle)
    assert "terminal_cut: terminal cut" in lifecycle
    assert "event: chunk_result" in lifecycle
    assert _row(_section(panel, "Gaps"), "none").text(1) == "no gaps declared"
    assert _row(_section(panel, "Provenance"), "mode").text(1) == "simulate"
    assert panel.section("Degraded / recovered") is None
    assert panel.findChild(QLabel, "inspector_file").text() == "01_reach.fsr"


@pytest.mark.parametrize(
    ("integrity", "reason", "expected"),
    [
        (Integrity.VALID, "strong profile", "✓ valid: strong profile"),
        (
            Integrity.RECOVERED,
            "recovered: truncated at 71%",
            "⚠ recovered: truncated at 71%",
        ),
        (
            Integrity.UNVERIFIED,
            "integrity not verified (structural profile)",
            "⚠ integrity not verified (structural profile)",
        ),
        (Integrity.DEGRADED, "degraded: 2 gap(s)", "⚠ degraded: 2 gap(s)"),
        (Integrity.INVALID, "bad CRC", "✗ invalid: bad CRC"),
    ],
)
def test_badge_has_a_check_only_when_valid_and_otherwise_states_why(
    panel: InspectorPanel,
    reach: RecordingModel,
    integrity: Integrity,
    reason: str,
    expected: str,
) -> None:
    model = dataclasses.replace(reach, integrity=integrity, integrity_reason=reason)

    panel.set_model(model)

    assert panel.badge.text() == expected
    assert ("✓" in panel.badge.text()) == (integrity is Integrity.VALID)
    colour = panel.badge.palette().color(QPalette.ColorRole.WindowText)
    assert colour == BADGE_COLORS[integrity.value]
    assert panel.badge.textFormat() == Qt.TextFormat.PlainText


def test_hostile_metadata_is_shown_literally_with_visible_escapes(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    model = _with_metadata(reach, note=HOSTILE, **{"\u202ekey": "v"})
    model = dataclasses.replace(model, title=HOSTILE)

    panel.set_model(model)

    metadata = _section(panel, "Metadata")
    assert _row(metadata, "note").text(1) == "<b>bold</b>⟨U+202E⟩⟨U+200B⟩"
    assert _row(metadata, "⟨U+202E⟩key").text(1) == "v"
    source = panel.findChild(QLabel, "inspector_source")
    assert source.textFormat() == Qt.TextFormat.PlainText
    assert source.text() == "fsr · <b>bold</b>⟨U+202E⟩⟨U+200B⟩"
    for label in panel.findChildren(QLabel):
        assert label.textFormat() == Qt.TextFormat.PlainText


def test_a_ten_thousand_character_value_is_elided_with_its_length(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    panel.set_model(_with_metadata(reach, blob="<i>" + "x" * 9997))

    row = _row(_section(panel, "Metadata"), "blob")
    assert row.text(1) == "<i>" + "x" * 197 + "… (+9800 chars)"
    tip = row.toolTip(1)
    assert tip.startswith("<qt>&lt;i&gt;xxx")
    assert "(+6000 chars)" in tip


def test_filter_hides_rows_that_do_not_match_and_keeps_their_parents(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    panel.set_model(reach)
    streams = _section(panel, "Streams")
    arm = _row(streams, "observations.arm")

    panel.filter_edit.setText("OBSERVATIONS.ARM")

    assert not streams.isHidden()
    assert not arm.isHidden()
    assert not _row(arm, "codec").isHidden()
    assert _row(streams, "run.lifecycle").isHidden()
    assert _section(panel, "Gaps").isHidden()
    assert _section(panel, "Provenance").isHidden()

    panel.filter_edit.setText("codec")

    assert arm.isExpanded()
    assert not _row(arm, "codec").isHidden()
    assert _row(arm, "records").isHidden()

    panel.filter_edit.clear()

    assert not _section(panel, "Gaps").isHidden()
    assert not _row(arm, "records").isHidden()


def test_big_sections_start_collapsed(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    many = {f"key{i}": i for i in range(BIG_SECTION_ROWS + 10)}

    panel.set_model(dataclasses.replace(reach, metadata=many))

    assert not _section(panel, "Metadata").isExpanded()
    assert _section(panel, "Streams").isExpanded()


def test_a_recovered_file_shows_where_it_was_truncated(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    recovered = {"in_this_open": True, "reason": "no trailer", "kept_fraction": 0.71}
    model = dataclasses.replace(
        reach,
        report={**reach.report, "recovered": recovered, "degraded": True},
        integrity=Integrity.RECOVERED,
        integrity_reason="recovered: truncated at 71%",
    )

    panel.set_model(model)

    section = _section(panel, "Degraded / recovered")
    assert _row(section, "recovered").text(1) == "truncated at 71%"
    assert _row(_row(section, "recovery"), "reason").text(1) == "no trailer"
    assert _row(section, "degraded").text(1).startswith("yes")


def test_skelarm_logs_show_their_channels_and_provenance(
    panel: InspectorPanel, skelarm_logs: list[Path]
) -> None:
    assert skelarm_logs
    for path in skelarm_logs:
        model = open_recording(path)

        panel.set_model(model)

        names = [row.text(0) for row in _children(_section(panel, "Streams"))]
        assert names == list(model.channels)
        q = _row(_section(panel, "Streams"), "q")
        assert f"{len(model.channels['q'].times_s)} samples" in q.text(1)
        assert _row(_section(panel, "File"), "producer").text(1) == str(
            model.report["producer"]
        )
        provenance = _section(panel, "Provenance")
        assert _row(provenance, "skelarm").text(1) == model.provenance["skelarm"]
        assert panel.badge.text().startswith("⚠ integrity not verified")


def test_copy_as_json_puts_the_report_on_the_clipboard(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    panel.set_model(reach)

    panel.copy_button.click()

    copied = json.loads(QGuiApplication.clipboard().text())
    assert copied == json.loads(json.dumps(reach.report, default=str))


def test_comparison_section_appears_only_while_set(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    panel.set_model(reach)
    assert panel.section("Comparison") is None

    panel.set_comparison([("max joint error", "0.002 rad"), ("frames", HOSTILE)])

    comparison = _section(panel, "Comparison")
    assert _row(comparison, "max joint error").text(1) == "0.002 rad"
    assert _row(comparison, "frames").text(1) == "<b>bold</b>⟨U+202E⟩⟨U+200B⟩"
    panel.set_model(reach)
    assert panel.section("Comparison") is not None

    panel.set_comparison(None)

    assert panel.section("Comparison") is None


def test_no_recording_clears_everything(
    panel: InspectorPanel, reach: RecordingModel
) -> None:
    panel.set_model(reach)

    panel.set_model(None)

    assert panel.badge.text() == "No recording"
    assert panel.tree.topLevelItemCount() == 0
    assert not panel.copy_button.isEnabled()
    assert panel.findChild(QLabel, "inspector_file").text() == ""


def test_dock_is_titled_inspector_and_holds_the_panel(qtbot: Any) -> None:
    dock = InspectorDock()
    qtbot.addWidget(dock)

    assert isinstance(dock, QDockWidget)
    assert dock.windowTitle() == "Inspector"
    assert dock.objectName() == "inspector_dock"
    assert isinstance(dock.panel, InspectorPanel)
    assert dock.widget() is dock.panel
    assert dock.panel.badge.text() == "No recording"
