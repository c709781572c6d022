"""The LeRobot source's registration: dataset roots as playlists of episodes.

A dataset root is a folder with ``meta/info.json`` naming a codebase version.
It stands for its episodes, each addressed as ``<root>/episode_000003``
(:mod:`fsr_core.playlists.episodes`); ``open``, ``inspect`` and ``to_fsr`` take
that address. ``inspect`` of the root itself reports the dataset (its
episodes, files and problems) and with ``verify`` checks every episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from fsr_core.errors import FsrError, SchemaError
from fsr_core.playlists.episodes import EpisodeEntry, split_episode_path
from fsr_core.recording import RecordingModel
from fsr_core.sources.head import read_head
from fsr_core.sources.lerobot.files import read_head_text
from fsr_core.sources.lerobot.info import INFO_FILE
from fsr_core.sources.lerobot.parquet import pyarrow_missing
from fsr_core.sources.open_options import OpenOptions
from fsr_core.sources.toolkit.whole_model_conversion import WholeModelConversion

if TYPE_CHECKING:
    from fsr_core.sources.episode_columns import EpisodeColumns

__all__ = ["SOURCE", "LeRobotSource"]

_SNIFF_BYTES: Final = 4096


def _address(path: Path) -> tuple[Path, int]:
    found = split_episode_path(path)
    if found is None:
        raise SchemaError(
            "a LeRobot dataset: open one of its episodes (DATASET --episode N), "
            "or the folder as a playlist",
            path=path,
        )
    return found


class LeRobotSource(WholeModelConversion):
    """LeRobot datasets (codebase v2.x and v3.x), read with pyarrow and PyAV."""

    name: Final = "lerobot"
    description: Final = "LeRobot dataset"
    patterns: Final[tuple[str, ...]] = ()

    def sniff(self, path: Path) -> bool:
        """Say no: a dataset is a folder, never a single file.

        The file is still opened the safe way, so a FIFO or a device is
        refused here as by every source.
        """
        read_head(path, 1)
        return False

    def sniff_folder(self, path: Path) -> bool:
        """Whether ``path`` holds ``meta/info.json`` with a codebase version."""
        info = path / INFO_FILE
        if info.is_symlink() or not info.is_file():
            return False
        try:
            head = read_head_text(info, _SNIFF_BYTES)
        except FsrError:
            return False
        return '"codebase_version"' in head

    def episodes(self, root: Path) -> tuple[EpisodeEntry, ...]:
        """Return the episodes the metadata lists, with what is known wrong."""
        from fsr_core.sources.lerobot.table import episode_table

        table = episode_table(root)
        fps = table.info.fps
        checked: dict[Path, bool] = {}

        def missing(path: Path | None) -> bool:
            if path is None:
                return True
            if path not in checked:
                checked[path] = not path.is_file()
            return checked[path]

        entries = []
        for episode in table.episodes:
            problem = episode.problem
            if not problem and missing(episode.data_file):
                problem = f"data file {episode.data_file} is missing"
            if not problem:
                gone = [k for k, s in episode.videos.items() if missing(s.path)]
                if gone:
                    problem = f"the video of {gone[0]} is missing"
            entries.append(
                EpisodeEntry(
                    index=episode.index,
                    frames=episode.length,
                    duration_s=episode.length / fps,
                    task=episode.task,
                    problem=problem,
                )
            )
        return tuple(entries)

    def episode_columns(
        self, root: Path, episodes: Sequence[int]
    ) -> tuple[EpisodeColumns | None, list[int]]:
        """Read the numbers of many ``episodes`` of ``root`` at once (and the rest)."""
        from fsr_core.sources.lerobot.bulk_columns import lerobot_columns

        return lerobot_columns(root, episodes)

    def open(self, path: Path) -> RecordingModel:
        """Open the episode ``path`` addresses."""
        from fsr_core.sources.lerobot.recording_model import open_episode

        root, index = _address(path)
        return open_episode(path, root, index)

    def unavailable_reason(self) -> str | None:
        """Return what to install when pyarrow is missing."""
        return pyarrow_missing()

    def inspect(self, path: Path, *, verify: bool = False) -> dict[str, Any]:
        """Report an episode (its address) or a whole dataset (its root)."""
        from fsr_core.sources.lerobot.inspection_report import (
            dataset_report,
            episode_report,
            unreadable_episode_report,
        )

        if path.is_dir() and not path.is_symlink():
            return dataset_report(path, self.description, verify=verify)
        root, index = _address(path)
        try:
            model = self.open(path)
        except FsrError as exc:
            # What can be read of it (its journal record) is still reported.
            return unreadable_episode_report(path, root, index, self.description, exc)
        return episode_report(model, root, index, self.description, verify=verify)

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the episode (for ``to_fsr``), as :meth:`open` opens it."""
        return self.open(path)

    def converted_path(self, path: Path) -> Path:
        """Return the root of the dataset whose episode ``path`` addresses."""
        return _address(path)[0]

    def provenance(self, model: RecordingModel, path: Path) -> dict[str, object]:
        """Name the dataset, the episode, the codebase version and the task."""
        root, index = _address(path)
        return {
            "dataset": str(root),
            "episode_index": index,
            "codebase_version": model.metadata.get("codebase_version", ""),
            "task": model.metadata.get("task", ""),
        }


SOURCE = LeRobotSource()
"""The instance the registry loads."""
