"""The streams and metadata that every simulator's recording has alike.

The stream names come from :mod:`fsr_core.format.catalog`, under the short
names the recorders and replays use; :func:`stream_table` declares a
recording's streams in the same order whatever the simulator: the observation
record, the cameras, control with events and task, then render state and
scene geometry. :func:`run_metadata` writes its metadata sections in the same
order: ``run``, ``scenario``, ``config``, ``model`` (when the simulator has
one to describe), ``simulation_contract``, ``versions``. A simulator gives
only what is its own: its observation channels, scene streams and facts.
"""

from __future__ import annotations

import platform
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata as package_metadata
from typing import Any, Final, Protocol

import numpy as np

from fsr_core.format.catalog import (
    APPLIED_CONTROL_STREAM,
    AUTHORED_CONTROL_STREAM,
    EVENTS_STREAM,
    GEOMETRY_MESHES_STREAM,
    GEOMETRY_TRANSFORMS_STREAM,
    RENDER_STATE_STREAM,
    TASK_STREAM,
    camera_streams,
    geometry_streams,
    geometry_transform_stream,
    json_stream,
    lifecycle_stream,
    numeric_stream,
    render_state_stream,
)
from fsr_core.format.streams import StreamKind, StreamSpec

__all__ = [
    "APPLIED",
    "AUTHORED",
    "EVENTS",
    "MESHES",
    "RENDER_STATE",
    "TASK",
    "TRANSFORMS",
    "CameraShape",
    "camera_prefix",
    "camera_table",
    "control_streams",
    "observation_stream",
    "run_metadata",
    "run_section",
    "run_versions",
    "scene_streams",
    "stream_table",
]

AUTHORED: Final = AUTHORED_CONTROL_STREAM
APPLIED: Final = APPLIED_CONTROL_STREAM
EVENTS: Final = EVENTS_STREAM
TASK: Final = TASK_STREAM
RENDER_STATE: Final = RENDER_STATE_STREAM
MESHES: Final = GEOMETRY_MESHES_STREAM
TRANSFORMS: Final = GEOMETRY_TRANSFORMS_STREAM


class CameraShape(Protocol):
    """What a simulator's camera configuration tells the stream table."""

    @property
    def name(self) -> str:
        """The camera's name (its streams are ``sensors.<name>.camera.*``)."""
        ...

    @property
    def width(self) -> int:
        """Image width, pixels."""
        ...

    @property
    def height(self) -> int:
        """Image height, pixels."""
        ...

    @property
    def codec(self) -> str:
        """Codec of the RGB stream (``jpeg``, ``png`` ...)."""
        ...

    @property
    def rate_hz(self) -> float:
        """Frames per second of simulated time."""
        ...


def observation_stream(
    name: str, channels: Sequence[tuple[str, str]], *, rate_hz: float, source: str
) -> StreamSpec:
    """Define a simulator's atomic per-tick observation record.

    Parameters
    ----------
    name
        The stream's name.
    channels
        ``(name, unit)`` of every channel, in record order.
    rate_hz
        Ticks per second of simulated time.
    source
        The simulator's name.

    Returns
    -------
    StreamSpec
        A numeric stream with ``rate_hz`` and ``source`` attributes.
    """
    return numeric_stream(
        name,
        [channel for channel, _ in channels],
        [unit for _, unit in channels],
        attributes={"rate_hz": rate_hz, "source": source},
    )


def camera_prefix(camera: str) -> str:
    """Return the stream-name prefix of a camera's four streams."""
    return f"sensors.{camera}.camera"


def camera_table(cameras: Iterable[CameraShape]) -> list[StreamSpec]:
    """Return the four streams of every camera, in the cameras' order."""
    specs: list[StreamSpec] = []
    for camera in cameras:
        specs += camera_streams(
            camera.name,
            width=camera.width,
            height=camera.height,
            codec=camera.codec,
            rate_hz=camera.rate_hz,
        )
    return specs


def control_streams() -> list[StreamSpec]:
    """Return the authored and applied control, events and task streams."""
    return [
        json_stream(
            AUTHORED, StreamKind.CONTROL_AUTHORED, schema="fsr.control.authored/1"
        ),
        json_stream(
            APPLIED, StreamKind.CONTROL_APPLIED, schema="fsr.control.applied/1"
        ),
        json_stream(EVENTS, StreamKind.EVENT, schema="fsr.event/1"),
        json_stream(TASK, StreamKind.TASK, schema="fsr.task/1"),
    ]


def scene_streams(bodies: list[str]) -> list[StreamSpec]:
    """Return the render state, mesh and body-transform streams of ``bodies``."""
    return [
        render_state_stream(RENDER_STATE),
        *geometry_streams(),
        geometry_transform_stream(bodies),
    ]


def stream_table(
    simulator: str,
    observations: str,
    channels: Sequence[tuple[str, str]],
    *,
    rate_hz: float,
    cameras: Iterable[CameraShape],
    scene: Sequence[StreamSpec],
) -> list[StreamSpec]:
    """Return every stream of a simulator's recording, in the order declared.

    Lifecycle, the observation record ``observations`` of ``channels`` at
    ``rate_hz`` (:func:`observation_stream`), the cameras' streams, control
    with events and task (:func:`control_streams`), then ``scene``.
    """
    return [
        lifecycle_stream(),
        observation_stream(observations, channels, rate_hz=rate_hz, source=simulator),
        *camera_table(cameras),
        *control_streams(),
        *scene,
    ]


def _version(package: str) -> str:
    try:
        return package_metadata.version(package)
    except package_metadata.PackageNotFoundError:
        return "unknown"


def run_versions(**simulators: str) -> dict[str, str]:
    """Return the ``versions`` metadata of a run.

    Parameters
    ----------
    **simulators
        The versions of the simulator's own packages (``mujoco="3.1.6"``).

    Returns
    -------
    dict
        ``fsr_viewer``, then ``simulators``, then ``numpy`` and ``python``.
    """
    return {
        "fsr_viewer": _version("fsr-viewer"),
        **simulators,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def run_section(
    name: str,
    description: str,
    simulator: str,
    reproducibility: str,
    *,
    interactive: bool = False,
) -> dict[str, Any]:
    """Return the ``run`` metadata of a simulator's recording.

    Parameters
    ----------
    name, description
        The scenario's.
    simulator
        The registry name of the simulator that recorded it.
    reproducibility
        What a re-simulation of the recording gives, for people.
    interactive
        Whether the run was pushed from outside its scenario.
    """
    return {
        "name": name,
        "description": description,
        "simulator": simulator,
        "interactive": interactive,
        "reproducibility": reproducibility,
    }


def run_metadata(
    simulator: str,
    *,
    name: str,
    description: str,
    reproducibility: str,
    scenario: dict[str, Any],
    config: Any,
    contract: dict[str, Any],
    model: dict[str, Any] | None = None,
    packages: Mapping[str, str] | None = None,
    interactive: bool = False,
) -> dict[str, Any]:
    """Return the metadata of a simulator's recording, sections in order.

    Parameters
    ----------
    simulator
        The registry name of the simulator that recorded it.
    name, description, reproducibility, interactive
        The ``run`` section (:func:`run_section`).
    scenario
        The summary of the scenario run (``duration_s``, ``generations`` ...).
    config
        The scenario as its document gives it.
    contract
        The ``simulation_contract``: what a replay must find the same.
    model
        What the simulator's model files were, when it has any.
    packages
        The versions of the simulator's own packages (:func:`run_versions`).
    """
    metadata: dict[str, Any] = {
        "run": run_section(
            name, description, simulator, reproducibility, interactive=interactive
        ),
        "scenario": scenario,
        "config": config,
    }
    if model is not None:
        metadata["model"] = model
    metadata["simulation_contract"] = contract
    metadata["versions"] = run_versions(**(packages or {}))
    return metadata
