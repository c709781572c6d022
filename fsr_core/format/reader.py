"""``FsrReader``: open, validate, seek and decode an FSR file.

Opening validates the whole layout (header, metadata, trailer, footer, batch
directory, record index, every batch header, sequences, clocks, calibration
references) before any record is exposed. The only record bytes it reads are
the first intrinsics record of each calibration epoch (its profile lives in the
record metadata); no other payload is touched, so opening costs the same for a
1 MB and a 1 GB file with the same number of batches.

A reader belongs to one thread at a time; open one per worker.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, BinaryIO, Unpack

import numpy as np

from fsr_core.calibration import (
    Calibration,
    CameraPose,
)
from fsr_core.canonical_json import JsonLimits, parse_json
from fsr_core.checksums import crc32
from fsr_core.errors import (
    CalibrationError,
    CorruptRecordError,
    FsrError,
    LimitExceededError,
    StreamNotFoundError,
    TruncatedFileError,
)
from fsr_core.format.cross_checks import (
    build_epochs,
    calibration_value_problem,
    lifecycle_problems,
)
from fsr_core.format.footer import parse_footer
from fsr_core.format.layout import Layout
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.metadata import FileMetadata, read_file_metadata
from fsr_core.format.open_layout import (
    diagnose_without_trailer,
    layout_from_footer,
    layout_from_scan,
)
from fsr_core.format.payloads import decode_payload
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.safe_open import ByteSource, open_source
from fsr_core.format.seeking import (
    SeekMode,
    SeekWhere,
    ensure_range,
    find_row,
    parse_mode,
)
from fsr_core.format.series_read import read_raw_series
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.format.values import (
    Footer,
    MediaFrame,
    MediaRef,
    Record,
    RecoveryInfo,
    StreamInfo,
)

__all__ = ["FsrReader"]


@contextmanager
def _closed_on_failure(source: ByteSource) -> Iterator[None]:
    """Close ``source`` when the block fails; an FsrError gets its file named."""
    try:
        yield
    except FsrError as exc:
        source.close()
        raise exc.with_path(source.name) from exc.__cause__
    except BaseException:
        source.close()
        raise


class FsrReader:
    """A validated, open FSR file. Use :meth:`open`; close it (or use ``with``)."""

    def __init__(
        self,
        source: ByteSource,
        meta: FileMetadata,
        layout: Layout,
        footer: Footer | None,
        recovery: RecoveryInfo | None,
        limits: ReaderLimits,
    ) -> None:
        self._source = source
        self._meta = meta
        self._layout = layout
        self._footer = footer
        self._recovery = recovery
        self._limits = limits
        self._sha256: str | None = None
        self._verified_batches: set[int] = set()
        self._failed_batches: dict[int, CorruptRecordError] = {}
        self._meta_limits = JsonLimits(max_bytes=limits.record_metadata_bytes)
        self._columns: dict[tuple[int, str], np.ndarray] = {}
        self._restart_flags: dict[tuple[int, str], bool] = {}
        self._streams = {
            spec.name: self._stream_info(i, spec) for i, spec in enumerate(meta.streams)
        }
        self._ids = {spec.name: i for i, spec in enumerate(meta.streams)}
        self._epochs = build_epochs(
            meta,
            layout,
            footer,
            lambda row: self._read_row(row, verify_digest=False),
            self.path,
            source,
        )

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(
        cls,
        target: str | os.PathLike[str] | BinaryIO,
        *,
        max_bytes: int | None = None,
        expected_sha256: str | None = None,
        recover: bool = False,
        limits: ReaderLimits | None = None,
        check: Callable[[], None] | None = None,
    ) -> FsrReader:
        """Open and validate an FSR file.

        Parameters
        ----------
        target
            A path (opened non-following, non-blocking, regular files only, the
            descriptor pinned) or an open binary file, which stays the caller's.
        max_bytes
            Refuse files larger than this.
        expected_sha256
            Hex SHA-256 the whole file must have; checked in one pass at open.
        recover
            Accept a file whose tail is missing or damaged and expose exactly
            its complete, intact batches (see :attr:`recovered`).
        limits
            Reader limits; the defaults are listed in docs/format.md, section 17.
        check
            Called between the chunks of the ``expected_sha256`` pass; raise
            from it to stop (a cancelled replay does).

        Raises
        ------
        FsrError
            Any subclass, naming the file, section and byte offset.
        """
        limits = limits or ReaderLimits()
        source = open_source(target)
        with _closed_on_failure(source):
            return cls._open_source(
                source,
                limits,
                max_bytes=max_bytes,
                expected_sha256=expected_sha256,
                recover=recover,
                check=check,
            )

    @classmethod
    def _open_source(
        cls,
        source: ByteSource,
        limits: ReaderLimits,
        *,
        max_bytes: int | None,
        expected_sha256: str | None,
        recover: bool,
        check: Callable[[], None] | None = None,
    ) -> FsrReader:
        if max_bytes is not None and source.size > max_bytes:
            raise LimitExceededError(
                f"file of {source.size} bytes exceeds max_bytes={max_bytes}",
                section="file",
            )
        digest = None
        if expected_sha256 is not None:
            digest = source.sha256(check)
            if digest != expected_sha256.lower():
                raise CorruptRecordError(
                    f"file SHA-256 is {digest}, expected {expected_sha256.lower()}",
                    section="file",
                )
        meta = read_file_metadata(source, limits)
        recovery = None
        try:
            layout = layout_from_footer(source, meta, limits, size=source.size)
        except FsrError as exc:
            if not recover:
                if exc.section == "trailer":
                    raise diagnose_without_trailer(source, meta, limits, exc) from exc
                raise
            layout, scan = layout_from_scan(source, meta, limits)
            recovery = RecoveryInfo(
                reason=scan.stop if scan.error is None else scan.error.reason,
                trusted_bytes=scan.end,
                file_bytes=source.size,
                batches_kept=len(scan.batches),
                records_kept=len(layout.index),
                error=str(exc),
            )
        footer = None
        if layout.footer is not None:
            footer = parse_footer(
                layout.footer, meta.profile, [s.name for s in meta.streams]
            )
        reader = cls(source, meta, layout, footer, recovery, limits)
        reader._sha256 = digest
        return reader

    @property
    def index_bytes(self) -> int:
        """Memory the validated record index takes (shared with the twins)."""
        return self._layout.index.nbytes

    def shares_index_with(self, other: FsrReader) -> bool:
        """Whether ``other`` is this reader's twin (the same index in memory)."""
        return self._layout is other._layout

    def twin(self) -> FsrReader:
        """Open this reader's file again, sharing the layout it validated.

        A second reader of one file (another thread's) costs a descriptor,
        not a second validation and a second copy of the record index. The
        file must still have the size this reader opened; whether it is the
        same file (inode, mtime) is the caller's check, as for any reopen.

        Raises
        ------
        FsrError
            The file cannot be opened, or its size changed.
        """
        source = open_source(self.path)
        if source.size != self._source.size:
            source.close()
            raise TruncatedFileError(
                f"changed size since it was opened ({self._source.size} -> "
                f"{source.size} bytes): reload it",
                section="file",
                path=self.path,
            )
        with _closed_on_failure(source):
            twin = type(self)(
                source,
                self._meta,
                self._layout,
                self._footer,
                self._recovery,
                self._limits,
            )
        twin._sha256 = self._sha256
        return twin

    def close(self) -> None:
        """Release the pinned descriptor (a caller's file object stays open)."""
        self._source.close()

    def __enter__(self) -> FsrReader:
        """Return self."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the reader, whatever ended the block."""
        self.close()

    # --------------------------------------------------------------- properties
    @property
    def path(self) -> str:
        """The file's name as opened."""
        return self._source.name

    @property
    def size_bytes(self) -> int:
        """The file's size when it was opened."""
        return self._source.size

    @property
    def profile(self) -> IntegrityProfile:
        """The file's integrity profile."""
        return self._meta.profile

    @property
    def version(self) -> str:
        """The binary version, e.g. ``1.2``."""
        return f"1.{self._meta.minor}"

    @property
    def metadata(self) -> dict[str, Any]:
        """The run's canonical metadata (run, scenario, config, versions, ...)."""
        return self._meta.metadata

    @property
    def streams(self) -> Mapping[str, StreamInfo]:
        """Every stream by name, in declaration order."""
        return self._streams

    @property
    def footer(self) -> Footer | None:
        """The footer (``None`` for a recovered file that had none)."""
        return self._footer

    @property
    def recovered(self) -> bool:
        """Whether this open salvaged a damaged or unfinished file."""
        return self._recovery is not None

    @property
    def recovery(self) -> RecoveryInfo | None:
        """What a recovering open kept and lost."""
        return self._recovery

    @property
    def record_count(self) -> int:
        """Number of records in the file."""
        return len(self._layout.index)

    @property
    def file_sha256(self) -> str:
        """Hex SHA-256 of the whole file, computed on first access and cached."""
        return self.sha256()

    def sha256(self, check: Callable[[], None] | None = None) -> str:
        """Return the whole file's hex SHA-256 (hashed once, then kept).

        ``check()`` is called between chunks while hashing; raise from it to
        stop (a cancelled replay does).
        """
        if self._sha256 is None:
            self._sha256 = self._source.sha256(check)
        return self._sha256

    @property
    def cameras(self) -> tuple[str, ...]:
        """Names of the cameras with an image stream."""
        return tuple(
            s.camera
            for s in self._meta.streams
            if s.kind is StreamKind.CAMERA_RGB and s.camera
        )

    # ------------------------------------------------------------------ access
    def _stream_info(self, stream_id: int, spec: StreamSpec) -> StreamInfo:
        summary = self._layout.summaries[stream_id]
        if summary.records == 0:
            return StreamInfo(spec, stream_id, 0, None, None, None, None, (), 0, None)
        first, last = summary.firsts, summary.lasts
        span = float((last["sim_time_s"] - first["sim_time_s"]).sum())
        intervals = int((last["stream_seq"] - first["stream_seq"]).sum())
        return StreamInfo(
            spec=spec,
            stream_id=stream_id,
            record_count=summary.records,
            first_tick=int(first["tick"][0]),
            last_tick=int(last["tick"][-1]),
            first_sim_time_s=float(first["sim_time_s"][0]),
            last_sim_time_s=float(last["sim_time_s"][-1]),
            generations=tuple(int(g) for g in first["generation"]),
            payload_bytes=summary.payload_bytes,
            # Mean record rate within generations (a reset restarts the clock).
            rate_hz=intervals / span if intervals and span > 0 else None,
        )

    def _stream_id(self, stream: str) -> int:
        try:
            return self._ids[stream]
        except KeyError:
            raise StreamNotFoundError(
                f"no stream named {stream!r}", path=self.path
            ) from None

    def rows(self, stream: str) -> np.ndarray:
        """Return the index entries of ``stream`` in order (a structured array)."""
        index = self._layout.index
        return index.take(index.stream_rows(self._stream_id(stream)), self._source)

    def generation_runs(self, stream: str) -> tuple[np.ndarray, np.ndarray]:
        """Return the index entries that begin and end each generation of ``stream``.

        Two structured arrays of one entry per generation, in order: a
        generation's ticks and sim times are its first entry's to its last's
        (they never go back within it), read without gathering the stream's
        whole index.
        """
        summary = self._layout.summaries[self._stream_id(stream)]
        return summary.firsts.copy(), summary.lasts.copy()

    def stream_entries(self, stream: str, seqs: slice | np.ndarray) -> np.ndarray:
        """Return the index entries of records ``seqs`` of ``stream`` (a copy)."""
        index = self._layout.index
        return index.take(
            index.stream_rows(self._stream_id(stream), seqs), self._source
        )

    def batch_starts(self, stream: str) -> np.ndarray:
        """Return the sequence number of the first record of each batch of ``stream``.

        A few numbers per thousand records: with :meth:`stream_entries`, a
        record found by time reads the index of one batch, not of the stream.
        """
        stream_id = self._stream_id(stream)
        directory = self._layout.directory
        counts = directory["record_count"][directory["stream_id"] == stream_id]
        starts: np.ndarray = np.cumsum(counts, dtype=np.int64) - counts
        return starts

    def column(self, stream: str, key: str) -> np.ndarray:
        """Return one index field of ``stream``'s records in order (a new array).

        ``key`` is an entry field (``"generation"``, ``"tick"``,
        ``"sim_time_s"`` ...): a long stream's times cost 8 bytes a record,
        not the 64 of :meth:`rows`.
        """
        index = self._layout.index
        return index.column(
            key, index.stream_rows(self._stream_id(stream)), self._source
        )

    def record(self, stream: str, stream_seq: int) -> Record:
        """Return record ``stream_seq`` of ``stream``."""
        stream_id = self._stream_id(stream)
        index = self._layout.index
        ensure_range(index.stream_length(stream_id), stream_seq, stream)
        return self._read_row(self._row_of(stream_id, stream_seq))

    def _row_of(self, stream_id: int, stream_seq: int) -> int:
        """Return the index row of record ``stream_seq`` of a stream."""
        rows = self._layout.index.stream_rows(stream_id, np.array([stream_seq]))
        return int(rows[0])

    def seek(self, stream: str, **where: Unpack[SeekWhere]) -> Record | None:
        """Find a record of ``stream`` by generation, tick or sim time.

        Give ``tick`` or ``sim_time_s`` (not both), optionally restricted to
        one ``generation``; or only ``generation`` for its first record. Modes:
        ``exact``, ``at_or_before``, ``at_or_after`` (default), ``nearest``.
        Returns ``None`` when no record qualifies.
        """
        row = self.seek_row(stream, **where)
        return None if row is None else self.record(stream, row)

    def seek_row(
        self,
        stream: str,
        *,
        generation: int | None = None,
        tick: int | None = None,
        sim_time_s: float | None = None,
        mode: str | SeekMode = SeekMode.AT_OR_AFTER,
    ) -> int | None:
        """Find a record like :meth:`seek`; return its sequence number, unread."""
        seek_mode = parse_mode(mode)
        if tick is not None and sim_time_s is not None:
            raise ValueError("seek by tick or by sim_time_s, not both")
        stream_id = self._stream_id(stream)
        gens = self._seek_column(stream_id, "generation")
        lo, hi = 0, len(gens)
        if generation is not None:
            lo = int(np.searchsorted(gens, generation, side="left"))
            hi = int(np.searchsorted(gens, generation, side="right"))
            if tick is None and sim_time_s is None:
                return lo if lo < hi else None
        elif tick is None and sim_time_s is None:
            raise ValueError("seek needs generation, tick or sim_time_s")
        key = "tick" if tick is not None else "sim_time_s"
        keys = self._seek_column(stream_id, key)[lo:hi]
        if generation is None and self._restarts(stream_id, key):
            raise ValueError(
                f"stream {stream!r} restarts its {key} at a generation reset; "
                "pass generation="
            )
        value = tick if tick is not None else sim_time_s
        assert value is not None
        found = find_row(keys, value, seek_mode)
        return None if found is None else lo + found

    def _seek_column(self, stream_id: int, key: str) -> np.ndarray:
        """One index column of a stream, gathered once and cached read-only.

        Gathering a stream's full structured rows on every seek cost a copy of
        the whole stream's index (about 0.5 ms for 7200 records).
        """
        column = self._columns.get((stream_id, key))
        if column is None:
            index = self._layout.index
            column = index.column(key, index.stream_rows(stream_id), self._source)
            column.flags.writeable = False
            self._columns[(stream_id, key)] = column
        return column

    def _restarts(self, stream_id: int, key: str) -> bool:
        """Whether the stream's ``key`` goes backwards anywhere (a generation reset)."""
        found = self._restart_flags.get((stream_id, key))
        if found is None:
            keys = self._seek_column(stream_id, key)
            found = len(keys) > 1 and bool((keys[1:] < keys[:-1]).any())
            self._restart_flags[(stream_id, key)] = found
        return found

    def iter_records(self, stream: str | None = None) -> Iterator[Record]:
        """Yield records of one stream in order, or of all streams in capture order."""
        if stream is not None:
            for row in self._layout.index.stream_rows(self._stream_id(stream)):
                yield self._read_row(int(row))
            return
        captures = self._layout.index.whole_column("capture_seq", self._source)
        for row in np.argsort(captures, kind="stable"):
            yield self._read_row(int(row))

    def read_series(
        self, stream: str, first: int = 0, stop: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(ticks, sim_times_s, values)`` of a numeric stream in one pass.

        ``first`` and ``stop`` pick the records ``first .. stop - 1`` (default:
        all), so a long stream can be read a part at a time.
        """
        stream_id = self._stream_id(stream)
        spec = self._meta.streams[stream_id]
        if spec.codec != "raw":
            raise ValueError(f"stream {stream!r} is not a raw numeric stream")
        index = self._layout.index
        rows = index.stream_rows(stream_id, slice(first, stop))
        ticks = index.column("tick", rows, self._source)
        times = index.column("sim_time_s", rows, self._source)
        try:
            fast = read_raw_series(
                self._source,
                self._layout,
                rows,
                spec,
                self._meta.profile,
                self._verify_batch,
            )
        except FsrError:
            fast = None  # the record-by-record read below says what is wrong
        if fast is not None:
            return ticks, times, fast
        values = np.empty((len(rows), *spec.shape), dtype=spec.numpy_dtype)
        for number, row in enumerate(rows):
            values[number] = self._read_row(int(row)).decoded
        return ticks, times, values

    def iter_media(self, camera: str | None = None) -> Iterator[MediaFrame]:
        """Yield decoded camera frames (of one camera, or all in capture order)."""
        ids = [
            i
            for i, s in enumerate(self._meta.streams)
            if s.kind is StreamKind.CAMERA_RGB
            and (camera is None or s.camera == camera)
        ]
        if camera is not None and not ids:
            raise StreamNotFoundError(f"no camera named {camera!r}", path=self.path)
        rows = (
            np.concatenate([self._layout.index.stream_rows(i) for i in ids])
            if ids
            else np.zeros(0, dtype=np.int64)
        )
        captures = self._layout.index.column("capture_seq", rows, self._source)
        order = rows[np.argsort(captures, kind="stable")]
        for row in order:
            yield self.media_frame(self._read_row(int(row)))

    def media_frame(self, record: Record) -> MediaFrame:
        """Wrap a camera record as a :class:`MediaFrame` (decoding it)."""
        spec = record.spec
        if spec.kind is not StreamKind.CAMERA_RGB or spec.camera is None:
            raise ValueError(f"stream {spec.name!r} is not a camera image stream")
        ref = MediaRef(
            spec.camera,
            spec.name,
            record.stream_seq,
            record.generation,
            record.tick,
            record.sim_time_s,
            str(record.metadata.get("calibration_digest", "")),
        )
        return MediaFrame(ref, record.decoded, record.verified)

    # -------------------------------------------------------------- calibration
    def calibration_epochs(self, camera: str | None = None) -> list[Calibration]:
        """Every calibration epoch, per camera and generation, in order."""
        return [e for e in self._epochs if camera is None or e.camera == camera]

    def calibration(self, camera: str, *, generation: int, tick: int) -> Calibration:
        """Return the calibration in force for ``camera`` at ``(generation, tick)``.

        The result carries the epoch's intrinsics and the camera pose recorded
        at or before that tick (``None`` when the camera has no pose streams).
        """
        epochs = [
            e
            for e in self._epochs
            if e.camera == camera
            and e.generation == generation
            and e.first_tick <= tick
        ]
        if not epochs:
            if (
                camera not in {e.camera for e in self._epochs}
                and camera not in self.cameras
            ):
                raise StreamNotFoundError(f"no camera named {camera!r}", path=self.path)
            raise CalibrationError(
                f"camera {camera!r} has no calibration at generation {generation} "
                f"tick {tick}",
                path=self.path,
            )
        epoch = epochs[-1]
        pose = self._pose_at(camera, generation, tick)
        return Calibration(
            epoch.camera,
            epoch.generation,
            epoch.epoch,
            epoch.digest,
            epoch.profile,
            pose,
            epoch.first_tick,
            epoch.first_sim_time_s,
        )

    def _pose_at(self, camera: str, generation: int, tick: int) -> CameraPose | None:
        parts = []
        for kind in (StreamKind.CAMERA_TRANSLATION, StreamKind.CAMERA_QUATERNION):
            spec = next(
                (
                    s
                    for s in self._meta.streams
                    if s.camera == camera and s.kind is kind
                ),
                None,
            )
            if spec is None:
                return None
            seq = self.seek_row(
                spec.name, generation=generation, tick=tick, mode=SeekMode.AT_OR_BEFORE
            )
            if seq is None:
                return None
            parts.append(self.record(spec.name, seq).decoded)
        return CameraPose(parts[0], parts[1])

    # -------------------------------------------------------------- raw access
    def _read_row(self, row: int, *, verify_digest: bool = True) -> Record:
        """Read one record, checking its CRC and (unless told not to) its digest."""
        index = self._layout.index
        entry = index.entry(row, self._source)
        spec = self._meta.streams[int(entry["stream_id"])]
        offset = index.body_start(int(index.batch_of(np.array([row]))[0])) + int(
            entry["body_offset"]
        )
        meta_length = int(entry["meta_length"])
        length = meta_length + int(entry["payload_length"])
        data = self._source.read_at(offset, length, section="record")
        seq = int(entry["stream_seq"])
        if _crc(data) != int(entry["record_crc"]):
            raise self._record_error("record fails its CRC", spec, seq, offset)
        verified = (
            self._verify(row, data, spec, seq, offset) if verify_digest else False
        )
        metadata: dict[str, Any] = {}
        if meta_length:
            try:
                parsed = parse_json(
                    data[:meta_length],
                    limits=self._meta_limits,
                    what="record metadata",
                )
            except FsrError as exc:
                raise self._record_error(
                    f"record metadata: {exc.reason}", spec, seq, offset
                ) from exc
            if not isinstance(parsed, dict):
                raise self._record_error(
                    "record metadata is not an object", spec, seq, offset
                )
            metadata = parsed
        return Record(
            spec=spec,
            stream_seq=seq,
            capture_seq=int(entry["capture_seq"]),
            generation=int(entry["generation"]),
            tick=int(entry["tick"]),
            sim_time_s=float(entry["sim_time_s"]),
            metadata=metadata,
            payload=data[meta_length:],
            offset=offset,
            verified=verified,
            decode=self._decode,
        )

    def _record_error(
        self, message: str, spec: StreamSpec, seq: int, offset: int
    ) -> CorruptRecordError:
        """Return a :class:`CorruptRecordError` at record ``seq`` of ``spec``."""
        return CorruptRecordError(
            message, path=self.path, stream=spec.name, record=seq, offset=offset
        )

    def _verify(
        self, row: int, data: bytes, spec: StreamSpec, seq: int, offset: int
    ) -> bool:
        profile = self._meta.profile
        if profile is IntegrityProfile.STRONG:
            assert self._layout.record_digests is not None
            if (
                hashlib.sha256(data).digest()
                != self._layout.record_digests[row].tobytes()
            ):
                raise self._record_error("record fails its SHA-256", spec, seq, offset)
            return True
        if profile is IntegrityProfile.FAST:
            self._verify_batch(int(self._layout.index.batch_of(np.array([row]))[0]))
            return True
        return False

    def _verify_batch(self, batch: int) -> None:
        if batch in self._verified_batches:
            return
        failure = self._failed_batches.get(batch)
        if failure is not None:
            raise failure
        row = self._layout.directory[batch]
        start = self._layout.index.body_start(batch)
        header_end = int(row["offset"]) + int(row["total_length"])
        body = self._source.read_at(start, header_end - start, section="batch")
        if hashlib.sha256(body).digest() != self._layout.batch_digests[batch]:
            # Remembered, so the batch's other records fail without a re-hash.
            failure = CorruptRecordError(
                "batch body fails its SHA-256",
                path=self.path,
                section="batch",
                record=batch,
                offset=int(row["offset"]),
            )
            self._failed_batches[batch] = failure
            raise failure
        self._verified_batches.add(batch)

    def _decode(self, record: Record) -> Any:
        try:
            return decode_payload(
                record.spec,
                record.payload,
                len(record.payload)
                if record.spec.codec != "arrays+zlib"
                else self._raw_length(record),
                max_pixels=self._limits.max_pixels,
            )
        except FsrError as exc:
            raise exc.locate(
                path=self.path,
                stream=record.stream,
                record=record.stream_seq,
                offset=record.offset,
            ) from exc.__cause__

    def _raw_length(self, record: Record) -> int:
        row = self._row_of(self._ids[record.stream], record.stream_seq)
        return int(self._layout.index.entry(row, self._source)["raw_length"])

    def verify(self, check: Callable[[], None] | None = None) -> list[FsrError]:
        """Read and check every record; return the problems found.

        Checks each record's CRC, the profile's digests, that every payload
        decodes as its stream declares, that every calibration record holds a
        valid value (K agreeing with its profile, unit quaternions), and that
        the footer's terminal cut and completion are the ones the lifecycle
        records state. ``check()`` is
        called every 64 records; raise from it to stop.
        """
        problems: list[FsrError] = []
        lifecycle: list[Record] = []
        for row in range(len(self._layout.index)):
            if check is not None and row % 64 == 0:
                check()
            try:
                record = self._read_row(row)
                _ = record.decoded
            except FsrError as exc:
                problems.append(exc)
                continue
            calibration = calibration_value_problem(record)
            if calibration is not None:
                problems.append(calibration.locate(path=self.path))
            if record.spec.kind is StreamKind.LIFECYCLE:
                lifecycle.append(record)
        problems.extend(lifecycle_problems(self._footer, lifecycle, self.path))
        return problems


def _crc(data: bytes) -> int:
    return crc32(data)
