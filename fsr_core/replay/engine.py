"""Replay one recording into a new FSR file: render or resimulate.

:func:`replay_file` is the one entry point (the command line and the window
call it):

1. refuse an output that exists (unless ``overwrite``) or is the source;
2. open the source within the input byte limit and, when pinned, with its
   digest;
3. pick the simulator: ``simulator`` when given, else the recording's
   ``simulation_contract.simulator``, through the simulator registry; it must
   be available, able to replay, and support the mode;
4. run the preflight of :mod:`fsr_core.simulation.preflight` for the mode (full
   validation, then render state, or every authored-control and target check);
5. hand over to the adapter with the digest it checked pinned, so the adapter
   reads exactly the bytes the preflight passed.

A file a simulator claims (a log of another tool, or an FSR file converted
from one: :meth:`~fsr_core.simulation.protocol.Simulator.claims_source`) skips
steps 2-4: the engine checks the mode, the simulator's availability and its
``can_replay``, and the simulator checks the rest itself.

Preflight failures raise :class:`~fsr_core.errors.ReplayError` before any
command is submitted or frame rendered. Once the adapter runs, the outcome is
in the returned :class:`~fsr_core.simulation.protocol.ReplayResult`: succeeded
(the output is published), failed or cancelled (nothing is published).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from fsr_core.errors import FsrError
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.simulation.lifecycle import ReplayCancelledError, cancel_check
from fsr_core.simulation.output import check_output
from fsr_core.simulation.preflight import (
    authored_chunks,
    check_generation_plan,
    check_render_source,
    open_checked,
    preflight_error,
    validate_fully,
)
from fsr_core.simulation.protocol import (
    CancelToken,
    ContractingAdapter,
    ProgressFn,
    ReplayingAdapter,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
    ReplayResult,
    Simulator,
    Timing,
)
from fsr_core.simulation.registry import (
    check_available,
    claiming_simulator,
    get_adapter,
)
from fsr_core.simulation.target_checks import check_chunks_fit, check_contract

__all__ = ["PASSIVE_NOTE", "replay_adapter", "replay_file"]

#: What a file replayed in each mode is, as a refusal says it.
_REPLAYED: dict[ReplayMode, str] = {
    ReplayMode.RENDER: "re-rendered",
    ReplayMode.RESIMULATE: "re-simulated",
}

#: What a re-simulation of a run that authored no command says it did.
PASSIVE_NOTE = (
    "the source authored no control command (a passive run): the model was "
    "stepped with none, from the recorded start to the recorded end"
)


def replay_file(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str],
    options: ReplayOptions,
    *,
    simulator: str | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelToken | None = None,
) -> ReplayResult:
    """Replay ``source`` into the new FSR file ``output``.

    Parameters
    ----------
    source
        The recording.
    output
        The new file; published atomically, only when the replay succeeds.
    options
        Mode, timing, execution, limits, overwrite.
    simulator
        Registry name of the simulator to replay on; by default the one the
        recording's ``simulation_contract`` names.
    progress
        Called with ``(done, total)`` steps as the replay runs.
    cancel
        Set it to stop the replay at its next step (nothing is published).

    Returns
    -------
    ReplayResult
        The outcome, the published file (``None`` unless it succeeded), the
        source digest, the mode and the simulator.

    Raises
    ------
    ReplayError
        A preflight check failed (nothing was submitted or written).
    AdapterUnavailableError
        The simulator is unknown or cannot run here (the message names the
        extra to install).
    TargetExistsError
        ``output`` exists and ``options.overwrite`` is false.
    """
    source_path, output_path = Path(source), Path(output)
    check_output(source_path, output_path, overwrite=options.overwrite)
    claimant = claiming_simulator(source_path)
    if claimant is not None and simulator in (None, claimant.name):
        _check_settings(claimant, source_path, options)
        return _replay_claimed(
            claimant, source_path, output_path, options, progress, cancel
        )
    try:
        adapter, digest, passive = _preflight(source_path, options, simulator, cancel)
    except ReplayCancelledError as exc:
        return _cancelled(exc, options, simulator)
    except FsrError as exc:
        raise exc.locate(path=source_path, section="preflight") from exc.__cause__
    pinned = dataclasses.replace(options, pinned_sha256=digest)
    try:
        result = adapter.replay(
            source_path, output_path, pinned, progress=progress, cancel=cancel
        )
    except ReplayCancelledError as exc:  # while the adapter re-read the source
        return _cancelled(exc, options, adapter.name, digest)
    if passive:
        result = dataclasses.replace(result, notes=(PASSIVE_NOTE, *result.notes))
    return result


def _check_settings(
    simulator: Simulator | ReplayingAdapter, source: Path, options: ReplayOptions
) -> None:
    """Refuse a ``--set`` name the simulator does not take, naming those it does."""
    known = tuple(getattr(simulator, "replay_settings", ()))
    for name, _ in options.settings:
        if name not in known:
            takes = f"it takes {', '.join(known)}" if known else "it takes none"
            raise preflight_error(
                source,
                f"simulator {simulator.name!r} has no replay setting "
                f"{name[:80]!r} ({takes})",
            )


def _cancelled(
    exc: ReplayCancelledError,
    options: ReplayOptions,
    simulator: str | None,
    digest: str = "",
) -> ReplayResult:
    """Return the result of a replay cancelled before its run began."""
    return ReplayResult(
        outcome=ReplayOutcome.CANCELLED,
        output=None,
        source_sha256=digest,
        mode=options.mode,
        simulator=simulator or "",
        message=f"{exc.reason}; nothing was written",
    )


def _preflight(
    source: Path,
    options: ReplayOptions,
    simulator: str | None,
    cancel: CancelToken | None,
) -> tuple[ReplayingAdapter, str, bool]:
    """Run every check of ``options.mode``.

    Return the adapter, the digest, and whether the source is a passive run
    to re-simulate (an authored control stream without a chunk). A cancel is
    honoured between the chunks of the full read and the hash.
    """
    check = cancel_check(cancel, source, "during the preflight")
    passive = False
    with open_checked(source, options, check) as reader:
        adapter = replay_adapter(reader, options.mode, simulator)
        _check_settings(adapter, source, options)
        validate_fully(reader, check)
        if options.mode is ReplayMode.RENDER:
            check_render_source(reader)
        else:
            passive = not _check_resimulation(reader, adapter, options)
            if passive and options.timing is Timing.AS_FAST_AS_VALID:
                raise preflight_error(
                    source,
                    "the source authored no control command (a passive run), so "
                    "as_fast_as_valid would stop at once; re-simulate it with "
                    "recorded_sim_time timing",
                )
        digest = reader.sha256(check)
    reason = adapter.can_replay(source)
    if reason is not None:
        raise preflight_error(
            source, f"simulator {adapter.name!r} cannot replay it: {reason}"
        )
    return adapter, digest, passive


def replay_adapter(
    reader: FsrReader, mode: ReplayMode, simulator: str | None = None
) -> ReplayingAdapter:
    """Return the adapter that replays ``reader``'s recording in ``mode``.

    Raises
    ------
    ReplayError
        No simulator is named, or it cannot replay, or not in this mode.
    AdapterUnavailableError
        The simulator is unknown or unavailable here.
    """
    name = simulator
    if name is None:
        contract = reader.metadata.get("simulation_contract")
        named = contract.get("simulator") if isinstance(contract, dict) else None
        if not isinstance(named, str):
            raise preflight_error(
                reader.path,
                "the source names no simulator (no simulation_contract.simulator); "
                "choose one explicitly",
            )
        name = named
    adapter = get_adapter(name)
    if not isinstance(adapter, ReplayingAdapter):
        raise preflight_error(
            reader.path, f"simulator {name!r} cannot replay recordings"
        )
    if mode not in adapter.capabilities():
        modes = ", ".join(sorted(item.value for item in adapter.capabilities()))
        raise preflight_error(
            reader.path,
            f"simulator {name!r} cannot replay in {mode.value} mode "
            f"(it supports: {modes or 'none'})",
        )
    return adapter


def _replay_claimed(
    simulator: Simulator,
    source: Path,
    output: Path,
    options: ReplayOptions,
    progress: ProgressFn | None,
    cancel: CancelToken | None,
) -> ReplayResult:
    """Hand a file ``simulator`` claims (not an FSR recording of its own) to it.

    Such a file (a skelarm log) holds what its own simulator needs, not the
    authored control or render state the FSR preflight checks: the simulator
    checks it (:meth:`can_replay`, then in :meth:`replay`).
    """
    modes = simulator.capabilities()
    if options.mode not in modes:
        only = " or ".join(_REPLAYED[mode] for mode in ReplayMode if mode in modes)
        flags = " or ".join(
            f"--mode {mode.value}" for mode in ReplayMode if mode in modes
        )
        said = f"can only be {only} ({flags})" if modes else "cannot be replayed"
        raise preflight_error(
            source, f"this file is replayed by simulator {simulator.name!r} and {said}"
        )
    check_available(simulator)
    reason = simulator.can_replay(source)
    if reason is not None:
        raise preflight_error(
            source, f"simulator {simulator.name!r} cannot replay it: {reason}"
        )
    return simulator.replay(source, output, options, progress=progress, cancel=cancel)


def _check_resimulation(
    reader: FsrReader, adapter: ReplayingAdapter, options: ReplayOptions
) -> int:
    """Run checks 4-10 of the preflight; return how many chunks were authored."""
    chunks = authored_chunks(reader)
    if options.with_recorded_force:
        _check_recorded_force(reader)
    if isinstance(adapter, ContractingAdapter):
        contract = adapter.target_contract(reader.metadata)
        check_contract(reader.path, reader.metadata, contract)
        check_generation_plan(reader, contract)
        stream = next(
            info.name
            for info in reader.streams.values()
            if info.spec.kind is StreamKind.CONTROL_AUTHORED
        )
        check_chunks_fit(reader.path, stream, chunks, contract)
    return len(chunks)


def _check_recorded_force(reader: FsrReader) -> None:
    for info in reader.streams.values():
        channels = info.spec.channels or ()
        if info.spec.kind is StreamKind.NUMERIC and "ext_fx" in channels:
            return
    raise preflight_error(
        reader.path,
        "with_recorded_force needs a recorded external force channel "
        "(ext_fx, ext_fy); the source has none",
    )
