"""Benchmark the headless export against the encoder alone and skelarm.

In one run, on the 01_reach demo take (recorded first into a temporary folder,
shortened with ``--seconds``), at 1280x720 with the readout panel (so frames
are 1584x720):

- **export**: ``export_video`` to MP4 (libx264 veryfast), drawing on this thread
  while the encoder thread encodes: frames per second of wall time, the file's
  publication included;
- **encoder alone**: the same frames drawn beforehand into memory, then only
  queued into the same :class:`~app.export.encoder.Encoder` (PyAV) and written to
  a file: the rate the export cannot beat;
- their ratio (target >= 0.8);
- **skelarm**: its reference figure from SKELARM.md section 5 (29-33 fps with
  panel, 31 used), target export >= 2x. ``import skelarm`` needs Python >=
  3.12; timing its own export would also need the take as a skelarm log,
  which is not written yet, so the reference stands in even when installed.

Times come from ``time.perf_counter``; each figure is the best of ``--repeat``
runs. ``--json`` prints the figures as one JSON object.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SKELARM_REFERENCE_FPS = 31.0
SKELARM_MISSING = (
    "skelarm not installed (needs Python >= 3.12): reference figure from "
    "SKELARM.md §5: 29-33 fps with panel"
)
SCENE_SIZE = (1280, 720)
RATIO_TARGET = 0.8
SKELARM_TARGET = 2.0


def _record_take(folder: Path, seconds: float | None) -> Path:
    from fsr_core.adapters.planar_arm.demos import _take_documents
    from fsr_core.adapters.planar_arm.recorder import record_run
    from fsr_core.adapters.planar_arm.scenario import Scenario

    document = _take_documents()["01_reach"]
    if seconds is not None:
        document["duration_s"] = seconds
    path = folder / "01_reach.fsr"
    record_run(Scenario.from_json(document), path)
    return path


def _export_fps(model: Any, folder: Path, repeat: int) -> tuple[float, int, str]:
    from app.export import export_video

    best = 0.0
    frames, size = 0, ""
    for run in range(repeat):
        out = folder / f"export{run}.mp4"
        result = export_video(model, out, panel=True, size=SCENE_SIZE)
        best = max(best, result.frames / result.seconds)
        frames, size = result.frames, f"{result.width}x{result.height}"
        out.unlink()
    return best, frames, size


def _encoder_fps(model: Any, folder: Path, repeat: int) -> float:
    from app.export.encoder import Encoder, pad_frame, padded_size
    from app.export.video import FrameSource, frame_times

    source = FrameSource(model, size=SCENE_SIZE, panel=True, show_com=False)
    size = padded_size(source.width, source.height, "mp4")
    times = frame_times(model.duration_s, fps=30.0, speed=1.0)
    images = [pad_frame(source.render(t), size) for t in times]
    best = 0.0
    for run in range(repeat):
        out = folder / f"encoder{run}.mp4"
        with out.open("w+b") as handle:
            started = time.perf_counter()
            encoder = Encoder(handle, "mp4", size, 30.0)
            for image in images:
                encoder.put(image)
            encoder.finish()
            handle.flush()
            os.fsync(handle.fileno())
            best = max(best, len(images) / (time.perf_counter() - started))
        out.unlink()
    return best


def _skelarm_available() -> bool:
    return importlib.util.find_spec("skelarm") is not None


def run(seconds: float | None, repeat: int) -> dict[str, Any]:
    """Record the take, run every measurement and return the figures."""
    from app.export import ensure_gui_app
    from fsr_core.sources import open_recording

    ensure_gui_app()
    with tempfile.TemporaryDirectory(prefix="bench_export_") as name:
        folder = Path(name)
        take = _record_take(folder, seconds)
        model = open_recording(take)
        export_fps, frames, size = _export_fps(model, folder, repeat)
        encoder_fps = _encoder_fps(model, folder, repeat)
    installed = _skelarm_available()
    # Timing skelarm itself needs the take as a skelarm log (its own format),
    # which this tool does not write yet: the reference figure stands in.
    reference = SKELARM_REFERENCE_FPS
    return {
        "take": "01_reach",
        "duration_s": model.duration_s,
        "frames": frames,
        "frame_size": size,
        "export_fps": export_fps,
        "encoder_fps": encoder_fps,
        "ratio": export_fps / encoder_fps,
        "ratio_target": RATIO_TARGET,
        "skelarm_installed": installed,
        "skelarm_measured": False,
        "skelarm_fps": reference,
        "vs_skelarm": export_fps / reference,
        "vs_skelarm_target": SKELARM_TARGET,
    }


def _table(figures: dict[str, Any]) -> str:
    ratio_ok = "ok" if figures["ratio"] >= RATIO_TARGET else "MISSED"
    skel_ok = "ok" if figures["vs_skelarm"] >= SKELARM_TARGET else "MISSED"
    skelarm = "measured" if figures["skelarm_measured"] else "reference"
    lines = [
        f"01_reach, {figures['duration_s']:.2f} s, {figures['frames']} frames "
        f"at {figures['frame_size']} (1280x720 + panel), mp4 veryfast",
        f"{'export':<22}{figures['export_fps']:8.1f} fps",
        f"{'encoder alone':<22}{figures['encoder_fps']:8.1f} fps",
        f"{'export / encoder':<22}{figures['ratio']:8.2f}   "
        f"(target >= {RATIO_TARGET}: {ratio_ok})",
        f"{'skelarm (' + skelarm + ')':<22}{figures['skelarm_fps']:8.1f} fps",
        f"{'export / skelarm':<22}{figures['vs_skelarm']:8.2f}x  "
        f"(target >= {SKELARM_TARGET}x: {skel_ok})",
    ]
    if not figures["skelarm_installed"]:
        lines.insert(0, SKELARM_MISSING)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print a table (or JSON with ``--json``)."""
    parser = argparse.ArgumentParser(prog="bench_export", description=__doc__)
    parser.add_argument(
        "--seconds", type=float, help="shorten the take to this many seconds"
    )
    parser.add_argument("--repeat", type=int, default=2, help="best of N runs")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.seconds is not None and not args.seconds > 0:
        parser.error("--seconds must be positive")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    figures = run(args.seconds, args.repeat)
    if args.json:
        sys.stdout.write(json.dumps(figures, indent=2) + "\n")
    else:
        sys.stdout.write(_table(figures) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
