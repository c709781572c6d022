"""One item of a batch, run to its result: the function every engine calls.

:func:`run_item` never raises for a problem of the recording: it returns the
item's result, a dict that becomes one line of the report (``verb``,
``input``, ``output``, ``status``, ``error``, ``seconds``, ``bytes``,
``input_bytes``, ``input_sha256``, ``integrity`` (the input's badge, ``null``
when it could not be opened), ``warning`` when the work succeeded on an input
that is not whole (recovered, degraded), and the verb's own keys). ``status`` is
``ok``, ``skipped`` (``--resume`` found the work done, or there was nothing to
do) or ``failed``. The module imports nothing heavy, so a worker process
starts fast; each verb loads what it needs when it first runs.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any, Final

from app.headless.batch.fault_injection import inject_test_fault
from app.headless.batch.items import BatchOptions, WorkItem
from app.headless.batch.verbs import VERBS
from fsr_core.errors import FsrError
from fsr_core.playlists.digests import Digest
from fsr_core.playlists.episodes import backing_path
from fsr_core.playlists.pinned import recording_digest, verify_indexed

__all__ = [
    "STATUSES",
    "failed_result",
    "remove_partials",
    "run_item",
    "together_result",
]

STATUSES: Final = ("ok", "skipped", "failed")
"""Every ``status`` a result may have; only ``failed`` fails the run."""


def run_item(item: WorkItem, options: BatchOptions) -> dict[str, Any]:
    """Run ``options.verb`` on ``item``; return its result (never raises for data)."""
    started_s = time.perf_counter()
    result = _blank(item)
    try:
        inject_test_fault(item.input)
        digest = _digest(item)
        result.update(input_bytes=digest.size_bytes, input_sha256=digest.sha256)
        prior = item.prior
        if prior is not None and prior.input_sha256 == digest.sha256:
            result.update(prior.extras)
            result.update(
                status="skipped",
                output=None if prior.output is None else str(prior.output),
                bytes=prior.output_bytes,
                note="done by an earlier run, input unchanged (--resume)",
            )
        else:
            result.update(VERBS[options.verb](item, options, digest))
        _warn_of_integrity(result)
    except (FsrError, ValueError, OSError) as exc:
        result.update(status="failed", error=_one_line(exc, item.input))
    except Exception as exc:  # noqa: BLE001 - a worker boundary: report it, go on
        result.update(
            status="failed",
            error=f"internal error ({type(exc).__name__}: {exc}); please report it",
        )
    result["seconds"] = round(time.perf_counter() - started_s, 4)
    return result


def _warn_of_integrity(result: dict[str, Any]) -> None:
    """Add ``warning`` to a result whose input is not whole (recovered, degraded).

    The work succeeded, but on what the reader could make of the input: a
    recording cut short by a crash and recovered exports only what was kept.
    """
    integrity = result.get("integrity")
    if result.get("status") == "failed" or integrity in (None, "valid"):
        return
    reason = result.get("integrity_reason") or ""
    result["warning"] = f"the input is {integrity}" + (f": {reason}" if reason else "")


def failed_result(item: WorkItem, error: str, seconds: float = 0.0) -> dict[str, Any]:
    """Return the result of an item that failed outside :func:`run_item`."""
    result = _blank(item)
    result.update(status="failed", error=error, seconds=round(seconds, 4))
    return result


def together_result(
    item: WorkItem, found: dict[str, Any], seconds: float
) -> dict[str, Any]:
    """Return the result of a ``check`` item checked with others in this process.

    ``found`` is its check result as JSON; the input's digest is taken here,
    as :func:`run_item` takes it.

    Raises
    ------
    FsrError, OSError
        The input cannot be digested (the item is then run on its own).
    """
    result = _blank(item)
    digest = _digest(item)
    result.update(input_bytes=digest.size_bytes, input_sha256=digest.sha256)
    result.update(status="ok", bytes=digest.size_bytes, integrity="valid", **found)
    result["seconds"] = round(seconds, 4)
    return result


def published_result(
    item: WorkItem, since_wall_s: float, seconds: float
) -> dict[str, Any] | None:
    """Return the result of an item whose worker stopped after publishing it.

    A stop can end a worker between the atomic rename of its output and the
    report of it: the output is complete (the final name only ever appears
    complete) but unreported. ``None`` when no output written since
    ``since_wall_s`` (when the item was handed out) is there.
    """
    if item.output is None:
        return None
    try:
        info = item.output.stat()
    except OSError:
        return None
    if info.st_mtime < since_wall_s:
        return None  # an older file (--overwrite would have replaced it)
    result = _blank(item)
    result.update(
        status="ok",
        bytes=info.st_size,
        seconds=round(seconds, 4),
        note="published as the run stopped; reported from the file",
    )
    return result


def remove_partials(output: Path | None) -> None:
    """Remove what a killed worker may have left for ``output``.

    That is the export's ``.NAME.partial`` and the FSR writer's
    ``.NAME.*.fsr-staging``; the final name only ever appears complete.
    """
    if output is None:
        return
    names = (f".{output.name}.partial", f".{output.name}.*.fsr-staging")
    for pattern in names:
        for leftover in output.parent.glob(pattern):
            with contextlib.suppress(OSError):
                leftover.unlink()


def _blank(item: WorkItem) -> dict[str, Any]:
    return {
        "input": str(item.input),
        "output": None if item.output is None else str(item.output),
        "status": "failed",
        "error": None,
        "seconds": 0.0,
        "bytes": 0,
        "input_bytes": None,
        "input_sha256": None,
        "integrity": None,
    }


def _digest(item: WorkItem) -> Digest:
    if item.pinned is not None:
        item.pinned.verify()  # every artifact the replay index pins
    if item.expected is not None:
        return verify_indexed(item.expected)
    return _folder_digest(item.input)


_FOLDER_DIGESTS: dict[tuple[str, tuple[tuple[str, int, int, int], ...]], Digest] = {}
"""Digests of dataset folders this process made, by their files' sizes and times."""
_MAX_REMEMBERED: Final = 16


def _folder_digest(path: Path) -> Digest:
    """Return the recording's digest; a dataset's once per process while unchanged.

    Every episode of a dataset is digested as its whole folder: a worker that
    checks a thousand episodes would hash the dataset a thousand times. The
    folder's digest is kept, under its files' names, sizes, inodes and
    modification times (listed again each time), and made again when any of
    them changes.
    """
    backing = backing_path(path)
    if backing == path or not backing.is_dir():
        return recording_digest(path)
    try:
        key = (str(backing), _tree_signature(backing))
    except OSError:
        return recording_digest(path)  # it says what is wrong, naming the file
    found = _FOLDER_DIGESTS.get(key)
    if found is None:
        found = recording_digest(path)
        if len(_FOLDER_DIGESTS) >= _MAX_REMEMBERED:
            _FOLDER_DIGESTS.clear()
        _FOLDER_DIGESTS[key] = found
    return found


def _tree_signature(folder: Path) -> tuple[tuple[str, int, int, int], ...]:
    entries = []
    for top, folders, files in os.walk(folder, onerror=_raise):
        folders.sort()
        for name in sorted(files):
            path = Path(top) / name
            info = path.lstat()
            relative = str(path.relative_to(folder))
            entries.append((relative, info.st_size, info.st_mtime_ns, info.st_ino))
    return tuple(entries)


def _raise(error: OSError) -> None:
    raise error


def _one_line(exc: BaseException, path: Path) -> str:
    """Return the error as one line that names the file."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if str(path) in text else f"{path}: {text}"
