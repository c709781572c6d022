"""Follow a Genesis trajectory (``.gstraj``) while Genesis appends records.

Genesis writes the magic, the manifest and the scene description, then one
CHNK record per chunk of frames (and, in GSTRAJ4, INFO records), and LAST
when the trajectory is closed. The follower reads the header once it is
whole, then each record once its payload is whole: its tag is known and its
payload's CRC-32 matches, as :func:`~fsr_core.sources.genesis.container.index_file`
walks them. A chunk's frames are decoded at once and every field becomes
samples of its channels (named as the opened recording names them), timed
by the step count times ``dt``. LAST means the writer closed the file; an
unknown tag or a CRC that does not match is a cut.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Final

import numpy as np

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.checksums import crc32
from fsr_core.errors import FsrError
from fsr_core.sources.genesis.container import (
    SUPPORTED_MAGICS,
    Field,
    Manifest,
    TrajectoryIndex,
    parse_manifest,
)
from fsr_core.sources.genesis.frames import decode_chunk_payload
from fsr_core.sources.genesis.recording_model import _Series, _stack
from fsr_core.sources.genesis.scene_names import scene_names
from fsr_core.sources.live.follower import Follower, Progress

__all__ = ["GenesisFollower"]

_HEADERS: Final = {b"CHNK": ("<IQI", 16), b"INFO": ("<QQI", 20), b"LAST": ("<QI", 12)}
_U64: Final = struct.Struct("<Q")
_MAX_MANIFEST: Final = 64 << 20


class GenesisFollower(Follower):
    """Follow a Genesis trajectory."""

    source = "genesis"

    def __init__(self, path: str | os.PathLike[str], **options: object) -> None:
        super().__init__(path, **options)  # type: ignore[arg-type]
        self._manifest: Manifest | None = None
        self._series: list[_Series] = []
        self._steps: Field | None = None
        self._frames = 0

    @classmethod
    def end_written(cls, path: Path) -> bool:
        """Whether the record walk reaches a LAST record."""
        from fsr_core.sources.genesis.container import index_file

        try:
            return index_file(path, verify=False).last is not None
        except FsrError:
            return False

    def consume(self, data: bytes, offset: int) -> Progress:
        """Take the header, then every whole record."""
        view = memoryview(data)
        position = 0
        if self._manifest is None:
            start = self._header(data)
            if start is None:
                return Progress(0, 0)
            position = start
        records = 0
        while len(data) - position >= 4:
            tag = bytes(view[position : position + 4])
            layout = _HEADERS.get(tag)
            if layout is None or (tag == b"INFO" and self._version != 4):
                return Progress(
                    position,
                    records,
                    cut=f"unknown record tag {tag!r} after the last record",
                )
            fmt, size = layout
            start = position + 4 + size
            if len(data) < start:
                break
            header = struct.unpack_from(fmt, data, position + 4)
            length, crc = int(header[-2]), int(header[-1])
            check_budget(
                MEMORY, float(length), f"a {tag.decode()} record", path=self.path
            )
            if len(data) < start + length:
                break
            payload = bytes(view[start : start + length])
            if crc32(payload) != crc:
                return Progress(
                    position,
                    records,
                    cut=f"the CRC-32 of a {tag.decode()} payload does not match",
                )
            if tag == b"LAST":
                return Progress(start + length, records + 1, finished=True)
            if tag == b"CHNK":
                self._take_chunk(payload, int(header[0]), offset + position)
            records += 1
            position = start + length
        return Progress(position, records)

    @property
    def _version(self) -> int:
        assert self._manifest is not None
        return self._manifest.version

    def _header(self, data: bytes) -> int | None:
        """Read magic, manifest and description; return where records start."""
        if len(data) < 16:
            return None
        version = SUPPORTED_MAGICS.get(data[:8])
        if version is None:
            raise FsrError("not a Genesis trajectory this reader reads", path=self.path)
        (length,) = _U64.unpack_from(data, 8)
        if length > _MAX_MANIFEST:
            raise FsrError(f"a manifest of {length} bytes", path=self.path)
        if len(data) < 16 + length + 8:
            return None
        try:
            raw = json.loads(data[16 : 16 + length].decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise FsrError(f"the manifest is not JSON: {str(exc)[:160]}") from None
        manifest = parse_manifest(raw, version, self.path)
        described = int(_U64.unpack_from(data, 16 + length)[0])
        description_start = 16 + length + 8
        if len(data) < description_start + described:
            return None
        self._manifest = manifest
        index = TrajectoryIndex(
            self.path, len(data), manifest, description_start, described
        )
        names = scene_names(index)
        fields = [f for f in manifest.fields if f.size > 0 and f.kind != "SCRATCH"]
        self._series = [_Series(f, manifest.batch, 0, names) for f in fields]
        self._steps = next(
            (f for f in manifest.fields if f.name == manifest.steps_field), None
        )
        return int(description_start + described)

    def _take_chunk(self, payload: bytes, count: int, where: int) -> None:
        manifest = self._manifest
        assert manifest is not None
        check_budget(
            MEMORY, 3.0 * count * manifest.frame_size, "a chunk", path=self.path
        )
        frames = decode_chunk_payload(
            manifest, payload, count, f"chunk at byte {where}", self.path
        )
        if self._steps is not None:
            steps = _stack(frames, self._steps).reshape(count, -1)
            times = steps.max(axis=1).astype(np.float64) * manifest.dt
        else:
            times = (self._frames + np.arange(count)) * manifest.dt
        batched = manifest.batch > 1
        for series in self._series:
            series.frames = count
            series.start()
            series.put(slice(0, count), _stack(frames, series.item))
            for env in range(series.envs):
                name = series.item.name
                label = (
                    f"env{env}/{name}" if batched and series.axis is not None else name
                )
                channel = self.model.channel(label, series.columns)
                self.model.append(channel, times, series.values[env])
            series.values = np.zeros((series.envs, 0, len(series.columns)))
        self._frames += count
