"""Simulator adapters: a protocol and a registry, found by name.

The replay engine and the command line never import a simulator directly; they
ask the registry for an adapter by the name a recording's
``simulation_contract`` gives. An adapter whose simulator package is missing
stays registered and says why it cannot run (:meth:`unavailable_reason`), so a
missing optional dependency is an actionable message, never an import error.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from fsr_core.errors import AdapterUnavailableError

__all__ = [
    "SimulatorAdapter",
    "adapter_names",
    "get_adapter",
    "register_adapter",
]


class SimulatorAdapter(Protocol):
    """What every simulator adapter offers."""

    @property
    def name(self) -> str:
        """Registry name, as recordings' ``simulation_contract.simulator`` gives it."""
        ...

    def unavailable_reason(self) -> str | None:
        """Return ``None`` if the simulator runs here, else why not."""
        ...

    def simulate(
        self, config: dict[str, Any], output: str | os.PathLike[str], **options: Any
    ) -> Any:
        """Run a resolved scenario config and record it to ``output``."""
        ...


@dataclass(frozen=True)
class _Entry:
    factory: Callable[[], SimulatorAdapter]


_REGISTRY: dict[str, _Entry] = {}


def register_adapter(name: str, factory: Callable[[], SimulatorAdapter]) -> None:
    """Register an adapter factory under ``name`` (a programmer error if taken)."""
    if name in _REGISTRY:
        raise ValueError(f"simulator adapter {name!r} is already registered")
    _REGISTRY[name] = _Entry(factory)


def adapter_names() -> tuple[str, ...]:
    """Names of every registered adapter."""
    _register_builtins()
    return tuple(sorted(_REGISTRY))


def get_adapter(name: str, *, require_available: bool = True) -> SimulatorAdapter:
    """Return the adapter called ``name``.

    Raises
    ------
    AdapterUnavailableError
        No such adapter, or (with ``require_available``) it cannot run here.
    """
    _register_builtins()
    entry = _REGISTRY.get(name)
    if entry is None:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise AdapterUnavailableError(
            f"no simulator adapter named {name!r} (known: {known})"
        )
    adapter = entry.factory()
    reason = adapter.unavailable_reason() if require_available else None
    if reason is not None:
        raise AdapterUnavailableError(f"simulator {name!r} is unavailable: {reason}")
    return adapter


def _register_builtins() -> None:
    if "planar_arm" not in _REGISTRY:
        from fsr_core.simulators.planar_arm.adapter import PlanarArmAdapter

        _REGISTRY["planar_arm"] = _Entry(PlanarArmAdapter)
    if "mujoco" not in _REGISTRY:
        from fsr_core.simulators.mujoco.adapter import MujocoAdapter

        _REGISTRY["mujoco"] = _Entry(MujocoAdapter)
    if "skelarm" not in _REGISTRY:
        from fsr_core.simulators.skelarm.adapter import SkelarmAdapter

        _REGISTRY["skelarm"] = _Entry(SkelarmAdapter)
