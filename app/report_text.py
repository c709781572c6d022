"""Plain-text rendering of an inspection report (``fsr-viewer inspect``)."""

from __future__ import annotations

from typing import Any

__all__ = ["format_report"]


def _visible(text: object, limit: int = 80) -> str:
    """Show attacker-controlled text safely: escape control/bidi characters, elide."""
    raw = str(text)
    shown = "".join(
        ch
        if ch.isprintable()
        and not 0x202A <= ord(ch) <= 0x202E
        and ord(ch)
        not in (0x200B, 0x200C, 0x200D, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF)
        else f"\\u{ord(ch):04x}"
        for ch in raw
    )
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _time(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _stream_rows(streams: list[dict[str, Any]]) -> list[str]:
    header = f"  {'stream':<48} {'kind':<20} {'codec':<11} {'records':>8} {'ticks':>13} {'sim time s':>17} {'rate Hz':>8}"
    lines = [header]
    for s in streams:
        ticks = (
            "-" if s["first_tick"] is None else f"{s['first_tick']}..{s['last_tick']}"
        )
        span = (
            "-"
            if s["first_sim_time_s"] is None
            else f"{_time(s['first_sim_time_s'])}..{_time(s['last_sim_time_s'])}"
        )
        rate = "-" if s["rate_hz"] is None else f"{s['rate_hz']:.1f}"
        optional = "" if s["required"] else " (optional)"
        lines.append(
            f"  {_visible(s['name'], 48):<48} {s['kind']:<20} {s['codec']:<11} {s['records']:>8} {ticks:>13} {span:>17} {rate:>8}{optional}"
        )
    return lines


def format_report(report: dict[str, Any]) -> str:
    """Render ``report`` (from :func:`fsr_core.format.report.inspection_report`)."""
    integrity = report["profile"]
    verification = report.get("verification")
    if verification is None:
        trust = "layout and metadata valid; payloads not read" + (
            " (no digests in this profile)" if integrity == "structural" else ""
        )
    elif verification["problem_count"]:
        trust = f"{verification['problem_count']} problem(s) found reading records"
    elif verification["payloads_digest_verified"]:
        trust = f"every record read and its digest verified ({verification['checked_records']} records)"
    else:
        trust = "every record read, CRC-checked and decoded; integrity not verified (structural profile has no digests)"
    lines = [
        f"{_visible(report['path'], 200)}",
        f"  FSR {report['version']}, {integrity} profile, {report['size_bytes']} bytes, {report['records']} records",
        f"  status: {'valid' if report['valid'] else 'INVALID'}: {trust}",
    ]
    recovered = report.get("recovered")
    if recovered:
        lines.append(
            f"  recovered: {recovered.get('reason')} ({recovered.get('records_kept')} records, {recovered.get('trusted_bytes')} of {recovered.get('file_bytes', recovered.get('source_bytes'))} bytes kept)"
        )
    run = (
        report["metadata"].get("run") if isinstance(report["metadata"], dict) else None
    )
    if run:
        lines.append(f"  run: {_visible(run, 160)}")
    lines.append("")
    lines.append("streams:")
    lines.extend(_stream_rows(report["streams"]))
    if report["calibration_epochs"]:
        lines.append("")
        lines.append("calibration epochs:")
        for e in report["calibration_epochs"]:
            k = e["K"]
            lines.append(
                f"  {_visible(e['camera'], 32)} gen {e['generation']} epoch {e['epoch']} from tick {e['first_tick']} "
                f"({_time(e['first_sim_time_s'])} s): {e['width']}x{e['height']} fx={k[0][0]:.2f} fy={k[1][1]:.2f} "
                f"cx={k[0][2]:.2f} cy={k[1][2]:.2f} {e['digest'][:19]}…"
            )
    if report["lifecycle"]:
        lines.append("")
        lines.append("lifecycle:")
        for event in report["lifecycle"]:
            extra = {
                k: v
                for k, v in event.items()
                if k not in ("stream", "generation", "tick", "sim_time_s", "event")
            }
            detail = f" {_visible(extra, 100)}" if extra else ""
            lines.append(
                f"  gen {event['generation']} tick {event['tick']} ({_time(event['sim_time_s'])} s): {_visible(event.get('event', '?'), 40)}{detail}"
            )
    cut = report.get("terminal_cut")
    if cut:
        lines.append(
            f"  terminal cut: gen {cut['generation']} tick {cut['tick']} ({_time(cut['sim_time_s'])} s)"
        )
    completion = report.get("completion")
    if completion:
        lines.append(
            f"  completion: {completion['status']} / {completion['reason_code']}"
        )
    lines.append("")
    lines.append(
        f"degraded: {'yes' if report['degraded'] else 'no'}; gaps: {len(report['gaps'])}"
    )
    for gap in report["gaps"]:
        lines.append(
            f"  {_visible(gap['stream'], 48)}: {gap['lost']} lost after record {gap['after_seq']} ({_visible(gap['reason'], 60)})"
        )
    if report["provenance"]:
        lines.append(f"provenance: {_visible(report['provenance'], 200)}")
    if verification and verification["problems"]:
        lines.append("")
        lines.append("problems:")
        lines.extend(f"  {_visible(p, 200)}" for p in verification["problems"])
    return "\n".join(lines)
