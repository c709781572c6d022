"""The resimulate preflight's checks against the target simulator's contract.

:func:`check_contract` compares the source's ``simulation_contract`` with the
target's :class:`~fsr_core.simulation.protocol.TargetContract`;
:func:`check_chunks_fit` checks every decoded authored chunk against it. Both
raise :class:`~fsr_core.errors.ReplayError` through
:func:`~fsr_core.simulation.preflight.preflight_error` (the source named,
``section="preflight"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fsr_core.control import AuthoredChunk
from fsr_core.simulation.preflight import SourceChunk, preflight_error
from fsr_core.simulation.protocol import TargetContract

__all__ = ["check_chunks_fit", "check_contract"]


def check_contract(
    path: str, metadata: Mapping[str, Any], contract: TargetContract
) -> None:
    """Compare the source's ``simulation_contract`` with the target's.

    Raises
    ------
    ReplayError
        The source has no contract, or its simulator, axes, step, units or
        frame differ from what the target accepts.
    """
    source = metadata.get("simulation_contract")
    if not isinstance(source, Mapping):
        raise preflight_error(path, "the source has no simulation_contract metadata")
    target = f"the target simulator {contract.simulator!r}"
    simulator = source.get("simulator")
    if simulator != contract.simulator:
        raise preflight_error(
            path,
            f"the source simulation contract is for simulator {simulator!r}; "
            f"{target} replays {contract.simulator!r} recordings",
        )
    axes = source.get("axes")
    if not isinstance(axes, list) or tuple(axes) != contract.axes:
        raise preflight_error(
            path,
            f"the source simulation contract has axes {axes!r}; {target} has "
            f"{list(contract.axes)}",
        )
    if contract.dt_s is not None and source.get("dt_s") != contract.dt_s:
        raise preflight_error(
            path,
            f"the source simulation contract steps {source.get('dt_s')!r} s; "
            f"{target} steps {contract.dt_s} s",
        )
    _check_contract_units(path, source, contract, target)
    frame = source.get("frame", "joint")
    if frame not in contract.frames:
        raise preflight_error(
            path,
            f"the source simulation contract commands in frame {frame!r}; "
            f"{target} accepts {sorted(contract.frames)}",
        )


def _check_contract_units(
    path: str, source: Mapping[str, Any], contract: TargetContract, target: str
) -> None:
    units = source.get("units", {})
    if not isinstance(units, Mapping):
        raise preflight_error(
            path, "the source simulation contract's units are not an object"
        )
    for space, unit in units.items():
        accepted = {str(key): value for key, value in contract.units.items()}
        if space in accepted and accepted[space] != unit:
            raise preflight_error(
                path,
                f"the source simulation contract gives {space} in {unit!r}; "
                f"{target} takes {accepted[space]!r}",
            )


def check_chunks_fit(
    path: str, stream: str, chunks: tuple[SourceChunk, ...], contract: TargetContract
) -> None:
    """Check every chunk against what the target accepts.

    Raises
    ------
    ReplayError
        A chunk's resource, command space, axes, units, interpolation,
        terminal policy or controller is not accepted; the chunk is named.
    """
    for item in chunks:
        problem = _misfit(item.chunk, contract)
        if problem is not None:
            raise preflight_error(
                path,
                f"chunk {item.chunk.chunk_id!r} (generation {item.generation}): "
                f"{problem}",
                stream=stream,
                record=item.record,
            )


def _misfit(chunk: AuthoredChunk, contract: TargetContract) -> str | None:
    name = f"simulator {contract.simulator!r}"
    if chunk.target not in contract.resources:
        return (
            f"resource {chunk.target!r} is not one {name} drives "
            f"({sorted(contract.resources)})"
        )
    unit = contract.units.get(chunk.command_space)
    if unit is None:
        spaces = sorted(str(space) for space in contract.units)
        return f"command space {chunk.command_space.value!r} is not accepted ({spaces})"
    if chunk.axes != contract.axes:
        return f"axes {list(chunk.axes)} are not the target's {list(contract.axes)}"
    for index, found in enumerate(chunk.units):
        if found != unit:
            return (
                f"axis {chunk.axes[index]!r} is in {found!r}; {name} takes "
                f"{chunk.command_space.value} in {unit!r}"
            )
    if chunk.interpolation not in contract.interpolations:
        accepted = sorted(str(item) for item in contract.interpolations)
        return (
            f"interpolation {chunk.interpolation.value!r} is not accepted ({accepted})"
        )
    if chunk.terminal_policy not in contract.terminal_policies:
        accepted = sorted(str(item) for item in contract.terminal_policies)
        return (
            f"terminal policy {chunk.terminal_policy.value!r} is not accepted "
            f"({accepted})"
        )
    if (
        contract.controllers is not None
        and chunk.controller not in contract.controllers
    ):
        return (
            f"controller {chunk.controller!r} is not the target's "
            f"({sorted(contract.controllers)})"
        )
    return None
