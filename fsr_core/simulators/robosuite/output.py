"""The FSR file a robosuite replay writes, frame by frame as robosuite reports them.

:class:`ReplayFile` is the :class:`~.session.Sink` of a run. Once the
environment is rebuilt it opens an :class:`~fsr_core.format.writer.FsrWriter`
with:

* ``run.lifecycle``: ``start`` at step 0, the terminal cut and the completion
  (``succeeded``, ``REPLAY_COMPLETED``) at the last step;
* ``observations.states``: the simulator's flattened state after each restore
  (render) or step (resimulate), named as the HDF5 source names the recorded
  one (channel ``states``, columns ``states[0]``...), so that ``compare FILE
  --episode N OUT.fsr`` compares the two;
* ``observations.state_error``: the step's largest state error against the
  recording (:mod:`.divergence`), a channel on the timeline;
* for a render, each camera under its robosuite name
  (``sensors.agentview.camera.*``): PNG frames right side up, the intrinsics
  once (a centred pinhole from the camera's vertical field of view) and its
  world pose with every frame (camera to world, OpenCV axes); the metadata's
  ``replay.source_cameras`` names the recorded camera each renders again
  (``agentview``: ``obs/agentview_image``), so ``compare`` pairs them;
* ``model.files``: the episode's ``model_file`` (MJCF), embedded as a MuJoCo
  recording embeds its model (listed in the ``model`` metadata), with the
  meshes it names read from the robosuite that replayed it
  (:mod:`.portable_model`: MuJoCo's ``.msh``, textures left out), so the
  file opens with its robot on any machine (:mod:`.profile`: posed by the
  ``qpos`` of the robot's joints in ``states``); ``robosuite.embedded_meshes``
  says how many meshes went in, their bytes, or why none did;
* ``events``: one mark on the timeline at the first divergence, naming the
  component;
* ``replay.comparison``: the verdict, one JSON record at the last step.

Step ``i`` is at ``i / control_freq`` seconds (tick ``i``), the episode's time
in the viewer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.calibration import CameraPose, centred_pinhole, quaternion_from_matrix
from fsr_core.format.catalog import (
    EVENTS_STREAM,
    LIFECYCLE_STREAM,
    camera_streams,
    json_stream,
    lifecycle_stream,
)
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.model_files import MODEL_FILE_SCHEMA, MODEL_FILES
from fsr_core.simulation.protocol import (
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
)
from fsr_core.simulation.provenance import (
    SOURCE_CAMERAS,
    replay_metadata,
    replay_provenance,
)
from fsr_core.simulation.recorded_streams import (
    camera_prefix,
    run_section,
    run_versions,
)
from fsr_core.simulation.scene_capture import Stamp, write_camera_frame
from fsr_core.simulators.robosuite.divergence import StateDivergence
from fsr_core.simulators.robosuite.episode_file import IMAGE_SUFFIX, Episode
from fsr_core.simulators.robosuite.portable_model import EmbeddedModel, portable_model
from fsr_core.simulators.robosuite.request import RobosuiteRequest
from fsr_core.simulators.robosuite.session import CameraPoseOut, FrameOut

__all__ = [
    "COMPARISON_STREAM",
    "ERROR_STREAM",
    "SIMULATOR_NAME",
    "STATES_STREAM",
    "ReplayFile",
    "Source",
]

SIMULATOR_NAME: Final = "robosuite"
COMPARISON_STREAM: Final = "replay.comparison"
STATES_STREAM: Final = "observations.states"
ERROR_STREAM: Final = "observations.state_error"
_PRODUCER: Final = "fsr_core.simulators.robosuite"
MODEL_ENTRY: Final = "model_file.xml"
"""The name the episode's ``model_file`` is embedded under."""
MAX_EMBEDDED_MODEL_BYTES: Final = 12 << 20
"""Largest ``model_file`` embedded (one ``model.files`` record holds it)."""


@dataclass(frozen=True)
class Source:
    """The episode replayed: its address, the file's digest, what it holds."""

    address: Path
    sha256: str
    episode: Episode
    states: np.ndarray[Any, np.dtype[np.float64]]
    model_file: bytes = b""
    """The episode's MJCF, embedded as the output's robot (empty: none)."""

    def model(self, assets_root: Path | None) -> EmbeddedModel | None:
        """Return the MJCF with its meshes to embed (``None``: none, or too big).

        ``assets_root``: the assets folder of the robosuite that replayed it.
        """
        if not self.model_file or len(self.model_file) > MAX_EMBEDDED_MODEL_BYTES:
            return None
        return portable_model(MODEL_ENTRY, self.model_file, assets_root)


def _numeric(
    stream: str, channel: str, columns: tuple[str, ...], unit: str
) -> StreamSpec:
    names = tuple(f"{channel}_{k}" for k in range(len(columns)))
    return StreamSpec(
        name=stream,
        kind=StreamKind.NUMERIC,
        codec="raw",
        dtype="float64",
        shape=(len(columns),),
        channels=names if len(columns) > 1 else (channel,),
        units=unit,
        required=False,
        finite=False,
        attributes={
            "channel_name": channel,
            "label": channel,
            "columns": list(columns),
        },
    )


class ReplayFile:
    """Write a run's frames into the FSR file ``path`` (a :class:`~.session.Sink`).

    Nothing is written before the scene's facts arrive; :meth:`finish`
    publishes, :meth:`abort` removes the staging file.
    """

    def __init__(
        self,
        path: Path,
        source: Source,
        request: RobosuiteRequest,
        options: ReplayOptions,
        run_id: str,
        progress: ProgressFn | None = None,
    ) -> None:
        self.path = path
        self.source = source
        self.request = request
        self.options = options
        self.run_id = run_id
        self.progress = progress
        self.mode = ReplayMode(request.mode)
        self.facts: dict[str, Any] = {}
        self.frames = 0
        self.step_s = 0.0
        self.divergence = StateDivergence(
            request.mode, (), source.states, source.episode.rate_hz
        )
        self._writer: FsrWriter | None = None
        self.embedded: EmbeddedModel | None = None
        self._last = 0
        self._fovy: dict[str, float] = {}

    # ---------------------------------------------------------------- streams

    def _streams(self) -> list[StreamSpec]:
        width = self.source.episode.state_width
        columns = tuple(f"states[{k}]" for k in range(width))
        specs = [
            lifecycle_stream(),
            json_stream(COMPARISON_STREAM, required=False),
            json_stream(
                EVENTS_STREAM, StreamKind.EVENT, schema="fsr.event/1", required=False
            ),
            _numeric(STATES_STREAM, "states", columns, ""),
            _numeric(ERROR_STREAM, "state_error", ("max_abs_error",), ""),
        ]
        if self.embedded is not None:
            specs.append(
                json_stream(MODEL_FILES, StreamKind.JSON, schema=MODEL_FILE_SCHEMA)
            )
        for name in self._fovy:
            specs += camera_streams(
                name,
                width=self.request.width,
                height=self.request.height,
                codec="png",
            )
        return specs

    def _metadata(self) -> dict[str, Any]:
        episode, facts = self.source.episode, self.facts
        robosuite = str(facts.get("robosuite_version", ""))
        what = "re-rendered" if self.mode is ReplayMode.RENDER else "re-simulated"
        title = f"{episode.file.name} {episode.name}"
        source_metadata = {
            "run": run_section(
                title,
                f"{title} ({episode.env_name}) {what} by robosuite {robosuite}",
                SIMULATOR_NAME,
                "the recorded actions stepped from the recorded first state "
                "reproduce the states bit for bit with the same robosuite and "
                "MuJoCo on the same kind of CPU",
            ),
            "robosuite": {
                "file": episode.file.name,
                "episode": episode.name,
                "env_name": episode.env_name,
                "env_kwargs": episode.env_kwargs,
                "control_freq": episode.rate_hz,
                "steps": episode.steps,
                "state_names": list(self.divergence.names),
                "cameras": facts.get("cameras", []),
                "mujoco_gl": facts.get("mujoco_gl", ""),
            },
            "versions": run_versions(
                robosuite=robosuite, mujoco=str(facts.get("mujoco_version", ""))
            ),
        }
        if self.embedded is not None:
            source_metadata["model"] = self.embedded.files.metadata()
            source_metadata["robosuite"]["embedded_meshes"] = self.embedded.summary()
        metadata = replay_metadata(source_metadata, self._provenance())
        metadata["replay"][SOURCE_CAMERAS] = self._source_cameras()
        return metadata

    def _source_cameras(self) -> dict[str, str]:
        """Name the recorded camera each rendered one renders again.

        A camera the episode observed is ``obs/<camera>_image`` there (the
        HDF5 source's name), so ``compare FILE --episode N OUT.fsr`` pairs
        the two; a camera it did not observe pairs with nothing.
        """
        observed = self.source.episode.observed_cameras
        return {
            name: f"obs/{name}{IMAGE_SUFFIX}" for name in self._fovy if name in observed
        }

    def _provenance(self) -> dict[str, Any]:
        fields = replay_provenance(
            producer=_PRODUCER,
            mode=self.mode,
            source=self.source.episode.file,
            source_sha256=self.source.sha256,
            simulator=SIMULATOR_NAME,
            run_id=self.run_id,
            options=self.options,
        )
        fields["episode"] = self.source.episode.name
        fields["robosuite_version"] = str(self.facts.get("robosuite_version", ""))
        fields["mujoco_version"] = str(self.facts.get("mujoco_version", ""))
        return fields

    # ---------------------------------------------------------------- sink

    def scene(self, facts: dict[str, Any]) -> None:
        """Open the writer once the environment is rebuilt."""
        self.facts.update(facts)
        names = [str(name) for name in facts.get("state_names", [])]
        self.divergence = StateDivergence(
            self.request.mode, names, self.source.states, self.source.episode.rate_hz
        )
        root = str(facts.get("assets_root", ""))
        self.embedded = self.source.model(Path(root) if root else None)
        self._fovy = {
            str(camera["name"]): float(camera["fovy_deg"])
            for camera in facts.get("cameras", [])
        }
        self._writer = FsrWriter(
            self.path,
            self._streams(),
            metadata=self._metadata(),
            provenance=self._provenance(),
        )
        self._writer.start()

    def _write_camera(
        self, writer: FsrWriter, stamp: Stamp, name: str, frame: FrameOut
    ) -> None:
        prefix = camera_prefix(name)
        if self.frames == 0:
            height = self.request.height
            fovy = math.radians(self._fovy[name])
            focal = 0.5 * height / math.tan(fovy / 2.0)
            profile = centred_pinhole(self.request.width, height, focal)
            stamp.write(writer, f"{prefix}.intrinsics", profile)
        write_camera_frame(
            writer, stamp, prefix, frame.images[name], _camera_pose(frame.poses[name])
        )

    def frame(self, frame: FrameOut) -> None:
        """Write one step's records and compare its state with the recording."""
        writer = self._writer
        if writer is None:
            raise RuntimeError("a frame came before the scene's facts")
        index = frame.index
        stamp = Stamp(index, index / self.source.episode.rate_hz)
        if self.frames == 0:
            stamp.write(writer, LIFECYCLE_STREAM, {"event": "start"})
            model = self.embedded
            for value in model.files.records() if model is not None else ():
                stamp.write(writer, MODEL_FILES, value)
        for name in self._fovy:
            self._write_camera(writer, stamp, name, frame)
        error = self.divergence.add(index, frame.state)
        first = self.divergence.first
        if first is not None and first.step == index:
            # A mark on the timeline where the replay first leaves the recording.
            name = f"diverges: {first.component} ({first.error:.3g})"
            stamp.write(writer, EVENTS_STREAM, {"name": name})
        stamp.write(writer, STATES_STREAM, frame.state)
        stamp.write(writer, ERROR_STREAM, np.array([error]))
        self.frames += 1
        self.step_s += frame.wall_s
        self._last = index
        if self.progress is not None:
            self.progress(self.frames, max(self.source.episode.steps, self.frames))

    # ---------------------------------------------------------------- end

    def finish(self) -> None:
        """Write the verdict and the completion, then publish the file."""
        writer = self._writer
        if writer is None or self.frames == 0:
            raise RuntimeError("no frame was written")
        stamp = Stamp(self._last, self._last / self.source.episode.rate_hz)
        comparison = self.divergence.to_json()
        stamp.write(writer, COMPARISON_STREAM, comparison)
        stamp.write(writer, LIFECYCLE_STREAM, {"event": "terminal_semantic_cut"})
        stamp.write(
            writer,
            LIFECYCLE_STREAM,
            {
                "event": "completion",
                "status": "succeeded",
                "reason_code": ReplayOutcome.SUCCEEDED.reason_code,
            },
        )
        writer.set_provenance(comparison=comparison)
        writer.finish()

    def abort(self) -> None:
        """Drop the file (nothing is published)."""
        if self._writer is not None:
            self._writer.abort()


def _camera_pose(pose: CameraPoseOut) -> CameraPose:
    rotation = np.asarray(pose.rotation, dtype=np.float64)
    position = np.asarray(pose.position, dtype=np.float64)
    return CameraPose.normalized(position, quaternion_from_matrix(rotation, atol=1e-4))
