"""What the FSR file of a Genesis or robosuite replay writes the same way.

Each simulator's ``output.py`` declares its streams, metadata and records;
:class:`SideReplayFile` is their base: what a run's output holds (path,
source, request, options, run id, progress, the scene's facts, the frame
count), the streams, the ``run`` metadata and the provenance every replay's
file has, the writer opened once the scene's facts arrive, and the file
dropped on :meth:`~SideReplayFile.abort`. Beside it: a numeric stream's
spec (:func:`numeric_stream`), a camera's frame with, at the first, its
centred pinhole from its vertical field of view (:func:`write_camera`), a
camera pose from a rotation
matrix (:func:`camera_pose`), and the verdict and completion that end the
file (:func:`write_completion`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np

from fsr_core.calibration import CameraPose, centred_pinhole, quaternion_from_matrix
from fsr_core.format.catalog import (
    LIFECYCLE_STREAM,
    camera_streams,
    json_stream,
    lifecycle_stream,
)
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.protocol import (
    ProgressFn,
    ReplayMode,
    ReplayOptions,
    ReplayOutcome,
)
from fsr_core.simulation.provenance import replay_metadata, replay_provenance
from fsr_core.simulation.recorded_streams import camera_prefix, run_section
from fsr_core.simulation.scene_capture import Stamp, write_camera_frame

__all__ = [
    "COMPARISON_STREAM",
    "SideReplayFile",
    "camera_pose",
    "numeric_stream",
    "write_camera",
    "write_completion",
]

COMPARISON_STREAM = "replay.comparison"
"""The stream of the verdict, one JSON record at the last frame."""


class ModeRequest(Protocol):
    """A run's request: what it is asked to do (a :class:`ReplayMode` value)."""

    @property
    def mode(self) -> str:
        """``render`` or ``resimulate``."""
        ...


SourceT = TypeVar("SourceT")
RequestT = TypeVar("RequestT", bound=ModeRequest)


def numeric_stream(
    stream: str,
    channel: str,
    channels: tuple[str, ...],
    unit: str,
    columns: tuple[str, ...] | None = None,
) -> StreamSpec:
    """Return the spec of a float64 stream of one record a frame, ``channels`` wide.

    ``columns``: the source's own column names, kept in the ``columns``
    attribute when given.
    """
    attributes: dict[str, Any] = {"channel_name": channel, "label": channel}
    if columns is not None:
        attributes["columns"] = list(columns)
    return StreamSpec(
        name=stream,
        kind=StreamKind.NUMERIC,
        codec="raw",
        dtype="float64",
        shape=(len(channels),),
        channels=channels,
        units=unit,
        required=False,
        finite=False,
        attributes=attributes,
    )


def write_camera(
    writer: FsrWriter,
    stamp: Stamp,
    name: str,
    rgb: Any,
    pose: CameraPose,
    intrinsics: tuple[int, int, float] | None,
) -> None:
    """Write a camera's image and pose, and its intrinsics when given.

    ``intrinsics``: the image's width and height in pixels and the vertical
    field of view in degrees, written as a centred pinhole (at the first
    frame; None after it).
    """
    prefix = camera_prefix(name)
    if intrinsics is not None:
        width, height, fovy_deg = intrinsics
        focal = 0.5 * height / math.tan(math.radians(fovy_deg) / 2.0)
        profile = centred_pinhole(width, height, focal)
        stamp.write(writer, f"{prefix}.intrinsics", profile)
    write_camera_frame(writer, stamp, prefix, rgb, pose)


def camera_pose(rotation: Any, position: Any) -> CameraPose:
    """Return the pose of a camera from its rotation matrix and position."""
    matrix = np.asarray(rotation, dtype=np.float64)
    origin = np.asarray(position, dtype=np.float64)
    return CameraPose.normalized(origin, quaternion_from_matrix(matrix, atol=1e-4))


def write_completion(
    writer: FsrWriter, stamp: Stamp, comparison: dict[str, Any]
) -> None:
    """Write the verdict, the terminal cut and the completion, then publish."""
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


class SideReplayFile(ABC, Generic[SourceT, RequestT]):
    """The output of one replay run, written as the run reports (a sink's base).

    A subclass names its simulator and producer, sets up its own state in
    :meth:`_setup`, and gives the streams, the metadata and the provenance
    of its file; nothing is written before
    :meth:`_open_writer` (called when the scene's facts arrive).
    """

    simulator: ClassVar[str]
    """The simulator's name in the file's provenance."""
    producer: ClassVar[str]
    """The module that writes the file, in its provenance."""

    def __init__(
        self,
        path: Path,
        source: SourceT,
        request: RequestT,
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
        self._writer: FsrWriter | None = None
        self._setup()

    def _setup(self) -> None:
        """Set up what the subclass keeps besides (the end of ``__init__``)."""

    @property
    def what(self) -> str:
        """What the run did to the source, as the metadata says it."""
        return "re-rendered" if self.mode is ReplayMode.RENDER else "re-simulated"

    @abstractmethod
    def _streams(self) -> list[StreamSpec]:
        """Return the file's streams."""

    @abstractmethod
    def _metadata(self) -> dict[str, Any]:
        """Return the file's metadata."""

    @abstractmethod
    def _provenance(self) -> dict[str, Any]:
        """Return the footer's provenance."""

    def _replay_streams(self) -> list[StreamSpec]:
        """Return the streams every replay writes: the lifecycle and the verdict."""
        return [lifecycle_stream(), json_stream(COMPARISON_STREAM, required=False)]

    @staticmethod
    def _camera_streams(name: str, width: int, height: int) -> list[StreamSpec]:
        """Return the streams of a camera rendered again (PNG frames)."""
        return camera_streams(name, width=width, height=height, codec="png")

    def _replay_metadata(
        self,
        title: str,
        replayed: str,
        replayed_by: str,
        reproducibility: str,
        **sections: Any,
    ) -> dict[str, Any]:
        """Return the file's metadata: the ``run``, then ``sections``, then ``replay``.

        The run is named ``title`` and described as ``{replayed} re-rendered
        by {replayed_by}`` (or re-simulated).
        """
        description = f"{replayed} {self.what} by {replayed_by}"
        run = run_section(title, description, self.simulator, reproducibility)
        return replay_metadata({"run": run, **sections}, self._provenance())

    def _replay_fields(self, source: Path, sha256: str) -> dict[str, Any]:
        """Return the provenance fields of every replay of ``source``."""
        return replay_provenance(
            producer=self.producer,
            mode=self.mode,
            source=source,
            source_sha256=sha256,
            simulator=self.simulator,
            run_id=self.run_id,
            options=self.options,
        )

    def _open_writer(self) -> FsrWriter:
        """Open and start the writer with the file's streams and metadata."""
        self._writer = FsrWriter(
            self.path,
            self._streams(),
            metadata=self._metadata(),
            provenance=self._provenance(),
        )
        self._writer.start()
        return self._writer

    def abort(self) -> None:
        """Drop the file (nothing is published)."""
        if self._writer is not None:
            self._writer.abort()
