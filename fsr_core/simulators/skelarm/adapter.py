"""skelarm (PyPI, Python >= 3.12) as a registry adapter that re-simulates its logs.

skelarm runs in a child interpreter (:mod:`.worker`), never in the viewer's
process. The adapter re-simulates a ``.sklog.npz`` log, or an FSR file
converted from one, from the log's embedded ``extra.source_config`` and
``extra.run`` through skelarm's own ``rerun_log`` (:mod:`.replay`), and runs a
scenario config through ``run_scenario`` (:meth:`SkelarmAdapter.simulate`).
It has no render mode: a skelarm log holds no render state.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from fsr_core.errors import (
    AdapterUnavailableError,
    FsrError,
    ReplayError,
    TargetExistsError,
)
from fsr_core.simulation.protocol import (
    CancelToken,
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayResult,
)
from fsr_core.simulators.skelarm.availability import unavailable_reason
from fsr_core.simulators.skelarm.replay import plan_for, publish, resimulate_log
from fsr_core.simulators.skelarm.reproducibility import Reproducibility
from fsr_core.simulators.skelarm.runner import run_child, write_request
from fsr_core.sources.skelarm.convert import SIMULATOR_NAME
from fsr_core.sources.skelarm.log import check_log

__all__ = ["SkelarmAdapter"]


class SkelarmAdapter:
    """Re-simulation through skelarm; available where skelarm imports."""

    @property
    def name(self) -> str:
        """``skelarm``."""
        return SIMULATOR_NAME

    def unavailable_reason(self) -> str | None:
        """Return ``None`` where skelarm imports, else what to install (and where)."""
        return unavailable_reason()

    def capabilities(self) -> frozenset[ReplayMode]:
        """Return resimulate only: skelarm logs have no render state."""
        return frozenset({ReplayMode.RESIMULATE})

    def can_replay(self, source: Path) -> str | None:
        """Return why ``source`` cannot be re-simulated, or ``None`` if it can."""
        try:
            plan = plan_for(source)
        except FsrError as exc:
            return exc.reason
        if plan.tier is Reproducibility.IMPOSSIBLE:
            return plan.refusal
        return None

    def replay(
        self,
        source: Path,
        output: Path,
        options: ReplayOptions,
        *,
        progress: ProgressFn | None = None,
        cancel: CancelToken | None = None,
    ) -> ReplayResult:
        """Re-simulate ``source`` into the ``.sklog.npz`` ``output``.

        Raises
        ------
        ReplayError
            Render mode was asked for, or the log cannot be re-simulated.
        """
        if options.mode is not ReplayMode.RESIMULATE:
            raise ReplayError(
                "skelarm logs can only be re-simulated (they hold no render state)",
                path=source,
            )
        return resimulate_log(
            source,
            output,
            with_recorded_force=options.with_recorded_force,
            overwrite=options.overwrite,
            pinned_sha256=options.pinned_sha256,
            progress=progress,
            cancel=cancel,
        )

    def simulate(
        self, config: dict[str, Any], output: str | os.PathLike[str], **options: Any
    ) -> Path:
        """Run a skelarm scenario config (its TOML tables) and save the log.

        ``duration`` (seconds) overrides the task's; ``overwrite`` replaces an
        existing ``output``. Returns the written ``.sklog.npz``.

        Raises
        ------
        AdapterUnavailableError
            skelarm cannot run here.
        ReplayError
            skelarm refused the config (its message is kept).
        TargetExistsError
            ``output`` exists (or is a folder) and ``overwrite`` is not given.
        """
        reason = unavailable_reason()
        if reason is not None:
            raise AdapterUnavailableError(
                f"simulator 'skelarm' is unavailable: {reason}"
            )
        target = Path(output)
        overwrite = bool(options.get("overwrite", False))
        if target.is_dir() or (not overwrite and os.path.lexists(target)):
            raise TargetExistsError(
                "file already exists; a run never overwrites it unless asked",
                path=target,
            )
        duration = options.get("duration")
        folder = Path(tempfile.mkdtemp(prefix=".fsr-skelarm-", dir=target.parent))
        try:
            request = write_request(
                folder / "request.npz",
                "scenario",
                {"duration": duration},
                config=json.dumps(config),
            )
            written = folder / "run.sklog.npz"
            outcome = run_child(request, written)
            if outcome.status != 0:
                raise ReplayError(f"skelarm could not run it: {outcome.message}")
            check_log(written)
            publish(written, target, overwrite=overwrite)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return target
