"""Follow an FSR file while its writer appends batches (staging or published).

The writer appends whole batches after the header and metadata and, when it
finishes, the footer and trailer, then links the staging file to its final
name. The follower reads the header and metadata once, then each batch once
it is whole, checked as the recovery scan checks it (header CRC, sequence,
tables, every record's CRC and the profile's digests): exactly the batches
recovery would keep. Numeric records become samples of their channel;
camera records become frame times with their place in the file, read again
only when a view shows that frame. The footer magic where the next batch
would start means the writer finished; any other bytes there are a cut.
"""

from __future__ import annotations

import os
from array import array
from pathlib import Path
from typing import Final

import numpy as np

from fsr_core.errors import CorruptRecordError, FsrError, TruncatedFileError
from fsr_core.format.layout import batch_tables_size
from fsr_core.format.limits import ReaderLimits
from fsr_core.format.metadata import FileMetadata, read_file_metadata
from fsr_core.format.payloads import decode_payload
from fsr_core.format.records import (
    BATCH_HEADER_SIZE,
    BATCH_MAGIC,
    FOOTER_MAGIC,
    HEADER_SIZE,
    TRAILER_END,
    FileHeader,
)
from fsr_core.format.safe_open import check_bounds
from fsr_core.format.scan import ScannedBatch, read_batch
from fsr_core.format.staging import final_name_of
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.media import RGBFrame
from fsr_core.sources.live.follower import Follower, Progress
from fsr_core.sources.live.growing import GrowingCamera

__all__ = ["FsrFollower"]

_TRAILER_END_SIZE: Final = len(TRAILER_END)


class _Window:
    """Bytes of the file known from ``start`` on, read as a ByteSource."""

    def __init__(self, data: bytes, start: int, name: str) -> None:
        self._data = memoryview(data)
        self._start = start
        self.name = name
        self.size = start + len(data)

    def read_at(self, offset: int, length: int, *, section: str) -> bytes:
        check_bounds(self, offset, length, section, start=self._start, growing=True)
        begin = offset - self._start
        return bytes(self._data[begin : begin + length])

    def sha256(self, check: object = None) -> str:
        raise NotImplementedError

    def close(self) -> None:
        self._data.release()


class _Frames:
    """Where each frame of one camera stream lies in the file."""

    def __init__(self, spec: StreamSpec) -> None:
        self.spec = spec
        self.offsets = array("q")
        self.lengths = array("q")
        self.raw_lengths = array("q")


class FsrFollower(Follower):
    """Follow an FSR file: its staging file or, once published, its name."""

    source = "fsr"

    def __init__(self, path: str | os.PathLike[str], **options: object) -> None:
        super().__init__(path, **options)  # type: ignore[arg-type]
        self._limits = ReaderLimits()
        self._meta: FileMetadata | None = None
        self._batches = 0
        self._frames: dict[int, _Frames] = {}
        self._names: dict[int, str] = {}
        self._shifts: dict[int, float] = {}
        """Per generation, what its sim times gain to lie after the one before."""

    @classmethod
    def end_written(cls, path: Path) -> bool:
        """Whether the file ends with the trailer's closing bytes."""
        try:
            with path.open("rb") as handle:
                handle.seek(0, os.SEEK_END)
                if handle.tell() < _TRAILER_END_SIZE:
                    return False
                handle.seek(-_TRAILER_END_SIZE, os.SEEK_END)
                return handle.read(_TRAILER_END_SIZE) == TRAILER_END
        except OSError:
            return False

    def published_path(self) -> Path:
        """Return the final name once the writer linked it, else the followed path."""
        final = final_name_of(self.path)
        if final is not None and final.exists():
            return final
        return self.path

    def shown_name(self) -> str:
        """Return the final name of a staging file, else the file's name."""
        final = final_name_of(self.path)
        return (final or self.path).name

    # ----------------------------------------------------------------- reading
    def consume(self, data: bytes, offset: int) -> Progress:
        """Take the header and metadata, then every whole batch."""
        window = _Window(data, offset, str(self.path))
        position = offset
        if self._meta is None:
            meta = self._read_meta(window)
            if meta is None:
                return Progress(0, 0)
            self._meta = meta
            position = meta.data_start
        records = 0
        end = window.size
        while end - position >= len(BATCH_MAGIC):
            magic = window.read_at(position, len(BATCH_MAGIC), section="batch")
            if magic == FOOTER_MAGIC:
                return Progress(position - offset, records, finished=True)
            if magic != BATCH_MAGIC:
                return Progress(
                    position - offset,
                    records,
                    cut=f"bytes after the last batch are not a batch ({magic!r})",
                )
            if end - position < BATCH_HEADER_SIZE:
                break
            try:
                batch = read_batch(
                    window, self._meta, self._limits, position, self._batches
                )
            except TruncatedFileError:
                break  # not whole yet
            except FsrError as exc:
                return Progress(position - offset, records, cut=exc.reason)
            records += self._take(batch, window)
            self._batches += 1
            position += batch.header.total_length
        return Progress(position - offset, records)

    def _read_meta(self, window: _Window) -> FileMetadata | None:
        if window.size < HEADER_SIZE:
            return None
        header = FileHeader.decode(window.read_at(0, HEADER_SIZE, section="header"))
        if window.size < HEADER_SIZE + header.metadata_length:
            return None
        return read_file_metadata(window, self._limits)

    def _take(self, batch: ScannedBatch, window: _Window) -> int:
        assert self._meta is not None
        assert batch.body is not None
        header = batch.header
        spec = self._meta.streams[header.stream_id]
        entries = batch.entries
        times = self._laid_end_to_end(header.generation, entries["sim_time_s"])
        self.model.play_origin(float(times.min()))
        if spec.kind is StreamKind.NUMERIC:
            self._take_numeric(spec, header.stream_id, batch, times)
        elif spec.kind is StreamKind.CAMERA_RGB:
            body_start = (
                batch.offset
                + BATCH_HEADER_SIZE
                + batch_tables_size(header.record_count, self._meta.profile)
            )
            self._take_frames(spec, header.stream_id, entries, body_start, times)
        self.model.note_times(float(times.min()), float(times.max()))
        return len(entries)

    def _laid_end_to_end(self, generation: int, times: np.ndarray) -> np.ndarray:
        """Shift a generation's sim times to start where the one before ended.

        A reset starts a new generation whose sim time may start over; the
        play time lays generations end to end, as the opened file's timeline
        does.
        """
        shift = self._shifts.get(generation)
        if shift is None:
            end = self.model.end_s
            origin = self.model.origin_s
            first = float(times.min())
            if not self._shifts or end is None or origin is None:
                shift = 0.0
            else:
                shift = max(0.0, origin + end - first)
            self._shifts[generation] = shift
        shifted: np.ndarray = times.astype(np.float64) + shift
        return shifted

    def _channel_name(self, stream_id: int, spec: StreamSpec) -> str:
        name = self._names.get(stream_id)
        if name is None:
            wanted = spec.attributes.get("channel_name")
            name = wanted if isinstance(wanted, str) and wanted else spec.name
            if name in self._names.values():
                name = spec.name
            self._names[stream_id] = name
        return name

    def _take_numeric(
        self, spec: StreamSpec, stream_id: int, batch: ScannedBatch, times: np.ndarray
    ) -> None:
        assert batch.body is not None
        body = memoryview(batch.body)
        rows = []
        for entry in batch.entries:
            start = int(entry["body_offset"]) + int(entry["meta_length"])
            payload = body[start : start + int(entry["payload_length"])]
            value = decode_payload(
                spec,
                payload,
                int(entry["raw_length"]),
                max_pixels=self._limits.max_pixels,
            )
            rows.append(np.asarray(value, dtype=np.float64).reshape(-1))
        values = np.stack(rows)
        width = values.shape[1]
        units = spec.units if isinstance(spec.units, tuple) else (spec.units,)
        channel = self.model.channel(
            self._channel_name(stream_id, spec),
            spec.channels or tuple(str(i) for i in range(width)),
            units[0] if len(set(units)) == 1 else "",
        )
        self.model.append(channel, times, values)

    def _take_frames(
        self,
        spec: StreamSpec,
        stream_id: int,
        entries: np.ndarray,
        body_start: int,
        times: np.ndarray,
    ) -> None:
        frames = self._frames.get(stream_id)
        if frames is None:
            frames = self._frames[stream_id] = _Frames(spec)
            name = spec.camera or spec.name
            self.model.cameras[name] = self._camera(name, frames)
        camera = self.model.cameras[spec.camera or spec.name]
        origin = self.model.origin_s or 0.0
        for entry, time_s in zip(entries, times, strict=True):
            frames.offsets.append(
                body_start + int(entry["body_offset"]) + int(entry["meta_length"])
            )
            frames.lengths.append(int(entry["payload_length"]))
            frames.raw_lengths.append(int(entry["raw_length"]))
            camera.append(float(time_s) - origin)

    def _camera(self, name: str, frames: _Frames) -> GrowingCamera:
        def fetch(number: int) -> RGBFrame:
            data = self._pread(frames.offsets[number], frames.lengths[number])
            if len(data) != frames.lengths[number]:
                raise CorruptRecordError(
                    f"frame {number} of {name} is no longer in the file",
                    path=self.path,
                )
            frame = decode_payload(
                frames.spec,
                data,
                frames.raw_lengths[number],
                max_pixels=self._limits.max_pixels,
            )
            assert isinstance(frame, RGBFrame)
            return frame

        return GrowingCamera(name, fetch)
