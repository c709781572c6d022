"""Which follower reads which source, and whether a file is still being written.

:data:`FOLLOWERS` names each source's follower by module string, so this
module imports no source package; the source of a file is the one the
registry sniffs.

**Still being written** (:func:`still_being_written`), the rule ``batch``
and the window use:

* a name that does not exist but has an FSR staging file beside it
  (``.<name>.<hex>.fsr-staging``): its writer is running;
* an FSR staging file modified in the last :data:`QUIET_S` seconds;
* any other file of a followed source (FSR, MCAP, Genesis) whose end is not
  written (no FSR trailer, no MCAP footer and closing magic, no Genesis LAST
  record) and that was modified in the last :data:`QUIET_S` seconds.

A file whose end is missing and that has not changed for longer is a
writer that stopped (a crash): it is opened as recovery opens it, not waited
for.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from fsr_core.errors import FsrError, UnknownSourceError
from fsr_core.format.staging import is_staging, staging_files_for
from fsr_core.simulation.plugin_loading import import_target
from fsr_core.sources.live.follower import Follower
from fsr_core.sources.registry import source_for

__all__ = [
    "FOLLOWERS",
    "QUIET_S",
    "follow_recording",
    "follow_target",
    "still_being_written",
]

QUIET_S: Final = 5.0
"""Seconds without growth after which a writer counts as stopped."""

FOLLOWERS: Final = {
    "fsr": "fsr_core.sources.fsr.follow:FsrFollower",
    "mcap": "fsr_core.sources.mcap.follow:McapFollower",
    "genesis": "fsr_core.sources.genesis.follow:GenesisFollower",
}
"""Source name -> ``module:class`` of its follower."""


def follow_target(path: str | os.PathLike[str]) -> Path:
    """Return the file to follow: ``path``, or its newest FSR staging file."""
    wanted = Path(path)
    if not wanted.exists():
        staging = staging_files_for(wanted)
        if staging:
            return staging[0]
    return wanted


def _follower_class(path: Path) -> type[Follower]:
    source = source_for(path)
    target = FOLLOWERS.get(source.name)
    if target is None:
        raise UnknownSourceError(
            f"cannot follow a {source.name} recording while it is written "
            f"(following reads {', '.join(FOLLOWERS)})",
            path=path,
        )
    found = import_target(target)
    assert isinstance(found, type)
    assert issubclass(found, Follower)
    return found


def follow_recording(
    path: str | os.PathLike[str],
    *,
    quiet_s: float = QUIET_S,
    clock: Callable[[], float] = time.monotonic,
) -> Follower:
    """Start following ``path`` (or its staging file); nothing is read yet.

    Raises
    ------
    FsrError
        No file, a source that cannot be followed, or the file cannot be opened.
    """
    target = follow_target(path)
    return _follower_class(target)(target, quiet_s=quiet_s, clock=clock)


def still_being_written(
    path: str | os.PathLike[str], *, quiet_s: float = QUIET_S
) -> str:
    """Why ``path`` is still being written, or ``""`` (the rule above)."""
    wanted = Path(path)
    if not wanted.exists():
        staging = staging_files_for(wanted)
        return f"its writer is running ({staging[0].name})" if staging else ""
    try:
        age_s = time.time() - wanted.stat().st_mtime
    except OSError:
        return ""
    recent = age_s < quiet_s
    if is_staging(wanted):
        return "it is a writer's staging file, modified just now" if recent else ""
    if not recent:
        return ""
    try:
        follower = _follower_class(wanted)
    except FsrError:
        return ""
    if follower.end_written(wanted):
        return ""
    return f"its end is not written yet and it changed {age_s:.1f} s ago"
