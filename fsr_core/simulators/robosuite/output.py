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

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from fsr_core.format.catalog import EVENTS_STREAM, LIFECYCLE_STREAM, json_stream
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.model_files import MODEL_FILE_SCHEMA, MODEL_FILES
from fsr_core.simulation.provenance import SOURCE_CAMERAS
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
from fsr_core.simulators.robosuite.divergence import StateDivergence
from fsr_core.simulators.robosuite.episode_file import IMAGE_SUFFIX, Episode
from fsr_core.simulators.robosuite.portable_model import EmbeddedModel, portable_model
from fsr_core.simulators.robosuite.request import RobosuiteRequest
from fsr_core.simulators.robosuite.session import FrameOut

__all__ = [
    "COMPARISON_STREAM",
    "ERROR_STREAM",
    "SIMULATOR_NAME",
    "STATES_STREAM",
    "ReplayFile",
    "Source",
]

SIMULATOR_NAME: Final = "robosuite"
STATES_STREAM: Final = "observations.states"
ERROR_STREAM: Final = "observations.state_error"
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
    channels = names if len(columns) > 1 else (channel,)
    return numeric_stream(stream, channel, channels, unit, columns)


class ReplayFile(SideReplayFile[Source, RobosuiteRequest]):
    """Write a robosuite run's steps into its FSR file (a :class:`~.session.Sink`).

    Nothing is written before the rebuilt environment's facts arrive;
    :meth:`finish` publishes, :meth:`abort` removes the staging file.
    """

    simulator = SIMULATOR_NAME
    producer = "fsr_core.simulators.robosuite"

    def _setup(self) -> None:
        self.step_s = 0.0
        self.divergence = StateDivergence(
            self.request.mode, (), self.source.states, self.source.episode.rate_hz
        )
        self.embedded: EmbeddedModel | None = None
        self._last = 0
        self._fovy: dict[str, float] = {}

    # ---------------------------------------------------------------- streams

    def _streams(self) -> list[StreamSpec]:
        width = self.source.episode.state_width
        columns = tuple(f"states[{k}]" for k in range(width))
        specs = [
            *self._replay_streams(),
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
            specs += self._camera_streams(name, self.request.width, self.request.height)
        return specs

    def _metadata(self) -> dict[str, Any]:
        episode, facts = self.source.episode, self.facts
        robosuite = str(facts.get("robosuite_version", ""))
        section = {
            "file": episode.file.name,
            "episode": episode.name,
            "env_name": episode.env_name,
            "env_kwargs": episode.env_kwargs,
            "control_freq": episode.rate_hz,
            "steps": episode.steps,
            "state_names": list(self.divergence.names),
            "cameras": facts.get("cameras", []),
            "mujoco_gl": facts.get("mujoco_gl", ""),
        }
        versions = run_versions(
            robosuite=robosuite, mujoco=str(facts.get("mujoco_version", ""))
        )
        model: dict[str, Any] = {}
        if self.embedded is not None:
            model["model"] = self.embedded.files.metadata()
            section["embedded_meshes"] = self.embedded.summary()
        title = f"{episode.file.name} {episode.name}"
        metadata = self._replay_metadata(
            title,
            f"{title} ({episode.env_name})",
            f"robosuite {robosuite}",
            "the recorded actions stepped from the recorded first state "
            "reproduce the states bit for bit with the same robosuite and "
            "MuJoCo on the same kind of CPU",
            robosuite=section,
            versions=versions,
            **model,
        )
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
        fields = self._replay_fields(self.source.episode.file, self.source.sha256)
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
        self._open_writer()

    def _write_camera(
        self, writer: FsrWriter, stamp: Stamp, name: str, frame: FrameOut
    ) -> None:
        request, pose = self.request, frame.poses[name]
        first = (
            (request.width, request.height, self._fovy[name])
            if self.frames == 0
            else None
        )
        image = frame.images[name]
        posed = camera_pose(pose.rotation, pose.position)
        write_camera(writer, stamp, name, image, posed, first)

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
        write_completion(writer, stamp, self.divergence.to_json())
