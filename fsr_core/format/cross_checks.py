"""What the reader checks across sections: calibration epochs and the lifecycle.

- :func:`build_epochs` reads the first intrinsics record of each calibration
  epoch (the only payloads an open touches: the profile lives in the record
  metadata), checks its profile against its calibration digest, numbers the
  epochs per camera and generation, and checks that the footer lists exactly
  those epochs.
- :func:`lifecycle_problems` compares the footer's terminal cut and completion
  with what the lifecycle records state (part of a full verification).
- :func:`calibration_value_problem` checks the value of one calibration record
  (an intrinsics matrix against its profile, a unit quaternion, a finite
  translation): a file written through a low-level path (copied payloads)
  could otherwise hold a calibration no writer would accept.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fsr_core.calibration import Calibration, CalibrationProfile, calibration_digest
from fsr_core.calibration.pose import QUATERNION_NORM_TOLERANCE
from fsr_core.errors import CalibrationError, CorruptRecordError, FsrError
from fsr_core.format.layout import Layout
from fsr_core.format.metadata import FileMetadata
from fsr_core.format.safe_open import ByteSource
from fsr_core.format.streams import StreamKind
from fsr_core.format.values import Footer, Record

__all__ = ["build_epochs", "calibration_value_problem", "lifecycle_problems"]

#: How far a stored intrinsics matrix may differ from its profile's K (relative).
_K_TOLERANCE = 1e-9

#: The footer's fields of one calibration epoch, in the order compared.
_EPOCH_KEYS = (
    "camera",
    "generation",
    "epoch",
    "digest",
    "first_tick",
    "first_sim_time_s",
)


def build_epochs(
    meta: FileMetadata,
    layout: Layout,
    footer: Footer | None,
    read_row: Callable[[int], Record],
    path: str,
    source: ByteSource,
) -> list[Calibration]:
    """Return every calibration epoch, per camera and generation, in order.

    ``read_row(row)`` reads one record (CRC checked). A new epoch starts where
    a camera's intrinsics records change generation or calibration reference.

    Raises
    ------
    CalibrationError
        An intrinsics profile that is invalid or does not match its digest,
        or a footer whose epochs are malformed or differ from the records.
    """
    epochs: list[Calibration] = []
    for stream_id, spec in enumerate(meta.streams):
        if spec.kind is not StreamKind.CAMERA_INTRINSICS or spec.camera is None:
            continue
        rows = layout.index.stream_rows(stream_id)
        entries = layout.index.take(rows, source)
        counts: dict[int, int] = {}
        for seq in _epoch_starts(entries):
            entry = entries[seq]
            key = (int(entry["generation"]), int(entry["calibration_ref"]))
            record = read_row(int(rows[seq]))
            digest = layout.calibration_digests[key[1]]
            epochs.append(_epoch_from(record, spec.camera, key, digest, counts))
    if footer is not None:
        _check_footer_epochs(epochs, footer, path)
    return epochs


def _epoch_starts(entries: np.ndarray) -> list[int]:
    """Return the positions where the (generation, reference) key changes."""
    if len(entries) == 0:
        return []
    generations, refs = entries["generation"], entries["calibration_ref"]
    changes = (generations[1:] != generations[:-1]) | (refs[1:] != refs[:-1])
    return [0, *(np.flatnonzero(changes) + 1).tolist()]


def _epoch_from(
    record: Record,
    camera: str,
    key: tuple[int, int],
    digest: str,
    counts: dict[int, int],
) -> Calibration:
    generation, _ = key
    try:
        profile = CalibrationProfile.from_json(record.metadata.get("profile"))
    except CalibrationError as exc:
        raise CalibrationError(
            f"intrinsics record has an invalid profile: {exc.reason}",
            stream=record.stream,
            record=record.stream_seq,
            offset=record.offset,
        ) from exc
    if (
        record.metadata.get("calibration_digest") != digest
        or calibration_digest(profile) != digest
    ):
        raise CalibrationError(
            "intrinsics profile does not match its calibration digest",
            stream=record.stream,
            record=record.stream_seq,
            offset=record.offset,
        )
    epoch = counts.get(generation, 0)
    counts[generation] = epoch + 1
    return Calibration(
        camera,
        generation,
        epoch,
        digest,
        profile,
        None,
        record.tick,
        record.sim_time_s,
    )


def _check_footer_epochs(epochs: list[Calibration], footer: Footer, path: str) -> None:
    """Check the footer lists exactly the epochs the intrinsics records hold."""
    found = [
        (e.camera, e.generation, e.epoch, e.digest, e.first_tick, e.first_sim_time_s)
        for e in epochs
    ]
    listed = footer.raw["calibration"]["epochs"]
    try:
        declared = sorted(tuple(item[k] for k in _EPOCH_KEYS) for item in listed)
    except (KeyError, TypeError) as exc:
        raise CalibrationError(
            "footer calibration epoch is malformed", path=path, section="footer"
        ) from exc
    # Compared as values, not text: -0.0 and 0.0 are the same instant.
    if declared != sorted(found):
        raise CalibrationError(
            "footer calibration epochs disagree with the intrinsics records",
            path=path,
            section="footer",
        )


def lifecycle_problems(
    footer: Footer | None, records: list[Record], path: str
) -> list[FsrError]:
    """Return how the footer's terminal cut and completion differ from ``records``.

    ``records`` are the lifecycle stream's records (any order); a file without
    a footer has nothing to compare.
    """
    if footer is None:
        return []
    cut, completion = None, None
    for record in sorted(records, key=lambda r: r.capture_seq):
        decoded = record.decoded
        event = decoded.get("event") if isinstance(decoded, dict) else None
        clocks = {"tick": record.tick, "sim_time_s": record.sim_time_s}
        if event == "terminal_semantic_cut":
            cut = {"generation": record.generation, **clocks}
        elif event == "completion":
            status = decoded.get("status")
            reason = decoded.get("reason_code")
            completion = {"status": status, "reason_code": reason, **clocks}
    compared = (
        ("terminal cut", cut, footer.terminal_cut),
        ("completion", completion, footer.completion),
    )
    return [
        CorruptRecordError(
            f"footer {what} differs from the lifecycle records",
            path=path,
            section="footer",
        )
        for what, from_records, in_footer in compared
        if from_records != in_footer
    ]


def _intrinsics_problem(values: Any, record: Record) -> str | None:
    k = np.asarray(values, dtype=np.float64)
    if k.shape != (3, 3) or not np.isfinite(k).all():
        return "intrinsics matrix K is not a finite 3x3 matrix"
    fx, fy = float(k[0, 0]), float(k[1, 1])
    if fx <= 0 or fy <= 0:
        return f"intrinsics fx = {fx!r}, fy = {fy!r}: focal lengths must be positive"
    if k[1, 0] != 0 or k[2, 0] != 0 or k[2, 1] != 0 or k[2, 2] != 1:
        return "intrinsics matrix K is not [[fx, s, cx], [0, fy, cy], [0, 0, 1]]"
    try:
        profile = CalibrationProfile.from_json(record.metadata.get("profile"))
    except CalibrationError as exc:
        return f"intrinsics record has an invalid profile: {exc.reason}"
    expected = profile.K
    scale = max(float(np.abs(expected).max()), 1.0)
    if not np.allclose(k, expected, rtol=0.0, atol=_K_TOLERANCE * scale):
        return (
            f"intrinsics matrix K (fx {fx:g}, fy {fy:g}, cx {k[0, 2]:g}, "
            f"cy {k[1, 2]:g}) disagrees with the camera's calibration profile "
            f"(fx {profile.fx:g}, fy {profile.fy:g}, cx {profile.cx:g}, "
            f"cy {profile.cy:g})"
        )
    return None


def _pose_problem(values: Any, kind: StreamKind) -> str | None:
    vector = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.isfinite(vector).all():
        return f"{kind.value} holds a non-finite component"
    if kind is StreamKind.CAMERA_QUATERNION:
        norm = float(np.linalg.norm(vector))
        if not math.isclose(norm, 1.0, rel_tol=0.0, abs_tol=QUATERNION_NORM_TOLERANCE):
            return f"camera quaternion has norm {norm:.9g}, expected 1 (a rotation)"
    return None


def calibration_value_problem(record: Record) -> CalibrationError | None:
    """Return what is wrong with a calibration record's value (``None``: nothing).

    Intrinsics: K finite, fx and fy positive, the camera-matrix form, and equal
    to the profile its record metadata declares. Quaternion: finite and of unit
    norm. Translation: finite. Other records: ``None``.
    """
    kind = record.spec.kind
    if kind is StreamKind.CAMERA_INTRINSICS:
        problem = _intrinsics_problem(record.decoded, record)
    elif kind in (StreamKind.CAMERA_QUATERNION, StreamKind.CAMERA_TRANSLATION):
        problem = _pose_problem(record.decoded, kind)
    else:
        return None
    if problem is None:
        return None
    return CalibrationError(
        problem,
        stream=record.stream,
        record=record.stream_seq,
        offset=record.offset,
    )
