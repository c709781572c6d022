"""Re-simulate a skelarm log through skelarm itself, into a new ``.sklog.npz``.

:func:`plan_for` says, before anything runs, what a re-run of a log will be
(skelarm's reproducibility tiers, :mod:`.reproducibility`);
:func:`resimulate_log` runs it. The source is a ``.sklog.npz`` log or an FSR
file converted from one (``fsr-viewer convert``). The re-run is skelarm's own
:meth:`StateLog.save` output, so ``fsr-viewer compare LOG RERUN`` compares the
recording with the re-run channel by channel, and both open in the player.

The output appears only when complete and checked (a hidden sibling is written,
read back with the viewer's safe log reader, then linked or renamed into
place); an existing output is kept unless ``overwrite``.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.errors import (
    AdapterUnavailableError,
    FsrError,
    ReplayError,
    TargetExistsError,
    WriteFailedError,
)
from fsr_core.format.reader import FsrReader
from fsr_core.logs.skelarm.convert import SIMULATOR_NAME, file_sha256
from fsr_core.logs.skelarm.converted import is_converted_log, read_converted
from fsr_core.logs.skelarm.log import CheckedLog, check_log
from fsr_core.simulation.lifecycle import check_pinned
from fsr_core.simulation.output import check_output
from fsr_core.simulation.protocol import (
    CancelToken,
    ProgressFn,
    ReplayMode,
    ReplayOutcome,
    ReplayResult,
)
from fsr_core.simulators.skelarm.availability import unavailable_reason
from fsr_core.simulators.skelarm.reproducibility import (
    Reproducibility,
    ResimulationPlan,
    plan_resimulation,
)
from fsr_core.simulators.skelarm.runner import ChildOutcome, run_child, write_request

__all__ = ["is_skelarm_source", "plan_for", "publish", "read_source", "resimulate_log"]

_ZIP_MAGIC = b"PK\x03\x04"


def _is_zip(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) == _ZIP_MAGIC
    except OSError:
        return False


def read_source(source: Path) -> CheckedLog:
    """Read a ``.sklog.npz`` log, or the log an FSR file converted from one holds.

    Raises
    ------
    FsrError
        The file cannot be read, or is not a skelarm log (the message names it).
    """
    if _is_zip(source):
        return check_log(source)
    with FsrReader.open(source) as reader:
        if not is_converted_log(reader.metadata):
            raise ReplayError(
                "not a skelarm log: neither a .sklog.npz nor an FSR file "
                "converted from one (fsr-viewer convert)",
                path=source,
            )
        return read_converted(reader, source)


def is_skelarm_source(source: Path) -> bool:
    """Whether ``source`` is a skelarm log or an FSR file converted from one."""
    try:
        read_source(source)
    except FsrError:
        return False
    return True


def plan_for(source: str | os.PathLike[str]) -> ResimulationPlan:
    """Say what re-simulating ``source`` will give, before running anything.

    Raises
    ------
    FsrError
        The source is not a readable skelarm log.
    """
    log = read_source(Path(source))
    return plan_resimulation(log.meta, log.arrays, log.times_s)


def _request(log: CheckedLog, folder: Path, force: bool, stamp: dict[str, Any]) -> Path:
    described = log.meta.get("channels")
    described = described if isinstance(described, dict) else {}
    options = {"resimulation": stamp, "channel_meta": described}
    if not force:
        return write_request(
            folder / "request.npz", "rerun", options, meta=log.meta_text
        )
    channels = log.arrays
    friction = channels.get("friction")
    if friction is None:
        friction = np.zeros(len(log.times_s))
    active = channels.get("active_target")
    return write_request(
        folder / "request.npz",
        "rerun_with_force",
        options,
        meta=log.meta_text,
        time=log.times_s,
        ext_force=channels["ext_force"],
        friction=friction,
        **({} if active is None else {"active_target": active}),
    )


def _link_or_rename(written: Path, output: Path) -> None:
    """Put ``written`` at ``output`` unless something is there already.

    A hard link fails if ``output`` exists, so nothing is ever overwritten; on a
    file system without hard links, the name is checked and then renamed to.
    """
    try:
        os.link(written, output)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
        if os.path.lexists(output):
            raise FileExistsError(errno.EEXIST, "exists", str(output)) from exc
        written.replace(output)


def publish(written: Path, output: Path, *, overwrite: bool) -> None:
    """Move the finished ``written`` file to ``output`` (never over it unless asked).

    Raises
    ------
    TargetExistsError
        ``output`` appeared meanwhile and ``overwrite`` is false.
    WriteFailedError
        The file could not be moved into place.
    """
    try:
        if overwrite:
            written.replace(output)
        else:
            _link_or_rename(written, output)
    except FileExistsError as exc:
        raise TargetExistsError(
            "file already exists; a re-simulation never overwrites it unless asked",
            path=output,
        ) from exc
    except OSError as exc:
        raise WriteFailedError.from_os_error(
            "could not publish the re-run", exc, output
        ) from exc


def _check_plan(source: Path, plan: ResimulationPlan, force: bool) -> None:
    if plan.tier is Reproducibility.IMPOSSIBLE:
        raise ReplayError(plan.refusal or "cannot re-simulate", path=source)
    if force and not plan.recorded_force:
        raise ReplayError(
            "with_recorded_force needs a recorded ext_force channel; the log has none",
            path=source,
        )
    reason = unavailable_reason()
    if reason is not None:
        raise AdapterUnavailableError(f"simulator 'skelarm' is unavailable: {reason}")


def _result(
    outcome: ChildOutcome, output: Path | None, digest: str, notes: tuple[str, ...]
) -> ReplayResult:
    if outcome.cancelled:
        kind, message = ReplayOutcome.CANCELLED, "cancelled; nothing was written"
    elif output is None:
        kind = ReplayOutcome.FAILED
        message = f"skelarm re-simulation failed: {outcome.message or outcome.status}"
    else:
        kind, message = ReplayOutcome.SUCCEEDED, f"re-run written to {output}"
    return ReplayResult(
        outcome=kind,
        output=output,
        source_sha256=digest,
        mode=ReplayMode.RESIMULATE,
        simulator=SIMULATOR_NAME,
        message=message,
        notes=notes,
    )


def resimulate_log(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    with_recorded_force: bool = False,
    overwrite: bool = False,
    pinned_sha256: str | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> ReplayResult:
    """Re-run ``source`` from its embedded config through skelarm into ``output``.

    Parameters
    ----------
    source
        A skelarm ``.sklog.npz`` log, or an FSR file converted from one.
    output
        The re-run, written as a ``.sklog.npz`` by skelarm.
    with_recorded_force
        Add the recorded pushes (``ext_force``) and friction to the controller's
        torque, over the recorded span (interactive logs only).
    overwrite
        Replace an existing ``output``.
    pinned_sha256
        When given, the source must have exactly this digest.
    progress
        Called with ``(0, 1)`` before the run and ``(1, 1)`` after.
    cancel
        Set it to kill the run; nothing is published.

    Returns
    -------
    ReplayResult
        The outcome, the frames the re-run holds (``steps``) and the plan's
        notes for this run (what the re-run is, said up front).

    Raises
    ------
    ReplayError
        The source cannot be re-simulated (no embedded configuration, no
        recorded force when asked for one, a pinned digest that differs).
    AdapterUnavailableError
        skelarm cannot run here (the message says what to install).
    TargetExistsError
        ``output`` exists and ``overwrite`` is false.
    """
    source_path, output_path = Path(source), Path(output)
    check_output(source_path, output_path, overwrite=overwrite)
    log = read_source(source_path)
    plan = plan_resimulation(log.meta, log.arrays, log.times_s)
    _check_plan(source_path, plan, with_recorded_force)
    digest = file_sha256(source_path)
    check_pinned(digest, pinned_sha256, source_path)
    stamp = {
        "source": source_path.name,
        "source_sha256": digest,
        "tier": plan.tier.value,
        "with_recorded_force": with_recorded_force,
    }
    started = time.perf_counter()
    if progress is not None:
        progress(0, 1)
    folder = Path(tempfile.mkdtemp(prefix=".fsr-skelarm-", dir=output_path.parent))
    try:
        written = folder / f"rerun-{secrets.token_hex(4)}.sklog.npz"
        request = _request(log, folder, with_recorded_force, stamp)
        outcome = run_child(request, written, cancel=cancel)
        published, frames = None, 0
        if outcome.status == 0 and not outcome.cancelled:
            frames = len(check_log(written).times_s)  # the viewer must open it
            publish(written, output_path, overwrite=overwrite)
            published = output_path
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if progress is not None and published is not None:
        progress(1, 1)
    result = _result(outcome, published, digest, plan.notes_for(with_recorded_force))
    return replace(result, wall_s=time.perf_counter() - started, steps=frames)
