"""The inspector: everything a file says about itself, shown as plain text.

An integrity badge, the file name and source, then the recording's report as
a filterable tree: file, metadata, stream inventory, calibration epochs,
lifecycle and events, gaps, provenance and what was degraded or recovered.
Every string from the file passes through
:func:`~app.window.widgets.plain_text.visible_text` and is shown in plain-text item
cells or labels (docs/robustness.md, U14); tooltips are HTML-escaped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.window.widgets.plain_text import (
    byte_size_text,
    number_text,
    pairs_text,
    safe_str,
    scalar_text,
    time_span_text,
    tooltip_html,
    visible_text,
)
from app.window.widgets.playlist_dock import BADGE_COLORS
from fsr_core.recording import Integrity, RecordingModel

__all__ = ["InspectorDock", "InspectorPanel"]

BIG_SECTION_ROWS: Final = 50
"""Sections with more rows than this start collapsed."""
_MAX_CHILDREN: Final = 500  # rows shown per node; the rest is counted
_MAX_DEPTH: Final = 24  # deeper nesting is shown as one elided line
_TOOLTIP_FROM: Final = 60  # values longer than this get a tooltip
_FIELD_CHARS: Final = 80
_LIFECYCLE_KEYS: Final = ("stream", "generation", "tick", "sim_time_s", "event")
# Report keys that have a section of their own; others are listed under "File".
_SECTION_KEYS: Final = frozenset(
    {
        "path", "size_bytes", "version", "records", "profile", "valid",
        "verification", "metadata", "streams", "calibration_epochs", "lifecycle",
        "terminal_cut", "completion", "degraded", "gaps", "provenance",
        "recovered", "channels", "source",
    }
)  # fmt: skip

Report = Mapping[str, Any]


def _row(parent: QTreeWidgetItem, field: object, value: object = "") -> QTreeWidgetItem:
    """Add a row of two escaped texts; long ones get a tooltip with more."""
    item = QTreeWidgetItem(parent)
    for column, raw, limit in ((0, field, _FIELD_CHARS), (1, value, 200)):
        text = visible_text(raw, limit)
        item.setText(column, text)
        if len(text) > _TOOLTIP_FROM or text != visible_text(raw, limit + 1):
            item.setToolTip(column, tooltip_html(raw))
    return item


def _json_text(value: object, indent: int | None = None) -> str:
    """Return ``value`` as JSON text; a value JSON cannot hold as its ``str``.

    A file can hold an integer too long for text (over 4,300 digits) or
    nesting too deep for the encoder; those are shown, not raised.
    """
    try:
        return json.dumps(value, default=safe_str, indent=indent)
    except (ValueError, RecursionError, TypeError):
        return safe_str(value)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _is_flat(values: Sequence[Any]) -> bool:
    return len(values) <= 16 and not any(
        isinstance(v, Mapping | list | tuple) for v in values
    )


def _add_value(
    parent: QTreeWidgetItem, field: object, value: object, depth: int = 0
) -> QTreeWidgetItem:
    """Add ``value`` under ``parent``: mappings and lists become subtrees."""
    if depth >= _MAX_DEPTH:
        return _row(parent, field, _json_text(value))
    if isinstance(value, Mapping):
        item = _row(parent, field, _count(len(value), "field"))
        for index, (key, inner) in enumerate(value.items()):
            if index == _MAX_CHILDREN:
                _row(item, "…", f"{len(value) - index} more fields")
                break
            _add_value(item, key, inner, depth + 1)
        return item
    if isinstance(value, list | tuple):
        if _is_flat(value):
            return _row(parent, field, "[" + ", ".join(map(scalar_text, value)) + "]")
        item = _row(parent, field, _count(len(value), "item"))
        for index, inner in enumerate(value[:_MAX_CHILDREN]):
            _add_value(item, f"[{index}]", inner, depth + 1)
        if len(value) > _MAX_CHILDREN:
            _row(item, "…", f"{len(value) - _MAX_CHILDREN} more items")
        return item
    return _row(parent, field, scalar_text(value))


def _add_mapping(parent: QTreeWidgetItem, values: object, empty: str) -> None:
    """Add each entry of a mapping under ``parent`` (one row ``empty`` if none)."""
    if not isinstance(values, Mapping) or not values:
        _row(parent, "none", empty)
        return
    for index, (key, value) in enumerate(values.items()):
        if index == _MAX_CHILDREN:
            _row(parent, "…", f"{len(values) - index} more fields")
            break
        _add_value(parent, key, value)


def _get(entry: Report, key: str) -> str:
    """Return the text of ``entry[key]`` (a dash when absent)."""
    return scalar_text(entry.get(key))


def _entries(values: object) -> list[Mapping[str, Any]]:
    """Return the mapping entries of a report list, at most ``_MAX_CHILDREN``."""
    if not isinstance(values, list | tuple):
        return []
    return [v for v in values[:_MAX_CHILDREN] if isinstance(v, Mapping)]


def _validation(model: RecordingModel, report: Report) -> tuple[str, str]:
    """Return the validation result and whether payloads were verified."""
    check = report.get("verification")
    if isinstance(check, Mapping):
        if check.get("problem_count"):
            return f"{check['problem_count']} problem(s) found reading records", "no"
        if check.get("payloads_digest_verified"):
            records = scalar_text(check.get("checked_records"))
            return f"every record read and its digest verified ({records})", "yes"
        return "every record read and decoded; no digests to verify", "no"
    if report.get("valid") is False:
        return "invalid", "no"
    if "valid" in report:
        why = "no digests in the structural profile"
        if report.get("profile") != "structural":
            why = "not checked yet"
        return f"layout and metadata valid; payloads not read ({why})", "no"
    return model.integrity_reason or model.integrity.value, "no"


def _fill_file(section: QTreeWidgetItem, model: RecordingModel, report: Report) -> None:
    _row(section, "path", report.get("path", model.path))
    _row(section, "source", report.get("source", model.source))
    _row(section, "title", model.title)
    for key, label in (("version", "version"), ("records", "records")):
        if key in report:
            _row(section, label, scalar_text(report[key]))
    if "size_bytes" in report:
        _row(section, "size", byte_size_text(report["size_bytes"]))
    if "profile" in report:
        _row(section, "integrity profile", scalar_text(report["profile"]))
    result, verified = _validation(model, report)
    _row(section, "validation", result)
    _row(section, "verified", verified)
    problems = report.get("verification")
    if isinstance(problems, Mapping) and problems.get("problems"):
        _add_value(section, "problems", problems["problems"])
    for key, value in report.items():
        if key not in _SECTION_KEYS:
            _add_value(section, key, value)


def _stream_row(section: QTreeWidgetItem, entry: Report) -> None:
    rate = number_text(entry.get("rate_hz"), ".1f")
    parts = [
        scalar_text(entry.get("kind")),
        scalar_text(entry.get("codec")),
        f"{_get(entry, 'records')} records",
        "no rate" if rate is None else f"{rate} Hz",
        byte_size_text(entry.get("payload_bytes")).split(" (")[0],
        time_span_text(entry.get("first_sim_time_s"), entry.get("last_sim_time_s")),
    ]
    if entry.get("camera") is not None:
        parts.append(f"camera {entry['camera']}")
    item = _row(section, entry.get("name", "?"), " · ".join(p for p in parts if p))
    for key, value in entry.items():
        if key == "payload_bytes":
            _row(item, key, byte_size_text(value))
        elif key != "name":
            _add_value(item, key, value)


def _channel_row(section: QTreeWidgetItem, name: str, model: RecordingModel) -> None:
    channel = model.channels[name]
    samples = channel.count
    # A channel read only when shown is not read for this: its rate and time
    # span show once something has read it.
    times = channel.times_s if channel.loaded else None
    span = float(times[-1] - times[0]) if times is not None and len(times) > 1 else 0.0
    rate = (samples - 1) / span if samples is not None and span > 0 else None
    parts = [
        "channel",
        "samples read when shown" if samples is None else f"{samples} samples",
        f"{channel.width} column(s)",
        channel.unit or None,
        None if rate is None else f"{rate:.1f} Hz",
        time_span_text(times[0], times[-1])
        if times is not None and len(times)
        else None,
    ]
    item = _row(section, name, " · ".join(p for p in parts if p))
    for key, value in (
        ("label", channel.label),
        ("unit", channel.unit),
        ("columns", list(channel.columns)),
        ("samples", samples),
        ("rate_hz", None if rate is None else round(rate, 6)),
    ):
        _add_value(item, key, value)


def _fill_streams(
    section: QTreeWidgetItem, model: RecordingModel, report: Report
) -> None:
    streams = _entries(report.get("streams"))
    for entry in streams:
        _stream_row(section, entry)
    if not streams:
        for name in list(model.channels)[:_MAX_CHILDREN]:
            _channel_row(section, name, model)
    for camera in model.cameras if not streams else ():
        frames = "?" if camera.count is None else camera.count
        _row(section, camera.name, f"camera · {frames} frames")
    if not section.childCount():
        _row(section, "none", "no streams")


def _fill_epochs(section: QTreeWidgetItem, _: RecordingModel, report: Report) -> None:
    for entry in _entries(report.get("calibration_epochs")):
        start = number_text(entry.get("first_sim_time_s"), ".3f")
        value = (
            f"generation {_get(entry, 'generation')}, from tick "
            f"{_get(entry, 'first_tick')} ({scalar_text(start)} s), "
            f"{_get(entry, 'width')}x{_get(entry, 'height')}"
        )
        field = f"{_get(entry, 'camera')} epoch {_get(entry, 'epoch')}"
        item = _row(section, field, value)
        for key, inner in entry.items():
            _add_value(item, key, inner)
    if not section.childCount():
        _row(section, "none", "no calibration recorded")


def _fill_lifecycle(
    section: QTreeWidgetItem, model: RecordingModel, report: Report
) -> None:
    for entry in _entries(report.get("lifecycle")):
        when = number_text(entry.get("sim_time_s"), ".3f")
        tick, generation = _get(entry, "tick"), _get(entry, "generation")
        field = f"{scalar_text(when)} s, tick {tick} (gen {generation})"
        extra = pairs_text(entry, _LIFECYCLE_KEYS)
        event = scalar_text(entry.get("event"))
        _row(section, field, f"{event} ({extra})" if extra else event)
    for key, label in (("terminal_cut", "terminal cut"), ("completion", "completion")):
        if key in report:
            value = report[key]
            shown = (
                pairs_text(value) if isinstance(value, Mapping) else scalar_text(value)
            )
            _row(section, label, shown)
    for marker in model.markers[:_MAX_CHILDREN]:
        field = f"marker at {marker.play_time_s:.3f} s"
        _row(section, field, f"{marker.kind.value}: {marker.label}")
    if not section.childCount():
        _row(section, "none", "no lifecycle records or events")


def _fill_gaps(section: QTreeWidgetItem, _: RecordingModel, report: Report) -> None:
    if "gaps" not in report:
        _row(section, "none", "not recorded by this source")
        return
    for entry in _entries(report["gaps"]):
        _row(section, entry.get("stream", "?"), pairs_text(entry, ("stream",)))
    if not section.childCount():
        _row(section, "none", "no gaps declared")


def _fill_provenance(
    section: QTreeWidgetItem, model: RecordingModel, report: Report
) -> None:
    _add_mapping(section, model.provenance or report.get("provenance"), "none")


def _fill_metadata(
    section: QTreeWidgetItem, model: RecordingModel, report: Report
) -> None:
    _add_mapping(section, model.metadata or report.get("metadata"), "no metadata")


def _fill_recovered(
    section: QTreeWidgetItem, model: RecordingModel, report: Report
) -> None:
    recovered = report.get("recovered")
    if report.get("degraded"):
        _row(section, "degraded", "yes: some data were lost while recording")
    if isinstance(recovered, Mapping):
        kept = number_text(recovered.get("kept_fraction"), ".0%")
        if kept is not None:
            _row(section, "recovered", f"truncated at {kept}")
        _add_value(section, "recovery", recovered)
    if section.childCount() and model.integrity_reason:
        _row(section, "integrity", model.integrity_reason)


_Filler = Callable[[QTreeWidgetItem, RecordingModel, Report], None]
_SECTIONS: Final[tuple[tuple[str, _Filler], ...]] = (
    ("File", _fill_file),
    ("Metadata", _fill_metadata),
    ("Streams", _fill_streams),
    ("Calibration epochs", _fill_epochs),
    ("Lifecycle and events", _fill_lifecycle),
    ("Gaps", _fill_gaps),
    ("Provenance", _fill_provenance),
    ("Degraded / recovered", _fill_recovered),
)


def _badge_text(model: RecordingModel) -> str:
    """Return the badge: a check only for VALID, else the state and reason."""
    reason = visible_text(model.integrity_reason, 160)
    if model.integrity is Integrity.VALID:
        return f"✓ valid: {reason}" if reason else "✓ valid"
    state = model.integrity.value
    mark = "✗" if model.integrity is Integrity.INVALID else "⚠"
    if not reason or reason.startswith(state):
        return f"{mark} {reason or state}"
    return f"{mark} {state}: {reason}"


def _plain_label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label


class InspectorPanel(QWidget):
    """Integrity badge, file name and source, then the report as a filterable tree.

    Parameters
    ----------
    parent
        The owning widget.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model: RecordingModel | None = None
        self._comparison: list[tuple[str, str]] | None = None
        #: The integrity badge.
        self.badge = _plain_label("inspector_badge")
        self._file = _plain_label("inspector_file")
        self._source = _plain_label("inspector_source")
        self._default_palette = QPalette(self.badge.palette())
        #: "Filter fields": hides the rows that do not match.
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter fields")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._on_filter_text_changed)
        #: "Copy as JSON": the report, to the clipboard.
        self.copy_button = QPushButton("Copy as JSON")
        self.copy_button.clicked.connect(self._on_copy_clicked)
        #: The tree of sections (columns "Field" and "Value").
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Field", "Value"])
        self.tree.setColumnWidth(0, 220)
        self.tree.setUniformRowHeights(True)
        tools = QHBoxLayout()
        tools.addWidget(self.filter_edit, 1)
        tools.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        for widget in (self.badge, self._file, self._source):
            layout.addWidget(widget)
        layout.addLayout(tools)
        layout.addWidget(self.tree, 1)
        self.set_model(None)

    @property
    def model(self) -> RecordingModel | None:
        """The recording shown, if any."""
        return self._model

    def section(self, title: str) -> QTreeWidgetItem | None:
        """Return the top-level section named ``title``, if present."""
        found = self.tree.findItems(title, Qt.MatchFlag.MatchExactly, 0)
        return next((item for item in found if item.parent() is None), None)

    def set_model(self, model: RecordingModel | None) -> None:
        """Show what ``model`` says about its file ("No recording" for None)."""
        self._model = model
        self.copy_button.setEnabled(model is not None)
        self.badge.setPalette(self._default_palette)
        if model is None:
            self.badge.setText("No recording")
            self._file.clear()
            self._source.clear()
        else:
            self.badge.setText(_badge_text(model))
            palette = QPalette(self._default_palette)
            color = BADGE_COLORS.get(model.integrity.value)
            if color is not None:
                palette.setColor(QPalette.ColorRole.WindowText, color)
            self.badge.setPalette(palette)
            self._file.setText(visible_text(model.path.name, 120))
            self._file.setToolTip(tooltip_html(model.path))
            self._source.setText(f"{model.source} · {visible_text(model.title, 120)}")
        self._rebuild()

    def set_comparison(self, lines: list[tuple[str, str]] | None) -> None:
        """Show a "Comparison" section of key/value rows (hidden when None)."""
        self._comparison = None if lines is None else list(lines)
        self._rebuild()

    def _rebuild(self) -> None:
        self.tree.clear()
        sections: list[QTreeWidgetItem] = []
        if self._model is not None:
            report = self._model.report
            for title, fill in _SECTIONS:
                section = QTreeWidgetItem([title])
                fill(section, self._model, report)
                if section.childCount():
                    sections.append(section)
        if self._comparison is not None:
            section = QTreeWidgetItem(["Comparison"])
            for key, value in self._comparison[:_MAX_CHILDREN]:
                _row(section, key, value)
            sections.insert(min(1, len(sections)), section)
        self.tree.addTopLevelItems(sections)
        for section in sections:
            section.setExpanded(section.childCount() <= BIG_SECTION_ROWS)
        self._on_filter_text_changed(self.filter_edit.text())

    def _on_filter_text_changed(self, text: str) -> None:
        needle = text.strip().casefold()
        for row in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(row)
            if item is not None:
                self._apply_filter(item, needle, False)

    def _apply_filter(
        self, item: QTreeWidgetItem, needle: str, ancestor_matched: bool
    ) -> bool:
        """Hide ``item`` unless it, an ancestor or a descendant matches."""
        own = not needle or needle in f"{item.text(0)}\n{item.text(1)}".casefold()
        below = False
        for index in range(item.childCount()):
            child = item.child(index)
            if child is not None and self._apply_filter(
                child, needle, ancestor_matched or own
            ):
                below = True
        if needle and below:
            item.setExpanded(True)
        item.setHidden(not (own or below or ancestor_matched))
        return own or below

    def _on_copy_clicked(self) -> None:
        if self._model is None:
            return
        text = _json_text(self._model.report, indent=2)
        QGuiApplication.clipboard().setText(text)


class InspectorDock(QDockWidget):
    """The inspector in a dock titled "Inspector".

    Parameters
    ----------
    parent
        The owning window.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Inspector", parent)
        self.setObjectName("inspector_dock")
        self._panel = InspectorPanel(self)
        self.setWidget(self._panel)

    @property
    def panel(self) -> InspectorPanel:
        """The inspector panel inside the dock."""
        return self._panel
