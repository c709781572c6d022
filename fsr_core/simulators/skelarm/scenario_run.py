"""Run a skelarm scenario config through skelarm and save its log.

skelarm runs in a child interpreter (:mod:`.worker`, its ``run_scenario``);
the log is written to a hidden folder beside the output, read back with the
viewer's safe log reader, then published (:func:`.replay.publish`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fsr_core.errors import AdapterUnavailableError, ReplayError, TargetExistsError
from fsr_core.logs.skelarm.log import check_log
from fsr_core.simulators.skelarm.availability import unavailable_reason
from fsr_core.simulators.skelarm.replay import publish
from fsr_core.simulators.skelarm.runner import run_child, write_request

__all__ = ["run_scenario"]


def run_scenario(
    config: Mapping[str, Any],
    output: Path,
    *,
    duration: float | None = None,
    overwrite: bool = False,
) -> Path:
    """Run the scenario ``config`` (its TOML tables) and save the log at ``output``.

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
        raise AdapterUnavailableError(f"simulator 'skelarm' is unavailable: {reason}")
    if output.is_dir() or (not overwrite and os.path.lexists(output)):
        raise TargetExistsError(
            "file already exists; a run never overwrites it unless asked",
            path=output,
        )
    folder = Path(tempfile.mkdtemp(prefix=".fsr-skelarm-", dir=output.parent))
    try:
        request = write_request(
            folder / "request.npz",
            "scenario",
            {"duration": duration},
            config=json.dumps(dict(config)),
        )
        written = folder / "run.sklog.npz"
        outcome = run_child(request, written)
        if outcome.status != 0:
            raise ReplayError(f"skelarm could not run it: {outcome.message}")
        check_log(written)
        publish(written, output, overwrite=overwrite)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return output
