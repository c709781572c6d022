"""Handler of ``fsr-viewer batch VERB PATH...``: one verb over many recordings.

``validate`` runs ``inspect --verify`` on each recording, ``export`` writes
``DIR/<name>.mp4`` with the options of ``--export``, ``convert`` writes FSR
with provenance, ``resimulate`` replays through the recording's simulator and
compares, ``index -o INDEX.json`` publishes a playlist index, ``check``
measures each recording and flags what looks wrong (docs/checks.md; with
``--checks FILE.toml`` thresholds and an ``--html`` page). The items run in
local worker processes (``--jobs``) or as Ray tasks (``--engine ray``); each
result is a line of ``--report``, the progress shows on stderr and a summary
on stdout. Exit 0 when every recording succeeded (or was skipped), 1 when one
failed, 2 on a usage error, 130/143 when stopped by Ctrl-C/SIGTERM. ``check``
exits 0 whenever it ran, whatever it found (a recording that does not open is
a line of its own); 1 when its ``--checks`` file or an output is refused.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.headless.batch.engines import Engine
from app.headless.batch.index_output import index_entries
from app.headless.batch.items import BatchOptions, Verb, WorkItem
from app.headless.batch.live_inputs import check_live_inputs
from app.headless.batch.options import BatchRequest, add_batch_arguments
from app.headless.batch.plan import plan_items
from app.headless.batch.progress import BatchProgress
from app.headless.batch.report import ReportWriter
from app.headless.batch.resume import attach_priors, read_priors
from app.headless.batch.together import check_together
from app.headless.batch.work import STATUSES, failed_result
from app.headless.options import open_options, set_runner
from fsr_core.errors import TargetExistsError
from fsr_core.output_paths import check_output_path, prepare_output_folder
from fsr_core.playlists.index_file import write_index

if TYPE_CHECKING:
    from app.headless.export.request import VideoRequest
    from fsr_core.checks import Thresholds

__all__ = ["COMMANDS", "BatchRequest", "add_parsers", "run_batch"]

COMMANDS = frozenset({"batch"})
"""Subcommand names this module adds."""


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``batch`` to the command line."""
    batch = commands.add_parser(
        "batch",
        help="validate, export, convert, re-simulate, index or check many recordings",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_batch_arguments(batch)
    set_runner(batch, BatchRequest, run_batch)


def run_batch(request: BatchRequest) -> int:
    """Run one batch (see the module docstring); return the exit code."""
    verb = request.verb_kind
    index = _index_output(request)
    if verb.writes_files:
        assert request.out is not None, "a BatchRequest of this verb has --out"
        prepare_output_folder(request.out, what="batch output")
    if index is not None:
        check_output_path(index, request.paths)
    items = plan_items(
        verb,
        request.paths,
        out_dir=request.out,
        suffix=_suffix(request, verb),
        index_folder=index.parent if index is not None else None,
        overwrite=request.overwrite,
    )
    items = check_live_inputs(items, wait=request.wait)
    if request.resume:
        assert request.report is not None, "a BatchRequest with --resume has --report"
        items = attach_priors(items, read_priors(request.report, verb))
    thresholds = _thresholds(request)
    if request.html is not None:
        check_output_path(
            request.html,
            request.paths,
            overwrite=request.overwrite,
            hint=" (use --overwrite)",
        )
    results = _run(request, verb, items, thresholds)
    if index is not None:
        _publish_index(index, items, results)
    if verb is Verb.CHECK:
        if request.html is not None:
            _publish_html(request, results, thresholds)
        return 0
    return 1 if any(result["status"] == "failed" for result in results) else 0


def _thresholds(request: BatchRequest) -> Thresholds | None:
    """Return ``check``'s thresholds (``--checks`` over the defaults); else None."""
    if request.verb_kind is not Verb.CHECK:
        return None
    from fsr_core.checks import Thresholds, read_thresholds

    return Thresholds() if request.checks is None else read_thresholds(request.checks)


def _publish_html(
    request: BatchRequest, results: list[dict[str, Any]], thresholds: Thresholds | None
) -> None:
    from app.headless.batch.check_html import write_check_html
    from fsr_core.checks import Thresholds

    assert request.html is not None, "called for --html only"
    write_check_html(
        request.html,
        results,
        thresholds or Thresholds(),
        overwrite=request.overwrite,
    )
    _out(f"html: {request.html}")


def _index_output(request: BatchRequest) -> Path | None:
    """Return ``-o INDEX.json`` of ``batch index``; None for the other verbs."""
    if request.verb_kind is not Verb.INDEX:
        return None
    assert request.output is not None, "a BatchRequest of index has -o"
    return request.output


def _suffix(request: BatchRequest, verb: Verb) -> str:
    return {Verb.EXPORT: f".{request.format}", Verb.CONVERT: ".fsr"}.get(verb, "")


def _options(
    request: BatchRequest, verb: Verb, thresholds: Thresholds | None
) -> BatchOptions:
    return BatchOptions(
        verb=verb,
        thresholds=thresholds,
        video=_video_template(request) if verb is Verb.EXPORT else None,
        with_recorded_force=request.with_recorded_force,
        opening=open_options(request),
    )


def _video_template(request: BatchRequest) -> VideoRequest:
    """Return the video every ``export`` item writes (each sets source, output)."""
    # Imported here: the export loads PyAV, which no other verb needs.
    from app.headless.export.request import VideoRequest

    return VideoRequest(
        Path(),
        Path(),
        request.view_model(),
        fps=request.fps,
        start_s=request.start,
        end_s=request.end,
    )


def _engine(request: BatchRequest) -> Engine:
    if request.engine == "ray":
        from app.headless.batch.engines.ray_engine import RayEngine

        return RayEngine(
            request.jobs,
            address=request.address,
            cpus_per_task=request.cpus_per_task,
            timeout_s=request.timeout,
            memory_limit=request.memory_limit,
            ship_inputs=request.inputs == "object-store",
        )
    from app.headless.batch.engines.local import LocalEngine

    return LocalEngine(
        request.jobs, timeout_s=request.timeout, memory_limit=request.memory_limit
    )


def _run(
    request: BatchRequest,
    verb: Verb,
    items: list[WorkItem],
    thresholds: Thresholds | None,
) -> list[dict[str, Any]]:
    """Run the items with the report and the progress; print the summary.

    ``check`` holds its lines back until every item is in: the dataset-level
    flags need them all; they are then written in the items' order.
    """
    report = ReportWriter(request.report, append=request.resume, inputs=request.paths)
    progress = BatchProgress(len(items))
    results: list[dict[str, Any]] = []
    started_s = time.monotonic()
    deferred = verb is Verb.CHECK

    def finished(result: dict[str, Any]) -> None:
        line = {"verb": verb.value, **result}
        if not deferred:
            report.write(line)
        progress.update(line)
        results.append(line)

    try:
        for item in items:
            if item.problem:
                finished(failed_result(item, item.problem))
        runnable = [item for item in items if not item.problem]
        if runnable:
            options = _options(request, verb, thresholds)
            if deferred:
                runnable = check_together(runnable, options, finished)
            if runnable:
                _engine(request).run(runnable, options, finished)
        if deferred:
            results = _checked(items, results, thresholds)
            for line in results:
                report.write(line)
    finally:
        progress.close()
        report.close()
    _summary(verb, results, time.monotonic() - started_s, request.report)
    return results


def _checked(
    items: list[WorkItem],
    results: list[dict[str, Any]],
    thresholds: Thresholds | None,
) -> list[dict[str, Any]]:
    """Return ``check``'s results in the items' order, with dataset-level flags."""
    from app.headless.batch.check_report import add_dataset_flags
    from fsr_core.checks import Thresholds

    order = {str(item.input): item.number for item in items}
    ordered = sorted(
        results, key=lambda line: order.get(str(line["input"]), len(order))
    )
    add_dataset_flags(ordered, thresholds or Thresholds())
    return ordered


def _summary(
    verb: Verb, results: list[dict[str, Any]], seconds: float, report: Path | None
) -> None:
    counts = dict.fromkeys(STATUSES, 0)
    for result in results:
        counts[result["status"]] = counts.get(result["status"], 0) + 1
    rate = len(results) / seconds if seconds > 0 else 0.0
    if verb is Verb.CHECK:
        flags = sum(len(result.get("flags") or []) for result in results)
        flagged = sum(bool(result.get("flags")) for result in results)
        counts["flagged"] = flagged
        counts["flags"] = flags
    told = ", ".join(f"{count} {status}" for status, count in counts.items())
    _out(
        f"batch {verb.value}: {len(results)} recordings in {seconds:.1f} s "
        f"({rate:.1f}/s): {told}"
    )
    if report is not None:
        _out(f"report: {report}")


def _publish_index(
    output: Path, items: list[WorkItem], results: list[dict[str, Any]]
) -> None:
    entries = index_entries(output.parent, items, results)
    if not entries:
        sys.stderr.write(
            f"fsr-viewer batch: {output}: not written, no recording could be listed\n"
        )
        return
    created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        write_index(
            output, entries, generator="fsr-viewer batch index", created_utc=created
        )
    except TargetExistsError as exc:
        raise exc.locate(path=output) from None
    invalid = sum(not entry.valid for entry in entries)
    _out(f"{output}: {len(entries)} recordings listed ({invalid} not valid)")


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
