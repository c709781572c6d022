"""The bit-for-bit comparison of a Genesis re-run with its recording.

After each step the Genesis side (:mod:`.session`) compares every field the
recorded frame holds with the same array of the scene it steps, bit for bit,
and reports the fields that differ (:class:`FieldDifference`: the largest
absolute error, the environments where it differs, how many elements). A
:class:`ComparisonLog` gathers these frame by frame into the verdict the
replay records: whether every compared frame reproduced exactly, the first
divergence (frame, step count, time, field, environments, error) and, per
field, where it first differed and its largest error. The replay writes
:meth:`ComparisonLog.to_json` into the output's metadata and footer, and
:meth:`ComparisonLog.sentence` into the result's notes.

A render compares too: the state each seek puts back against the frame it
was read from (minimal frames recompute what they do not hold).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["ComparisonLog", "FieldDifference", "FrameComparison"]

_SHOWN_FIELDS: Final = 20


def _error_json(value: float) -> float | str:
    """Return ``value`` as JSON: a number, or ``"inf"`` / ``"nan"``."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf"
    return value


@dataclass(frozen=True)
class FieldDifference:
    """One field of one frame that is not bit for bit the recorded one.

    ``max_abs_error`` is the largest ``|live - recorded|`` (``inf`` where one
    side is NaN, or the shapes differ); ``envs`` the environments where it
    differs (None: the field has no environment axis); ``elements`` how many
    elements differ; ``what`` is ``values``, ``dtype`` or ``shape``.
    """

    field: str
    max_abs_error: float
    envs: tuple[int, ...] | None
    elements: int
    what: str = "values"

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> FieldDifference:
        """Return the difference a :meth:`to_json` object (or the worker) gives.

        Raises
        ------
        TypeError
            A field is missing or of the wrong type.
        """
        envs = value.get("envs")
        error = value.get("max_abs_error")
        if isinstance(error, str):
            error = float(error)
        if not isinstance(value.get("field"), str) or not isinstance(
            error, int | float
        ):
            raise TypeError(f"not a field difference: {dict(value)!r}")
        if envs is not None and not (
            isinstance(envs, list) and all(isinstance(e, int) for e in envs)
        ):
            raise TypeError(f"bad environments in {dict(value)!r}")
        elements = value.get("elements", 0)
        if not isinstance(elements, int):
            raise TypeError(f"bad element count in {dict(value)!r}")
        return cls(
            field=str(value["field"]),
            max_abs_error=float(error),
            envs=None if envs is None else tuple(envs),
            elements=elements,
            what=str(value.get("what", "values")),
        )

    def to_json(self) -> dict[str, Any]:
        """Return the difference as JSON values."""
        return {
            "field": self.field,
            "max_abs_error": _error_json(self.max_abs_error),
            "envs": None if self.envs is None else list(self.envs),
            "elements": self.elements,
            "what": self.what,
        }

    def where(self) -> str:
        """Return the field and its environments, for a sentence."""
        if self.envs is None:
            return self.field
        envs = ", ".join(f"env{e}" for e in self.envs[:8])
        more = f" (+{len(self.envs) - 8})" if len(self.envs) > 8 else ""
        return f"{self.field} in {envs}{more}"


@dataclass(frozen=True)
class FrameComparison:
    """What one frame's comparison found (empty ``differences``: bit for bit)."""

    frame: int
    steps: int
    time_s: float
    differences: tuple[FieldDifference, ...] = ()


@dataclass
class _FieldSummary:
    first_frame: int
    first_time_s: float
    envs: set[int] = field(default_factory=set)
    max_abs_error: float = 0.0
    frames: int = 0


class ComparisonLog:
    """The comparison of a run with its recording, frame by frame.

    Parameters
    ----------
    mode
        ``resimulate`` (a stepped scene) or ``render`` (seeks).
    start_frame
        The frame the scene was put at first.
    put_back
        The recorded fields written into the scene before each step (the
        authored inputs); they are not compared.
    """

    def __init__(self, mode: str, start_frame: int, put_back: Sequence[str]) -> None:
        self.mode = mode
        self.start_frame = start_frame
        self.put_back = tuple(put_back)
        self.frames = 0
        self.compared_fields = 0
        self.skipped: tuple[str, ...] = ()
        self.stopped = ""
        self.first: FrameComparison | None = None
        self._fields: dict[str, _FieldSummary] = {}

    def add(self, frame: FrameComparison) -> None:
        """Take in one compared frame, in frame order."""
        self.frames += 1
        if frame.differences and self.first is None:
            self.first = frame
        for difference in frame.differences:
            summary = self._fields.get(difference.field)
            if summary is None:
                summary = _FieldSummary(frame.frame, frame.time_s)
                self._fields[difference.field] = summary
            summary.frames += 1
            summary.envs.update(difference.envs or ())
            error = difference.max_abs_error
            if math.isnan(error) or error > summary.max_abs_error:
                summary.max_abs_error = error

    @property
    def exact(self) -> bool:
        """Whether every compared frame is bit for bit the recorded one."""
        return self.frames > 0 and self.first is None

    @property
    def max_abs_error(self) -> float:
        """The largest error of any field of any frame (0 when exact)."""
        errors = [summary.max_abs_error for summary in self._fields.values()]
        if any(math.isnan(error) for error in errors):
            return math.nan
        return max(errors, default=0.0)

    def _first_json(self) -> dict[str, Any] | None:
        first = self.first
        if first is None:
            return None
        worst = max(first.differences, key=lambda d: _sortable(d.max_abs_error))
        return {
            "frame": first.frame,
            "steps": first.steps,
            "time_s": first.time_s,
            "field": worst.field,
            "envs": None if worst.envs is None else list(worst.envs),
            "max_abs_error": _error_json(worst.max_abs_error),
            "fields": [d.field for d in first.differences[:_SHOWN_FIELDS]],
            "fields_differing": len(first.differences),
        }

    def to_json(self) -> dict[str, Any]:
        """Return the comparison as JSON values (for metadata and provenance)."""
        fields = sorted(self._fields.items(), key=lambda item: item[1].first_frame)
        return {
            "mode": self.mode,
            "start_frame": self.start_frame,
            "frames_compared": self.frames,
            "fields_compared": self.compared_fields,
            "bit_for_bit": self.exact,
            "first_divergence": self._first_json(),
            "max_abs_error": _error_json(self.max_abs_error),
            "diverging_fields": [
                {
                    "field": name,
                    "first_frame": summary.first_frame,
                    "first_time_s": summary.first_time_s,
                    "envs": sorted(summary.envs),
                    "frames": summary.frames,
                    "max_abs_error": _error_json(summary.max_abs_error),
                }
                for name, summary in fields[:_SHOWN_FIELDS]
            ],
            "diverging_field_count": len(fields),
            "put_back_before_each_step": list(self.put_back),
            "not_compared": list(self.skipped),
            "stopped": self.stopped,
        }

    def sentence(self) -> str:
        """Return the verdict in one line."""
        compared = (
            f"{self.frames} frame(s) from frame {self.start_frame}, "
            f"{self.compared_fields} field(s) each"
        )
        what = "re-simulated" if self.mode == "resimulate" else "sought"
        if self.frames == 0:
            return f"no frame was {what}"
        first = self.first
        if first is None:
            return f"bit for bit: every {what} frame equals the recording ({compared})"
        worst = max(first.differences, key=lambda d: _sortable(d.max_abs_error))
        return (
            f"diverges at frame {first.frame} (step {first.steps}, "
            f"t={first.time_s:.6g} s) in {worst.where()}: error "
            f"{_shown(worst.max_abs_error)}; {len(self._fields)} field(s) differ, "
            f"largest error {_shown(self.max_abs_error)} ({compared})"
        )


def _sortable(value: float) -> float:
    return math.inf if math.isnan(value) else value


def _shown(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.3g}"
