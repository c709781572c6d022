"""What the reader checks across sections: calibration epochs and the lifecycle.

- :func:`build_epochs` reads the first intrinsics record of each calibration
  epoch (the only payloads an open touches: the profile lives in the record
  metadata), checks its profile against its calibration digest, numbers the
  epochs per camera and generation, and checks that the footer lists exactly
  those epochs.
- :func:`lifecycle_problems` compares the footer's terminal cut and completion
  with what the lifecycle records state (part of a full verification).
"""

from __future__ import annotations

from collections.abc import Callable

from fsr_core.calibration import Calibration, CalibrationProfile, calibration_digest
from fsr_core.errors import CalibrationError, CorruptRecordError, FsrError
from fsr_core.format.layout import Layout
from fsr_core.format.metadata import FileMetadata
from fsr_core.format.streams import StreamKind
from fsr_core.format.values import Footer, Record

__all__ = ["build_epochs", "lifecycle_problems"]

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
        rows = layout.stream_rows[stream_id]
        entries = layout.entries[rows]
        last: tuple[int, int] | None = None
        counts: dict[int, int] = {}
        for seq, entry in enumerate(entries):
            key = (int(entry["generation"]), int(entry["calibration_ref"]))
            if key == last:
                continue
            last = key
            record = read_row(int(rows[seq]))
            digest = layout.calibration_digests[key[1]]
            epochs.append(_epoch_from(record, spec.camera, key, digest, counts))
    if footer is not None:
        _check_footer_epochs(epochs, footer, path)
    return epochs


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
