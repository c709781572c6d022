"""The calibration-reference rule, checked on whole index columns.

Every camera image and pose names the calibration epoch it was taken in. The
epoch must be declared by an intrinsics record of the same camera and
generation at the same tick (a forward reference within the tick) or earlier;
never later, never in another generation.
"""

from __future__ import annotations

import numpy as np

from fsr_core.errors import CorruptRecordError
from fsr_core.format.index_columns import distinct
from fsr_core.format.metadata import FileMetadata
from fsr_core.format.record_index import RecordIndex
from fsr_core.format.safe_open import ByteSource
from fsr_core.format.streams import StreamKind

__all__ = ["CalibrationRefError", "check_calibration_refs"]

#: The index fields the checks read, packed (a camera's records, 16 bytes each).
_KEY_DTYPE = np.dtype(
    [("generation", "<u4"), ("calibration_ref", "<u4"), ("tick", "<i8")]
)


class CalibrationRefError(CorruptRecordError):
    """An image or pose references a calibration epoch not declared by then."""

    def __init__(
        self, camera: str, kind: StreamKind, generation: int, tick: int
    ) -> None:
        super().__init__(
            f"camera {camera!r} {kind.value} at generation {generation} tick {tick} "
            "references a calibration that no intrinsics record declares by then",
            section="index",
            stream=camera,
        )


def _first_ticks(rows: np.ndarray, radix: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (generation, ref) keys of ``rows`` and the first tick of each."""
    keys = rows["generation"].astype(np.uint64) * np.uint64(radix) + rows[
        "calibration_ref"
    ].astype(np.uint64)
    order = np.lexsort((rows["tick"], keys))
    unique_keys, first = np.unique(keys[order], return_index=True)
    return unique_keys, rows["tick"][order][first]


def _check_camera(camera: str, kinds: dict[StreamKind, np.ndarray]) -> None:
    refs = [rows["calibration_ref"] for rows in kinds.values() if len(rows)]
    if not refs:
        return
    radix = int(max(int(r.max()) for r in refs)) + 1
    intrinsics = kinds.get(StreamKind.CAMERA_INTRINSICS)
    empty = np.zeros(0, dtype=np.uint64)
    declared_keys, declared_ticks = (
        _first_ticks(intrinsics, radix)
        if intrinsics is not None and len(intrinsics)
        else (empty, np.zeros(0, dtype=np.int64))
    )
    for kind, rows in kinds.items():
        if kind is StreamKind.CAMERA_INTRINSICS or not len(rows):
            continue
        used_keys, used_ticks = _first_ticks(rows, radix)
        if len(declared_keys):
            where = np.searchsorted(declared_keys, used_keys)
            clipped = np.minimum(where, len(declared_keys) - 1)
            ok = (
                (where < len(declared_keys))
                & (declared_keys[clipped] == used_keys)
                & (declared_ticks[clipped] <= used_ticks)
            )
        else:
            ok = np.zeros(len(used_keys), dtype=bool)
        bad = np.flatnonzero(~ok)
        if len(bad):
            generation = int(used_keys[bad[0]]) // radix
            raise CalibrationRefError(camera, kind, generation, int(used_ticks[bad[0]]))


def check_calibration_refs(
    meta: FileMetadata,
    index: RecordIndex,
    known_refs: set[int],
    source: ByteSource,
) -> None:
    """Check that every camera record's epoch is known and declared in time.

    Raises
    ------
    CorruptRecordError
        A reference is not in the file's digest table, or
        (:class:`CalibrationRefError`) its epoch is declared too late or not at
        all in that generation.
    """
    by_camera: dict[str, dict[StreamKind, np.ndarray]] = {}
    for stream_id, spec in enumerate(meta.streams):
        if spec.camera is None:
            continue
        entries = index.take(index.stream_rows(stream_id), source)
        rows = np.empty(len(entries), dtype=_KEY_DTYPE)
        for key in _KEY_DTYPE.names or ():
            rows[key] = entries[key]
        del entries
        by_camera.setdefault(spec.camera, {})[spec.kind] = rows
        refs = distinct(rows["calibration_ref"])
        if not {int(ref) for ref in refs} <= known_refs:
            raise CorruptRecordError(
                "calibration reference missing from the digest table",
                stream=spec.name,
                section="index",
            )
    for camera, kinds in by_camera.items():
        _check_camera(camera, kinds)
