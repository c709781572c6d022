"""Depth sidecars of EmbodiChain recorder roots: 12-bit grey video back to metres.

``depth_meta.json`` lists, per depth sensor, its quantization and one video
per episode (``depth_videos/<sensor>/episode_NNNNNN.mp4``: lossless HEVC,
``gray12le``, frame ``k`` at ``k / fps``). A pixel's 12-bit code ``c`` stands
for a depth the writer quantized between ``depth_min`` and ``depth_max``,
linearly or (``use_log``) in ``ln(d + shift)``. It is decoded back as the
writer defines it, step by step in float32 so the metres are the writer's to
the bit::

    lo, hi = ln(depth_min + shift), ln(depth_max + shift)   # log; else min, max
    x = float32(c * (hi - lo) / qmax) + float32(lo)
    x = exp(x) - float32(shift)                              # log only
    depth_m = clip(x, float32(depth_min), float32(depth_max))

Depth frames show through the shared colour scale over the sensor's range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.errors import FsrError, SchemaError
from fsr_core.media import RGBFrame
from fsr_core.media.depth_colours import depth_colours
from fsr_core.sources.lerobot.files import PathGuard, read_json
from fsr_core.sources.lerobot.video import grey12_at

__all__ = [
    "DEPTH_META_FILE",
    "DepthEpisode",
    "DepthSensor",
    "dequantize",
    "read_depth_meta",
]

DEPTH_META_FILE: Final = "depth_meta.json"
_MAX_CODE: Final = 65535


@dataclass(frozen=True)
class DepthSensor:
    """One depth sensor's quantization."""

    name: str
    depth_min: float
    depth_max: float
    shift: float
    use_log: bool
    qmax: int
    shape: tuple[int, ...]

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lo, hi)``: the quantized range, in log space when ``use_log``."""
        if self.use_log:
            return (
                math.log(self.depth_min + self.shift),
                math.log(self.depth_max + self.shift),
            )
        return self.depth_min, self.depth_max


@dataclass(frozen=True)
class DepthEpisode:
    """One episode's depth video of one sensor."""

    sensor: DepthSensor
    path: Path
    frames: int


def dequantize(codes: npt.NDArray[Any], sensor: DepthSensor) -> npt.NDArray[np.float32]:
    """Return the depth in metres (float32) of 12-bit codes, as the writer decodes."""
    low, high = sensor.bounds
    scale = (high - low) / sensor.qmax
    values = (codes.astype(np.float64) * scale).astype(np.float32)
    values = values + np.float32(low)
    if sensor.use_log:
        values = np.exp(values) - np.float32(sensor.shift)
    clipped: npt.NDArray[np.float32] = np.clip(
        values, np.float32(sensor.depth_min), np.float32(sensor.depth_max)
    ).astype(np.float32)
    return clipped


def _number(raw: dict[str, Any], key: str, path: Path) -> float:
    value = raw.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise SchemaError(f"depth sensor setting {key} is not a number", path=path)
    if not math.isfinite(value):
        raise SchemaError(f"depth sensor setting {key} is not finite", path=path)
    return float(value)


def _sensor(name: str, raw: dict[str, Any], path: Path) -> DepthSensor:
    low, high = (
        _number(raw, "video.depth_min", path),
        _number(raw, "video.depth_max", path),
    )
    shift = _number(raw, "video.shift", path) if "video.shift" in raw else 0.0
    use_log = raw.get("video.use_log") is True
    qmax = raw.get("video.qmax", 4095)
    if not isinstance(qmax, int) or not 0 < qmax <= _MAX_CODE:
        raise SchemaError(
            f"depth sensor {name!r}: qmax {qmax!r} is not 1..65535", path=path
        )
    if not low < high or (use_log and low + shift <= 0):
        raise SchemaError(
            f"depth sensor {name!r}: the range {low:g}..{high:g} m (shift {shift:g}) "
            "cannot be decoded",
            path=path,
        )
    shape = raw.get("shape")
    return DepthSensor(
        name=name,
        depth_min=low,
        depth_max=high,
        shift=shift,
        use_log=use_log,
        qmax=qmax,
        shape=tuple(int(n) for n in shape) if isinstance(shape, list) else (),
    )


def read_depth_meta(root: Path) -> tuple[dict[str, dict[int, DepthEpisode]], str]:
    """Return each sensor's depth episodes by index, and a problem ('' if none).

    No sidecar gives no sensors; a sidecar that cannot be read gives no
    sensors and says why.
    """
    path = root / DEPTH_META_FILE
    if not path.exists():
        return {}, ""
    try:
        raw = read_json(path)
        if not isinstance(raw, dict) or not isinstance(raw.get("sensors"), dict):
            raise SchemaError("depth_meta.json has no sensors", path=path)
        guard = PathGuard(root)
        found: dict[str, dict[int, DepthEpisode]] = {}
        for name, entry in raw["sensors"].items():
            if not isinstance(entry, dict):
                raise SchemaError(
                    f"depth sensor {str(name)[:80]!r} is not an object", path=path
                )
            sensor = _sensor(str(name), entry, path)
            episodes = (
                entry.get("episodes") if isinstance(entry.get("episodes"), dict) else {}
            )
            assert isinstance(episodes, dict)
            found[sensor.name] = {
                int(key): DepthEpisode(
                    sensor,
                    guard(str(item.get("file"))),
                    int(item.get("frame_count", 0)),
                )
                for key, item in episodes.items()
                if str(key).isdigit() and isinstance(item, dict)
            }
    except FsrError as exc:
        return {}, str(exc)
    except (TypeError, ValueError) as exc:
        return {}, f"{path}: malformed depth metadata ({exc})"
    return found, ""


def depth_metres(
    episode: DepthEpisode, index: int, fps: float
) -> npt.NDArray[np.float32]:
    """Return frame ``index`` of a depth episode in metres."""
    codes = grey12_at(episode.path, index / fps, fps)
    return dequantize(codes, episode.sensor)


def depth_frame(episode: DepthEpisode, index: int, fps: float) -> RGBFrame:
    """Return frame ``index`` drawn through the colour scale over the sensor's range."""
    metres = depth_metres(episode, index, fps).astype(np.float64)
    sensor = episode.sensor
    return RGBFrame(depth_colours(metres, (sensor.depth_min, sensor.depth_max)))
