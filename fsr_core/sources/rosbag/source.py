"""The ROS bag sources' registration: ROS 1 ``.bag`` and rosbag2 SQLite bags.

:data:`ROSBAG1` reads files that start with the ``#ROSBAG V2.0`` magic;
:data:`ROSBAG2` reads a rosbag2 folder whose ``metadata.yaml`` names the
``sqlite3`` storage (split bags joined in time), or one ``.db3`` file.
Both need the ``rosbag`` extra (``rosbags``); ``rosbags`` is imported only
when a file gets as far as being opened. They read two open options
(:class:`~fsr_core.sources.open_options.OpenOptions`): ``time_base`` (``log``,
the default, or ``header``) and ``provisional`` (the window: the transforms
of the first second at once, the rest in the background).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Final

from fsr_core.recording import RecordingModel
from fsr_core.sources.head import read_head
from fsr_core.sources.inspection import model_report, verification_entry
from fsr_core.sources.open_options import OpenOptions, message_time_base
from fsr_core.sources.toolkit.whole_model_conversion import WholeModelConversion

__all__ = ["ROSBAG1", "ROSBAG2", "BagSource"]

_ROS1_MAGIC: Final = b"#ROSBAG V2.0\n"
_SQLITE_MAGIC: Final = b"SQLite format 3\x00"
_PROVENANCE: Final = {
    "bag_format": "format",
    "bag_library": "library",
    "bag_index": "index",
    "bag_time_base": "time_base",
}
"""What ``to_fsr`` copies into the provenance: fact by model metadata key."""


def _size_bytes(path: Path, files: list[str]) -> int:
    """Return the bag's size: the file, or a folder's storage files together."""
    if not path.is_dir():
        return path.stat().st_size
    found = [path / name for name in files if name and "/" not in name]
    return sum(item.stat().st_size for item in found if item.is_file())


def _problems(model: RecordingModel) -> list[str]:
    report = model.report
    problems = []
    scan = report.get("scan")
    if isinstance(scan, dict) and scan.get("cut_offset") is not None:
        problems.append(f"cut at byte {scan['cut_offset']}: {scan['cut_reason']}")
    stopped = report.get("stopped")
    if isinstance(stopped, dict):
        problems.append(f"reading stopped: {stopped['reason']}")
    for topic in report.get("topics", []):
        if "unreadable" in topic:
            problems.append(f"topic {topic['topic']}: {topic['unreadable']}")
        elif topic.get("unreadable_messages"):
            problems.append(
                f"topic {topic['topic']}: {topic['unreadable_messages']} message(s) "
                f"unreadable, first: {topic['first_problem']}"
            )
    return problems


class BagSource(WholeModelConversion):
    """ROS bags read with ``rosbags``; one instance per bag generation."""

    provenance_keys = _PROVENANCE
    open_options: Final = ("provisional", "time_base")

    def __init__(
        self, name: str, description: str, patterns: tuple[str, ...], *, ros1: bool
    ) -> None:
        self.name = name
        self.description = description
        self.patterns = patterns
        self._ros1 = ros1

    def sniff(self, path: Path) -> bool:
        """Whether the file starts with this generation's magic (``.db3``: SQLite)."""
        if self._ros1:
            return read_head(path, len(_ROS1_MAGIC)) == _ROS1_MAGIC
        head = read_head(path, len(_SQLITE_MAGIC))
        return head == _SQLITE_MAGIC and path.suffix.lower() == ".db3"

    def sniff_folder(self, path: Path) -> bool:
        """Whether ``path`` is a rosbag2 bag stored as SQLite (ROS 2 only)."""
        if self._ros1:
            return False
        from fsr_core.sources.rosbag.bag_files import is_rosbag2_folder

        return is_rosbag2_folder(path)

    def open(self, path: Path, options: OpenOptions | None = None) -> RecordingModel:
        """Open the bag: transforms and calibrations read, other topics when shown.

        ``options.time_base`` ``header`` places messages at their stamps;
        ``options.provisional`` reads the first second of the transforms,
        the rest following (:attr:`RecordingModel.refine`).
        """
        return self._open(path, read_everything=False, options=options)

    def _open(
        self,
        path: Path,
        *,
        read_everything: bool,
        options: OpenOptions | None = None,
    ) -> RecordingModel:
        from fsr_core.sources.rosbag.recording_model import load_bag

        base = message_time_base(options, "a ROS bag", path)
        return load_bag(
            path,
            source=self.name,
            read_everything=read_everything,
            provisional=bool(options is not None and options.provisional),
            time_base=base,
        )

    def unavailable_reason(self) -> str | None:
        """Return what to install when ``rosbags`` is missing."""
        from fsr_core.sources.rosbag.library import rosbags_missing

        return rosbags_missing()

    def inspect(
        self, path: Path, *, verify: bool = False, options: OpenOptions | None = None
    ) -> dict[str, Any]:
        """Return the bag's report; ``verify`` reads every message and lists problems.

        Without ``verify`` the numeric topics are counted from the bag's index
        or metadata, not read. ``options.time_base`` as for :meth:`open`.
        """
        if options is not None:
            options = dataclasses.replace(options, provisional=None)
        model = self._open(path, read_everything=verify, options=options)
        messages = model.report.get("messages")
        checked = messages if isinstance(messages, int) else None
        files = model.report.get("files")
        report = model_report(
            model,
            description=self.description,
            size_bytes=_size_bytes(path, files if isinstance(files, list) else []),
            verify=verify,
            checked_records=checked,
        )
        if verify:
            report["verification"] = verification_entry(
                checked or 0, _problems(model), digest_verified=False
            )
        return report

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the model with every message read (for ``to_fsr``).

        Play times are those of ``options.time_base``, recorded in the
        provenance as ``bag_time_base``.
        """
        if options is not None:
            options = dataclasses.replace(options, provisional=None)
        return self._open(path, read_everything=True, options=options)


ROSBAG1 = BagSource("rosbag1", "ROS 1 bag", ("*.bag",), ros1=True)
"""ROS 1 bags, format 2.0."""
ROSBAG2 = BagSource("rosbag2", "rosbag2 SQLite bag", ("*.db3",), ros1=False)
"""rosbag2 bags stored as SQLite: a folder, or one ``.db3`` file."""
