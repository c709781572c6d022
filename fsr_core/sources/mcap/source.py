"""The MCAP source's registration: ``.mcap`` logs (ROS 2, Foxglove and others).

:meth:`McapSource.sniff` checks the MCAP magic. It reads one open option,
``time_base`` (:class:`~fsr_core.sources.open_options.OpenOptions`): which
time places each message. Reading needs the ``mcap`` extra (``mcap``,
``zstandard``, ``lz4``, and the protobuf and ROS 2 decoders); a topic whose
decoder is missing still lists in the inspector with the extra that would
read it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fsr_core.errors import SourceUnavailableError
from fsr_core.recording import RecordingModel
from fsr_core.sources.head import read_head
from fsr_core.sources.inspection import add_verification, file_report
from fsr_core.sources.open_options import OpenOptions, message_time_base
from fsr_core.sources.toolkit.optional_packages import missing_hint
from fsr_core.sources.toolkit.rosbag2_metadata import names_storage
from fsr_core.sources.toolkit.whole_model_conversion import WholeModelConversion

__all__ = ["SOURCE", "McapSource", "bag_file"]


_PROVENANCE: Final = {
    "mcap_profile": "profile",
    "mcap_library": "library",
    "mcap_time_base": "time_base",
}
"""What ``to_fsr`` copies into the provenance: fact by MCAP metadata key."""


def bag_file(folder: Path) -> Path | None:
    """Return the MCAP file of a rosbag2 bag folder, ``None`` if it is not one.

    A bag is a folder with rosbag2's ``metadata.yaml`` naming the ``mcap``
    storage, and its MCAP file beside it.

    Raises
    ------
    SourceUnavailableError
        The bag is split over several files (the viewer reads one-file bags).
    """
    if not names_storage(folder, "mcap"):
        return None
    files = sorted(
        item
        for item in folder.glob("*.mcap")
        if item.is_file() and not item.is_symlink()
    )
    if not files:
        return None
    if len(files) > 1:
        raise SourceUnavailableError(
            f"a rosbag2 bag split over {len(files)} MCAP files; the viewer reads "
            "one-file bags (open each file on its own)",
            path=folder,
        )
    return files[0]


def _file_of(path: Path) -> Path:
    """Return the MCAP file a path stands for (a bag folder stands for its file)."""
    if path.is_dir() and not path.is_symlink():
        found = bag_file(path)
        if found is None:
            raise SourceUnavailableError(
                "a folder that is not a rosbag2 bag stored as MCAP", path=path
            )
        return found
    return path


def _calibrated_cameras(report: dict[str, Any], model: RecordingModel) -> None:
    """Give each camera entry its calibration epochs (``[]``: none found).

    Each epoch: ``start_time_ns`` and ``play_time_s`` (when it came in force),
    ``width``, ``height``, ``model`` (the distortion model), ``K``, ``D`` and
    ``digest``, as FSR's calibration epochs give them.
    """
    calibrations = report["mcap"].pop("camera_calibrations", {})
    origin = model.metadata.get("start_time_ns")
    for camera in report["cameras"]:
        epochs = calibrations.get(camera["name"], [])
        for epoch in epochs:
            if isinstance(origin, int):
                epoch["play_time_s"] = (epoch["start_time_ns"] - origin) / 1e9
        camera["calibration"] = epochs


def _verified(path: Path, report: dict[str, Any]) -> None:
    """Check every record of the file (``inspect --verify``) and add what it found.

    The ``verification`` entry lists the problems; a file with any is not
    valid, whatever reading it recovered. What ``mcap doctor`` only warns of
    goes to the notes.
    """
    from fsr_core.sources.mcap.verification import verify_file

    found = verify_file(path)
    report["notes"] = [*report["notes"], *found.notes]
    add_verification(
        report,
        found.records,
        found.problems,
        reason="{count} problem(s) found reading records; the first: {first}",
    )


class McapSource(WholeModelConversion):
    """MCAP files, read with the ``mcap`` library and the format's decoders."""

    name: Final = "mcap"
    description: Final = "MCAP log"
    patterns: Final = ("*.mcap",)
    open_options: Final = ("time_base",)

    def sniff(self, path: Path) -> bool:
        """Whether the file starts with the MCAP magic."""
        # The container is imported only when a file gets this far: the
        # registry loads every source, and most files are claimed before.
        from fsr_core.sources.mcap.container import MCAP_MAGIC

        return read_head(path, len(MCAP_MAGIC)).startswith(MCAP_MAGIC)

    def sniff_folder(self, path: Path) -> bool:
        """Whether ``path`` is a rosbag2 bag stored as MCAP (``metadata.yaml``)."""
        return bag_file(path) is not None

    def open(self, path: Path, options: OpenOptions | None = None) -> RecordingModel:
        """Build the recording model of the file (or of a bag's MCAP file).

        A file with indexes opens from them at log time: each numeric topic
        is read when its channel is first shown. ``options.time_base`` places
        messages at another time (``None``: ``FSR_VIEWER_MCAP_TIME``, else log).
        """
        return self._open(path, read_everything=False, options=options)

    def _open(
        self, path: Path, *, read_everything: bool, options: OpenOptions | None
    ) -> RecordingModel:
        from fsr_core.sources.mcap.recording_model import load_mcap

        base = message_time_base(options, "an MCAP log", path)
        return load_mcap(
            _file_of(path),
            time_base=base,
            read_everything=read_everything,
        )

    def unavailable_reason(self) -> str | None:
        """Return what to install when the ``mcap`` package is missing."""
        return missing_hint(
            "the 'mcap' package (pip install 'fsr-viewer[mcap]')", "mcap"
        )

    def inspect(
        self, path: Path, *, verify: bool = False, options: OpenOptions | None = None
    ) -> dict[str, Any]:
        """Return the file's report; ``verify`` checks every record as ``mcap doctor``.

        The ``mcap`` section lists the index, compression, topics, attachments,
        metadata records and any cut (:mod:`fsr_core.sources.mcap.inspection_report`).
        Without ``verify`` a file with indexes is reported from them.
        """
        model = self._open(path, read_everything=verify, options=options)
        messages = model.report.get("messages")
        checked = messages if isinstance(messages, int) else None
        report = file_report(
            model,
            _file_of(path),
            description=self.description,
            verify=verify,
            checked_records=checked,
        )
        _calibrated_cameras(report, model)
        if verify:
            _verified(_file_of(path), report)
        return report

    provenance_keys = _PROVENANCE

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the model with every topic: channels, cameras and calibration.

        For ``to_fsr``, read in one pass; play times are those of the time base
        in ``options``, recorded in the provenance as ``mcap_time_base``.
        """
        return self._open(path, read_everything=True, options=options)


SOURCE = McapSource()
"""The instance the registry loads."""
