"""One recording of an ``.rrd`` file, read with rerun-sdk's ``RrdReader``.

:func:`open_store` lists the file's recordings (a file may hold several) and
opens the one asked for as rerun's lazy store: its manifest is read at once,
its chunks when streamed. :meth:`RecordingStore.read_light` streams every
chunk once and keeps of the heavy image payloads only their rows (times and formats
stay) and keeps what it read by entity and component;
:meth:`RecordingStore.read_heavy` reads one entity's payloads when its
camera is first shown. Before either reads, the sizes the manifest claims
for those chunks are checked against the memory budget. A file without a
manifest (an old writer, or one whose footer was lost) is streamed from the
start instead, its size standing for what it claims.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import SchemaError
from fsr_core.sources.rerun.decode_guard import probe_in_child
from fsr_core.sources.rerun.library import (
    read,
    reading,
    rerun_chunk,
)

__all__ = [
    "HEAVY_COMPONENTS",
    "ComponentRows",
    "RecordingEntry",
    "RecordingStore",
    "RowMarks",
    "list_recordings",
    "open_store",
]

HEAVY_COMPONENTS: Final = (
    "Image:buffer",
    "EncodedImage:blob",
    "DepthImage:buffer",
)
"""Image payloads: read only when their camera is shown."""

_TIME_KINDS: Final = {"int64": "sequence", "duration": "duration", "timestamp": "time"}
_MAX_RECORDINGS: Final = 10_000


@dataclass(frozen=True)
class RecordingEntry:
    """One recording a file holds, as its manifest names it."""

    index: int
    application_id: str
    recording_id: str


@dataclass
class ComponentRows:
    """One component of one entity: every chunk's column, with its row times."""

    entity: str
    component: str
    parts: list[tuple[dict[str, np.ndarray], Any]] = field(default_factory=list)
    """``(times by timeline, arrow column)`` per chunk; a static chunk's times
    are empty."""

    @property
    def rows(self) -> int:
        """Rows over every chunk."""
        return sum(len(column) for _, column in self.parts)

    def static_values(self) -> list[Any]:
        """Return the static rows' values (rerun's latest static one last)."""
        return [
            value
            for times, column in self.parts
            if not times
            for value in column.to_pylist()
        ]

    def refs_on_timeline(
        self, timeline: str
    ) -> tuple[np.ndarray, list[tuple[Any, int]]]:
        """Return the rows on ``timeline`` as ``(column, row)``, time-ordered.

        For payloads too large to turn into Python values all at once.
        """
        times: list[np.ndarray] = []
        refs: list[tuple[Any, int]] = []
        for found, column in self.parts:
            stamps = found.get(timeline)
            if stamps is None:
                continue
            times.append(stamps)
            refs.extend((column, row) for row in range(len(column)))
        if not times:
            return np.zeros(0, dtype=np.int64), []
        joined = np.concatenate(times)
        order = np.argsort(joined, kind="stable")
        return joined[order], [refs[int(i)] for i in order]

    def numeric_on_timeline(
        self, timeline: str, max_width: int, path: Path
    ) -> tuple[np.ndarray, np.ndarray] | int:
        """Return a numeric list column's rows on ``timeline`` as a 2D array.

        Times and ``(rows, width)`` float64 values, time-ordered; a row
        shorter than the widest (or null) is padded with NaN. Read by arrow
        without a Python value per number. Returns the width alone when it
        is over ``max_width`` (nothing allocated).

        Raises
        ------
        LimitExceededError
            The array would need more than the memory budget.
        """
        times: list[np.ndarray] = []
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        width = 0
        for found, column in self.parts:
            stamps = found.get(timeline)
            if stamps is None or isinstance(column, RowMarks):
                continue
            lengths = column.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
            offsets = np.asarray(column.offsets.to_numpy(zero_copy_only=False))
            flat = column.flatten().cast("float64").fill_null(np.nan)
            values = np.asarray(flat.to_numpy(zero_copy_only=False), dtype=np.float64)
            width = max(width, int(lengths.max()) if lengths.size else 0)
            times.append(stamps)
            parts.append((lengths.astype(np.int64), offsets[:-1] - offsets[0], values))
        if width > max_width:
            return width
        if not times:
            return np.zeros(0, dtype=np.int64), np.zeros((0, width))
        count = sum(p[0].size for p in parts)
        what = f"entity {self.entity[:80]!r}"
        check_budget(MEMORY, 8.0 * count * width, what, path=path)
        rows = np.full((count, width), np.nan)
        start = 0
        for lengths, offsets, values in parts:
            count = lengths.size
            if count and (lengths == width).all():
                rows[start : start + count] = values[: count * width].reshape(
                    count, width
                )
            else:
                for row in range(count):
                    size = int(lengths[row])
                    first = int(offsets[row])
                    rows[start + row, :size] = values[first : first + size]
            start += count
        joined = np.concatenate(times)
        order = np.argsort(joined, kind="stable")
        return joined[order], rows[order]

    def on_timeline(self, timeline: str) -> tuple[np.ndarray, list[Any]]:
        """Return the rows placed on ``timeline``: times and values, time-ordered.

        Rows without a time on it (logged on other timelines only) are left out.
        """
        times: list[np.ndarray] = []
        values: list[Any] = []
        for found, column in self.parts:
            stamps = found.get(timeline)
            if stamps is None:
                continue
            times.append(stamps)
            values.extend(column.to_pylist())
        if not times:
            return np.zeros(0, dtype=np.int64), []
        joined = np.concatenate(times)
        order = np.argsort(joined, kind="stable")
        return joined[order], [values[int(i)] for i in order]


class RowMarks:
    """A heavy column's rows, without their payloads (read when shown)."""

    def __init__(self, rows: int) -> None:
        self._rows = rows

    def __len__(self) -> int:
        """Return the rows."""
        return self._rows

    def to_pylist(self) -> list[None]:
        """Return one ``None`` a row, as an arrow column's values would be."""
        return [None] * self._rows


def _time_kind(arrow_type: Any) -> str:
    text = str(arrow_type)
    return next((kind for key, kind in _TIME_KINDS.items() if key in text), "")


def _chunk_parts(
    chunk: Any,
) -> tuple[str, dict[str, np.ndarray], dict[str, Any], dict[str, str]]:
    """Return a chunk's entity, row times, component columns and timeline kinds."""
    batch = chunk.to_record_batch()
    timelines = set(chunk.timeline_names)
    times: dict[str, np.ndarray] = {}
    kinds: dict[str, str] = {}
    columns: dict[str, Any] = {}
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        if name in timelines:
            kinds[name] = _time_kind(column.type)
            times[name] = np.asarray(
                column.cast("int64").to_numpy(zero_copy_only=False)
            )
        elif not name.startswith("rerun."):
            columns[name] = column
    return str(chunk.entity_path), times, columns, kinds


def list_recordings(path: Path) -> tuple[RecordingEntry, ...]:
    """Return the recordings ``path`` holds, in file order.

    Raises
    ------
    FsrError
        rerun-sdk cannot read the file (cut, damaged, not an RRD) or is missing.
    """
    chunk = rerun_chunk(path)

    def listed() -> tuple[RecordingEntry, ...]:
        reader = chunk.RrdReader(str(path))
        entries = reader.recordings()
        if len(entries) > _MAX_RECORDINGS:
            raise SchemaError(
                f"holds {len(entries)} recordings, more than {_MAX_RECORDINGS}",
                path=path,
            )
        return tuple(
            RecordingEntry(index, str(e.application_id), str(e.recording_id))
            for index, e in enumerate(entries)
        )

    found = read(path, "not a readable Rerun recording", listed)
    if not found:
        raise SchemaError("a Rerun file that holds no recording", path=path)
    return found


class RecordingStore:
    """One recording of an RRD file: its manifest, and its chunks when read."""

    def __init__(self, path: Path, entry: RecordingEntry, count: int) -> None:
        self.path = path
        self.entry = entry
        self.recordings = count
        self.kinds: dict[str, str] = {}
        self.ranges: dict[str, tuple[int, int]] = {}
        """Each timeline's smallest and largest value, from the manifest."""
        self.deferred: dict[tuple[str, str], dict[str, int]] = {}
        """Image rows left unread, by entity and component: rows by timeline."""
        self.rows: dict[tuple[str, str], ComponentRows] = {}
        self.chunks = 0
        self._lock = threading.Lock()
        chunk = rerun_chunk(path)
        self._reader = read(
            path, "not a readable Rerun recording", lambda: chunk.RrdReader(str(path))
        )
        self._store_entry = read(
            path,
            "not a readable Rerun recording",
            lambda: self._reader.recordings()[entry.index],
        )
        self._lazy: Any = None
        self.manifest = True
        try:
            with reading(path, "no manifest"):
                self._lazy = self._reader.store(store=self._store_entry)
        except Exception:  # noqa: BLE001 - a file without footer: stream it
            self.manifest = False
        self._sizes = self._manifest_sizes()

    def _manifest_sizes(self) -> list[tuple[str, bool, bool, int]]:
        """``(entity, static, holds image payloads, bytes)`` per chunk.

        Also notes from the manifest each timeline's kind and range and the
        image rows each deferred camera holds, by timeline.
        """
        if self._lazy is None:
            return []
        index_of = getattr(self._lazy, "_chunk_index", None)
        if index_of is None:
            return []
        table = read(
            self.path, "its manifest does not read", lambda: index_of().to_arrow()
        )
        names = table.schema.names
        flags = [
            table.column(name).to_pylist()
            for name in names
            if any(
                name.endswith(f"{part}:num_rows") or name == f"{part}:has_static_data"
                for part in HEAVY_COMPONENTS
            )
        ]
        entities = [str(e) for e in table.column("chunk_entity_path").to_pylist()]
        statics = table.column("chunk_is_static").to_pylist()
        sizes = table.column("chunk_byte_size_uncompressed").to_pylist()
        found = [
            (
                entity,
                bool(statics[row]),
                any(bool(f[row]) for f in flags),
                int(size or 0),
            )
            for row, (entity, size) in enumerate(zip(entities, sizes, strict=True))
        ]
        self._note_timelines(table, names)
        self._note_heavy_rows(table, names, entities)
        return found

    def _note_timelines(self, table: Any, names: list[str]) -> None:
        for name in names:
            parts = name.split(":")
            if len(parts) != 2 or parts[1] != "start":
                continue
            timeline = parts[0]
            kind = _time_kind(table.schema.field(name).type)
            starts = table.column(name).cast("int64").drop_null().to_numpy()
            ends = table.column(f"{timeline}:end").cast("int64").drop_null().to_numpy()
            if kind and starts.size and ends.size:
                self.kinds.setdefault(timeline, kind)
                self.ranges[timeline] = (int(starts.min()), int(ends.max()))

    def _note_heavy_rows(
        self, table: Any, names: list[str], entities: list[str]
    ) -> None:
        for name in names:
            for part in HEAVY_COMPONENTS:
                suffix = f":{part}:num_rows"
                if not name.endswith(suffix):
                    continue
                timeline = name[: -len(suffix)]
                counts = table.column(name).to_pylist()
                for entity, count in zip(entities, counts, strict=True):
                    if count:
                        rows = self.deferred.setdefault((entity, part), {})
                        rows[timeline] = rows.get(timeline, 0) + int(count)

    def _claimed(self, *, entity: str | None) -> int:
        """Bytes the manifest claims for the chunks read at open, or one camera's."""
        if not self._sizes:
            return self.path.stat().st_size
        if entity is None:
            return sum(
                size
                for name, static, _, size in self._sizes
                if static or name not in self.heavy_entities
            )
        return sum(
            size
            for name, static, _, size in self._sizes
            if name == entity and not static
        )

    @property
    def heavy_entities(self) -> frozenset[str]:
        """The entities whose temporal chunks are read when their camera is shown."""
        return frozenset(entity for entity, _ in self.deferred)

    def _stream(self) -> Any:
        if self._lazy is not None:
            return self._lazy.stream()
        return self._reader.stream(store=self._store_entry)

    def read_light(self) -> None:
        """Read every chunk but the image entities' temporal ones (read when shown).

        Without a manifest the file is streamed whole, the image payloads'
        rows kept without their bytes.

        Raises
        ------
        FsrError
            A chunk does not read, or the chunks need more than the budget.
        """
        check_budget(
            MEMORY, self._claimed(entity=None), "reading the recording", path=self.path
        )
        heavy = sorted(self.heavy_entities)
        streams: list[Callable[[], Any]] = [self._stream]
        if heavy:
            light = sorted({name for name, *_ in self._sizes} - set(heavy))
            streams = [
                lambda: self._stream().filter(content=light),
                lambda: self._stream().filter(content=heavy, is_static=True),
            ]
        with self._lock, reading(self.path, "a chunk does not read"):
            probe_in_child(self.path, "a chunk does not read", self.entry.index)
            for stream in streams:
                for found in stream():
                    self._keep(found)

    def _keep(self, chunk: Any) -> None:
        entity, times, columns, kinds = _chunk_parts(chunk)
        self.chunks += 1
        for name, kind in kinds.items():
            self.kinds.setdefault(name, kind)
        for name, column in columns.items():
            rows = self.rows.setdefault((entity, name), ComponentRows(entity, name))
            kept = RowMarks(len(column)) if name in HEAVY_COMPONENTS else column
            rows.parts.append((times, kept))

    def read_entity(self, entity: str) -> dict[str, ComponentRows]:
        """Read one entity's temporal chunks whole (a camera's frames and formats).

        Raises
        ------
        FsrError
            A chunk does not read, or the frames need more than the budget.
        """
        what = f"the frames of {entity[:80]!r}"
        check_budget(MEMORY, self._claimed(entity=entity), what, path=self.path)
        found: dict[str, ComponentRows] = {}
        with self._lock, reading(self.path, f"{what} do not read"):

            def stream() -> Any:
                return self._stream().filter(content=entity, is_static=False)

            probe_in_child(self.path, f"{what} do not read", self.entry.index, entity)
            for chunk in stream():
                name, times, columns, _ = _chunk_parts(chunk)
                if name != entity:
                    continue
                for component, column in columns.items():
                    rows = found.setdefault(component, ComponentRows(entity, component))
                    rows.parts.append((times, column))
        return found

    def component(self, entity: str, component: str) -> ComponentRows | None:
        """Return what was read of ``component`` on ``entity``."""
        return self.rows.get((entity, component))

    def with_component(self, component: str) -> Sequence[ComponentRows]:
        """Return every entity's rows of ``component``, by entity path."""
        return sorted(
            (rows for (_, name), rows in self.rows.items() if name == component),
            key=lambda rows: rows.entity,
        )

    def entities(self) -> Iterable[str]:
        """Return the entity paths read, in order."""
        return sorted({entity for entity, _ in self.rows})


def open_store(path: Path, index: int = 0) -> RecordingStore:
    """Open recording ``index`` of ``path`` (its manifest only).

    Raises
    ------
    FsrError
        The file does not read, or holds no recording ``index``.
    """
    entries = list_recordings(path)
    if not 0 <= index < len(entries):
        raise SchemaError(
            f"no recording {index}; the file holds {len(entries)}", path=path
        )
    return RecordingStore(path, entries[index], len(entries))
