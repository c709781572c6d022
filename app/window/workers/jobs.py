"""The player's background jobs.

Each emits ``finished(request_id, result)`` or ``failed(request_id, message)``
exactly once; exceptions never escape ``run``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal, SignalInstance

from app.canvas.overlay_registry import overlays
from app.window.workers.collector import job_running
from app.window.workers.error_message import error_message
from app.window.workers.gui_owned import gui_parent, retire
from fsr_core.errors import FsrError
from fsr_core.playlists.episodes import backing_path
from fsr_core.playlists.pinned import Pinned
from fsr_core.recording import CameraTrack, Channel, Integrity, RecordingModel
from fsr_core.sources import open_recording

__all__ = [
    "ChannelJob",
    "CheckJob",
    "CheckResult",
    "FileIdentity",
    "FrameJob",
    "FrameResult",
    "JobSignals",
    "OpenJob",
    "RefineJob",
    "StatJob",
    "entry_summary",
]

logger = logging.getLogger(__name__)


class JobSignals(QObject):
    """What a job reports; queued to the receiver's thread.

    Owned by the application and deleted on the GUI thread
    (:mod:`~app.window.workers.gui_owned`), never by a worker.
    """

    finished = Signal(int, object)
    failed = Signal(int, str)
    progress = Signal(int, int, int)
    """``(request_id, done, total)``, from a job that reports it (a refine)."""

    def __init__(self) -> None:
        super().__init__(gui_parent())


class _Job(QRunnable):
    """Runs ``work`` and turns its result or exception into one signal."""

    def __init__(self, request_id: int, path: Path) -> None:
        super().__init__()
        self.request_id = request_id
        self.path = path
        self.signals = JobSignals()

    def work(self) -> object:
        """Do the job and return its result (overridden)."""
        raise NotImplementedError

    def run(self) -> None:
        """Run the job (QRunnable override); report the outcome once."""
        with job_running():
            try:
                result = self.work()
            except Exception as exc:  # noqa: BLE001 - a worker boundary: report, never crash the UI
                message = error_message(exc, files=(self.path,))
                self._report(self.signals.failed, message)
            else:
                self._report(self.signals.finished, result)
            finally:
                retire(self.signals)

    def _report(self, signal: SignalInstance, payload: object) -> None:
        """Emit ``payload``, unless the application is gone (quitting)."""
        try:
            signal.emit(self.request_id, payload)
        except RuntimeError:  # Qt deleted the signals object: nobody listens
            logger.debug("job on %s finished after its receiver was deleted", self.path)


class _OpenerJob(_Job):
    """A job that opens the file with ``opener`` (``open_recording`` by default).

    A file listed in a playlist index (``expected``, its index entry) must
    still have the size and SHA-256 the index recorded before it is opened: a
    changed file fails the job with the reason.
    """

    def __init__(
        self,
        request_id: int,
        path: Path,
        opener: Callable[[Path], RecordingModel] = open_recording,
        expected: Pinned | None = None,
    ) -> None:
        super().__init__(request_id, path)
        self._opener = opener
        self._expected = expected

    def _open(self) -> RecordingModel:
        """Check the index's digest when there is one, then open the file."""
        expected = self._expected
        if expected is None:
            return self._opener(self.path)
        expected.verify()
        model = self._opener(self.path)
        if not expected.facts:
            return model
        # What the playlist file says of it (receipt, lineage) joins the report.
        return replace(model, report={**model.report, "index": expected.facts})


class OpenJob(_OpenerJob):
    """Open a recording (validation and index included) into a RecordingModel."""

    def work(self) -> RecordingModel:
        """Open the file, and read what the window asks for as it shows it.

        A source may leave the cameras' frame times, the joint channel's
        sample times (the clock's frame steps) and what an overlay looks at
        to know whether it applies (the peak external force) to be read when
        first asked for (an MCAP file's message indexes, an FSR file's
        channels): read here, the GUI thread never waits on them.
        """
        model = self._open()
        for track in model.cameras:
            _ = track.times_s
        _read_shown_first(model)
        return model


def _read_shown_first(model: RecordingModel) -> None:
    """Read the joint channel's times and what each overlay's ``applies`` reads.

    A read that fails is left for the window to meet (and name) where it
    asks again.
    """
    name = model.joint_channel
    joints = None if name is None else model.channels.get(name)
    if joints is not None and joints.reads_times_alone:
        _read_quietly(lambda: joints.times_s)
    for overlay in overlays():
        _read_quietly(functools.partial(overlay.applies, model))


def _read_quietly(read: Callable[[], object]) -> None:
    """Call ``read``; a read error is the window's to show, not the open's."""
    try:
        read()
    except FsrError:
        return


class RefineJob(_Job):
    """Check a model opened before every check: return the model to replace it.

    Runs ``model.refine`` (:attr:`~fsr_core.recording.RecordingModel.refine`),
    reporting ``progress(request_id, done, total)`` each time the done share
    grows by a twentieth or more.
    """

    def __init__(self, request_id: int, model: RecordingModel, load_id: int) -> None:
        super().__init__(request_id, model.path)
        assert model.refine is not None
        self.load_id = load_id
        """The load whose model this refines: a later load makes it moot."""
        self._refine = model.refine
        self._shown = -1

    def work(self) -> RecordingModel:
        """Return the checked model."""
        return self._refine(self._progress)

    def _progress(self, done: int, total: int) -> None:
        share = (20 * done) // max(total, 1)
        if share > self._shown:
            self._shown = share
            self._report_progress(done, total)

    def _report_progress(self, done: int, total: int) -> None:
        try:
            self.signals.progress.emit(self.request_id, done, total)
        except RuntimeError:  # the receiver is gone (quitting)
            logger.debug("refine of %s reported after its receiver went", self.path)


class ChannelJob(_Job):
    """Read channels that are read only when shown (the plots' channels)."""

    def __init__(
        self, request_id: int, path: Path, channels: tuple[Channel, ...]
    ) -> None:
        super().__init__(request_id, path)
        self._channels = channels

    def work(self) -> int:
        """Read each channel; one that fails keeps its error for its plot to name."""
        for channel in self._channels:
            try:
                if channel.prefers_overview:
                    channel.overview()  # a long channel is never read whole
                else:
                    _ = channel.values
            except FsrError:
                continue
        return len(self._channels)


@dataclass(frozen=True)
class CheckResult:
    """What the playlist keeps about a checked file (small)."""

    integrity: Integrity
    reason: str
    duration_s: float
    summary: str = ""
    """What the playlist row adds to the name (see :func:`entry_summary`)."""


def entry_summary(model: RecordingModel) -> str:
    """Return what a playlist row shows beside the name: length and task, if any.

    Only recordings that carry a task (dataset episodes) get one, e.g.
    ``1.0 s · pick the red cube``.
    """
    if not model.task_texts:
        return ""
    return f"{model.duration_s:.1f} s · {model.task_texts[0][1]}"


class CheckJob(_OpenerJob):
    """Open a file to learn its integrity state, then drop the model."""

    def work(self) -> CheckResult:
        """Open the file and keep only its state."""
        model = self._open()
        return CheckResult(
            model.integrity,
            model.integrity_reason,
            model.duration_s,
            entry_summary(model),
        )


@dataclass(frozen=True)
class FrameResult:
    """A decoded camera frame and the calibration it was recorded under."""

    camera: str
    index: int
    frame: Any  # RGBFrame
    calibration: Any  # Calibration | None
    values: Any = None  # a depth camera's metres per pixel (FloatArray), else None


class FrameJob(_Job):
    """Decode one camera frame."""

    def __init__(
        self, request_id: int, path: Path, track: CameraTrack, index: int
    ) -> None:
        super().__init__(request_id, path)
        self._track = track
        self._index = index

    def work(self) -> FrameResult:
        """Fetch and decode the frame."""
        frame, calibration = self._track.fetch(self._index)
        read = self._track.values
        values = None if read is None else read(self._index)
        return FrameResult(self._track.name, self._index, frame, calibration, values)


@dataclass(frozen=True)
class FileIdentity:
    """Which file a path names and how big it is (to notice replacement)."""

    device: int
    inode: int
    size_bytes: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> FileIdentity | None:
        """Return the identity of ``path``; ``None`` when it no longer exists.

        An episode of a dataset is watched through its dataset folder.
        """
        try:
            status = backing_path(path).stat()
        except FileNotFoundError:
            return None
        return cls(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


class StatJob(_Job):
    """Look at the file on disk (``stat`` may block on a stalled mount)."""

    def work(self) -> FileIdentity | None:
        """Stat the path."""
        return FileIdentity.of(self.path)
