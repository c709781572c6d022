"""Loading the plug-ins of a registry: built-ins by module path, others by entry point.

The simulator registry (:mod:`fsr_core.simulation.registry`) and the source
registry (:mod:`fsr_core.sources.registry`) load their plug-ins the same way:
an object named ``module:attribute``, and the entry points of a group. A plug-in
that cannot be registered is reported through the registry's ``note_problem``
as ``<origin>: <why>``; every other plug-in keeps loading.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable

__all__ = ["PluginRefusedError", "admit", "import_target", "load_entry_points"]

NoteProblem = Callable[[str], None]
"""Records (and logs) why a plug-in was skipped."""

Register = Callable[[str, str, Callable[[], object]], None]
"""Registers an entry point from its name, its origin and the call that loads it."""


class PluginRefusedError(Exception):
    """A plug-in that cannot be registered; the message says why (no type name)."""


def import_target(target: str, package: str | None = None) -> object:
    """Return the object ``module:attribute`` names.

    Parameters
    ----------
    target
        ``module:attribute``; the attribute may be dotted or empty (the module).
    package
        The anchor of a relative module name (``..simulators.x``).
    """
    module_name, _, attribute = target.partition(":")
    found: object = importlib.import_module(module_name, package=package)
    for part in filter(None, attribute.split(".")):
        found = getattr(found, part)
    return found


def admit(origin: str, register: Callable[[], None], note_problem: NoteProblem) -> None:
    """Call ``register``; note anything it raises as a problem of ``origin``."""
    try:
        register()
    except PluginRefusedError as exc:
        note_problem(f"{origin}: {exc}")
    except Exception as exc:  # noqa: BLE001 - a plugin's code may raise anything
        note_problem(f"{origin}: {type(exc).__name__}: {exc}")


def load_entry_points(
    group: str, register: Register, note_problem: NoteProblem
) -> None:
    """Hand every entry point of ``group`` to ``register``, noting what fails.

    ``register`` gets the entry point's name, its origin
    (``plugin 'name' (module:attribute)``) and the call that imports it; it
    raises :class:`PluginRefusedError` or any other error to skip the plug-in.
    """
    # Imported on the first scan (it costs more than the scan, and a command
    # whose file a built-in reads never scans).
    import importlib.metadata

    try:
        entry_points = importlib.metadata.entry_points(group=group)
    except Exception as exc:  # noqa: BLE001 - broken installed metadata
        note_problem(f"entry points {group!r}: {exc}")
        return
    for entry_point in entry_points:
        origin = f"plugin {entry_point.name!r} ({entry_point.value})"
        call = functools.partial(register, entry_point.name, origin, entry_point.load)
        admit(origin, call, note_problem)
