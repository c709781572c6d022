"""The HDF5 source's registration: simulation datasets as playlists of episodes.

A robomimic or ManiSkill file stands for its episodes, each addressed as
``<file>/episode_000002`` (:mod:`fsr_core.playlists.episodes`; the number is
the one in ``demo_2`` or ``traj_2``); an ALOHA/ACT file is one episode and
opens as itself. ``inspect`` of a whole file reports its episodes and with
``verify`` checks every one of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fsr_core.errors import SchemaError
from fsr_core.playlists.episodes import EpisodeEntry, split_episode_path
from fsr_core.recording import RecordingModel
from fsr_core.sources.hdf5.library import h5py_missing
from fsr_core.sources.head import read_head
from fsr_core.sources.open_options import OpenOptions
from fsr_core.sources.toolkit.whole_model_conversion import WholeModelConversion

__all__ = ["SOURCE", "Hdf5Source"]

HDF5_SIGNATURE: Final = b"\x89HDF\r\n\x1a\n"
"""The first eight bytes of an HDF5 superblock (at offset 0, or after a user
block of 512, 1024, 2048 ... bytes)."""

_SNIFF_OFFSETS: Final = (0, 512, 1024, 2048)


class Hdf5Source(WholeModelConversion):
    """robomimic, ManiSkill and ALOHA/ACT HDF5 files, read with h5py."""

    name: Final = "hdf5"
    description: Final = "HDF5 simulation dataset"
    patterns: Final[tuple[str, ...]] = ("*.hdf5", "*.h5")

    def sniff(self, path: Path) -> bool:
        """Whether the file starts with the HDF5 signature (after a user block)."""
        head = read_head(path, _SNIFF_OFFSETS[-1] + len(HDF5_SIGNATURE))
        return any(
            head[offset : offset + len(HDF5_SIGNATURE)] == HDF5_SIGNATURE
            for offset in _SNIFF_OFFSETS
        )

    def sniff_folder(self, path: Path) -> bool:
        """Say no: an HDF5 dataset is a file (a folder of them is a playlist)."""
        return False

    def episodes(self, root: Path) -> tuple[EpisodeEntry, ...]:
        """Return the file's episodes in natural order (none for an ALOHA file)."""
        from fsr_core.sources.hdf5.recording_model import EpisodeFile, play_rate

        source = EpisodeFile(root)
        try:
            layout = source.layout
            if layout.single:
                return ()
            rate, _ = play_rate(layout)
            return tuple(
                EpisodeEntry(
                    index=episode.index,
                    frames=episode.samples,
                    duration_s=max(episode.samples - 1, 0) / rate,
                    task=episode.name,
                )
                for episode in layout.episodes
            )
        finally:
            source.close()

    def _target(self, path: Path) -> tuple[Path, int | None]:
        found = split_episode_path(path)
        if found is not None and found[0].is_file():
            return found
        return path, None

    def open(self, path: Path) -> RecordingModel:
        """Open the episode ``path`` addresses, or an ALOHA file itself."""
        from fsr_core.sources.hdf5.recording_model import open_episode

        file, index = self._target(path)
        if index is None and self.episodes(file):
            raise SchemaError(
                "an HDF5 file of several episodes: open one of them "
                "(FILE --episode N), or the file as a playlist",
                path=path,
            )
        return open_episode(path, file, index)

    def unavailable_reason(self) -> str | None:
        """Return what to install when h5py is missing."""
        return h5py_missing()

    def inspect(self, path: Path, *, verify: bool = False) -> dict[str, Any]:
        """Report an episode (its address, or an ALOHA file) or a whole file."""
        from fsr_core.sources.hdf5.inspection_report import (
            episode_report,
            file_report,
        )

        file, index = self._target(path)
        if index is None and self.episodes(file):
            return file_report(file, self.description, verify=verify)
        model = self.open(path)
        return episode_report(model, file, index, self.description, verify=verify)

    writing_errors_name_path = True
    """An episode's datasets are read as it is written; their errors name it."""

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the episode (for ``to_fsr``), as :meth:`open` opens it."""
        return self.open(path)

    def converted_path(self, path: Path) -> Path:
        """Return the HDF5 file of the episode ``path`` addresses."""
        return self._target(path)[0]

    def provenance(self, model: RecordingModel, path: Path) -> dict[str, object]:
        """Name the file, its layout and the episode converted."""
        file, index = self._target(path)
        return {
            "dataset": str(file),
            "layout": model.metadata.get("layout", ""),
            "episode": model.metadata.get("episode", ""),
            "episode_index": index if index is not None else 0,
        }


SOURCE = Hdf5Source()
"""The instance the registry loads."""
