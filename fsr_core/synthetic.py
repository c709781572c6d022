"""A small, deterministic synthetic recording with every stream kind.

Used by the tests, the ``fsr-viewer sample`` command and the benchmarks when a
real run is not needed: a two-link arm swinging, one camera whose calibration
changes mid-run, lifecycle with a generation reset, authored and applied
control, events, task context, render state and gaps on an optional stream.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from fsr_core.calibration import CalibrationProfile, CameraPose, look_at
from fsr_core.control import (
    AppliedControl,
    AuthoredChunk,
    CommandSpace,
    Interpolation,
    TerminalPolicy,
)
from fsr_core.format.batching import BatchLimits
from fsr_core.format.catalog import (
    LIFECYCLE_STREAM,
    camera_streams,
    json_stream,
    lifecycle_stream,
    numeric_stream,
)
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.format.writer import FsrWriter, PublishResult
from fsr_core.simulation.recorded_streams import (
    APPLIED,
    AUTHORED,
    EVENTS,
    MESHES,
    RENDER_STATE,
    TASK,
    TRANSFORMS,
    scene_streams,
)

__all__ = ["SyntheticRun", "write_synthetic"]

JOINTS = "observations.robot.joints"
CAMERA = "overview"
DIAGNOSTICS = "observations.diagnostics"


_SMALL_BATCHES = BatchLimits(max_records=32, max_bytes=256 << 10, max_span_s=0.25)


@dataclass(frozen=True)
class SyntheticRun:
    """Shape of the synthetic run.

    Parameters
    ----------
    ticks
        Ticks per generation.
    rate_hz
        Physics and numeric-observation rate.
    camera_every
        A camera frame every N ticks.
    width, height
        Camera image size.
    codec
        Camera codec (``jpeg``, ``png`` or ``rgb24``).
    generations
        Number of generations (a reset between each).
    integrity
        Integrity profile of the file.
    batch_limits
        Batch bounds (small ones give many batches in a small file).
    """

    ticks: int = 240
    rate_hz: float = 120.0
    camera_every: int = 4
    width: int = 64
    height: int = 48
    codec: str = "jpeg"
    generations: int = 2
    integrity: IntegrityProfile = IntegrityProfile.STRUCTURAL
    batch_limits: BatchLimits = _SMALL_BATCHES


def _streams(run: SyntheticRun) -> list[StreamSpec]:
    return [
        lifecycle_stream(),
        numeric_stream(
            JOINTS,
            ["q0", "q1", "dq0", "dq1"],
            ["rad", "rad", "rad/s", "rad/s"],
            attributes={"rate_hz": run.rate_hz},
        ),
        numeric_stream(DIAGNOSTICS, ["load"], "1", required=False),
        *camera_streams(
            CAMERA,
            width=run.width,
            height=run.height,
            codec=run.codec,
            rate_hz=run.rate_hz / run.camera_every,
        ),
        json_stream(EVENTS, StreamKind.EVENT),
        json_stream(TASK, StreamKind.TASK),
        json_stream(
            AUTHORED, StreamKind.CONTROL_AUTHORED, schema="fsr.control.authored/1"
        ),
        json_stream(
            APPLIED, StreamKind.CONTROL_APPLIED, schema="fsr.control.applied/1"
        ),
        *scene_streams(["link0", "link1"]),
    ]


def _image(run: SyntheticRun, tick: int, q: np.ndarray) -> np.ndarray:
    y, x = np.mgrid[0 : run.height, 0 : run.width]
    image = np.zeros((run.height, run.width, 3), dtype=np.uint8)
    image[..., 0] = (x * 255 // max(run.width - 1, 1)).astype(np.uint8)
    image[..., 1] = (y * 255 // max(run.height - 1, 1)).astype(np.uint8)
    image[..., 2] = tick % 256
    cx = int((0.5 + 0.4 * math.cos(q[0])) * (run.width - 1))
    cy = int((0.5 + 0.4 * math.sin(q[0])) * (run.height - 1))
    image[max(cy - 2, 0) : cy + 3, max(cx - 2, 0) : cx + 3] = 255
    return image


def write_synthetic(
    path: str | os.PathLike[str], run: SyntheticRun | None = None
) -> PublishResult:
    """Write the synthetic recording to ``path`` (which must not exist)."""
    run = run or SyntheticRun()
    profiles = [
        CalibrationProfile(
            run.width,
            run.height,
            0.9 * run.width,
            0.9 * run.width,
            run.width / 2,
            run.height / 2,
        ),
        CalibrationProfile(
            run.width,
            run.height,
            1.2 * run.width,
            1.2 * run.width,
            run.width / 2,
            run.height / 2,
        ),
    ]
    pose = look_at([1.5, -1.5, 1.2], [0.0, 0.0, 0.3])
    metadata = {
        "run": {"name": "synthetic", "seed": 7},
        "scenario": {"task": "reach", "target_m": [0.4, 0.2, 0.0], "tolerance_m": 0.02},
        "config": {"dt_s": 1.0 / run.rate_hz, "links": 2},
        "versions": {"generator": "fsr_core.synthetic/1"},
    }
    writer = FsrWriter(
        path,
        _streams(run),
        metadata=metadata,
        integrity=run.integrity,
        batch_limits=run.batch_limits,
        provenance={"tool": "fsr_core.synthetic"},
    )
    with writer:
        _write_body(writer, run, profiles, pose)
    assert writer._result is not None
    return writer._result


def _link_transforms(q: np.ndarray) -> np.ndarray:
    """World poses ``[x, y, z, qx, qy, qz, qw]`` of a planar two-link arm."""
    angle0, angle1 = float(q[0]), float(q[0] + q[1])
    elbow = (0.5 * math.cos(angle0), 0.5 * math.sin(angle0))
    return np.array(
        [
            [0.0, 0.0, 0.0, 0.0, 0.0, math.sin(angle0 / 2), math.cos(angle0 / 2)],
            [
                elbow[0],
                elbow[1],
                0.0,
                0.0,
                0.0,
                math.sin(angle1 / 2),
                math.cos(angle1 / 2),
            ],
        ]
    )


def _write_body(
    writer: FsrWriter,
    run: SyntheticRun,
    profiles: list[CalibrationProfile],
    pose: CameraPose,
) -> None:
    dt = 1.0 / run.rate_hz
    writer.write(LIFECYCLE_STREAM, {"event": "start"}, tick=0, sim_time_s=0.0)
    for index, body in enumerate(("link0", "link1")):
        box = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
        vertices = (box * [0.5, 0.05, 0.05] - [0.0, 0.025, 0.025]).astype(np.float32)
        faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5]], dtype=np.uint32)
        writer.write(
            MESHES,
            {"vertices": vertices, "faces": faces},
            tick=0,
            sim_time_s=0.0,
            metadata={"mesh_id": f"box{index}", "body": body},
        )
    cam = f"sensors.{CAMERA}.camera"
    last_tick, last_time = 0, 0.0
    for generation in range(run.generations):
        if generation:
            writer.write(
                LIFECYCLE_STREAM,
                {"event": "generation_reset", "generation": generation},
                tick=0,
                sim_time_s=0.0,
                generation=generation,
            )
        chunk = AuthoredChunk(
            chunk_id=f"chunk-{generation}",
            target="arm",
            command_space=CommandSpace.JOINT_POSITION,
            axes=("q0", "q1"),
            units=("rad", "rad"),
            interpolation=Interpolation.LINEAR,
            terminal_policy=TerminalPolicy.HOLD,
            start_sim_time_s=0.0,
            times_s=np.array([0.0, run.ticks * dt]),
            values=np.array([[0.0, 0.0], [1.0, -0.5]]),
            controller="pd",
            generation=generation,
        )
        writer.write(
            AUTHORED, chunk.to_json(), tick=0, sim_time_s=0.0, generation=generation
        )
        writer.write(
            TASK,
            {"targets": [[0.4, 0.2, 0.0]], "active_target": 0, "tolerance_m": 0.02},
            tick=0,
            sim_time_s=0.0,
            generation=generation,
        )
        writer.write(
            f"{cam}.intrinsics",
            profiles[0],
            tick=0,
            sim_time_s=0.0,
            generation=generation,
        )
        for tick in range(run.ticks):
            time_s = tick * dt
            q = np.array(
                [
                    math.sin(2 * math.pi * 0.5 * time_s + generation),
                    0.5 * math.cos(2 * math.pi * 0.5 * time_s),
                ]
            )
            dq = np.array(
                [
                    math.pi * math.cos(2 * math.pi * 0.5 * time_s + generation),
                    -0.5 * math.pi * math.sin(2 * math.pi * 0.5 * time_s),
                ]
            )
            writer.write(
                JOINTS,
                np.concatenate([q, dq]),
                tick=tick,
                sim_time_s=time_s,
                generation=generation,
            )
            if tick % 8 != 5:
                writer.write(
                    DIAGNOSTICS,
                    [0.5 + 0.1 * math.sin(time_s)],
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
            applied = AppliedControl(
                tick,
                time_s,
                "arm",
                CommandSpace.JOINT_POSITION,
                ("q0", "q1"),
                q,
                f"chunk-{generation}",
            )
            if tick % 10 == 0:
                writer.write(
                    APPLIED,
                    applied.to_json(),
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
            if tick == run.ticks // 2:
                writer.write(
                    f"{cam}.intrinsics",
                    profiles[1],
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
                writer.write(
                    EVENTS,
                    {"name": "calibration_changed", "camera": CAMERA},
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
            if tick % run.camera_every == 0:
                writer.write(
                    f"{cam}.rgb",
                    _image(run, tick, q),
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
                writer.write(
                    f"{cam}.extrinsics.translation",
                    pose.translation_m,
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
                writer.write(
                    f"{cam}.extrinsics.quaternion_xyzw",
                    pose.quaternion_xyzw,
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
                writer.write(
                    TRANSFORMS,
                    _link_transforms(q),
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
                writer.write(
                    RENDER_STATE,
                    {"joint_positions": q, "particles": np.zeros((4, 3), np.float32)},
                    tick=tick,
                    sim_time_s=time_s,
                    generation=generation,
                )
            last_tick, last_time = tick, time_s
    writer.add_gap(DIAGNOSTICS, after_seq=4, lost=1, reason="sampler overrun")
    final = run.generations - 1
    writer.write(
        LIFECYCLE_STREAM,
        {"event": "terminal_semantic_cut"},
        tick=last_tick,
        sim_time_s=last_time,
        generation=final,
    )
    writer.write(
        LIFECYCLE_STREAM,
        {"event": "completion", "status": "succeeded", "reason_code": "RUN_COMPLETED"},
        tick=last_tick,
        sim_time_s=last_time,
        generation=final,
    )
