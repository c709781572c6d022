"""Importing this module loads the simulator and source registries.

Every verb asks both registries before its first file (which source opens it,
which simulator made it), and loading them imports every built-in adapter and
plugin. The local engine's fork server imports this module
(:mod:`~app.headless.batch.engines.preload`), so its workers fork with the
registries loaded instead of each loading them again.
"""

from __future__ import annotations

from fsr_core.simulation.registry import simulators
from fsr_core.sources.registry import sources

__all__: list[str] = []

simulators()
sources()
