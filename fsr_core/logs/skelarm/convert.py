"""Write a skelarm log as an FSR file: channels, the arm, the task and the config.

Layout of the FSR file (simulator ``skelarm`` in ``simulation_contract``):

- ``run.lifecycle``: ``start`` at frame 0, the terminal cut and ``completion``
  at the last frame.
- One numeric stream ``skelarm.<channel>`` per log channel, in the log's order,
  one record per frame (tick = frame index, sim time = ``time[frame]``), with
  the channel's unit, and its label, columns and shape in the attributes.
  Values may be NaN or infinite, as in skelarm.
- ``task.context``: one record holding the task table and the overlay drawn
  from it.
- Metadata: ``run`` (name, producer, created_at), ``scene.arm`` (links with
  length, mass, inertia, centre of mass, joint limits), ``config`` (the
  embedded ``extra.source_config``), ``skelarm_run`` (``extra.run``) and
  ``skelarm.meta_toml``, the log's ``__meta__`` TOML verbatim, which is what
  :mod:`fsr_core.logs.skelarm.converted` reads back so the FSR opens exactly
  as the log does.
- Footer provenance: the source file's name and SHA-256, the mode
  (``convert`` unless the caller says otherwise) and skelarm's own
  ``extra.provenance``.

The file is written by :class:`~fsr_core.format.writer.FsrWriter`, so it appears
only when complete; an existing output is kept unless ``overwrite`` is given,
and then it is replaced in one rename.
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsr_core.canonical_json import canonical_dumps
from fsr_core.errors import SchemaError, TargetExistsError, WriteFailedError
from fsr_core.format.catalog import (
    LIFECYCLE_STREAM,
    TASK_STREAM,
    json_stream,
    lifecycle_stream,
)
from fsr_core.format.streams import StreamKind, StreamSpec, check_stream_name
from fsr_core.format.writer import FsrWriter, PublishResult
from fsr_core.logs.skelarm.log import CheckedLog, check_log
from fsr_core.logs.skelarm.recording_model import build_model

__all__ = [
    "CHANNEL_PREFIX",
    "SIMULATOR_NAME",
    "TASK_STREAM",
    "Conversion",
    "convert_log",
    "file_sha256",
]

SIMULATOR_NAME = "skelarm"
"""``simulation_contract.simulator`` of a converted log."""
CHANNEL_PREFIX = "skelarm."
"""Each log channel ``name`` becomes the numeric stream ``skelarm.<name>``."""


@dataclass(frozen=True)
class Conversion:
    """A published conversion."""

    published: PublishResult
    frames: int
    channels: tuple[str, ...]
    source_sha256: str


def file_sha256(path: Path) -> str:
    """Return the SHA-256 of the file at ``path`` as hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _json_safe(value: Any) -> Any:
    """TOML values as JSON: dates become ISO strings, non-finite floats None."""
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)  # datetime, date, time from TOML


def _columns(key: str, width: int, spec: Any) -> tuple[str, ...]:
    columns = spec.get("columns") if isinstance(spec, dict) else None
    names = (
        tuple(columns)
        if isinstance(columns, list) and len(columns) == width
        else tuple(f"{key}_{j}" for j in range(width))
    )
    try:
        return tuple(check_stream_name(name, what="column") for name in names)
    except SchemaError:
        return tuple(f"{key}_{j}" for j in range(width))


def _channel_streams(log: CheckedLog, name: str) -> list[StreamSpec]:
    specs = log.meta.get("channels")
    specs = specs if isinstance(specs, dict) else {}
    streams = []
    for key, values in log.arrays.items():
        try:
            check_stream_name(key, what="channel name")
        except SchemaError as exc:
            raise SchemaError(
                f"channel {key!r} cannot be an FSR stream name", path=name
            ) from exc
        spec = specs.get(key)
        spec = spec if isinstance(spec, dict) else {}
        width = 1 if values.ndim == 1 else values.shape[1]
        unit = spec.get("unit")
        label = spec.get("label")
        streams.append(
            StreamSpec(
                name=CHANNEL_PREFIX + key,
                kind=StreamKind.NUMERIC,
                codec="raw",
                dtype="float64",
                shape=(width,),
                channels=_columns(key, width, spec),
                units=unit if isinstance(unit, str) else "",
                finite=False,
                attributes={
                    "skelarm_channel": key,
                    "label": label if isinstance(label, str) else key,
                    "scalar": values.ndim == 1,
                },
            )
        )
    return streams


def _arm(meta: dict[str, Any]) -> dict[str, Any] | None:
    skeleton = meta.get("skeleton")
    if not isinstance(skeleton, dict) or not isinstance(skeleton.get("links"), list):
        return None
    links = skeleton["links"]
    keys = {
        "length": "length_m",
        "m": "mass_kg",
        "i": "inertia_kg_m2",
        "rgx": "com_x_m",
        "rgy": "com_y_m",
        "qmin": "q_min_rad",
        "qmax": "q_max_rad",
    }
    arm: dict[str, Any] = _json_safe(
        {
            "base_length_m": skeleton.get("base_length", 0.0),
            "links": [
                {ours: link.get(theirs) for theirs, ours in keys.items()}
                for link in links
                if isinstance(link, dict)
            ],
        }
    )
    return arm


def _metadata(log: CheckedLog, toml_text: str, title: str) -> dict[str, Any]:
    extra = log.meta.get("extra")
    extra = extra if isinstance(extra, dict) else {}
    metadata: dict[str, Any] = {
        "run": _json_safe(
            {
                "name": title,
                "producer": log.meta.get("producer"),
                "created_at": log.meta.get("created_at"),
            }
        ),
        "simulation_contract": {
            "simulator": SIMULATOR_NAME,
            "schema_version": log.meta.get("schema_version"),
        },
        "skelarm": {"meta_toml": toml_text},
    }
    arm = _arm(log.meta)
    if arm is not None:
        metadata["scene"] = {"arm": arm}
    for ours, theirs in (("config", "source_config"), ("skelarm_run", "run")):
        if isinstance(extra.get(theirs), dict):
            metadata[ours] = _json_safe(extra[theirs])
    return metadata


def _overlay_json(log: CheckedLog, source: Path) -> dict[str, Any]:
    model = build_model(log, source)
    overlay = model.overlays.get(0)
    extra = log.meta.get("extra")
    extra = extra if isinstance(extra, dict) else {}
    config = extra.get("source_config")
    task = config.get("task") if isinstance(config, dict) else None
    if task is None and isinstance(extra.get("playback"), dict):
        task = extra["playback"].get("task")
    value: dict[str, Any] = {"task": _json_safe(task) if task else None}
    if overlay is not None:
        value["overlay"] = {
            "kind": overlay.kind,
            "targets": [
                {"xy": list(xy), "label": label, "tolerance_m": overlay.tolerance_m}
                for xy, label in zip(
                    overlay.targets_xy, overlay.target_labels, strict=True
                )
            ],
            "curve_xy": [list(xy) for xy in overlay.curve_xy],
            "reference_xy": [list(xy) for xy in overlay.reference_xy],
            "active_index": overlay.active_index,
        }
    return value


def _write(
    log: CheckedLog, source: Path, target: Path, metadata: dict[str, Any], **kw: Any
) -> PublishResult:
    streams = [
        lifecycle_stream(),
        *_channel_streams(log, str(source)),
        json_stream(TASK_STREAM, StreamKind.TASK, schema="skelarm.task/1"),
    ]
    times = log.times_s
    last = len(times) - 1
    with FsrWriter(target, streams, metadata=metadata, **kw) as writer:
        writer.write(LIFECYCLE_STREAM, {"event": "start"}, tick=0, sim_time_s=times[0])
        writer.write(
            TASK_STREAM, _overlay_json(log, source), tick=0, sim_time_s=times[0]
        )
        columns = [
            (CHANNEL_PREFIX + key, values.reshape(len(times), -1))
            for key, values in log.arrays.items()
        ]
        for frame, time_s in enumerate(times.tolist()):
            for stream, values in columns:
                writer.write(stream, values[frame], tick=frame, sim_time_s=time_s)
        end = float(times[-1])
        cut = {"event": "terminal_semantic_cut"}
        writer.write(LIFECYCLE_STREAM, cut, tick=last, sim_time_s=end)
        done = {"event": "completion", "status": "succeeded"}
        done["reason_code"] = "RUN_COMPLETED"
        writer.write(LIFECYCLE_STREAM, done, tick=last, sim_time_s=end)
    return writer.finish()


def convert_log(
    source: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    title: str | None = None,
    provenance: dict[str, Any] | None = None,
) -> Conversion:
    """Write the skelarm log at ``source`` as the FSR file ``output``.

    Parameters
    ----------
    source, output
        The ``.sklog.npz`` log and the FSR file to publish.
    overwrite
        Replace an existing ``output`` (in one rename, once the new file is
        complete); without it an existing file is an error.
    title
        The run name (default: the log's file name without ``.sklog.npz``).
    provenance
        Footer fields added to (or replacing) ``source``, ``source_sha256``,
        ``mode`` (``convert``) and ``skelarm``.

    Raises
    ------
    FsrError
        The log is unreadable or malformed (as :func:`load_skelarm` reports it),
        or ``output`` exists and ``overwrite`` is not given
        (:class:`TargetExistsError`).
    """
    source_path, target = Path(source), Path(output)
    if target.exists() and not overwrite:
        raise TargetExistsError(
            "file already exists; pass overwrite to replace it", path=target
        )
    log = check_log(source_path)  # reads and checks everything before writing
    digest = file_sha256(source_path)
    name = title if title is not None else build_model(log, source_path).title
    metadata = _metadata(log, log.meta_text, name)
    extra = log.meta.get("extra")
    versions = extra.get("provenance") if isinstance(extra, dict) else None
    footer: dict[str, Any] = {
        "source": source_path.name,
        "source_sha256": digest,
        "mode": "convert",
        "skelarm": _json_safe(versions) if isinstance(versions, dict) else {},
        **(provenance or {}),
    }
    canonical_dumps(footer)  # a caller's bad field is refused before writing
    if not overwrite:  # the writer itself refuses an existing name
        published = _write(log, source_path, target, metadata, provenance=footer)
        return Conversion(published, len(log.times_s), tuple(log.arrays), digest)
    staging = target.with_name(f".{target.name}.{secrets.token_hex(4)}.convert")
    published = _write(log, source_path, staging, metadata, provenance=footer)
    try:
        staging.replace(target)
    except OSError as exc:
        staging.unlink(missing_ok=True)
        raise WriteFailedError(
            f"cannot replace: {exc.strerror}", errno=exc.errno, path=target
        ) from exc
    result = PublishResult(
        target,
        atomic=published.atomic,
        size_bytes=published.size_bytes,
        records=published.records,
    )
    return Conversion(result, len(log.times_s), tuple(log.arrays), digest)
