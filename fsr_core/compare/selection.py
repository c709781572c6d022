"""Which channels and cameras a comparison takes: the filters and who has what.

Without a filter, every channel and every camera present on both sides is
compared. A filter names what to compare: ``channels=[...]`` alone compares
those channels and no camera, ``cameras=[...]`` alone those cameras and no
channel, both together both lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fsr_core.errors import CompareError
from fsr_core.recording import RecordingModel

__all__ = ["Selection", "camera_names", "listing", "select_names"]

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
            camera_names(candidate),
            cameras,
            reference,
            candidate,
        ),
    )
    if not selection.channels.common and not selection.cameras.common:
        raise CompareError(
            _nothing_in_common(reference, candidate),
            reference=reference.path,
            candidate=candidate.path,
        )
    return selection
