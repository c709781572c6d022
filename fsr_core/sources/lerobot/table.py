"""The episode table: where each episode's rows and video spans are.

Codebase v2.x: ``meta/episodes.jsonl`` (index, tasks, length) and
``meta/tasks.jsonl``; an episode's rows are the whole parquet file its
``data_path`` names and each camera's video the whole file ``video_path``
names. Codebase v3.x: ``meta/episodes/chunk-*/file-*.parquet`` rows give each
episode's data file, its ``dataset_from_index``/``dataset_to_index`` row span
there and, per camera, the video file and the ``from_timestamp``/
``to_timestamp`` span inside it; ``meta/tasks.parquet`` maps task indices to
strings. Per-episode statistics are read on request only.

The table is cached per dataset and dropped when ``info.json`` or the episode
metadata change on disk.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import (
    FsrError,
    LimitExceededError,
    SchemaError,
    StreamNotFoundError,
)
from fsr_core.sources.lerobot.files import PathGuard, inside, read_json_lines
from fsr_core.sources.lerobot.info import DatasetInfo, read_info
from fsr_core.sources.lerobot.journal import (
    JOURNAL_DIR,
    SIDECAR_FILE,
    Journal,
    read_journal,
)
from fsr_core.sources.lerobot.parquet import column_rows, open_parquet, read_table
from fsr_core.sources.lerobot.templates import fill

__all__ = [
    "MAX_EPISODES",
    "EpisodeMeta",
    "EpisodeTable",
    "VideoSpan",
    "episode_stats",
    "episode_table",
]

MAX_EPISODES: Final = 1_000_000
"""Most episodes one dataset may list."""

_EPISODES_GLOB: Final = "meta/episodes/chunk-*/file-*.parquet"
_CACHE_SIZE: Final = 8


@dataclass(frozen=True)
class VideoSpan:
    """Where one camera's frames of an episode are: a file and a time span in it."""

    path: Path
    from_s: float = 0.0
    to_s: float | None = None


@dataclass(frozen=True)
class EpisodeMeta:
    """One episode as the metadata lists it."""

    index: int
    length: int
    tasks: tuple[str, ...]
    data_file: Path | None
    rows: tuple[int, int] | None = None
    """``[from, to)`` of the dataset's ``index`` column in a packed data file."""
    videos: dict[str, VideoSpan] = field(default_factory=dict)
    problem: str = ""
    """Why its files cannot be located ('' when they can)."""

    @property
    def task(self) -> str:
        """The episode's tasks, joined."""
        return " · ".join(self.tasks)


@dataclass(frozen=True)
class EpisodeTable:
    """Every episode of a dataset, by index."""

    info: DatasetInfo
    episodes: tuple[EpisodeMeta, ...]
    tasks: dict[int, str]
    problems: tuple[str, ...] = ()
    """Metadata files that could not be read (their episodes are missing)."""
    journal: Journal | None = None
    """The EmbodiChain commit journal of a recorder root (None: a plain dataset)."""

    def find(self, index: int) -> EpisodeMeta:
        """Return episode ``index``.

        Raises
        ------
        StreamNotFoundError
            The dataset lists no such episode.
        """
        for episode in self.episodes:
            if episode.index == index:
                return episode
        shown = ", ".join(str(e.index) for e in self.episodes[:5])
        more = ", ..." if len(self.episodes) > 5 else ""
        unread = (
            f"; episode metadata unread: {self.problems[0]}" if self.problems else ""
        )
        raise StreamNotFoundError(
            f"the dataset has no episode {index} (it has {len(self.episodes)}: "
            f"{shown}{more}){unread}",
            path=self.info.root,
        )


def _int(value: object, what: str, path: Path) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise SchemaError(f"{what} is not an index: {str(value)[:40]!r}", path=path)
    return value


def _tasks(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    return ()


_Files = Callable[[], tuple[Path, dict[str, "VideoSpan"]]]


def _episode(
    index: int,
    raw: dict[str, Any],
    path: Path,
    files: _Files,
    rows: tuple[int, int] | None = None,
    problem: str = "",
) -> EpisodeMeta:
    """Return the episode; a file it cannot locate becomes its problem."""
    try:
        data: Path | None
        data, videos = files()
    except FsrError as exc:
        data, videos, problem = None, {}, exc.reason
    return EpisodeMeta(
        index=index,
        length=_int(raw.get("length"), "length", path),
        tasks=_tasks(raw.get("tasks")),
        data_file=data,
        rows=rows,
        videos=videos,
        problem=problem,
    )


def _v2_episode(
    info: DatasetInfo, raw: dict[str, Any], path: Path, guard: PathGuard
) -> EpisodeMeta:
    index = _int(raw.get("episode_index"), "episode_index", path)
    chunk = index // info.chunks_size
    info_path = info.root / "meta/info.json"

    def files() -> tuple[Path, dict[str, VideoSpan]]:
        data = guard(
            fill(info.data_path, info_path, episode_chunk=chunk, episode_index=index),
        )
        videos = {
            camera.key: VideoSpan(
                guard(
                    fill(
                        info.video_path,
                        info_path,
                        episode_chunk=chunk,
                        episode_index=index,
                        video_key=camera.key,
                    ),
                )
            )
            for camera in info.cameras
            if camera.dtype == "video"
        }
        return data, videos

    return _episode(index, raw, path, files)


def _v2_table(info: DatasetInfo) -> EpisodeTable:
    path = info.root / "meta/episodes.jsonl"
    guard = PathGuard(info.root)
    episodes = [_v2_episode(info, raw, path, guard) for raw in read_json_lines(path)]
    tasks: dict[int, str] = {}
    tasks_path = info.root / "meta/tasks.jsonl"
    if tasks_path.exists():
        for raw in read_json_lines(tasks_path):
            index = _int(raw.get("task_index"), "task_index", tasks_path)
            tasks[index] = str(raw.get("task", ""))
    return _finish(info, episodes, tasks, ())


def _v3_columns(info: DatasetInfo) -> list[str]:
    columns = [
        "episode_index",
        "tasks",
        "length",
        "data/chunk_index",
        "data/file_index",
        "dataset_from_index",
        "dataset_to_index",
    ]
    for camera in info.cameras:
        if camera.dtype == "video":
            columns.extend(
                f"videos/{camera.key}/{name}"
                for name in (
                    "chunk_index",
                    "file_index",
                    "from_timestamp",
                    "to_timestamp",
                )
            )
    return columns


def _v3_episode(
    info: DatasetInfo, row: dict[str, Any], path: Path, guard: PathGuard
) -> EpisodeMeta:
    index = _int(row.get("episode_index"), "episode_index", path)
    info_path = info.root / "meta/info.json"

    def files() -> tuple[Path, dict[str, VideoSpan]]:
        data = guard(
            fill(
                info.data_path,
                info_path,
                chunk_index=_int(row.get("data/chunk_index"), "data/chunk_index", path),
                file_index=_int(row.get("data/file_index"), "data/file_index", path),
            ),
        )
        videos: dict[str, VideoSpan] = {}
        for camera in info.cameras:
            if camera.dtype != "video":
                continue
            prefix = f"videos/{camera.key}/"
            chunk = _int(row.get(prefix + "chunk_index"), prefix + "chunk_index", path)
            number = _int(row.get(prefix + "file_index"), prefix + "file_index", path)
            start = row.get(prefix + "from_timestamp")
            end = row.get(prefix + "to_timestamp")
            videos[camera.key] = VideoSpan(
                guard(
                    fill(
                        info.video_path,
                        info_path,
                        video_key=camera.key,
                        chunk_index=chunk,
                        file_index=number,
                    ),
                ),
                float(start) if isinstance(start, int | float) else 0.0,
                float(end) if isinstance(end, int | float) else None,
            )
        return data, videos

    first, last = row.get("dataset_from_index"), row.get("dataset_to_index")
    if isinstance(first, int) and isinstance(last, int) and 0 <= first <= last:
        return _episode(index, row, path, files, (first, last))
    no_span = "the metadata gives no row span (dataset_from/to_index)"
    return _episode(index, row, path, files, None, no_span)


def _v3_tasks(info: DatasetInfo) -> dict[int, str]:
    path = info.root / "meta/tasks.parquet"
    if not path.exists():
        return {}
    handle = open_parquet(path)
    table = read_table(path, handle, ["task_index", "task", "__index_level_0__"])
    names = table.column_names
    text_column = "task" if "task" in names else "__index_level_0__"
    if "task_index" not in names or text_column not in names:
        raise SchemaError("tasks.parquet has no task_index and task", path=path)
    indices = column_rows(path, table, "task_index")
    texts = column_rows(path, table, text_column)
    return {
        _int(index, "task_index", path): str(text)
        for index, text in zip(indices, texts, strict=True)
    }


def _v3_table(info: DatasetInfo) -> EpisodeTable:
    files = sorted(info.root.glob(_EPISODES_GLOB))
    if not files:
        raise SchemaError(
            "no episode metadata (meta/episodes/chunk-*/file-*.parquet)",
            path=info.root,
        )
    columns = _v3_columns(info)
    guard = PathGuard(info.root)
    episodes: list[EpisodeMeta] = []
    problems: list[str] = []
    for path in files:
        try:
            inside(info.root, str(path.relative_to(info.root)))
            handle = open_parquet(path)
            table = read_table(path, handle, columns, bytes_per_row=512)
            names = table.column_names
            values = {name: column_rows(path, table, name) for name in names}
        except FsrError as exc:
            problems.append(str(exc))
            continue
        for number in range(table.num_rows):
            row = {name: values[name][number] for name in names}
            episodes.append(_v3_episode(info, row, path, guard))
    return _finish(info, episodes, _v3_tasks(info), tuple(problems))


def _finish(
    info: DatasetInfo,
    episodes: list[EpisodeMeta],
    tasks: dict[int, str],
    problems: tuple[str, ...],
) -> EpisodeTable:
    if len(episodes) > MAX_EPISODES:
        raise LimitExceededError(
            f"{len(episodes):,} episodes, more than {MAX_EPISODES:,}", path=info.root
        )
    unique = {episode.index: episode for episode in episodes}
    return EpisodeTable(
        info=info,
        episodes=tuple(unique[index] for index in sorted(unique)),
        tasks=tasks,
        problems=problems,
    )


def _with_journal(table: EpisodeTable) -> EpisodeTable:
    """Add a recorder root's journal, and the episodes only the journal knows.

    After a crash the LeRobot episode metadata may be unreadable (a parquet
    file without its footer): the journal still lists every episode begun.
    """
    journal = read_journal(table.info.root)
    if journal is None:
        return table
    unread = "its LeRobot episode metadata is unreadable" + (
        f" ({table.problems[0]})" if table.problems else ""
    )
    listed = []
    for episode in table.episodes:
        record = journal.for_episode(episode.index)
        if record is not None and record.problem and not episode.problem:
            episode = replace(episode, problem=record.problem)
        listed.append(episode)
    known = {episode.index for episode in table.episodes}
    extra = [
        EpisodeMeta(
            index=record.index,
            length=record.length,
            tasks=(record.instruction,) if record.instruction else (),
            data_file=None,
            problem=record.problem or unread,
        )
        for record in journal.records
        if record.index is not None and record.index not in known
    ]
    episodes = sorted([*listed, *extra], key=lambda episode: episode.index)
    return replace(
        table,
        episodes=tuple(episodes),
        problems=table.problems + journal.problems,
        journal=journal,
    )


def _stamp(root: Path) -> tuple[object, ...]:
    """Return what changes when the metadata changes: sizes and times."""
    found: list[object] = [str(root.resolve())]
    meta = root / "meta"
    watched = (
        meta / "info.json",
        meta / "episodes.jsonl",
        meta / "episodes",
        root / JOURNAL_DIR,
        root / SIDECAR_FILE,
    )
    for path in watched:
        try:
            status = path.stat()
        except OSError:
            found.append(None)
            continue
        found.append((status.st_mtime_ns, status.st_size))
    return tuple(found)


_CACHE: OrderedDict[tuple[object, ...], EpisodeTable] = OrderedDict()
_LOCK = threading.Lock()


def episode_table(root: Path) -> EpisodeTable:
    """Return the episode table of the dataset at ``root`` (cached).

    Raises
    ------
    FsrError
        ``info.json`` or the episode list cannot be read.
    """
    stamp = _stamp(root)
    with _LOCK:
        cached = _CACHE.get(stamp)
        if cached is not None:
            _CACHE.move_to_end(stamp)
            return cached
    info = read_info(root)
    table = _with_journal(_v3_table(info) if info.packed else _v2_table(info))
    with _LOCK:
        _CACHE[stamp] = table
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return table


def episode_stats(table: EpisodeTable, index: int) -> dict[str, Any]:
    """Return the statistics the metadata keeps for episode ``index`` (may be empty).

    v2.x: ``meta/episodes_stats.jsonl``; v3.x: the ``stats/...`` columns of the
    episode's row in ``meta/episodes``. Vectors are lists; image statistics are
    kept per channel.
    """
    root = table.info.root
    if not table.info.packed:
        path = root / "meta/episodes_stats.jsonl"
        if not path.exists():
            return {}
        for raw in read_json_lines(path):
            if raw.get("episode_index") == index and isinstance(raw.get("stats"), dict):
                return dict(raw["stats"])
        return {}
    stats: dict[str, Any] = {}
    for path in sorted(root.glob(_EPISODES_GLOB)):
        handle = open_parquet(path)
        names = [n for n in handle.schema_arrow.names if n.startswith("stats/")]
        table_rows = read_table(
            path, handle, ["episode_index", *names], bytes_per_row=4096
        )
        indices = column_rows(path, table_rows, "episode_index")
        if index not in indices:
            continue
        row = indices.index(index)
        for name in names:
            _, feature, statistic = name.split("/", 2)
            value = table_rows.column(name)[row].as_py()
            stats.setdefault(feature, {})[statistic] = value
        return stats
    return {}
