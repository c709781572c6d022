"""``FsrWriter``: record streams into a new FSR file, published atomically.

Publication protocol: a staging file ``.<name>.<random>.fsr-staging`` is created
exclusively in the target folder (through a pinned folder descriptor), batches
are written as they close, then footer and trailer, ``fsync``, a structural
read-back with :class:`~fsr_core.format.reader.FsrReader`, a hard link to the
final name (which fails if that name exists: nothing is ever overwritten),
``fsync`` of the folder, and removal of the staging name. A crash leaves only
the staging file, whose complete batches ``fsr-viewer recover`` can save.
"""

from __future__ import annotations

import os
import queue
import secrets
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any

from fsr_core.canonical_json import canonical_dumps
from fsr_core.errors import (
    FsrError,
    TargetExistsError,
    WriteFailedError,
    WriterStateError,
)
from fsr_core.format.batching import BatchLimits, BatchSink
from fsr_core.format.file_ops import FileOps
from fsr_core.format.profiles import IntegrityProfile, minor_for, parse_profile
from fsr_core.format.records import HEADER_SIZE as _HEADER_SIZE
from fsr_core.format.records import FileHeader, crc32
from fsr_core.format.streams import StreamSpec, check_stream_table
from fsr_core.format.worker_queue import drain, put_watched
from fsr_core.format.writer_checks import PreparedRecord, RecordChecks

__all__ = ["FsrWriter", "PublishResult"]

_QUEUE_DEPTH = 64
_STOP: Any = object()
# Codecs encoded on a worker thread; other payloads are encoded by the caller.
_THREADED_CODECS = ("jpeg", "png", "rgb24", "arrays+zlib")


class PublishResult:
    """Where the file went and how it was published."""

    def __init__(
        self, path: Path, *, atomic: bool, size_bytes: int, records: int
    ) -> None:
        self.path = path
        self.atomic = atomic
        self.size_bytes = size_bytes
        self.records = records

    def __repr__(self) -> str:
        """Short description."""
        return (
            f"PublishResult({str(self.path)!r}, atomic={self.atomic}, "
            f"size_bytes={self.size_bytes})"
        )


class FsrWriter:
    """Write one FSR file.

    Parameters
    ----------
    path
        The final file name; it must not exist yet.
    streams
        Every stream the file will hold, declared up front.
    metadata
        Canonical run metadata (run, scenario/task, resolved config, versions).
    integrity
        ``structural`` (default), ``fast`` or ``strong``.
    batch_limits
        When batches close.
    provenance
        Stored in the footer (source file, mode, tool versions ...).
    jpeg_quality
        Quality for ``jpeg`` camera streams (default 92, 4:4:4 chroma).
    keep_partial
        Keep the staging file when the write fails or is aborted.

    Use it as a context manager: leaving the block normally publishes the file
    (:meth:`finish`); an exception aborts it and removes the staging file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        streams: list[StreamSpec] | tuple[StreamSpec, ...],
        *,
        metadata: dict[str, Any] | None = None,
        integrity: str | IntegrityProfile = IntegrityProfile.STRUCTURAL,
        batch_limits: BatchLimits | None = None,
        provenance: dict[str, Any] | None = None,
        jpeg_quality: int = 92,
        keep_partial: bool = False,
        file_ops: FileOps | None = None,
    ) -> None:
        self._final = Path(path)
        self._specs = tuple(streams)
        check_stream_table(list(self._specs))
        self._profile = parse_profile(integrity)
        self._document = canonical_dumps(
            {
                "format": "fsr",
                "major": 1,
                "integrity": self._profile.value,
                "digest": "sha256",
                "metadata": metadata or {},
                "streams": [spec.to_json(i) for i, spec in enumerate(self._specs)],
            }
        )
        self._limits = batch_limits or BatchLimits()
        self._provenance = dict(provenance or {})
        canonical_dumps(self._provenance)  # refused now, not after the recording
        self._quality = jpeg_quality
        self._keep_partial = keep_partial
        self._ops = file_ops or FileOps()
        self._checks = RecordChecks(self._specs)
        self._state = "new"
        self._dir_fd = -1
        self._fd = -1
        self._staging = ""
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=_QUEUE_DEPTH)
        self._encoder: ThreadPoolExecutor | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        self._sink: BatchSink | None = None
        self._result: PublishResult | None = None

    # --------------------------------------------------------------- life cycle
    @property
    def path(self) -> Path:
        """The final file name."""
        return self._final

    @property
    def staging_path(self) -> Path | None:
        """The staging file while writing (``None`` before start)."""
        return self._final.parent / self._staging if self._staging else None

    @property
    def streams(self) -> tuple[StreamSpec, ...]:
        """The declared streams."""
        return self._specs

    def start(self) -> FsrWriter:
        """Create the staging file and write the header and metadata."""
        if self._state != "new":
            raise WriterStateError(
                f"start() called on a writer that is {self._state}", path=self._final
            )
        self._dir_fd = self._ops.open_dir(str(self._final.parent) or ".")
        try:
            self._refuse_existing_target()
            self._staging = f".{self._final.name}.{secrets.token_hex(6)}.fsr-staging"
            self._fd = self._ops.create(self._staging, self._dir_fd)
            header = FileHeader(
                minor_for(self._profile),
                0,
                0,
                len(self._document),
                crc32(self._document),
            )
            self._ops.write(self._fd, header.encode() + self._document, self._staging)
        except BaseException:
            self._cleanup()
            raise
        self._sink = BatchSink(
            self._specs,
            self._profile,
            self._limits,
            _HEADER_SIZE + len(self._document),
            self._write_bytes,
        )
        self._encoder = ThreadPoolExecutor(
            max_workers=2, thread_name_prefix="fsr-encode"
        )
        self._thread = threading.Thread(
            target=self._run, name="fsr-writer", daemon=True
        )
        self._thread.start()
        self._state = "open"
        return self

    def _refuse_existing_target(self) -> None:
        if self._ops.exists(self._final.name, self._dir_fd):
            raise TargetExistsError(
                "file already exists; it is never overwritten", path=self._final
            )

    def __enter__(self) -> FsrWriter:
        """Start the writer."""
        return self.start() if self._state == "new" else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Publish on success, abort on an exception."""
        if exc_type is None:
            if self._state == "open":
                self.finish()
        else:
            self.abort()

    # ------------------------------------------------------------------ records
    def write(
        self,
        stream: str,
        value: Any,
        *,
        tick: int,
        sim_time_s: float,
        generation: int = 0,
        metadata: dict[str, Any] | None = None,
    ) -> int:
        """Add one record; return its per-stream sequence number.

        The value is checked now (shape, dtype, finiteness, clocks, names), so
        a value the reader would reject is refused before anything is written.
        Images and packed arrays are encoded on a worker thread.
        """
        self._ensure_open("write")
        prepared = self._checks.prepare(
            stream, value, tick, sim_time_s, generation, metadata
        )
        return self._queue_record(prepared)

    def write_encoded(
        self,
        stream: str,
        payload: bytes,
        *,
        raw_length: int,
        tick: int,
        sim_time_s: float,
        generation: int = 0,
        metadata: dict[str, Any] | None = None,
        value: Any = None,
    ) -> int:
        """Add a record whose payload is already encoded (copying between files).

        ``value`` is the decoded payload for JSON and intrinsics streams, whose
        contents the writer's checks need; other payloads are stored as given.
        """
        self._ensure_open("write_encoded")
        prepared = self._checks.prepare(
            stream, value, tick, sim_time_s, generation, metadata, (payload, raw_length)
        )
        return self._queue_record(prepared)

    def _queue_record(self, prepared: PreparedRecord) -> int:
        """Queue a checked record with its payload or the job encoding it.

        A payload already encoded (given to :meth:`write_encoded`, or JSON the
        checks encoded) is queued as it is; images and packed arrays are encoded
        on a worker thread, other payloads here.
        """
        job: Future[tuple[bytes, int]] | tuple[bytes, int]
        if prepared.encoded is None and prepared.spec.codec in _THREADED_CODECS:
            assert self._encoder is not None
            job = self._encoder.submit(prepared.encode, self._quality)
        else:
            job = prepared.encode(self._quality)
        self._put((prepared, job))
        return prepared.stream_seq

    def mark_recovered(
        self, recovered: dict[str, Any], gaps: list[dict[str, Any]]
    ) -> None:
        """Mark the output as a recovered copy (footer ``recovered``, ``degraded``)."""
        self._checks.mark_recovered(recovered, gaps)

    def add_gap(self, stream: str, *, after_seq: int, lost: int, reason: str) -> None:
        """Declare ``lost`` records of an optional stream lost after ``after_seq``."""
        self._checks.add_gap(stream, after_seq=after_seq, lost=lost, reason=reason)

    def set_provenance(self, **fields: Any) -> None:
        """Add fields to the footer's provenance (checked as canonical JSON)."""
        canonical_dumps(fields)
        self._provenance.update(fields)

    def finish(self) -> PublishResult:
        """Seal, verify and publish the file; return where it went."""
        if self._state == "done" and self._result is not None:
            return self._result
        if self._state != "open":
            raise WriterStateError(
                f"finish() on a writer that is {self._state}", path=self._final
            )
        try:
            footer = self._checks.footer_fields(self._provenance)
            self._put(("seal", footer))
            self._put(_STOP)
            self._join()
            self._raise_if_failed()
            self._state = "sealing"
            result = self._publish()
        except BaseException:
            self.abort()
            raise
        self._state = "done"
        self._result = result
        return result

    def abort(self) -> None:
        """Stop without publishing; remove the staging file unless ``keep_partial``."""
        if self._state in ("done", "aborted"):
            return
        self._state = "aborted"
        if self._thread is not None and self._thread.is_alive():
            self._failure = self._failure or WriterStateError(
                "aborted", path=self._final
            )
            self._drain()
            self._put_nowait(_STOP)
            self._thread.join(timeout=30)
        self._cleanup()

    # ---------------------------------------------------------------- internals
    def _ensure_open(self, method: str) -> None:
        """Raise the worker's failure, or misuse of a writer that is not open."""
        self._raise_if_failed()
        if self._state != "open":
            raise WriterStateError(
                f"{method}() on a writer that is {self._state}", path=self._final
            )

    def _put(self, item: Any) -> None:
        put_watched(self._queue, item, self._raise_if_failed)

    def _put_nowait(self, item: Any) -> None:
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            self._drain()
            self._queue.put_nowait(item)

    def _drain(self) -> None:
        drain(self._queue)

    def _join(self) -> None:
        assert self._thread is not None
        self._thread.join()
        if self._encoder is not None:
            self._encoder.shutdown(wait=True)

    def _raise_if_failed(self) -> None:
        if self._failure is not None and self._state not in ("aborted",):
            failure = self._failure
            if isinstance(failure, FsrError):
                raise failure
            raise WriterStateError(
                f"the writer thread failed: {failure!r}", path=self._final
            ) from failure

    def _run(self) -> None:
        assert self._sink is not None
        try:
            while True:
                item = self._queue.get()
                if item is _STOP or self._failure is not None:
                    return
                if item[0] == "seal":
                    self._sink.seal(item[1])
                    continue
                prepared, job = item
                payload, raw_length = job.result() if isinstance(job, Future) else job
                self._sink.add(prepared.to_encoded(payload, raw_length))
        except BaseException as exc:  # noqa: BLE001 - the worker boundary hands every failure to the caller
            self._failure = exc

    def _write_bytes(self, data: bytes) -> None:
        self._ops.write(self._fd, data, self._staging)

    def _publish(self) -> PublishResult:
        from fsr_core.format.reader import FsrReader

        assert self._sink is not None
        self._ops.fsync(self._fd, self._staging)
        readback_fd = os.open(
            self._staging, os.O_RDONLY | os.O_CLOEXEC, dir_fd=self._dir_fd
        )
        try:
            with (
                os.fdopen(readback_fd, "rb") as handle,
                FsrReader.open(handle) as check,
            ):
                records = check.record_count
        except FsrError as exc:
            raise WriteFailedError(
                f"the sealed file failed its read-back check: {exc.reason}",
                path=self._final,
            ) from exc
        atomic = self._ops.link(self._staging, self._final.name, self._dir_fd)
        try:
            self._ops.fsync(self._dir_fd, str(self._final.parent))
        except BaseException:
            self._withdraw_final(atomic=atomic)
            raise
        self._ops.unlink(self._staging, self._dir_fd)
        self._staging = ""
        size = self._sink.offset
        self._close_fds()
        return PublishResult(
            self._final, atomic=atomic, size_bytes=size, records=records
        )

    def _withdraw_final(self, *, atomic: bool) -> None:
        """Remove the final name this writer just created (publication failed).

        A failure reported to the caller must not leave a final-named file. The
        name is removed only if it is still this writer's file: the hard link
        to the staging inode, or (non-atomic fallback) the exclusive copy.
        """
        name = self._final.name
        try:
            if atomic:
                ours = os.fstat(self._fd)
                found = os.stat(name, dir_fd=self._dir_fd, follow_symlinks=False)
                if (found.st_dev, found.st_ino) != (ours.st_dev, ours.st_ino):
                    return
        except OSError:
            return
        self._ops.unlink(name, self._dir_fd)

    def _close_fds(self) -> None:
        if self._fd >= 0:
            self._ops.close(self._fd)
            self._fd = -1
        if self._dir_fd >= 0:
            self._ops.close(self._dir_fd)
            self._dir_fd = -1

    def _cleanup(self) -> None:
        if self._encoder is not None:
            self._encoder.shutdown(wait=True, cancel_futures=True)
        if self._staging and not self._keep_partial and self._dir_fd >= 0:
            self._ops.unlink(self._staging, self._dir_fd)
        self._close_fds()
