"""``inspect --verify`` with the checks that make a recording invalid.

A file whose records all read can still be wrong in a way that breaks what
reads it: a stream's times jump or go backwards, a camera's frames sit away
from the rows they belong to, a value is NaN. :func:`verified_report` runs
the checks of :mod:`fsr_core.checks` whose kinds are errors
(:func:`~fsr_core.checks.error_flags`: ``timestamp_gap``,
``timestamp_disorder``, ``video_desync``, and ``non_finite`` in the joints or
the action) after the source's own verification; each flag becomes one of
the report's problems, the report says ``valid: false``, and its ``checks``
entry lists the flags. ``inspect
--verify``, ``batch validate`` and ``batch index`` use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsr_core.checks import check_recording, error_flags
from fsr_core.errors import FsrError
from fsr_core.sources import expand_recordings, inspect_recording, open_recording
from fsr_core.sources.open_options import OpenOptions

__all__ = ["verified_report"]


def verified_report(path: Path, options: OpenOptions | None = None) -> dict[str, Any]:
    """Return ``inspect_recording(path, verify=True)`` with the checks' errors in.

    A path that stands for several recordings (a dataset of episodes, an
    HDF5 file of demos, an ``.rrd`` of several recordings) has each of them
    checked; its flags and problems name the episode.

    Raises
    ------
    FsrError
        The recording cannot be opened (as :func:`inspect_recording` raises).
    """
    report = inspect_recording(path, verify=True, options=options)
    targets = expand_recordings([path])
    several = targets != [path]
    checks: list[dict[str, Any]] = []
    problems: list[str] = []
    for target in targets:
        try:
            model = open_recording(target, options=options)
            result = check_recording(model, decode_frames=False)
        except FsrError:
            if report.get("valid") and not several:
                raise
            continue  # the source's own verification has said why already
        where = f"{target.name}: " if several else ""
        for flag in error_flags(model, result.flags):
            checks.append(
                flag.to_json() | ({"episode": target.name} if several else {})
            )
            problems.append(
                f"{where}{flag.kind.value}: {flag.channel}: {flag.message} "
                f"({flag.start_s:.4g}-{flag.end_s:.4g} s)"
            )
    report["checks"] = checks
    if not checks:
        return report
    verification = report.setdefault("verification", {"problems": []})
    found = list(verification.get("problems") or [])
    found.extend(problems)
    verification["problems"] = found[:100]
    count = int(verification.get("problem_count") or 0)
    verification["problem_count"] = count + len(problems)
    verification["payloads_digest_verified"] = False
    report["valid"] = False
    return report
