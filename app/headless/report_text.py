"""Plain-text rendering of an inspection report (``fsr-viewer inspect``).

An FSR file's report is shown as the container it is (profile, streams,
epochs, lifecycle, gaps); any other source's report through the keys every
report shares (:mod:`fsr_core.sources.inspection`) and its own section.
"""

from __future__ import annotations

from typing import Any

__all__ = ["format_report", "visible"]

# Characters that reorder or hide text: shown as escapes, never interpreted.
_HIDDEN = frozenset(
    [0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF]
) | frozenset(range(0x202A, 0x202F))


def visible(text: object, limit: int = 80) -> str:
    r"""Return attacker-controlled text made safe to show.

    Control, bidi and zero-width characters become ``\\uXXXX`` escapes and the
    result is elided to ``limit`` characters.
    """
    shown = "".join(
        ch if ch.isprintable() and ord(ch) not in _HIDDEN else f"\\u{ord(ch):04x}"
        for ch in str(text)
    )
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _time(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _span(first: object, last: object, fmt: str = "{}") -> str:
    if first is None:
        return "-"
    return f"{fmt.format(first)}..{fmt.format(last)}"


def _stream_lines(streams: list[dict[str, Any]]) -> list[str]:
    lines = [
        f"  {'stream':<48} {'kind':<20} {'codec':<11} {'records':>8} "
        f"{'ticks':>13} {'sim time s':>17} {'rate Hz':>8}"
    ]
    for s in streams:
        ticks = _span(s["first_tick"], s["last_tick"])
        times = _span(s["first_sim_time_s"], s["last_sim_time_s"], "{:.3f}")
        rate = "-" if s["rate_hz"] is None else f"{s['rate_hz']:.1f}"
        optional = "" if s["required"] else " (optional)"
        lines.append(
            f"  {visible(s['name'], 48):<48} {s['kind']:<20} {s['codec']:<11} "
            f"{s['records']:>8} {ticks:>13} {times:>17} {rate:>8}{optional}"
        )
    return lines


def _trust(report: dict[str, Any]) -> str:
    verification = report.get("verification")
    if verification is None:
        if report["profile"] == "structural":
            return (
                "layout and metadata valid; payloads not read (no digests in profile)"
            )
        return "layout and metadata valid; payloads not read (run with --verify)"
    if verification["problem_count"]:
        return f"{verification['problem_count']} problem(s) found reading records"
    if verification["payloads_digest_verified"]:
        count = verification["checked_records"]
        return f"every record read and its digest verified ({count} records)"
    return (
        "every record read, CRC-checked and decoded; integrity not verified "
        "(the structural profile has no digests)"
    )


def _summary_lines(report: dict[str, Any]) -> list[str]:
    lines = [
        visible(report["path"], 200),
        f"  FSR {report['version']}, {report['profile']} profile, "
        f"{report['size_bytes']} bytes, {report['records']} records",
        f"  status: {'valid' if report['valid'] else 'INVALID'}: {_trust(report)}",
    ]
    recovered = report.get("recovered")
    if recovered:
        total = recovered.get("file_bytes", recovered.get("source_bytes"))
        lines.append(
            f"  recovered: {visible(recovered.get('reason'), 80)} "
            f"({recovered.get('records_kept')} records, "
            f"{recovered.get('trusted_bytes')} of {total} bytes kept)"
        )
    metadata = report["metadata"]
    if isinstance(metadata, dict) and metadata.get("run"):
        lines.append(f"  run: {visible(metadata['run'], 160)}")
    return lines


def _epoch_lines(epochs: list[dict[str, Any]]) -> list[str]:
    if not epochs:
        return []
    lines = ["", "calibration epochs:"]
    for e in epochs:
        k = e["K"]
        lines.append(
            f"  {visible(e['camera'], 32)} gen {e['generation']} epoch {e['epoch']} "
            f"from tick {e['first_tick']} ({_time(e['first_sim_time_s'])} s): "
            f"{e['width']}x{e['height']} fx={k[0][0]:.2f} fy={k[1][1]:.2f} "
            f"cx={k[0][2]:.2f} cy={k[1][2]:.2f} {e['digest'][:19]}…"
        )
    return lines


def _lifecycle_lines(report: dict[str, Any]) -> list[str]:
    if not report["lifecycle"]:
        return []
    lines = ["", "lifecycle:"]
    clocks = ("stream", "generation", "tick", "sim_time_s", "event")
    for event in report["lifecycle"]:
        extra = {k: v for k, v in event.items() if k not in clocks}
        detail = f" {visible(extra, 100)}" if extra else ""
        lines.append(
            f"  gen {event['generation']} tick {event['tick']} "
            f"({_time(event['sim_time_s'])} s): "
            f"{visible(event.get('event', '?'), 40)}{detail}"
        )
    cut = report.get("terminal_cut")
    if cut:
        lines.append(
            f"  terminal cut: gen {cut['generation']} tick {cut['tick']} "
            f"({_time(cut['sim_time_s'])} s)"
        )
    completion = report.get("completion")
    if completion:
        lines.append(
            f"  completion: {completion['status']} / {completion['reason_code']}"
        )
    return lines


def _closing_lines(report: dict[str, Any]) -> list[str]:
    degraded = "yes" if report["degraded"] else "no"
    lines = ["", f"degraded: {degraded}; gaps: {len(report['gaps'])}"]
    for gap in report["gaps"]:
        lines.append(
            f"  {visible(gap['stream'], 48)}: {gap['lost']} lost after record "
            f"{gap['after_seq']} ({visible(gap['reason'], 60)})"
        )
    if report["provenance"]:
        lines.append(f"provenance: {visible(report['provenance'], 200)}")
    verification = report.get("verification")
    if verification and verification["problems"]:
        lines.extend(["", "problems:"])
        lines.extend(f"  {visible(p, 200)}" for p in verification["problems"])
    return lines


def _source_lines(report: dict[str, Any]) -> list[str]:
    integrity = report.get("integrity") or {}
    status = "valid" if report.get("valid") else "INVALID"
    duration = report.get("duration_s")
    length = "" if duration is None else f", {duration:.3f} s"
    return [
        visible(report.get("path"), 200),
        f"  {visible(report.get('description'), 60)} "
        f"({visible(report.get('source'), 32)}), "
        f"{report.get('size_bytes')} bytes{length}",
        f"  status: {status}: {visible(integrity.get('status'), 40)}"
        + (
            f" ({visible(integrity.get('reason'), 120)})"
            if integrity.get("reason")
            else ""
        ),
    ]


def _item_text(item: object) -> str:
    """One entry of a listed section: ``key value; key value`` for a mapping."""
    if isinstance(item, dict):
        return "; ".join(
            f"{visible(key, 32)} {visible(value, 60)}"
            for key, value in item.items()
            if value not in (None, "", [], {})
        )
    return visible(item, 160)


def _own_lines(own: dict[str, Any]) -> list[str]:
    """Return a source's own section: scalars on a line, lists an entry a line."""
    lines: list[str] = []
    for key, value in own.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f"  {visible(key, 32)}: {len(value)}")
            lines.extend(f"    - {_item_text(item)}" for item in value[:200])
            if len(value) > 200:
                lines.append(f"    ... {len(value) - 200} more")
        elif isinstance(value, list):
            shown = ", ".join(visible(item, 80) for item in value) or "none"
            lines.append(f"  {visible(key, 32)}: {visible(shown, 160)}")
        elif isinstance(value, dict):
            lines.append(f"  {visible(key, 32)}: {_item_text(value) or 'none'}")
        else:
            lines.append(f"  {visible(key, 32)}: {visible(value, 160)}")
    return lines


def _channel_lines(report: dict[str, Any]) -> list[str]:
    lines = ["", "channels:", f"  {'channel':<32} {'unit':<12} {'samples':>8}  columns"]
    for channel in report.get("channels") or []:
        columns = ", ".join(str(column) for column in channel.get("columns", []))
        samples = channel.get("samples", 0)
        lines.append(
            f"  {visible(channel.get('name'), 32):<32} "
            f"{visible(channel.get('unit') or '-', 12):<12} "
            f"{'?' if samples is None else samples:>8}  {visible(columns, 60)}"
        )
    cameras = report.get("cameras") or []
    if cameras:
        lines.extend(["", "cameras:"])
        for camera in cameras:
            frames = camera.get("frames")
            lines.append(
                f"  {visible(camera.get('name'), 32)}: "
                f"{'?' if frames is None else frames} frames"
            )
            lines.extend(_calibration_lines(camera.get("calibration") or []))
    return lines


def _calibration_lines(epochs: list[dict[str, Any]]) -> list[str]:
    """One line per calibration epoch of a camera: size, model, K and D."""
    lines = []
    for epoch in epochs:
        k = epoch["K"]
        coefficients = ", ".join(f"{value:.6g}" for value in epoch["D"]) or "none"
        at = epoch.get("play_time_s")
        since = "" if at is None else f"from {_time(at)} s: "
        lines.append(
            f"    {since}{epoch['width']}x{epoch['height']} "
            f"{visible(epoch['model'], 24)} fx={k[0][0]:.2f} fy={k[1][1]:.2f} "
            f"cx={k[0][2]:.2f} cy={k[1][2]:.2f} D=[{coefficients}]"
        )
    return lines


def _note_lines(report: dict[str, Any]) -> list[str]:
    notes = report.get("notes") or []
    if not notes:
        return []
    return ["", "notes:", *(f"  - {visible(note, 200)}" for note in notes)]


def _section_lines(report: dict[str, Any]) -> list[str]:
    lines = _note_lines(report)
    if report.get("provenance"):
        lines.append(f"provenance: {visible(report['provenance'], 200)}")
    own = report.get(str(report.get("source")))
    if isinstance(own, dict) and own:
        lines.extend(["", f"{visible(report.get('source'), 32)}:"])
        lines.extend(_own_lines(own))
    verification = report.get("verification")
    if verification and verification.get("problems"):
        lines.extend(["", "problems:"])
        lines.extend(f"  {visible(p, 200)}" for p in verification["problems"])
    return lines


def _format_source_report(report: dict[str, Any]) -> str:
    """Render the report of a source other than FSR, from the shared keys."""
    lines = _source_lines(report)
    lines.extend(_channel_lines(report))
    lines.extend(_section_lines(report))
    return "\n".join(lines)


def robot_lines(robot: dict[str, Any]) -> list[str]:
    """Render the ``robot`` part of a report: the model and its joint match."""
    joints = robot.get("joints") or {}
    matched = joints.get("matched") or []
    lines = [
        "",
        f"robot: {visible(robot.get('name'), 60)} "
        f"({visible(robot.get('description'), 120)})",
        f"  links: {robot.get('links')}, triangles: {robot.get('triangles')}",
    ]
    if robot.get("scene") == "recorded":
        lines.append(
            "  drawn: the recording's own scene; robot/<link> channels and the "
            "tip trail added"
        )
    posed_by = robot.get("posed_by")
    if posed_by:
        lines.append(
            f"  posed: every joint from {visible(posed_by, 60)} "
            "(MuJoCo's state: time, qpos, qvel)"
        )
    lines.append(f"  matched joints ({len(matched)}):")
    lines.extend(
        f"    {visible(item.get('recorded'), 40)} -> {visible(item.get('model'), 40)}"
        f" ({visible(item.get('by'), 12)})"
        for item in matched
    )
    for key, title in (
        ("follow_another", "recorded joints the model moves from another (mimic)"),
        ("unmatched_recorded", "recorded joints that match nothing"),
        (
            "unmatched_model",
            "model joints no recorded joint names (posed from the state)"
            if posed_by
            else "model joints nothing drives (drawn at rest)",
        ),
        ("fixed", "fixed joints"),
    ):
        names = [
            item.get("recorded") if isinstance(item, dict) else item
            for item in joints.get(key) or []
        ]
        if names:
            shown = ", ".join(visible(name, 40) for name in names[:40])
            more = f" and {len(names) - 40} more" if len(names) > 40 else ""
            lines.append(f"  {title} ({len(names)}): {shown}{more}")
    lines.extend(
        f"  warning: {visible(line, 200)}" for line in robot.get("warnings") or []
    )
    return lines


def format_report(report: dict[str, Any]) -> str:
    """Render ``report`` (from :func:`fsr_core.sources.inspect_recording`)."""
    robot = report.get("robot")
    tail = robot_lines(robot) if isinstance(robot, dict) else []
    if report.get("source", "fsr") != "fsr":
        return "\n".join([_format_source_report(report), *tail])
    lines = _summary_lines(report)
    lines.extend(["", "streams:"])
    lines.extend(_stream_lines(report["streams"]))
    lines.extend(_epoch_lines(report["calibration_epochs"]))
    lines.extend(_lifecycle_lines(report))
    lines.extend(_closing_lines(report))
    lines.extend(_note_lines(report))  # a robot it carries that cannot be drawn
    lines.extend(tail)
    return "\n".join(lines)
