"""Handler of ``fsr-viewer batch VERB PATH...``: one verb over many recordings.

``validate`` runs ``inspect --verify`` on each recording, ``export`` writes
``DIR/<name>.mp4`` with the options of ``--export``, ``convert`` writes FSR
with provenance, ``resimulate`` replays through the recording's simulator and
compares, ``index -o INDEX.json`` publishes a playlist index. The items run in
local worker processes (``--jobs``) or as Ray tasks (``--engine ray``); each
result is a line of ``--report``, the progress shows on stderr and a summary
on stdout. Exit 0 when every recording succeeded (or was skipped), 1 when one
failed, 2 on a usage error, 130/143 when stopped by Ctrl-C/SIGTERM.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.headless.batch.engines import Engine
from app.headless.batch.index_output import index_entries
from app.headless.batch.items import BatchOptions, Verb, WorkItem
from app.headless.batch.options import add_batch_arguments, check_usage
from app.headless.batch.plan import plan_items
from app.headless.batch.progress import BatchProgress
from app.headless.batch.report import ReportWriter
from app.headless.batch.resume import attach_priors, read_priors
from app.headless.batch.work import STATUSES, failed_result
from app.headless.options import open_options
from fsr_core.errors import TargetExistsError
from fsr_core.output_paths import check_output_path, prepare_output_folder
from fsr_core.playlists.index_file import write_index

__all__ = ["COMMANDS", "HANDLERS", "add_parsers", "run_batch"]

COMMANDS = frozenset({"batch"})
"""Subcommand names this module adds."""


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``batch`` to the command line."""
    batch = commands.add_parser(
        "batch",
        help="validate, export, convert, re-simulate or index many recordings",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_batch_arguments(batch)
    batch.set_defaults(batch_parser=batch)


def run_batch(args: argparse.Namespace) -> int:
    """Run one batch (see the module docstring); return the exit code."""
    check_usage(args.batch_parser, args)
    verb = Verb(args.verb)
    if verb.writes_files:
        prepare_output_folder(args.out, what="batch output")
    if verb is Verb.INDEX:
        check_output_path(args.output, args.paths)
    items = plan_items(
        verb,
        args.paths,
        out_dir=args.out,
        suffix=_suffix(args, verb),
        index_folder=args.output.parent if verb is Verb.INDEX else None,
        overwrite=args.overwrite,
    )
    if args.resume:
        items = attach_priors(items, read_priors(args.report, verb))
    results = _run(args, verb, items)
    if verb is Verb.INDEX:
        _publish_index(args.output, items, results)
    return 1 if any(result["status"] == "failed" for result in results) else 0


def _suffix(args: argparse.Namespace, verb: Verb) -> str:
    return {Verb.EXPORT: f".{args.format}", Verb.CONVERT: ".fsr"}.get(verb, "")


def _options(args: argparse.Namespace, verb: Verb) -> BatchOptions:
    video = None
    if verb is Verb.EXPORT:
        from app.canvas.view_model import DEFAULT_VIEW_SIZE, ViewModel
        from app.headless.export.request import VideoRequest

        shown = ViewModel(
            view=args.view,
            camera=args.camera,
            size=args.size or DEFAULT_VIEW_SIZE,
            panel=args.panel,
            speed=args.speed,
            environment=args.environment,
        )
        if args.show_com:
            shown = shown.with_overlay("com", True)
        video = VideoRequest(
            Path(), Path(), shown, fps=args.fps, start_s=args.start, end_s=args.end
        )
    return BatchOptions(
        verb=verb,
        video=video,
        with_recorded_force=args.with_recorded_force,
        opening=open_options(args),
    )


def _engine(args: argparse.Namespace) -> Engine:
    if args.engine == "ray":
        from app.headless.batch.engines.ray_engine import RayEngine

        return RayEngine(
            args.jobs,
            address=args.address,
            cpus_per_task=args.cpus_per_task,
            timeout_s=args.timeout,
            memory_limit=args.memory_limit,
            ship_inputs=args.inputs == "object-store",
        )
    from app.headless.batch.engines.local import LocalEngine

    return LocalEngine(
        args.jobs, timeout_s=args.timeout, memory_limit=args.memory_limit
    )


def _run(
    args: argparse.Namespace, verb: Verb, items: list[WorkItem]
) -> list[dict[str, Any]]:
    """Run the items with the report and the progress; print the summary."""
    report = ReportWriter(args.report, append=args.resume, inputs=args.paths)
    progress = BatchProgress(len(items))
    results: list[dict[str, Any]] = []
    started_s = time.monotonic()

    def finished(result: dict[str, Any]) -> None:
        line = {"verb": verb.value, **result}
        report.write(line)
        progress.update(line)
        results.append(line)

    try:
        for item in items:
            if item.problem:
                finished(failed_result(item, item.problem))
        runnable = [item for item in items if not item.problem]
        if runnable:
            _engine(args).run(runnable, _options(args, verb), finished)
    finally:
        progress.close()
        report.close()
    _summary(verb, results, time.monotonic() - started_s, args.report)
    return results


def _summary(
    verb: Verb, results: list[dict[str, Any]], seconds: float, report: Path | None
) -> None:
    counts = dict.fromkeys(STATUSES, 0)
    for result in results:
        counts[result["status"]] = counts.get(result["status"], 0) + 1
    rate = len(results) / seconds if seconds > 0 else 0.0
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


HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {"batch": run_batch}
"""Handler of each subcommand name."""
