"""What the writer checks before accepting a record, and the state it tracks.

Every rule the reader enforces on records is checked here first: names,
shapes, dtypes, finiteness, clocks going backwards, calibration references and
lifecycle semantics. A record that passes is turned into a
:class:`PreparedRecord`, whose payload can be encoded on another thread.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fsr_core.calibration import CalibrationProfile, calibration_digest
from fsr_core.canonical_json import JsonLimits, canonical_dumps
from fsr_core.errors import (
    CalibrationError,
    CorruptRecordError,
    SchemaError,
    StreamNotFoundError,
)
from fsr_core.format.batching import EncodedRecord, RecordSlot
from fsr_core.format.limits import MAX_RECORD_METADATA_BYTES
from fsr_core.format.payloads import (
    PAYLOAD_JSON_LIMITS,
    check_arrays,
    check_raw_value,
    encode_payload,
)
from fsr_core.format.records import NO_CALIBRATION
from fsr_core.format.streams import CAMERA_KINDS, StreamKind, StreamSpec
from fsr_core.media import RGBFrame

__all__ = ["LIFECYCLE_EVENTS", "PreparedRecord", "RecordChecks"]

LIFECYCLE_EVENTS = ("start", "generation_reset", "terminal_semantic_cut", "completion")
COMPLETION_STATUSES = ("succeeded", "failed", "cancelled")
_REASON = re.compile(r"[A-Z][A-Z0-9_]*")
_RECORD_META_LIMITS = JsonLimits(max_bytes=MAX_RECORD_METADATA_BYTES)
_MAX_U32 = 0xFFFFFFFF
_MAX_I64 = (1 << 63) - 1


class _Clocks(NamedTuple):
    """A checked record's three clocks."""

    generation: int
    tick: int
    sim_time_s: float


@dataclass(frozen=True)
class PreparedRecord(RecordSlot):
    """A checked record whose payload may still need encoding."""

    spec: StreamSpec
    value: Any
    encoded: tuple[bytes, int] | None = None

    def encode(self, quality: int) -> tuple[bytes, int]:
        """Encode the payload (runs on the encoder thread for images)."""
        if self.encoded is not None:
            return self.encoded
        return encode_payload(self.spec, self.value, quality=quality)

    def to_encoded(self, payload: bytes, raw_length: int) -> EncodedRecord:
        """Combine with the encoded payload (``value`` is not kept)."""
        return EncodedRecord.fill(self, payload, raw_length)


class RecordChecks:
    """Track clocks, calibration epochs, lifecycle and gaps of a file being written."""

    def __init__(self, specs: tuple[StreamSpec, ...]) -> None:
        self._specs = specs
        self._ids = {spec.name: i for i, spec in enumerate(specs)}
        self._seq = [0] * len(specs)
        self._last: list[_Clocks | None] = [None] * len(specs)
        self._capture = 0
        self._digests: dict[str, int] = {}
        self._declared: dict[tuple[str, int, int], int] = {}
        self._current: dict[tuple[str, int], int] = {}
        self._pending: dict[tuple[str, int, int], int] = {}
        self._epochs: list[dict[str, Any]] = []
        self._gaps: list[dict[str, Any]] = []
        self._terminal_cut: dict[str, Any] | None = None
        self._completion: dict[str, Any] | None = None
        self._recovered: dict[str, Any] | None = None

    def prepare(
        self,
        stream: str,
        value: Any,
        tick: int,
        sim_time_s: float,
        generation: int,
        metadata: dict[str, Any] | None,
        encoded: tuple[bytes, int] | None = None,
    ) -> PreparedRecord:
        """Check one record and reserve its sequence numbers.

        With ``encoded`` (a payload copied from another file), ``value`` is only
        used for the bookkeeping checks (lifecycle, calibration profile).
        """
        stream_id = self._ids.get(stream)
        if stream_id is None:
            raise StreamNotFoundError(f"no stream named {stream!r} was declared")
        spec = self._specs[stream_id]
        clocks = self._check_clocks(spec, stream_id, tick, sim_time_s, generation)
        meta = dict(metadata or {})
        if (
            encoded is not None
            and spec.codec != "json"
            and spec.kind is not StreamKind.CAMERA_INTRINSICS
        ):
            ref = (
                self._camera_ref(spec, meta, clocks)
                if spec.kind in CAMERA_KINDS
                else NO_CALIBRATION
            )
        else:
            value, ref = self._prepare_value(spec, value, meta, clocks)
        if spec.codec == "json" and encoded is None:
            # Checked and encoded once, here: the payload is these exact bytes.
            payload = canonical_dumps(value, limits=PAYLOAD_JSON_LIMITS)
            encoded = (payload, len(payload))
        meta_bytes = canonical_dumps(meta, limits=_RECORD_META_LIMITS) if meta else b""
        prepared = PreparedRecord(
            stream_id,
            self._seq[stream_id],
            self._capture,
            clocks.generation,
            clocks.tick,
            clocks.sim_time_s,
            ref,
            meta_bytes,
            spec,
            value,
            encoded,
        )
        self._seq[stream_id] += 1
        self._capture += 1
        self._last[stream_id] = clocks
        return prepared

    def _check_clocks(
        self,
        spec: StreamSpec,
        stream_id: int,
        tick: int,
        sim_time_s: float,
        generation: int,
    ) -> _Clocks:
        if (
            isinstance(tick, bool)
            or not isinstance(tick, int | np.integer)
            or not -_MAX_I64 - 1 <= int(tick) <= _MAX_I64
        ):
            raise SchemaError(
                f"tick must be a signed 64-bit integer, got {tick!r}", stream=spec.name
            )
        if (
            isinstance(generation, bool)
            or not isinstance(generation, int | np.integer)
            or not 0 <= int(generation) < _MAX_U32
        ):
            raise SchemaError(
                f"generation must be an integer in 0..2^32-2, got {generation!r}",
                stream=spec.name,
            )
        try:
            time_s = float(sim_time_s)
        except (TypeError, ValueError) as exc:
            raise SchemaError(
                f"sim_time_s must be a number, got {sim_time_s!r}", stream=spec.name
            ) from exc
        if not math.isfinite(time_s):
            raise SchemaError("sim_time_s must be finite", stream=spec.name)
        last = self._last[stream_id]
        if last is not None:
            last_gen, last_tick, last_time = last
            if generation < last_gen:
                raise CorruptRecordError(
                    f"generation goes backwards ({generation} after {last_gen})",
                    stream=spec.name,
                )
            if generation == last_gen and (tick < last_tick or time_s < last_time):
                raise CorruptRecordError(
                    f"time goes backwards (tick {tick} at {time_s} s after "
                    f"tick {last_tick} at {last_time} s)",
                    stream=spec.name,
                )
        return _Clocks(int(generation), int(tick), time_s)

    def _prepare_value(
        self, spec: StreamSpec, value: Any, meta: dict[str, Any], clocks: _Clocks
    ) -> tuple[Any, int]:
        if spec.kind is StreamKind.CAMERA_INTRINSICS:
            return self._intrinsics(spec, value, meta, clocks)
        if spec.kind in CAMERA_KINDS:
            ref = self._camera_ref(spec, meta, clocks)
            if spec.codec == "raw":
                value = check_raw_value(spec, value)
                if (
                    spec.kind is StreamKind.CAMERA_QUATERNION
                    and abs(float(np.linalg.norm(value)) - 1.0) > 1e-6
                ):
                    raise CalibrationError(
                        "camera quaternion is not unit length", stream=spec.name
                    )
            else:
                value = _frame_snapshot(spec, value)
            return value, ref
        if spec.codec == "raw":
            return check_raw_value(spec, value), NO_CALIBRATION
        if spec.codec == "arrays+zlib":
            return _arrays_snapshot(spec, value), NO_CALIBRATION
        if spec.kind is StreamKind.LIFECYCLE:
            self._lifecycle(spec, value, clocks)
        return value, NO_CALIBRATION

    def _intrinsics(
        self, spec: StreamSpec, value: Any, meta: dict[str, Any], clocks: _Clocks
    ) -> tuple[Any, int]:
        generation, tick, sim_time_s = clocks
        profile = (
            value
            if isinstance(value, CalibrationProfile)
            else CalibrationProfile.from_json(value)
        )
        digest = calibration_digest(profile)
        assert spec.camera is not None
        ref = self._digests.setdefault(digest, len(self._digests))
        pending_tick = self._pending.pop((spec.camera, generation, ref), None)
        if pending_tick is not None and pending_tick != tick:
            raise CalibrationError(
                f"calibration {digest[:19]}… used at tick {pending_tick} "
                f"but declared at tick {tick}",
                stream=spec.name,
            )
        key = (spec.camera, generation, ref)
        self._declared.setdefault(key, tick)
        if self._current.get((spec.camera, generation)) != ref:
            # A new epoch starts whenever the calibration changes (A, B, A is
            # three epochs), exactly as the reader rebuilds them.
            count = sum(
                1
                for e in self._epochs
                if e["camera"] == spec.camera and e["generation"] == generation
            )
            self._epochs.append(
                {
                    "camera": spec.camera,
                    "generation": generation,
                    "epoch": count,
                    "digest": digest,
                    "first_tick": tick,
                    "first_sim_time_s": sim_time_s,
                }
            )
        self._current[(spec.camera, generation)] = ref
        meta["calibration_digest"] = digest
        meta["profile"] = profile.to_json()
        return profile.K, ref

    def _camera_ref(
        self, spec: StreamSpec, meta: dict[str, Any], clocks: _Clocks
    ) -> int:
        generation, tick = clocks.generation, clocks.tick
        assert spec.camera is not None
        self._check_pending(spec.camera, generation, tick)
        digest = meta.get("calibration_digest")
        if digest is None:
            ref = self._current.get((spec.camera, generation))
            if ref is None:
                raise CalibrationError(
                    f"camera {spec.camera!r} has no calibration in generation "
                    f"{generation} yet: write its intrinsics first, or pass "
                    "calibration_digest and declare it within the same tick",
                    stream=spec.name,
                )
            meta["calibration_digest"] = next(
                d for d, r in self._digests.items() if r == ref
            )
            return ref
        if (
            not isinstance(digest, str)
            or not digest.startswith("sha256:")
            or len(digest) != 71
        ):
            raise CalibrationError(
                "calibration_digest must be 'sha256:' and 64 hex digits",
                stream=spec.name,
            )
        ref = self._digests.setdefault(digest, len(self._digests))
        if (spec.camera, generation, ref) not in self._declared:
            self._pending.setdefault((spec.camera, generation, ref), tick)
        return ref

    def _check_pending(self, camera: str, generation: int, tick: int) -> None:
        for (cam, gen, _ref), used_tick in self._pending.items():
            if cam == camera and (gen != generation or used_tick != tick):
                raise CalibrationError(
                    f"camera {camera!r}: a calibration referenced at tick "
                    f"{used_tick} was not declared within that tick"
                )

    def _lifecycle(self, spec: StreamSpec, value: Any, clocks: _Clocks) -> None:
        event = value.get("event") if isinstance(value, dict) else None
        if event not in LIFECYCLE_EVENTS:
            raise SchemaError(
                f"lifecycle record needs event in {LIFECYCLE_EVENTS}", stream=spec.name
            )
        if self._completion is not None:
            raise SchemaError("lifecycle record after completion", stream=spec.name)
        if event == "terminal_semantic_cut":
            if self._terminal_cut is not None:
                raise SchemaError("a second terminal semantic cut", stream=spec.name)
            self._terminal_cut = clocks._asdict()
        elif event == "completion":
            status, reason = value.get("status"), value.get("reason_code")
            if (
                status not in COMPLETION_STATUSES
                or not isinstance(reason, str)
                or not _REASON.fullmatch(reason)
            ):
                raise SchemaError(
                    "completion needs status succeeded, failed or cancelled "
                    "and an UPPER_CASE reason_code",
                    stream=spec.name,
                )
            self._completion = {
                "status": status,
                "reason_code": reason,
                "tick": clocks.tick,
                "sim_time_s": clocks.sim_time_s,
            }

    def add_gap(self, stream: str, *, after_seq: int, lost: int, reason: str) -> None:
        """Declare loss on an optional stream (loss on a required one is refused)."""
        stream_id = self._ids.get(stream)
        if stream_id is None:
            raise StreamNotFoundError(f"no stream named {stream!r} was declared")
        if self._specs[stream_id].required:
            raise SchemaError(
                "records of a required stream cannot be declared lost", stream=stream
            )
        if lost < 1 or after_seq < -1 or after_seq >= self._seq[stream_id]:
            raise SchemaError(
                "gap needs lost >= 1 and after_seq of a written record (or -1)",
                stream=stream,
            )
        canonical_dumps(reason)
        self._gaps.append(
            {"stream": stream, "after_seq": after_seq, "lost": lost, "reason": reason}
        )

    def mark_recovered(
        self, recovered: dict[str, Any], gaps: list[dict[str, Any]]
    ) -> None:
        """Make the footer say this file was salvaged (and carry the source's gaps)."""
        canonical_dumps(recovered)
        self._recovered = recovered
        self._gaps.extend(gaps)

    def footer_fields(self, provenance: dict[str, Any]) -> dict[str, Any]:
        """Return the footer fields known here (the sink adds the inventory)."""
        if self._pending:
            raise CalibrationError(
                "a camera record references a calibration that was never declared"
            )
        return {
            "calibration": {
                "digests": sorted(self._digests, key=self._digests.__getitem__),
                "epochs": self._epochs,
            },
            "provenance": provenance,
            "degraded": bool(self._gaps) or self._recovered is not None,
            "gaps": self._gaps,
            "terminal_cut": self._terminal_cut,
            "completion": self._completion,
            "recovered": self._recovered,
        }


# Images and packed arrays are encoded later, on the encoder thread, when the
# caller may already have refilled its buffer: check and copy them now.
def _frame_snapshot(spec: StreamSpec, value: Any) -> RGBFrame:
    if isinstance(value, RGBFrame):
        frame = value
    else:
        array = np.asarray(value)
        if array.dtype != np.uint8 or array.shape != spec.shape:
            raise SchemaError(
                f"frame is {array.dtype} {list(array.shape)}, "
                f"the stream takes uint8 {list(spec.shape)}",
                stream=spec.name,
            )
        frame = RGBFrame(array)  # copies a writable array
    if (frame.height, frame.width, 3) != spec.shape:
        raise SchemaError(
            f"frame is {frame.width}x{frame.height}, "
            f"the stream declares {spec.shape[1]}x{spec.shape[0]}",
            stream=spec.name,
        )
    return frame


def _arrays_snapshot(spec: StreamSpec, value: Any) -> dict[str, np.ndarray]:
    try:
        checked = check_arrays(value, copy=True)
    except SchemaError as exc:
        raise exc.locate(stream=spec.name) from exc.__cause__
    return {name: array for name, (_, array) in checked.items()}
