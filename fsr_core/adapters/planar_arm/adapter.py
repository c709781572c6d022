"""The built-in planar-arm simulator as a registry adapter."""

from __future__ import annotations

import os
from typing import Any

from fsr_core.adapters.planar_arm.recorder import ExternalPush, RunResult, record_run
from fsr_core.adapters.planar_arm.recording_streams import SIMULATOR_NAME
from fsr_core.adapters.planar_arm.scenario import Scenario

__all__ = ["PlanarArmAdapter"]


class PlanarArmAdapter:
    """numpy only, so always available."""

    @property
    def name(self) -> str:
        """``planar_arm``."""
        return SIMULATOR_NAME

    def unavailable_reason(self) -> str | None:
        """Return ``None``: the simulator needs nothing beyond numpy."""
        return None

    def simulate(
        self, config: dict[str, Any], output: str | os.PathLike[str], **options: Any
    ) -> RunResult:
        """Run a resolved (or hand-written) scenario config and record it."""
        pushes: tuple[ExternalPush, ...] = tuple(options.pop("external_pushes", ()))
        return record_run(
            Scenario.from_json(config), output, external_pushes=pushes, **options
        )
