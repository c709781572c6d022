"""Recording sources: each turns one file format into a RecordingModel.

The registry (:mod:`fsr_core.sources.registry`) picks the source by the file's
first bytes, so a file's name never decides how it is parsed. Every command
opens, inspects and converts its inputs through the functions below, so each
accepts every registered source (FSR, skelarm logs, plugins). Each takes
``options`` (:class:`OpenOptions`, e.g. the time base of a message log): a
source that reads them gets them, any other opens as it always does.

The package's own modules are the registry and this API; each source is a
subpackage (``fsr``, ``skelarm``, ``mcap``, ``genesis``, ``lerobot``), and
:mod:`fsr_core.sources.toolkit` holds the code they share. Playlist files and
episode addresses are read in :mod:`fsr_core.playlists`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fsr_core.errors import SourceUnavailableError, StreamNotFoundError
from fsr_core.format.safe_open import open_source
from fsr_core.output_paths import check_output_path
from fsr_core.playlists.episodes import episode_path, split_episode_path
from fsr_core.recording import RecordingModel
from fsr_core.robots import with_carried_robot, with_robot
from fsr_core.sources.file_names import (
    open_dialog_filter,
    recording_stem,
    recording_suffixes,
)
from fsr_core.sources.folders import (
    expand_recordings,
    file_recordings,
    recordings_in,
)
from fsr_core.sources.inspection import model_report
from fsr_core.sources.open_options import (
    TIME_BASE_NAMES,
    TIME_BASES,
    OpenOptions,
    valid_time_base_name,
)
from fsr_core.sources.registry import (
    ConvertingSource,
    EpisodeSource,
    FsrConversion,
    InspectingSource,
    OptionsSource,
    Source,
    source_for,
    source_named,
    source_names,
)

__all__ = [
    "TIME_BASES",
    "TIME_BASE_NAMES",
    "FsrConversion",
    "OpenOptions",
    "Source",
    "convert_recording",
    "episode_address",
    "expand_recordings",
    "file_recordings",
    "inspect_recording",
    "open_dialog_filter",
    "open_recording",
    "recording_stem",
    "recording_suffixes",
    "recordings_in",
    "source_for",
    "source_names",
    "source_reads_option",
    "split_episode_path",
    "valid_time_base_name",
]


def _usable_source(path: Path) -> Source:
    """Return the source of ``path``, refusing one that cannot run here."""
    source = source_for(path)
    reason = source.unavailable_reason()
    if reason is not None:
        raise SourceUnavailableError(
            f"reading a {source.description} needs what is missing here: {reason}",
            path=path,
        )
    return source


def _options_for(source: Source, options: OpenOptions | None) -> dict[str, Any]:
    """Return the ``options=`` keyword for ``source``: only if it reads one given."""
    if options is None or not isinstance(source, OptionsSource):
        return {}
    if not options.given() & set(source.open_options):
        return {}
    return {"options": options}


def source_reads_option(source_name: str, option: str) -> bool:
    """Say whether the source called ``source_name`` reads the open option ``option``.

    ``source_name`` is a model's ``source`` (``"mcap"``); ``option`` a field
    of :class:`OpenOptions` (``"time_base"``). An unknown source reads none.
    """
    source = source_named(source_name)
    return isinstance(source, OptionsSource) and option in tuple(source.open_options)


def open_recording(
    path: str | Path, *, options: OpenOptions | None = None
) -> RecordingModel:
    """Open a recording of any registered kind as a recording model.

    ``options`` go to a source that reads them (the MCAP source's time
    base); other sources ignore them.

    Raises
    ------
    FsrError
        The file cannot be read or is not a recording this viewer knows; the
        message names the file and the problem (for an unknown file, the kinds
        known).
    """
    target = Path(path)
    source = _usable_source(target)
    model = source.open(target, **_options_for(source, options))
    if options is not None and options.robot is not None:
        return with_robot(model, options.robot)
    return with_carried_robot(model, (options.package_paths or ()) if options else ())


def inspect_recording(
    path: str | os.PathLike[str],
    *,
    verify: bool = False,
    options: OpenOptions | None = None,
) -> dict[str, Any]:
    """Return the inspection report of a recording of any registered kind.

    The shape is the same for every source (:mod:`fsr_core.sources.inspection`);
    a source without its own report gets one built from its model.

    Raises
    ------
    FsrError
        As :func:`open_recording`.
    """
    target = Path(path)
    source = _usable_source(target)
    given = _options_for(source, options)
    if isinstance(source, InspectingSource):
        report = source.inspect(target, verify=verify, **given)
    else:
        byte_source = open_source(target)
        try:
            size_bytes = byte_source.size
        finally:
            byte_source.close()
        report = model_report(
            source.open(target, **given),
            description=source.description,
            size_bytes=size_bytes,
            verify=verify,
        )
    if options is not None and options.robot is not None:
        posed = with_robot(source.open(target, **given), options.robot)
        report["robot"] = posed.metadata["robot"]
    elif report.get("robot_description"):
        _add_carried_robot(report, source.open(target, **given), options)
    return report


def _add_carried_robot(
    report: dict[str, Any], model: RecordingModel, options: OpenOptions | None
) -> None:
    """Add the robot ``model`` carries to ``report``, or the note saying why not."""
    described = model.robot_description
    if described is None:
        report.pop("robot_description", None)
    else:
        report["robot_description"] = {"where": described.where, "kind": described.kind}
    paths = (options.package_paths or ()) if options is not None else ()
    posed = with_carried_robot(model, paths)
    robot = posed.metadata.get("robot")
    if isinstance(robot, dict):
        report["robot"] = robot
    # The model's notes (the report's already, for most sources) and posing's.
    notes = [*report.get("notes", []), *posed.report.get("notes", [])]
    report["notes"] = list(dict.fromkeys(notes))


def convert_recording(
    path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    options: OpenOptions | None = None,
) -> FsrConversion:
    """Write a recording of any kind that converts as the FSR file ``output``.

    Raises
    ------
    SourceUnavailableError
        The file's source cannot convert (FSR is FSR already).
    OutputIsInputError
        ``output`` is the recording itself (same path, hard or symbolic link),
        with or without ``overwrite``.
    FsrError
        As :func:`open_recording`; ``output`` exists without ``overwrite`` or
        is not a regular file (:func:`~fsr_core.output_paths.check_output_path`).
    """
    target = Path(path)
    source = _usable_source(target)
    if not isinstance(source, ConvertingSource):
        raise SourceUnavailableError(
            f"a {source.description} cannot be written as FSR (the "
            f"{source.name!r} source has no conversion)",
            path=target,
        )
    check_output_path(output, (target,), overwrite=overwrite, hint=" (use --overwrite)")
    given = _options_for(source, options)
    if options is not None and options.robot is not None:
        if not getattr(source, "converts_with_robot", False):
            raise SourceUnavailableError(
                f"--robot: a {source.description} converts without a robot model",
                path=target,
            )
        given = {"options": options}
    return source.to_fsr(target, Path(output), overwrite=overwrite, **given)


def episode_address(path: str | os.PathLike[str], index: int) -> Path:
    """Return the address of episode ``index`` of the dataset folder ``path``.

    Raises
    ------
    SourceUnavailableError
        ``path`` is not a dataset of episodes.
    StreamNotFoundError
        The dataset lists no episode ``index``.
    FsrError
        As :func:`open_recording`.
    """
    target = Path(path)
    source = _usable_source(target)
    if not isinstance(source, EpisodeSource) or target.is_symlink():
        raise SourceUnavailableError(
            f"--episode {index}: not a dataset of episodes (a {source.description})",
            path=target,
        )
    indices = [entry.index for entry in source.episodes(target)]
    if index not in indices:
        listed = ", ".join(str(i) for i in indices[:5]) + (
            ", ..." if len(indices) > 5 else ""
        )
        raise StreamNotFoundError(
            f"no episode {index}; the dataset has {len(indices)} ({listed})",
            path=target,
        )
    return episode_path(target, index)
