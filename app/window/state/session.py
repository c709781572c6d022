"""The player session: which file plays, and loading it off the GUI thread.

Also the playlist's background checks, auto-advance, noticing files that
change on disk, and the open options (:class:`~fsr_core.sources.OpenOptions`,
e.g. an MCAP log's time base) every file opens with: changing them reopens
the playing file through the same off-thread open, at the same play time.

QtCore only. Views connect to its signals; the window forwards user intents
(open, play row, next/previous file) to it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, Protocol

import numpy as np
from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from app.window.state.playback_clock import PlaybackClock
from app.window.state.playlist import EntryState, PlaylistModel
from app.window.state.view_options import ViewOptionsModel
from app.window.workers import CheckJob, OpenJob, Runner, StatJob, pool_runner
from app.window.workers.jobs import (
    CheckResult,
    FileIdentity,
    RefineJob,
    entry_summary,
)
from app.window.workers.live_poller import LiveThread
from fsr_core.budgets import EXPORT_FRAMES
from fsr_core.errors import FsrError
from fsr_core.playlists.pinned import Pinned
from fsr_core.recording import Channel, Integrity, RecordingModel
from fsr_core.sources import OpenOptions, open_recording
from fsr_core.sources.live import (
    FollowState,
    FollowStatus,
    follow_recording,
    still_being_written,
)

__all__ = ["Opener", "PlayerSession", "frame_times", "live_frame_times"]

logger = logging.getLogger(__name__)

#: Files checked at once in the background (docs/robustness.md, U13).
CHECK_THREADS: Final = 2
#: How often the playing file is looked at on disk, in milliseconds.
WATCH_MS: Final = 2000
#: How close to the newest data the cursor must be to count as LIVE, seconds.
LIVE_EPSILON_S: Final = 1e-6

_STATES: Final = {
    Integrity.VALID: EntryState.VALID,
    Integrity.UNVERIFIED: EntryState.UNVERIFIED,
    Integrity.RECOVERED: EntryState.RECOVERED,
    Integrity.DEGRADED: EntryState.DEGRADED,
    Integrity.INVALID: EntryState.INVALID,
}


class Opener(Protocol):
    """Opens a recording as the open options ask (:func:`open_recording`)."""

    def __call__(
        self, path: Path, *, options: OpenOptions | None = None
    ) -> RecordingModel:
        """Return the recording model of ``path``."""
        ...


@dataclass(frozen=True)
class _Reopen:
    """A reopen of the playing file under way: its load, where it played, before."""

    load_id: int
    position_s: float
    previous: OpenOptions


def frame_times(model: RecordingModel) -> np.ndarray:
    """Return the times a frame step moves between: the recorded state samples.

    The joint channel when there is one (read, or read by the sample, as an
    FSR file's are), else every camera frame, else the
    union of all channels' sample times. A model whose channels are read only
    when shown (an MCAP file opened from its indexes) steps on an even grid
    instead, as many steps as its densest channel has samples (at most the
    ``FSR_VIEWER_EXPORT_FRAMES`` budget), so opening it reads no channel.
    """
    joints = (
        None if model.joint_channel is None else model.channels[model.joint_channel]
    )
    if joints is not None and (joints.loaded or joints.reads_one_sample):
        return joints.times_s
    if model.cameras:
        return np.concatenate([track.times_s for track in model.cameras])
    channels = list(model.channels.values())
    if not all(channel.loaded for channel in channels):
        return _even_steps(model.duration_s, channels)
    series = [channel.times_s for channel in channels]
    return np.concatenate(series) if series else np.zeros(1)


def live_frame_times(model: RecordingModel, after_s: float | None = None) -> np.ndarray:
    """Return the frame steps of a followed recording (those after ``after_s``).

    Every camera frame and the samples of its longest channel, so the
    timeline reaches the newest data whichever stream it is in. With
    ``after_s``, only the steps past it: a growth costs what it added, not
    the hour already read (whose older rows may not even be in memory).
    """
    parts = [track.times_s for track in model.cameras]
    longest = max(model.channels.values(), key=lambda c: c.count or 0, default=None)
    if longest is not None:
        parts.append(longest.times_s)
    if after_s is not None:
        parts = [part[int(np.searchsorted(part, after_s, "right")) :] for part in parts]
    return np.concatenate(parts) if parts else np.zeros(1)


def _even_steps(duration_s: float, channels: list[Channel]) -> np.ndarray:
    """Return evenly spaced times over ``[0, duration_s]``, densest channel's rate."""
    if not duration_s > 0:
        return np.zeros(1)
    densest = max((channel.count or 0 for channel in channels), default=0)
    steps = min(max(densest - 1, 1), EXPORT_FRAMES.limit())
    return np.linspace(0.0, duration_s, steps + 1)


class PlayerSession(QObject):
    """Owns the playlist, the clock and the view options; loads the current file."""

    #: The recording now shown (None: nothing playable).
    model_changed = Signal(object)
    #: A file could not be opened (path, one-line reason).
    load_failed = Signal(str, str)
    #: Something the user should read, non-modal (status bar).
    message = Signal(str)
    #: The playing file changed on disk (reason), e.g. deleted or replaced.
    file_changed_on_disk = Signal(str)
    #: The open options changed (the new OpenOptions), or went back after a
    #: reopen failed.
    open_options_changed = Signal(object)
    #: A followed recording grew (the new model; same channels, more samples).
    model_grown = Signal(object)
    #: LIVE mode turned on or off (the cursor stays at the newest data).
    live_changed = Signal(bool)

    def __init__(
        self,
        *,
        runner: Runner | None = None,
        check_runner: Runner | None = None,
        opener: Opener = open_recording,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.clock = PlaybackClock(self)
        self.playlist = PlaylistModel(self)
        self.options = ViewOptionsModel(parent=self)
        self._runner = runner if runner is not None else pool_runner()
        if check_runner is None:
            self._check_pool = QThreadPool(self)
            self._check_pool.setMaxThreadCount(CHECK_THREADS)
            check_runner = pool_runner(self._check_pool)
        self._check_runner = check_runner
        self._opener = opener
        self._open_options = OpenOptions()
        self._reopen: _Reopen | None = None
        self._indexed: dict[Path, Pinned] = {}
        self._model: RecordingModel | None = None
        self._identity: FileIdentity | None = None
        self._request_id = 0
        self._jobs: dict[int, tuple[object, int]] = {}
        self._load_id = 0
        self._stat_job: StatJob | None = None
        self._resume_playing = False
        self._watch = QTimer(self)
        self._watch.setInterval(WATCH_MS)
        self._watch.timeout.connect(self._on_watch_timeout)
        self.clock.reached_end.connect(self._on_clock_reached_end)
        self._live_thread: LiveThread | None = None
        self._live_row = -1
        self._live = False
        self._moving_live = False
        self.clock.position_changed.connect(self._on_position_for_live)

    # -- state ------------------------------------------------------------

    @property
    def model(self) -> RecordingModel | None:
        """The recording shown."""
        return self._model

    @property
    def open_options(self) -> OpenOptions:
        """How files open (a source reads the options it knows, others ignore them)."""
        return self._open_options

    @property
    def loading(self) -> bool:
        """Whether a file is being opened or checked."""
        return bool(self._jobs)

    def wait_idle(self, timeout_ms: int = 30_000) -> bool:
        """Wait for background checks to end (shutdown, headless screenshots)."""
        pool = getattr(self, "_check_pool", None)
        return pool.waitForDone(timeout_ms) if pool is not None else True

    # -- intents ----------------------------------------------------------

    def set_open_options(self, options: OpenOptions) -> None:
        """Open files with ``options`` from now on (the command line's, at start)."""
        if options != self._open_options:
            self._open_options = options
            self.open_options_changed.emit(options)

    def reopen(self, options: OpenOptions) -> bool:
        """Open the playing file again with ``options``, at the same play time.

        The options stay for every file opened after. The file opens off the
        GUI thread like any other while the old model plays on; if it cannot
        open so, the old model and options stay and :attr:`message` says why.
        Returns False (nothing changes) when no file plays.
        """
        row = self.playlist.current
        if (
            self._model is None
            or row < 0
            or not self.playlist.entry(row).state.playable
        ):
            return False
        # Known before the load starts: a runner may finish it at once.
        self._reopen = _Reopen(
            self._request_id + 1, self.clock.position_s, self._open_options
        )
        self.set_open_options(options)
        self.load_row(row)
        return True

    def open_paths(
        self,
        paths: list[Path],
        *,
        play: bool = False,
        indexed: Mapping[Path, Pinned] | None = None,
    ) -> None:
        """Add files to the playlist, check them, and load the first new one.

        With nothing loaded yet (or ``play``), the first added file loads.
        ``indexed`` gives the index entry of files listed in a playlist index:
        their digest is checked whenever they are checked or opened.
        """
        self._indexed.update(indexed or {})
        if (
            paths
            and (self._model is None or play)
            and still_being_written(paths[0])
            and self.follow_path(paths[0])
        ):
            # Still being written: followed, the rest listed after it.
            for row in self.playlist.add_paths(paths[1:]):
                self._check(row)
            return
        rows = self.playlist.add_paths(paths)
        for row in rows:
            self._check(row)
        if not paths:
            return
        first = self.playlist.row_of(paths[0])
        if not self.playlist.entry(first).state.playable:
            # Known broken already (a quick check): start at the next that plays.
            first = self.playlist.playable_from(first, 1) or first
        if self._model is None or play:
            self.load_row(first, play=play)

    def insert_paths_after(self, anchor: Path, paths: list[Path]) -> None:
        """Add files right after ``anchor`` in the playlist (else at the end).

        A replay's result goes beside its source this way. The new files are
        checked in the background like any other; nothing loads.
        """
        row = self.playlist.row_of(anchor)
        at = row + 1 if row >= 0 else self.playlist.rowCount()
        rows = self.playlist.add_paths(paths, at=at)
        if rows:  # jobs of the rows that moved report to their new rows
            self._jobs = {
                key: (job, moved + len(rows) if moved >= at else moved)
                for key, (job, moved) in self._jobs.items()
            }
        for new in rows:
            self._check(new)

    def load_row(self, row: int, *, play: bool | None = None) -> None:
        """Load the file at ``row``; play it when ``play`` (None keeps the state)."""
        if not 0 <= row < self.playlist.rowCount():
            return
        entry = self.playlist.entry(row)
        if not entry.state.playable:
            self.message.emit(f"{entry.name} cannot be played: {entry.reason}")
            return
        self._resume_playing = self.clock.playing if play is None else play
        self.clock.pause()
        self._request_id += 1
        self._load_id = self._request_id
        if self._reopen is not None and self._reopen.load_id != self._load_id:
            self._reopen = None  # another load supersedes the reopen
        expected = self._indexed.get(entry.path)
        # The window shows a file as soon as a source can (a model checked
        # after, in the background: _refine); the checks keep the full open.
        quick = replace(self._open_options, provisional=True)
        opener = functools.partial(self._opener, options=quick)
        job = OpenJob(self._request_id, entry.path, opener, expected)
        job.signals.finished.connect(self._on_open_finished)
        job.signals.failed.connect(self._on_open_failed)
        self._jobs[self._request_id] = (job, row)
        self.playlist.set_current(row)
        self._runner(job)

    def step_file(self, direction: int) -> bool:
        """Load the next (+1) or previous (-1) playable file, keeping play state.

        Returns False at the end of the list (nothing changes then).
        """
        row = self.playlist.playable_from(self.playlist.current + direction, direction)
        if row is None:
            return False
        self.load_row(row)
        return True

    # -- loading ----------------------------------------------------------

    def _bound_opener(self) -> Callable[[Path], RecordingModel]:
        """Return the opener with the options in force now (a job may outlive them)."""
        return functools.partial(self._opener, options=self._open_options)

    def _check(self, row: int) -> None:
        self._request_id += 1
        path = self.playlist.entry(row).path
        job = CheckJob(
            self._request_id, path, self._bound_opener(), self._indexed.get(path)
        )
        job.signals.finished.connect(self._on_check_finished)
        job.signals.failed.connect(self._on_check_failed)
        self._jobs[self._request_id] = (job, row)
        self._check_runner(job)

    def _on_check_finished(self, request_id: int, result: object) -> None:
        _, row = self._jobs.pop(request_id)
        assert isinstance(result, CheckResult)
        self.playlist.set_state(row, _STATES[result.integrity], result.reason)
        self.playlist.set_summary(row, result.summary)

    def _on_check_failed(self, request_id: int, reason: str) -> None:
        _, row = self._jobs.pop(request_id)
        self.playlist.set_state(row, EntryState.INVALID, reason)
        if row == self.playlist.current and self._model is None:
            self._skip_from(row)

    def _on_open_finished(self, request_id: int, result: object) -> None:
        _, row = self._jobs.pop(request_id)
        if request_id != self._load_id:
            return  # superseded by a later load
        assert isinstance(result, RecordingModel)
        reopen, self._reopen = self._reopen, None
        self._model = result
        self._identity = FileIdentity.of(result.path)
        self.playlist.set_state(row, _STATES[result.integrity], result.integrity_reason)
        self.playlist.set_summary(row, entry_summary(result))
        self.clock.set_frames(frame_times(result))
        if reopen is not None and reopen.load_id == request_id:
            self.clock.seek(reopen.position_s)  # the seek keeps it in the new range
        self.model_changed.emit(result)
        self._watch.start()
        if self._resume_playing:
            self.clock.play()
        if result.refine is not None and request_id == self._load_id:
            self._refine(row, result)  # unless a handler above loaded another

    def _refine(self, row: int, model: RecordingModel) -> None:
        """Check a model opened before its checks; the checked one replaces it."""
        self._request_id += 1
        job = RefineJob(self._request_id, model, self._load_id)
        job.signals.finished.connect(self._on_refine_finished)
        job.signals.failed.connect(self._on_refine_failed)
        job.signals.progress.connect(self._on_refine_progress)
        self._jobs[self._request_id] = (job, row)
        self.message.emit(f"checking {model.path.name}…")
        self._runner(job)

    def _refined(self, request_id: int) -> int | None:
        """Pop a refine's job; return its row when its model is still the one shown."""
        job, row = self._jobs.pop(request_id)
        assert isinstance(job, RefineJob)
        if job.load_id != self._load_id or self._model is None:
            return None  # another file, or another open, took its place
        return row

    def _on_refine_progress(self, request_id: int, done: int, total: int) -> None:
        found = self._jobs.get(request_id)
        if found is not None:
            job, _ = found
            assert isinstance(job, RefineJob)
            self.message.emit(f"checking {job.path.name}: {done} of {total} chunks")

    def _on_refine_finished(self, request_id: int, result: object) -> None:
        row = self._refined(request_id)
        if row is None:
            return
        assert isinstance(result, RecordingModel)
        playing = self.clock.playing
        position = self.clock.position_s
        self.clock.pause()
        self._model = result
        self.playlist.set_state(row, _STATES[result.integrity], result.integrity_reason)
        self.playlist.set_summary(row, entry_summary(result))
        self.clock.set_frames(frame_times(result))
        self.clock.seek(position)  # the seek keeps it in the new range
        self.model_changed.emit(result)
        reason = f": {result.integrity_reason}" if result.integrity_reason else ""
        self.message.emit(f"checked {result.path.name}{reason}")
        if playing:
            self.clock.play()

    def _on_refine_failed(self, request_id: int, reason: str) -> None:
        row = self._refined(request_id)
        if row is not None:
            self.playlist.set_state(row, EntryState.INVALID, reason)
            self.message.emit(reason)

    def _on_open_failed(self, request_id: int, reason: str) -> None:
        _, row = self._jobs.pop(request_id)
        reopen = self._reopen
        if reopen is not None and reopen.load_id == request_id:
            self._keep_after_failed_reopen(reopen, reason)
            return
        self.playlist.set_state(row, EntryState.INVALID, reason)
        self.load_failed.emit(str(self.playlist.entry(row).path), reason)
        self.message.emit(reason)
        if request_id == self._load_id:
            self._skip_from(row)

    def _keep_after_failed_reopen(self, reopen: _Reopen, reason: str) -> None:
        """Go on with the model and options that played before the reopen."""
        self._reopen = None
        self.set_open_options(reopen.previous)
        self.message.emit(f"could not reopen with the new options: {reason}")
        if self._resume_playing:
            self.clock.play()

    def _skip_from(self, row: int) -> None:
        """Move on from an unplayable file to the next playable one, if any."""
        following = self.playlist.playable_from(row + 1, 1)
        if following is not None:
            self.load_row(following, play=self._resume_playing)
            return
        if self._model is None:
            self.playlist.set_current(-1)
            self.model_changed.emit(None)

    def _on_clock_reached_end(self) -> None:
        following = self.playlist.playable_from(self.playlist.current + 1, 1)
        if following is not None:
            self.load_row(following, play=True)

    # -- following a recording being written -----------------------------

    @property
    def following(self) -> bool:
        """Whether a recording being written is followed."""
        return self._live_thread is not None

    @property
    def live(self) -> bool:
        """LIVE mode: the cursor stays at the newest data while it grows."""
        return self._live

    def follow_path(self, path: Path) -> bool:
        """Follow a recording being written: it grows on the timeline, LIVE.

        ``path`` may be an FSR recording's final name before it exists (its
        writer's staging file is followed). When the writer finishes, the
        published file is opened and checked once, as any file is.
        Returns False (with a message) when it cannot be followed.
        """
        self.stop_following()
        try:
            follower = follow_recording(path)
        except FsrError as exc:
            self.message.emit(str(exc))
            self.load_failed.emit(str(path), str(exc))
            return False
        self.playlist.add_paths([path])
        row = self.playlist.row_of(path)
        self.playlist.set_state(row, EntryState.LIVE, "following: waiting for data")
        self.playlist.set_current(row)
        self.clock.pause()
        self._request_id += 1
        self._load_id = self._request_id  # supersedes any open under way
        self._watch.stop()
        self._model = None
        self._live_row = row
        thread = LiveThread(follower, self)
        thread.poller.ready.connect(self._on_live_ready)
        thread.poller.failed.connect(self._on_live_failed)
        self._live_thread = thread
        self._set_live(True)
        self.message.emit(f"following {follower.shown_name()} ({follower.path.name})")
        thread.start()
        return True

    def stop_following(self) -> None:
        """Stop following (the model read so far stays shown)."""
        thread, self._live_thread = self._live_thread, None
        if thread is not None:
            thread.stop()
        self._set_live(False)

    def go_live(self) -> None:
        """Back to LIVE: the cursor to the newest data (End does this too)."""
        if self.following:
            self.clock.to_end()

    def _set_live(self, live: bool) -> None:
        if live != self._live:
            self._live = live
            self.live_changed.emit(live)

    def _on_position_for_live(self, position_s: float) -> None:
        if self._moving_live or not self.following:
            return
        self._set_live(position_s >= self.clock.duration_s - LIVE_EPSILON_S)

    def _on_live_ready(self) -> None:
        thread = self._live_thread
        if thread is None:
            return  # stopped meanwhile
        taken = thread.poller.take()
        if taken is not None:
            self._on_live_grown(*taken)

    def _on_live_grown(self, model: RecordingModel, status: FollowStatus) -> None:
        first = self._model is None
        position = self.clock.position_s
        self._model = model
        row = self._live_row
        if status.state in (FollowState.GROWING, FollowState.STOPPED):
            self.playlist.set_state(row, EntryState.LIVE, status.message)
        self._moving_live = True
        try:
            if first:
                self.clock.set_frames(live_frame_times(model))
            else:
                after = self.clock.duration_s
                self.clock.extend_frames(live_frame_times(model, after))
            self.clock.seek(self.clock.duration_s if self._live else position)
        finally:
            self._moving_live = False
        if first:
            self.model_changed.emit(model)
        else:
            self.model_grown.emit(model)
        if status.state.final:
            self._live_ended(model, status)

    def _live_ended(self, model: RecordingModel, status: FollowStatus) -> None:
        thread = self._live_thread
        assert thread is not None
        published = thread.poller.follower.published_path()
        self.stop_following()
        row = self._live_row
        self.message.emit(f"{model.title}: {status.message}")
        if status.state is FollowState.FINISHED:
            # Verified once: opened and checked as any file is, at the same time.
            self.playlist.set_path(row, published)
            self._reopen = _Reopen(
                self._request_id + 1, self.clock.position_s, self._open_options
            )
            self.load_row(row)
            return
        state = (
            EntryState.RECOVERED
            if status.state is FollowState.CUT
            else EntryState.DEGRADED
        )
        self.playlist.set_state(row, state, status.message)

    def _on_live_failed(self, reason: str) -> None:
        self.stop_following()
        if self._live_row >= 0:
            self.playlist.set_state(self._live_row, EntryState.DEGRADED, reason)
        self.message.emit(reason)

    # -- the file on disk -------------------------------------------------

    def _on_watch_timeout(self) -> None:
        model = self._model
        if model is None:
            return
        job = StatJob(0, model.path)
        job.signals.finished.connect(self._on_stat_finished)
        self._stat_job = job  # keep it alive until it reports
        self._runner(job)

    def _on_stat_finished(self, request_id: int, result: object) -> None:
        del request_id
        reason = self.disk_change(result if isinstance(result, FileIdentity) else None)
        if reason:
            self._watch.stop()
            row = self.playlist.current
            if row >= 0:
                self.playlist.set_state(row, EntryState.DEGRADED, reason)
            self.file_changed_on_disk.emit(reason)
            self.message.emit(reason)

    def disk_change(self, now: FileIdentity | None) -> str:
        """Return how the playing file changed on disk since it opened ('' if not)."""
        before, model = self._identity, self._model
        if before is None or model is None:
            return ""
        name = model.path.name
        if now is None:
            return f"{name}: deleted on disk; what was loaded still plays"
        if (now.device, now.inode) != (before.device, before.inode):
            return f"{name}: file replaced on disk: reload to see the new one"
        if now.size_bytes < before.size_bytes:
            return f"{name}: file truncated on disk ({now.size_bytes} bytes now)"
        if now.size_bytes > before.size_bytes or now.mtime_ns != before.mtime_ns:
            return f"{name}: file changed on disk: reload to see it"
        return ""

    def shutdown(self) -> None:
        """Stop timers and wait for background checks (window close)."""
        self.stop_following()
        self._watch.stop()
        self.clock.pause()
        self.wait_idle(5000)
