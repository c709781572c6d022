"""The six batch verbs, each on one recording: what goes into its result.

Each verb takes the item, the run's options and the input's digest, and
returns the keys it adds to the result (at least ``status``, ``bytes`` and
``integrity``, the input's badge: ``valid``, ``recovered``, ``degraded``...,
with ``integrity_reason`` when it is not valid).
A problem of the recording raises :class:`~fsr_core.errors.FsrError` or
``ValueError``; :func:`~app.headless.batch.work.run_item` reports it. Every
output is published atomically by the writer the verb reuses (the export's
``atomic_output``, the FSR writer), so a killed worker leaves no final name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from app.headless.batch.facts import comparison_facts, first_problem, key_facts
from app.headless.batch.items import BatchOptions, Verb, WorkItem
from fsr_core.errors import FsrError, ReplayError
from fsr_core.output_paths import check_output_path
from fsr_core.playlists.digests import Digest
from fsr_core.recording import Integrity, RecordingModel
from fsr_core.sources import (
    convert_recording,
    open_recording,
    source_for,
)

__all__ = ["VERBS"]

_Verb = Callable[[WorkItem, BatchOptions, Digest], dict[str, Any]]


def _validate(item: WorkItem, options: BatchOptions, digest: Digest) -> dict[str, Any]:
    """``inspect --verify``: ok when the recording is valid."""
    from app.headless.verified_report import verified_report

    report = verified_report(item.input, options.opening)
    found = {
        "bytes": digest.size_bytes,
        "source": report.get("source"),
        "integrity": (report.get("integrity") or {}).get("status"),
        "duration_s": report.get("duration_s"),
    }
    if report.get("valid") is True:
        return {"status": "ok", **found}
    return {"status": "failed", "error": first_problem(report, item.input), **found}


def _integrity(model: RecordingModel) -> dict[str, Any]:
    """Return the input's integrity keys of a result."""
    found: dict[str, Any] = {"integrity": model.integrity.value}
    if model.integrity is not Integrity.VALID:
        found["integrity_reason"] = model.integrity_reason
    return found


def _output(item: WorkItem) -> Path:
    """Return the item's output after the check every writing command makes."""
    if item.output is None:
        raise ValueError(f"{item.input}: no output was planned")
    check_output_path(
        item.output,
        (item.input,),
        overwrite=item.overwrite,
        hint=" (use --overwrite, or --resume to keep finished work)",
    )
    return item.output


def _export(item: WorkItem, options: BatchOptions, digest: Digest) -> dict[str, Any]:
    """``--export``: the video of the recording, drawn as the window draws it."""
    from app.headless.export.video import ensure_gui_app, export_video

    template = options.video
    if template is None:
        raise ValueError("batch export needs its video options")
    output = _output(item)
    model = open_recording(item.input, options=options.opening)
    ensure_gui_app()
    request = dataclasses.replace(
        template, source=model.path, output=output, overwrite=item.overwrite
    )
    video = export_video(model, request)
    return {
        "status": "ok",
        **_integrity(model),
        "bytes": video.path.stat().st_size,
        "frames": video.frames,
        "frame_size": f"{video.width}x{video.height}",
    }


def _convert(item: WorkItem, options: BatchOptions, digest: Digest) -> dict[str, Any]:
    """``convert``: the recording as FSR with provenance; FSR needs nothing."""
    source = source_for(item.input)
    model = open_recording(item.input, options=options.opening)  # damaged: fails
    if source.name == "fsr":  # as recover tells FSR from the rest
        return {
            "status": "skipped",
            **_integrity(model),
            "output": None,
            "bytes": 0,
            "note": "an FSR recording needs no conversion",
        }
    conversion = convert_recording(
        item.input, _output(item), overwrite=item.overwrite, options=options.opening
    )
    return {
        "status": "ok",
        **_integrity(model),
        "bytes": conversion.size_bytes,
        "records": conversion.records,
        "summary": conversion.summary,
    }


def _resimulate(
    item: WorkItem, options: BatchOptions, digest: Digest
) -> dict[str, Any]:
    """``replay --mode resimulate``, then the comparison of source and replay."""
    from fsr_core.compare import compare_recordings
    from fsr_core.replay.engine import replay_file
    from fsr_core.simulation.protocol import ReplayMode, ReplayOptions, ReplayOutcome

    replay_options = ReplayOptions(
        mode=ReplayMode.RESIMULATE,
        with_recorded_force=options.with_recorded_force,
        overwrite=item.overwrite,
    )
    replay = replay_file(item.input, _output(item), replay_options)
    if replay.outcome is not ReplayOutcome.SUCCEEDED or replay.output is None:
        raise ReplayError(replay.message or "the replay failed", path=item.input)
    model = open_recording(item.input, options=options.opening)
    comparison = compare_recordings(model, open_recording(replay.output))
    return {
        "status": "ok",
        **_integrity(model),
        "bytes": replay.output.stat().st_size,
        "simulator": replay.simulator,
        "comparison": comparison_facts(comparison),
    }


def _index(item: WorkItem, options: BatchOptions, digest: Digest) -> dict[str, Any]:
    """Return what an index lists of the recording; ok when it is valid."""
    entry: dict[str, Any] = {
        "digest_of": digest.kind,
        "size_bytes": digest.size_bytes,
        "sha256": digest.sha256,
    }
    from app.headless.verified_report import verified_report

    try:
        report = verified_report(item.input, options.opening)
    except (FsrError, ValueError) as exc:
        reason = str(exc)
        entry.update(source=_source_name(item), valid=False, reason=reason)
        entry.update(integrity="invalid", duration_s=None, description=None)
        entry["facts"] = {}
        return {"status": "failed", "error": reason, "bytes": 0, "entry": entry}
    entry.update(key_facts(report))
    problem = "" if entry["valid"] else first_problem(report, item.input)
    entry["reason"] = problem or entry["reason"]
    outcome = {
        "status": "ok" if entry["valid"] else "failed",
        "integrity": entry["integrity"],
        "entry": entry,
    }
    if problem:
        outcome["error"] = problem
    return {**outcome, "bytes": digest.size_bytes}


def _check(item: WorkItem, options: BatchOptions, digest: Digest) -> dict[str, Any]:
    """Check one recording on its own: its metrics and flags.

    The dataset-level flags come later, in the parent, once every item of the
    dataset is measured (:mod:`app.headless.batch.check_report`).
    """
    from fsr_core.checks import Thresholds, check_recording

    model = open_recording(item.input, options=options.opening)
    result = check_recording(model, options.thresholds or Thresholds())
    return {
        "status": "ok",
        "bytes": digest.size_bytes,
        **_integrity(model),
        **result.to_json(),
    }


def _source_name(item: WorkItem) -> str | None:
    try:
        return source_for(item.input).name
    except FsrError:
        return None


VERBS: Final[dict[Verb, _Verb]] = {
    Verb.VALIDATE: _validate,
    Verb.EXPORT: _export,
    Verb.CONVERT: _convert,
    Verb.RESIMULATE: _resimulate,
    Verb.INDEX: _index,
    Verb.CHECK: _check,
}
"""The function of each verb."""
