"""The FSR file a Genesis replay writes, frame by frame as Genesis reports them.

:class:`ReplayFile` is the :class:`~.session.Sink` of a run. When the scene
is rebuilt it opens an :class:`~fsr_core.format.writer.FsrWriter` with:

* ``run.lifecycle``: ``start`` at the first frame, the terminal cut and the
  completion (``succeeded``, ``REPLAY_COMPLETED``) at the last;
* ``observations.*``: ``Simulator.time`` and one numeric stream per channel
  of :mod:`.channels` (its ``channel_name`` attribute is the Genesis source's
  channel name), a record per frame holding the scene's values after the
  seek (render) or the step (resimulate);
* for a render, the camera ``sensors.camera.camera.*``: PNG frames, the
  intrinsics once (a pinhole with square pixels from the vertical field of
  view, principal point at the image centre, pixel centres at integers) and
  the pose with every frame (camera to world, OpenCV axes);
* ``replay.comparison``: one JSON record at the last frame, the verdict of
  :mod:`.comparison`.

Records are at the frame's play time on the source's play-time axis (see
:func:`.channels.play_times`), generation 0; a record's tick is that time in
steps. The lifecycle ``start`` is at the recording's first frame even when the
replay starts later, so the file's time axis is the source's.

The metadata names the run, the source and the Genesis that replayed it; the
footer's provenance (``replay_provenance`` of :mod:`fsr_core.simulation`) adds
the source's SHA-256, the Genesis version and the comparison.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.calibration import CameraPose
from fsr_core.format.catalog import LIFECYCLE_STREAM
from fsr_core.format.streams import StreamSpec
from fsr_core.simulation.protocol import ReplayMode
from fsr_core.simulation.recorded_streams import run_versions
from fsr_core.simulation.scene_capture import Stamp
from fsr_core.simulation.side_output import (
    COMPARISON_STREAM,
    SideReplayFile,
    camera_pose,
    numeric_stream,
    write_camera,
    write_completion,
)
from fsr_core.simulators.genesis.channels import (
    MAX_STREAMS,
    TIME_CHANNEL,
    ChannelSpec,
    channel_specs,
    play_times,
    sim_time,
    stream_name,
    time_columns,
)
from fsr_core.simulators.genesis.comparison import (
    ComparisonLog,
    FieldDifference,
    FrameComparison,
)
from fsr_core.simulators.genesis.request import GenesisRequest
from fsr_core.simulators.genesis.session import FrameOut
from fsr_core.simulators.genesis.trajectory_file import TrajectoryHeader

__all__ = ["CAMERA", "COMPARISON_STREAM", "SIMULATOR_NAME", "ReplayFile", "Source"]

SIMULATOR_NAME: Final = "genesis"
CAMERA: Final = "camera"
_NOT_IN_NAME: Final = re.compile(r"[^A-Za-z0-9_.\-]")


@dataclass(frozen=True)
class Source:
    """The trajectory replayed: its file, digest and header."""

    path: Path
    sha256: str
    header: TrajectoryHeader


def _column_names(columns: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """Return ``columns`` as FSR channel names, and whether any had to change."""
    mapped: list[str] = []
    for column in columns:
        name = _NOT_IN_NAME.sub("_", column) or "_"
        if not re.match(r"[A-Za-z0-9_]", name):
            name = f"_{name}"
        while name in mapped:
            name += "_"
        mapped.append(name)
    return tuple(mapped), tuple(mapped) != columns


@dataclass(frozen=True)
class _Channel:
    spec: ChannelSpec | None
    """None: the time channel."""
    stream: str
    width: int


class ReplayFile(SideReplayFile[Source, GenesisRequest]):
    """Write a Genesis run's frames into its FSR file (a :class:`~.session.Sink`).

    Nothing is written before the rebuilt scene's facts arrive; :meth:`finish`
    publishes, :meth:`abort` removes the staging file.
    """

    simulator = SIMULATOR_NAME
    producer = "fsr_core.simulators.genesis"

    def _setup(self) -> None:
        self.notes: list[str] = []
        self.render_s = 0.0
        self.log = ComparisonLog(self.request.mode, self.request.start_frame, ())
        self._channels: list[_Channel] = []
        self._play: npt.NDArray[np.float64] = np.zeros(0)
        self._last: tuple[int, float] | None = None
        self._pose: CameraPose | None = None

    # ---------------------------------------------------------------- streams

    def _channel_table(self) -> list[StreamSpec]:
        header = self.source.header
        taken: set[str] = set()
        specs: list[StreamSpec] = []
        columns = time_columns(header)
        stream = stream_name(TIME_CHANNEL, taken)
        specs.append(self._numeric(stream, TIME_CHANNEL, columns, "s"))
        self._channels = [_Channel(None, stream, len(columns))]
        channels = channel_specs(header)
        room = MAX_STREAMS - len(specs)
        if len(channels) > room:
            self.notes.append(
                f"{len(channels)} channels are more than a file holds: the first "
                f"{room} are written"
            )
            channels = channels[:room]
        renamed = 0
        for spec in channels:
            stream = stream_name(spec.name, taken)
            mapped, changed = _column_names(spec.columns)
            renamed += changed
            specs.append(self._numeric(stream, spec.name, spec.columns, "", mapped))
            self._channels.append(_Channel(spec, stream, len(spec.columns)))
        if renamed:
            self.notes.append(
                f"{renamed} channel(s) have column names an FSR file cannot hold; "
                "they are written with those characters replaced"
            )
        return specs

    @staticmethod
    def _numeric(
        stream: str,
        channel: str,
        columns: tuple[str, ...],
        unit: str,
        mapped: tuple[str, ...] | None = None,
    ) -> StreamSpec:
        kept = columns if mapped is not None and mapped != columns else None
        return numeric_stream(stream, channel, mapped or columns, unit, kept)

    def _streams(self) -> list[StreamSpec]:
        specs = self._replay_streams()
        if self.mode is ReplayMode.RENDER:
            camera = self.request.camera
            specs += self._camera_streams(CAMERA, camera.width, camera.height)
        return specs + self._channel_table()

    def _metadata(self) -> dict[str, Any]:
        header, facts = self.source.header, self.facts
        genesis = str(facts.get("genesis_version", ""))
        return self._replay_metadata(
            self.source.path.name,
            self.source.path.name,
            f"genesis-world {genesis}",
            "re-simulation on the CPU backend reproduces an exact-mode "
            "trajectory recorded on the CPU bit for bit",
            genesis={
                "format": f"GSTRAJ{header.version}",
                "recorded_by": header.genesis,
                "recorded_backend": header.manifest.get("backend", ""),
                "mode": header.mode,
                "dt": header.dt,
                "precision": header.precision,
                "n_envs": header.n_envs,
                "frames": facts.get("frames"),
                "replayed_by": genesis,
                "start_frame": self.request.start_frame,
                "camera": facts.get("camera"),
            },
            versions=run_versions(
                genesis_world=genesis, torch=str(facts.get("torch_version", ""))
            ),
        )

    def _provenance(self) -> dict[str, Any]:
        fields = self._replay_fields(self.source.path, self.source.sha256)
        fields["source_sha256"] = self.source.sha256
        fields["genesis_version"] = str(self.facts.get("genesis_version", ""))
        fields["source_genesis_version"] = self.source.header.genesis
        fields["start_frame"] = self.request.start_frame
        return fields

    # ---------------------------------------------------------------- sink

    def scene(self, facts: dict[str, Any]) -> None:
        """Open the writer once the scene is rebuilt (its facts name the Genesis)."""
        self.facts.update(facts)
        self.log = ComparisonLog(
            self.request.mode,
            self.request.start_frame,
            [str(name) for name in facts.get("put_back", [])],
        )
        self.log.compared_fields = int(facts.get("compared_fields", 0))
        self.log.skipped = tuple(str(n) for n in facts.get("not_compared", []))
        steps = [int(s) for s in facts.get("frame_steps", [])]
        self._play = play_times(steps, self.source.header.dt)
        self._open_writer()

    def stopped(self, reason: str) -> None:
        """Note why the run ended early."""
        self.log.stopped = reason
        self.notes.append(reason)

    def _stamp(self, frame: FrameOut) -> tuple[int, float]:
        dt = self.source.header.dt
        if 0 <= frame.index < len(self._play):
            play = float(self._play[frame.index])
        else:  # no step table: count from the frame's own steps
            play = max(frame.steps) * dt
        tick = round(play / dt)
        if self._last is not None and tick <= self._last[0]:
            tick = self._last[0] + 1
        return tick, play

    def _camera_pose(self) -> CameraPose:
        if self._pose is None:
            camera = self.facts.get("camera") or {}
            self._pose = camera_pose(
                camera.get("rotation_opencv"), camera.get("position")
            )
        return self._pose

    def _write_camera(self, frame: FrameOut, tick: int, play: float) -> None:
        writer, rgb = self._writer, frame.rgb
        if writer is None or rgb is None:
            raise RuntimeError("a camera frame without writer or image")
        spec = self.request.camera
        first = (spec.width, spec.height, spec.fov_deg) if self.frames == 0 else None
        pose = self._camera_pose()
        write_camera(writer, Stamp(tick, play), CAMERA, rgb, pose, first)

    def _row(self, channel: _Channel, frame: FrameOut) -> npt.NDArray[np.float64]:
        if channel.spec is None:
            return sim_time(self.source.header, frame.steps)
        value = frame.arrays.get(channel.spec.field)
        row = None if value is None else channel.spec.row(value)
        if row is None or row.size != channel.width:
            return np.full(channel.width, np.nan)
        return row

    def frame(self, frame: FrameOut) -> None:
        """Write one frame's records and take in its comparison."""
        writer = self._writer
        if writer is None:
            raise RuntimeError("a frame came before the scene's facts")
        tick, play = self._stamp(frame)
        if self.frames == 0:
            # At the recording's first frame, so that a replay from a later
            # frame keeps the source's play times (the file's time starts here).
            origin = float(self._play[0]) if len(self._play) else play
            writer.write(
                LIFECYCLE_STREAM,
                {"event": "start"},
                tick=min(round(origin / self.source.header.dt), tick),
                sim_time_s=min(origin, play),
            )
        if frame.rgb is not None and self.mode is ReplayMode.RENDER:
            self._write_camera(frame, tick, play)
        for channel in self._channels:
            writer.write(
                channel.stream, self._row(channel, frame), tick=tick, sim_time_s=play
            )
        differences = tuple(FieldDifference.from_json(d) for d in frame.differences)
        self.log.add(FrameComparison(frame.index, max(frame.steps), play, differences))
        self.frames += 1
        self.render_s += frame.wall_s
        self._last = (tick, play)
        if self.progress is not None:
            total = int(self.facts.get("frames", 0)) - self.request.start_frame
            self.progress(self.frames, max(total, self.frames))

    # ---------------------------------------------------------------- end

    def finish(self) -> None:
        """Write the verdict and the completion, then publish the file."""
        writer = self._writer
        if writer is None or self._last is None:
            raise RuntimeError("no frame was written")
        tick, play = self._last
        write_completion(writer, Stamp(tick, play), self.log.to_json())
