"""The Rerun source's registration: ``.rrd`` recordings.

:meth:`RerunSource.sniff` checks the RRD stream magic (``RRF2``, older
``RRF0``/``RRF1``). A file holding one recording opens as it is; a file
holding several is a playlist of them, each addressed as
``<file.rrd>/episode_000001`` (:mod:`fsr_core.playlists.episodes`), so the
window, ``inspect``, ``convert``, the exports and ``batch`` take each where
they take a file. It reads one open option, ``time_base``: the name of any
of the recording's timelines. Reading needs the ``rerun`` extra
(``rerun-sdk``), imported only when a file gets as far as being opened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fsr_core.errors import SchemaError
from fsr_core.playlists.episodes import EpisodeEntry, split_episode_path
from fsr_core.recording import RecordingModel
from fsr_core.sources.head import read_head
from fsr_core.sources.inspection import add_verification, file_report
from fsr_core.sources.open_options import TIME_BASES, OpenOptions
from fsr_core.sources.toolkit.whole_model_conversion import WholeModelConversion

__all__ = ["SOURCE", "RerunSource"]

_MAGICS: Final = (b"RRF2", b"RRF1", b"RRF0")
_PROVENANCE: Final = {
    "rerun_library": "library",
    "rerun_time_base": "time_base",
    "rerun_application_id": "application_id",
    "rerun_recording_id": "recording_id",
}
"""What ``to_fsr`` copies into the provenance: fact by model metadata key."""


def _target(path: Path) -> tuple[Path, int]:
    """Return the file and recording index a path stands for."""
    found = split_episode_path(path)
    if found is not None and found[0].is_file():
        return found
    return path, 0


def _wanted(options: OpenOptions | None) -> str | None:
    return None if options is None else options.time_base


class RerunSource(WholeModelConversion):
    """Rerun recordings, read with rerun-sdk's ``RrdReader``."""

    name: Final = "rerun"
    description: Final = "Rerun recording"
    patterns: Final = ("*.rrd",)
    open_options: Final = ("time_base",)
    provenance_keys = _PROVENANCE

    def sniff(self, path: Path) -> bool:
        """Whether the file starts with an RRD magic."""
        return read_head(path, 4) in _MAGICS

    def sniff_folder(self, path: Path) -> bool:
        """Whether ``path`` is an RRD file (the root of its recordings' addresses)."""
        if path.is_symlink() or not path.is_file():
            return False
        return self.sniff(path)

    def episodes(self, root: Path) -> tuple[EpisodeEntry, ...]:
        """Return one entry per recording the file holds, in file order."""
        from fsr_core.sources.rerun.store import list_recordings

        return tuple(
            EpisodeEntry(entry.index, 0, 0.0, task=entry.recording_id)
            for entry in list_recordings(root)
        )

    def open(self, path: Path, options: OpenOptions | None = None) -> RecordingModel:
        """Open the recording; the first when the file holds several.

        ``options.time_base`` names the timeline that places the rows
        (``None``: the first the logging code made).
        """
        from fsr_core.sources.rerun.recording_model import load_rerun

        file, index = _target(path)
        return load_rerun(
            file,
            index=index,
            time_base=_wanted(options),
            other_bases=TIME_BASES,
            address=path,
        )

    def unavailable_reason(self) -> str | None:
        """Return what to install when rerun-sdk is missing."""
        from fsr_core.sources.rerun.library import rerun_missing

        return rerun_missing()

    def inspect(
        self, path: Path, *, verify: bool = False, options: OpenOptions | None = None
    ) -> dict[str, Any]:
        """Return the recording's report: entities, timelines, cameras, events.

        With ``verify`` every frame of every camera is read and decoded too.
        """
        from fsr_core.sources.rerun.recording_model import count_rows

        model = self.open(path, options)
        file, _ = _target(path)
        report = file_report(
            model,
            file,
            description=self.description,
            verify=verify,
            checked_records=None,
        )
        own = report["rerun"]
        report["cameras"] = own.pop("cameras", report["cameras"])
        if verify:
            add_verification(
                report,
                count_rows(model),
                _decode_every_frame(model),
                reason="{count} problem(s); the first: {first}",
            )
        return report

    def converted_path(self, path: Path) -> Path:
        """Return the ``.rrd`` file of the recording ``path`` addresses."""
        return _target(path)[0]

    def provenance(self, model: RecordingModel, path: Path) -> dict[str, object]:
        """Add the recording's index (for one recording of several) to the facts."""
        return {
            **super().provenance(model, path),
            "rerun_recording_index": model.metadata.get("recording_index", 0),
        }

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the model (for ``to_fsr``); its cameras read as they are written."""
        if split_episode_path(path) is None and path.is_dir():
            raise SchemaError("a folder, not a Rerun recording", path=path)
        return self.open(path, options)


def _decode_every_frame(model: RecordingModel) -> list[str]:
    """Decode every camera frame; return what failed (one line each)."""
    from fsr_core.errors import FsrError

    problems: list[str] = []
    for camera in model.cameras:
        for index in range(camera.times_s.size):
            try:
                camera.fetch(index)
            except FsrError as exc:
                problems.append(f"camera {camera.name}: frame {index}: {exc.reason}")
                break
    return problems


SOURCE = RerunSource()
"""The instance the registry loads."""
