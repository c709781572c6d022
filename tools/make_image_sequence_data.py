"""Write the image-sequence test data of ``tests/data/image_sequence``.

Every frame is written by imageio's v3 API (``imageio.v3.imwrite``) or, for
Replicator's ``distance_to_camera`` arrays, by ``numpy.save``, as renderers
leave them:

* ``replicator/``: Isaac Sim Replicator's BasicWriter names: ``rgb_0000.png``
  (8-bit RGBA) and ``distance_to_camera_0000.npy`` (float32 metres, ``inf``
  where nothing was hit), six frames, with a ``timestamps.csv``;
* ``blender/``: Blender's numbered ``0001.png`` frames (8-bit RGB) and a
  16-bit depth PNG per frame, ``depth0001.png`` (millimetres), five frames;
* ``tiff16/``: 16-bit single-channel TIFF depth frames ``depth_000.tif``;

No EXR folder: imageio has no floating-point EXR plugin here (FreeImage needs
a downloaded library, the OpenCV wheels cannot read EXR, and PyAV's FFmpeg
gives 8-bit colour), so EXR frames are read only where a plugin reads them.

The pixels are read back with imageio (numpy for ``.npy``) and what it returns
is saved in ``expected.json``: each sequence's frame count, shape, dtype and
a few pixel values the tests compare against. Run it in a side environment
with imageio , e.g.::

    /work/venvs/robosuite/bin/python tools/make_image_sequence_data.py \
        --out tests/data/image_sequence

Nothing imports this script.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import imageio.v3 as iio
import numpy as np

SIZE = (24, 32)  # height, width


def _scene(frame: int) -> tuple[np.ndarray, np.ndarray]:
    """Return a picture (a square moving over a gradient) and its depth in metres."""
    height, width = SIZE
    rows, cols = np.mgrid[0:height, 0:width]
    rgb = np.zeros((height, width, 3), dtype=np.uint8)
    rgb[..., 0] = (cols * 255 // (width - 1)).astype(np.uint8)
    rgb[..., 1] = (rows * 255 // (height - 1)).astype(np.uint8)
    rgb[..., 2] = 80
    depth = 2.0 + 0.05 * rows.astype(np.float32)
    left = 2 + 3 * frame
    rgb[8:16, left : left + 8] = (250, 250, 250)
    depth[8:16, left : left + 8] = 1.0
    return rgb, depth.astype(np.float32)


def _replicator(folder: Path) -> dict[str, Any]:
    folder.mkdir()
    times = []
    for frame in range(6):
        rgb, depth = _scene(frame)
        rgba = np.concatenate([rgb, np.full((*SIZE, 1), 255, np.uint8)], axis=2)
        iio.imwrite(folder / f"rgb_{frame:04d}.png", rgba)
        depth[:2, :] = np.inf  # the sky: nothing hit
        np.save(folder / f"distance_to_camera_{frame:04d}.npy", depth)
        times.append(0.1 + frame / 15)
    lines = ["frame,time_s", *(f"{i},{t:.6f}" for i, t in enumerate(times))]
    (folder / "timestamps.csv").write_text("\n".join(lines) + "\n")
    return {"times_s": [t - times[0] for t in times]}


def _blender(folder: Path) -> dict[str, Any]:
    folder.mkdir()
    for frame in range(1, 6):
        rgb, depth = _scene(frame)
        iio.imwrite(folder / f"{frame:04d}.png", rgb)
        iio.imwrite(folder / f"depth{frame:04d}.png", (depth * 1000).astype(np.uint16))
    return {}


def _tiff(folder: Path) -> dict[str, Any]:
    folder.mkdir()
    for frame in range(4):
        _, depth = _scene(frame)
        iio.imwrite(folder / f"depth_{frame:03d}.tif", (depth * 1000).astype(np.uint16))
    return {}


def _read_back(folder: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".csv":
            continue
        pixels = np.load(path) if path.suffix == ".npy" else iio.imread(path)
        found[path.name] = {
            "shape": list(pixels.shape),
            "dtype": str(pixels.dtype),
            "pixel_12_20": np.asarray(pixels[12, 20]).tolist(),
            "pixel_20_2": np.asarray(pixels[20, 2]).tolist(),
        }
    return found


def main() -> None:
    """Write every folder and ``expected.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    expected: dict[str, Any] = {"imageio": iio.__name__}
    for name, write in (
        ("replicator", _replicator),
        ("blender", _blender),
        ("tiff16", _tiff),
    ):
        folder = out / name
        if folder.exists():
            shutil.rmtree(folder)
        facts = write(folder)
        if folder.exists():
            facts["frames"] = _read_back(folder)
        expected[name] = facts
    import imageio

    expected["imageio"] = imageio.__version__
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
