"""Which channels and cameras a comparison takes: the filters and who has what.

Without a filter, every channel and every camera present on both sides is
compared. A filter names what to compare: ``channels=[...]`` alone compares
those channels and no camera, ``cameras=[...]`` alone those cameras and no
channel, both together both lists.

Cameras pair by name, and a replay may pair its cameras with cameras of its
source named otherwise: its metadata's ``replay.source_cameras`` maps each of
its camera names to the source camera it renders again (a robosuite render's
``agentview`` is the HDF5 episode's ``obs/agentview_image``). Such a pair is
compared whichever side the replay is on, under the reference's name, and a
filter may name either camera of it. A camera that has a same-named
counterpart keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fsr_core.errors import CompareError
from fsr_core.recording import RecordingModel
from fsr_core.simulation.provenance import SOURCE_CAMERAS

__all__ = [
    "Selection",
    "camera_names",
    "camera_pairs",
    "listing",
    "select_names",
]

_NAMES_SHOWN = 8


def listing(names: Iterable[str]) -> str:
    """Return names for a message: the first few, then how many more."""
    items = list(names)
    shown = ", ".join(items[:_NAMES_SHOWN])
    more = len(items) - _NAMES_SHOWN
    return f"{shown}, and {more} more" if more > 0 else shown or "none"


@dataclass(frozen=True)
class _Split:
    """Names of one kind: on both sides, or on one side only."""

    common: tuple[str, ...]
    only_reference: tuple[str, ...]
    only_candidate: tuple[str, ...]


@dataclass(frozen=True)
class Selection:
    """The channels and cameras to compare, and those found on one side only."""

    channels: _Split
    cameras: _Split
    """By the reference's names (a paired camera too)."""
    camera_pairs: dict[str, str] = field(default_factory=dict)
    """Reference camera name -> the candidate's, for cameras named otherwise."""

    def candidate_camera(self, name: str) -> str:
        """Return the candidate's name of the reference's camera ``name``."""
        return self.camera_pairs.get(name, name)


def _split(
    kind: str,
    on_reference: Sequence[str],
    on_candidate: Sequence[str],
    wanted: Sequence[str] | None,
    reference: RecordingModel,
    candidate: RecordingModel,
) -> _Split:
    if wanted is None:
        names = list(dict.fromkeys([*on_reference, *on_candidate]))
    else:
        names = list(dict.fromkeys(wanted))
        unknown = [n for n in names if n not in on_reference and n not in on_candidate]
        if unknown:
            raise CompareError(
                f"no {kind} named {listing(unknown)} in either recording",
                reference=reference.path,
                candidate=candidate.path,
            )
    return _Split(
        common=tuple(n for n in names if n in on_reference and n in on_candidate),
        only_reference=tuple(n for n in names if n not in on_candidate),
        only_candidate=tuple(n for n in names if n not in on_reference),
    )


def camera_names(model: RecordingModel) -> list[str]:
    """Return the names of the cameras of ``model``, in order, each once."""
    return list(dict.fromkeys(track.name for track in model.cameras))


def _source_cameras(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Return the ``replay.source_cameras`` a recording's metadata gives."""
    replay = metadata.get("replay")
    found = replay.get(SOURCE_CAMERAS) if isinstance(replay, Mapping) else None
    if not isinstance(found, Mapping):
        return {}
    return {
        own: source
        for own, source in found.items()
        if isinstance(own, str) and isinstance(source, str)
    }


def camera_pairs(
    reference: RecordingModel, candidate: RecordingModel
) -> dict[str, str]:
    """Return the cameras named otherwise that a replay pairs (reference -> candidate).

    From ``replay.source_cameras`` of the candidate (a replay of the
    reference) or of the reference (the replay given first); a camera that
    has a same-named counterpart, or is paired already, is not paired again.
    """
    ours, theirs = camera_names(reference), camera_names(candidate)
    offered = [
        *((source, own) for own, source in _source_cameras(candidate.metadata).items()),
        *_source_cameras(reference.metadata).items(),
    ]
    pairs: dict[str, str] = {}
    for mine, other in offered:
        lone = mine in ours and other in theirs
        lone = lone and mine not in theirs and other not in ours
        if lone and mine not in pairs and other not in pairs.values():
            pairs[mine] = other
    return pairs


def _nothing_in_common(reference: RecordingModel, candidate: RecordingModel) -> str:
    ref_cameras, cand_cameras = camera_names(reference), camera_names(candidate)
    if not ref_cameras and not cand_cameras:
        return (
            f"no channel in common (reference: {listing(reference.channels)}; "
            f"candidate: {listing(candidate.channels)})"
        )
    return (
        f"no channel or camera in common (reference: channels "
        f"{listing(reference.channels)}, cameras {listing(ref_cameras)}; "
        f"candidate: channels {listing(candidate.channels)}, "
        f"cameras {listing(cand_cameras)})"
    )


def select_names(
    reference: RecordingModel,
    candidate: RecordingModel,
    *,
    channels: Sequence[str] | None,
    cameras: Sequence[str] | None,
) -> Selection:
    """Return what to compare under the filters (see the module docstring).

    Raises
    ------
    CompareError
        A requested name is in neither recording, or nothing is in common.
    """
    for given, what in ((channels, "channels"), (cameras, "cameras")):
        if isinstance(given, str):
            raise TypeError(f"{what} is a sequence of names, not one string")
    if channels is not None and cameras is None:
        cameras = []
    elif cameras is not None and channels is None:
        channels = []
    pairs = camera_pairs(reference, candidate)
    as_reference = {other: mine for mine, other in pairs.items()}
    if cameras is not None:  # a paired camera may be named by either name
        cameras = [as_reference.get(name, name) for name in cameras]
    selection = Selection(
        channels=_split(
            "channel",
            list(reference.channels),
            list(candidate.channels),
            channels,
            reference,
            candidate,
        ),
        cameras=_split(
            "camera",
            camera_names(reference),
            [as_reference.get(name, name) for name in camera_names(candidate)],
            cameras,
            reference,
            candidate,
        ),
        camera_pairs=pairs,
    )
    if not selection.channels.common and not selection.cameras.common:
        raise CompareError(
            _nothing_in_common(reference, candidate),
            reference=reference.path,
            candidate=candidate.path,
        )
    return selection
