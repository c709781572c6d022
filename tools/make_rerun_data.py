"""Write the Rerun test recordings of ``tests/data/rerun``, with rerun-sdk itself.

Every ``.rrd`` comes from ``rr.init`` + ``rr.save`` and ``rr.log`` /
``rr.send_columns``, never from bytes put together by hand:

- ``arm_run.rrd``: a small arm run. Six joint angles as one ``Scalars``
  entity (``arm/joint_positions``, six values a row, named by a static
  ``SeriesLines``) and the gripper as
  another (``arm/gripper``), sent as columns on a ``step`` sequence timeline
  and a ``sim_time`` duration timeline; a camera entity ``world/camera``
  posed by ``Transform3D`` (moving), with ``Pinhole`` and ``Image`` frames on
  ``world/camera/image``, ``EncodedImage`` (PNG) frames on
  ``world/camera/png`` and ``DepthImage`` frames on ``world/camera/depth``
  under the same ``Pinhole``; ``Points3D``, ``Boxes3D`` and ``LineStrips3D``
  under ``world`` (the boxes on a moving ``Transform3D``); ``TextLog``
  events on ``events``.
- ``two_runs.rrd``: two recordings of one application in one file, each
  saved by its own ``rr.RecordingStream`` and joined by rerun-sdk's own
  ``rerun rrd merge``; each has a scalar and a text log.

Each file is then read back with rerun-sdk's own reader
(``rerun.chunk.RrdReader``) and what it returns is saved in
``expected.json`` beside the files: the project's tests compare against it.
Run it in a side environment::

    python3 -m venv /work/venvs/rerun
    /work/venvs/rerun/bin/pip install 'rerun-sdk>=0.41,<0.42' Pillow
    /work/venvs/rerun/bin/python tools/make_rerun_data.py --out tests/data/rerun

Nothing imports this script.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import numpy as np
import rerun as rr  # type: ignore[import-not-found,unused-ignore]
import rerun.chunk as rrc  # type: ignore[import-not-found,unused-ignore]
from PIL import Image

STEPS: Final = 40
DT_S: Final = 0.05
FRAMES: Final = 4
WIDTH: Final = 32
HEIGHT: Final = 24
FOCAL_PX: Final = 30.0


def _joint_angles() -> np.ndarray:
    steps = np.arange(STEPS, dtype=np.float64)
    return np.stack(
        [0.3 * (j + 1) * np.sin(0.15 * steps + j) for j in range(6)], axis=1
    )


def _rgb(index: int) -> np.ndarray:
    pixels = np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8)
    pixels[..., 0] = 40 * index + 30
    pixels[: HEIGHT // 2, :, 1] = 200
    pixels[:, : WIDTH // 4, 2] = 250
    return pixels


def _png(index: int) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(_rgb(index)[:, ::-1].copy()).save(buffer, format="PNG")
    return buffer.getvalue()


def _depth(index: int) -> np.ndarray:
    rows = np.linspace(0.5, 2.5, HEIGHT, dtype=np.float32)[:, None]
    return np.repeat(rows, WIDTH, axis=1) + np.float32(0.1 * index)


def _write_arm_run(path: Path) -> None:
    rr.init("fsr_arm_run", recording_id="arm-run-1")
    rr.save(str(path))
    steps = np.arange(STEPS)
    indexes = [
        rr.TimeColumn("step", sequence=steps),
        rr.TimeColumn("sim_time", duration=steps * DT_S),
    ]
    rr.send_columns(
        "arm/joint_positions",
        indexes=indexes,
        columns=rr.Scalars.columns(scalars=_joint_angles()).partition([6] * STEPS),
    )
    rr.log(
        "arm/joint_positions",
        rr.SeriesLines(names=[f"joint_{j + 1}" for j in range(6)]),
        static=True,
    )
    rr.send_columns(
        "arm/gripper",
        indexes=indexes,
        columns=rr.Scalars.columns(scalars=0.04 * np.cos(0.2 * steps)),
    )
    rr.log(
        "world/camera/image",
        rr.Pinhole(
            focal_length=FOCAL_PX,
            width=WIDTH,
            height=HEIGHT,
            camera_xyz=rr.ViewCoordinates.RDF,
        ),
        static=True,
    )
    for name in ("png", "depth"):
        rr.log(
            f"world/camera/{name}",
            rr.Pinhole(focal_length=FOCAL_PX, width=WIDTH, height=HEIGHT),
            static=True,
        )
    rr.log(
        "world/points",
        rr.Points3D([[0.2, 0.0, 0.1], [0.4, 0.1, 0.2], [0.6, -0.1, 0.3]]),
        static=True,
    )
    rr.log(
        "world/lines",
        rr.LineStrips3D([[[0.0, 0.0, 0.0], [0.5, 0.0, 0.5], [1.0, 0.0, 0.5]]]),
        static=True,
    )
    rr.log(
        "world/crate/box",
        rr.Boxes3D(half_sizes=[[0.1, 0.2, 0.05]], centers=[[0.0, 0.0, 0.05]]),
        static=True,
    )
    for step in range(STEPS):
        rr.set_time("step", sequence=step)
        rr.set_time("sim_time", duration=step * DT_S)
        rr.log(
            "world/crate",
            rr.Transform3D(translation=[0.5 + 0.01 * step, 0.0, 0.0]),
        )
        if step % 10 == 0:
            frame = step // 10
            angle = 0.1 * frame
            rr.log(
                "world/camera",
                rr.Transform3D(
                    translation=[1.0, 0.0, 0.5 + 0.1 * frame],
                    rotation=rr.Quaternion(
                        xyzw=[0.0, 0.0, math.sin(angle / 2), math.cos(angle / 2)]
                    ),
                ),
            )
            rr.log("world/camera/image", rr.Image(_rgb(frame)))
            rr.log(
                "world/camera/png",
                rr.EncodedImage(contents=_png(frame), media_type="image/png"),
            )
            rr.log("world/camera/depth", rr.DepthImage(_depth(frame), meter=1.0))
            rr.log("events", rr.TextLog(f"grasp phase {frame}", level="INFO"))
    rr.log("events", rr.TextLog("run finished", level="WARN"))
    rr.disconnect()


def _write_two_runs(path: Path) -> None:
    parts = []
    for number in (1, 2):
        part = path.with_name(f"{path.stem}_part{number}.rrd")
        part.unlink(missing_ok=True)
        stream = rr.RecordingStream("fsr_two_runs", recording_id=f"run-{number}")
        stream.save(str(part))
        steps = np.arange(10 * number)
        stream.send_columns(
            "arm/gripper",
            indexes=[rr.TimeColumn("step", sequence=steps)],
            columns=rr.Scalars.columns(scalars=number + 0.1 * steps),
        )
        stream.set_time("step", sequence=0)
        stream.log("events", rr.TextLog(f"run {number} starts"))
        stream.disconnect()
        parts.append(part)
    # One file holding both recordings, as rerun's own tool joins them.
    rerun_tool = Path(sys.executable).with_name("rerun")
    subprocess.run(
        [str(rerun_tool), "rrd", "merge", *map(str, parts), "-o", str(path)],
        check=True,
        capture_output=True,
    )
    for part in parts:
        part.unlink()


def _truth(path: Path) -> dict[str, Any]:
    """Return what rerun-sdk's own reader gives for ``path``: stores and chunks."""
    reader = rrc.RrdReader(str(path))
    recordings = []
    for entry in reader.recordings():
        entities: dict[str, Any] = {}
        for chunk in reader.stream(store=entry):
            batch = chunk.to_record_batch()
            found = entities.setdefault(chunk.entity_path, {"rows": 0, "data": {}})
            found["rows"] += chunk.num_rows
            for name in batch.schema.names:
                if name.startswith("rerun.") or name in chunk.timeline_names:
                    continue
                column = batch.column(name)
                values: Any
                if name in {
                    "Scalars:scalars",
                    "TextLog:text",
                    "TextLog:level",
                    "Pinhole:image_from_camera",
                    "Pinhole:resolution",
                    "Transform3D:translation",
                    "Transform3D:quaternion",
                    "Points3D:positions",
                    "Boxes3D:half_sizes",
                    "Boxes3D:centers",
                    "LineStrips3D:strips",
                }:
                    values = column.to_pylist()
                elif name in {
                    "Image:buffer",
                    "DepthImage:buffer",
                    "EncodedImage:blob",
                }:  # each frame's byte count
                    values = [len(row[0]) for row in column.to_pylist()]
                else:
                    values = f"{len(column)} row(s)"
                found["data"].setdefault(name, []).append(values)
            for timeline in chunk.timeline_names:
                times = batch.column(timeline).cast("int64").to_pylist()
                found.setdefault("times", {}).setdefault(timeline, []).extend(times)
        recordings.append(
            {
                "application_id": entry.application_id,
                "recording_id": entry.recording_id,
                "entities": entities,
            }
        )
    return {"recordings": recordings}


def main() -> None:
    """Write every file and its truth."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/rerun"))
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    arm = out / "arm_run.rrd"
    two = out / "two_runs.rrd"
    for path in (arm, two):
        path.unlink(missing_ok=True)
    _write_arm_run(arm)
    _write_two_runs(two)
    truth = {
        "rerun_sdk": rr.__version__,
        "files": {path.name: _truth(path) for path in (arm, two)},
        "joint_positions": _joint_angles().tolist(),
        "dt_s": DT_S,
        "focal_px": FOCAL_PX,
    }
    (out / "expected.json").write_text(json.dumps(truth, indent=1) + "\n")
    for path in (arm, two):
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
