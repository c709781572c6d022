"""Values the reader hands out: records, media frames, stream summaries, footer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.streams import StreamSpec
from fsr_core.media import RGBFrame

__all__ = [
    "Footer",
    "Gap",
    "MediaFrame",
    "MediaRef",
    "Record",
    "RecoveryInfo",
    "StreamInfo",
]


_UNSET: Any = object()


@dataclass(eq=False, repr=False, slots=True, kw_only=True)
class Record:
    """One record: its clocks, metadata, raw payload and (lazily) decoded value.

    ``decode`` turns the record's payload into its value per its stream's codec;
    :attr:`decoded` calls it once. Records compare by identity.
    """

    spec: StreamSpec
    stream_seq: int
    capture_seq: int
    generation: int
    tick: int
    sim_time_s: float
    metadata: dict[str, Any]
    payload: bytes
    offset: int
    verified: bool
    decode: Callable[[Record], Any]
    _decoded: Any = field(default=_UNSET, init=False)

    @property
    def stream(self) -> str:
        """Name of the record's stream."""
        return self.spec.name

    @property
    def decoded(self) -> Any:
        """The payload decoded per its stream's codec (computed once)."""
        if self._decoded is _UNSET:
            self._decoded = self.decode(self)
        return self._decoded

    def __repr__(self) -> str:
        """Short description with the stream and clocks."""
        return (
            f"Record({self.stream!r}, seq={self.stream_seq}, "
            f"generation={self.generation}, tick={self.tick}, "
            f"sim_time_s={self.sim_time_s})"
        )


@dataclass(frozen=True)
class MediaRef:
    """Where a camera frame sits: camera, stream, clocks and calibration epoch."""

    camera: str
    stream: str
    stream_seq: int
    generation: int
    tick: int
    sim_time_s: float
    calibration_digest: str


@dataclass(frozen=True)
class MediaFrame:
    """A decoded camera frame and its reference."""

    ref: MediaRef
    decoded: RGBFrame
    verified: bool


@dataclass(frozen=True)
class StreamInfo:
    """A stream's definition and what the index says about it."""

    spec: StreamSpec
    stream_id: int
    record_count: int
    first_tick: int | None
    last_tick: int | None
    first_sim_time_s: float | None
    last_sim_time_s: float | None
    generations: tuple[int, ...]
    payload_bytes: int
    rate_hz: float | None

    @property
    def name(self) -> str:
        """The stream's name."""
        return self.spec.name


@dataclass(frozen=True)
class Gap:
    """Declared loss: ``lost`` records of ``stream`` missing after ``after_seq``."""

    stream: str
    after_seq: int
    lost: int
    reason: str


@dataclass(frozen=True)
class RecoveryInfo:
    """What a recovering open kept and lost."""

    reason: str
    trusted_bytes: int
    file_bytes: int
    batches_kept: int
    records_kept: int
    error: str | None

    @property
    def kept_fraction(self) -> float:
        """Share of the file's bytes that were trusted."""
        return self.trusted_bytes / self.file_bytes if self.file_bytes else 0.0


@dataclass(frozen=True)
class Footer:
    """The sealed file's footer: integrity, provenance, degradation, terminal cut."""

    profile: IntegrityProfile
    provenance: dict[str, Any]
    degraded: bool
    gaps: tuple[Gap, ...]
    terminal_cut: dict[str, Any] | None
    completion: dict[str, Any] | None
    recovered: dict[str, Any] | None
    raw: dict[str, Any] = field(repr=False)

    @property
    def primary_integrity(self) -> str:
        """The integrity profile's name (``structural``, ``fast`` or ``strong``)."""
        return self.profile.value
