"""The five batch verbs, each on one recording: what goes into its result.

Each verb takes the item, the run's options and the input's digest, and
returns the keys it adds to the result (at least ``status`` and ``bytes``).
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
from fsr_core.sources import (
    convert_recording,
    inspect_recording,
    open_recording,
    source_for,
)

__all__ = ["VERBS"]

_Verb = Callable[[WorkItem, BatchOptions, Digest], dict[str, Any]]


def _validate(item: WorkItem, options: BatchOptions, digest: Digest) -> dict[str, Any]:
    """``inspect --verify``: ok when the recording is valid."""
    report = inspect_recording(item.input, verify=True, options=options.opening)
    found = {
        "bytes": digest.size_bytes,
        "source": report.get("source"),
        "integrity": (report.get("integrity") or {}).get("status"),
        "duration_s": report.get("duration_s"),
    }
    if report.get("valid") is True:
        return {"status": "ok", **found}
    return {"status": "failed", "error": first_problem(report, item.input), **found}


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
        "bytes": video.path.stat().st_size,
        "frames": video.frames,
        "frame_size": f"{video.width}x{video.height}",
    }


def _convert(item: WorkItem, options: BatchOptions, digest: Digest) -> dict[str, Any]:
    """``convert``: the recording as FSR with provenance; FSR needs nothing."""
    source = source_for(item.input)
    if source.name == "fsr":  # as recover tells FSR from the rest
        open_recording(item.input, options=options.opening)  # damaged: fails here
        return {
            "status": "skipped",
            "output": None,
            "bytes": 0,
            "note": "an FSR recording needs no conversion",
        }
    conversion = convert_recording(
        item.input, _output(item), overwrite=item.overwrite, options=options.opening
    )
    return {
        "status": "ok",
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
    comparison = compare_recordings(
        open_recording(item.input, options=options.opening),
        open_recording(replay.output),
    )
    return {
        "status": "ok",
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
    try:
        report = inspect_recording(item.input, verify=True, options=options.opening)
    except (FsrError, ValueError) as exc:
        reason = str(exc)
        entry.update(source=_source_name(item), valid=False, reason=reason)
        entry.update(integrity="invalid", duration_s=None, description=None)
        entry["facts"] = {}
        return {"status": "failed", "error": reason, "bytes": 0, "entry": entry}
    entry.update(key_facts(report))
    problem = "" if entry["valid"] else first_problem(report, item.input)
    entry["reason"] = problem or entry["reason"]
    outcome = {"status": "ok" if entry["valid"] else "failed", "entry": entry}
    if problem:
        outcome["error"] = problem
    return {**outcome, "bytes": digest.size_bytes}


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
}
"""The function of each verb."""
