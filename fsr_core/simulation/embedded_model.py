"""The MJCF model a simulator embeds in its FSR recording, read back as its robot.

A simulator that runs an MJCF model (MuJoCo's recorder, robosuite's replay)
stores it and every file it names in the ``model.files`` stream, listed with
sizes and digests in the ``model`` metadata (:mod:`.model_files`). Opened,
the recording carries them as its robot description (``kind`` ``mjcf``), so
the player draws the robot with no ``--robot``.

Sizes come from the metadata, so a model over the description budget the
caller gives (:data:`fsr_core.robots.urdf.MAX_DESCRIPTION_BYTES`) is a note,
never read;
one over :data:`READ_AT_OPEN_BYTES` is read when first used, through a
reader of its own; a smaller one is read with the file. Its digests are
checked as a replay checks them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Final

from fsr_core.errors import FsrError, SchemaError
from fsr_core.format.reader import FsrReader
from fsr_core.recording import DescriptionFiles, RecordingModel, RobotDescription
from fsr_core.simulation.model_files import MODEL_FILES, ModelFiles

__all__ = ["READ_AT_OPEN_BYTES", "embedded_description", "with_embedded_robot"]

READ_AT_OPEN_BYTES: Final = 1 << 20
"""An embedded model at most this big (all its files) is read with the file."""


def _manifest_size(model: dict[str, Any], path: Path) -> int:
    """Return the bytes of every file the ``model`` metadata lists.

    Raises
    ------
    SchemaError
        The list is not a list of files with their sizes.
    """
    files = model.get("files")
    if not isinstance(files, list):
        raise SchemaError("the model metadata lists no files", path=path)
    total = 0
    for item in files:
        size = item.get("size_bytes") if isinstance(item, dict) else None
        if not isinstance(size, int) or size < 0:
            raise SchemaError(
                "the model metadata gives a file without its size", path=path
            )
        total += size
    return total


def _read(reader: FsrReader, model: dict[str, Any], path: Path) -> DescriptionFiles:
    """Read the embedded files back, every digest checked.

    Raises
    ------
    FsrError
        A record cannot be read, or a file or the model digest differs.
    """
    records = [record.decoded for record in reader.iter_records(MODEL_FILES)]
    files = ModelFiles.from_records(model, records, where=path)
    assets = {name: data for name, data in files.files.items() if name != files.entry}
    return files.files[files.entry], assets


def _read_later(model: dict[str, Any], path: Path) -> DescriptionFiles:
    with FsrReader.open(path, recover=True) as reader:
        return _read(reader, model, path)


def embedded_description(
    reader: FsrReader, path: Path, *, scene_recorded: bool, budget_bytes: int
) -> tuple[RobotDescription | None, str]:
    """Return the robot description a recording embeds, or a note why not.

    ``(None, "")``: the recording embeds no model. ``scene_recorded``: the
    recording's own scene geometry draws that model already
    (:attr:`~fsr_core.recording.RobotDescription.scene_recorded`); a model
    over ``budget_bytes`` is not read.
    """
    model = reader.metadata.get("model")
    if not isinstance(model, dict) or MODEL_FILES not in reader.streams:
        return None, ""
    entry = str(model.get("entry", ""))
    where = f"{path} {entry}"
    try:
        size = _manifest_size(model, path)
        if size > budget_bytes:
            return None, (
                f"robot not drawn: the embedded model {entry[:80]!r} is {size:,} "
                f"bytes, over the {budget_bytes:,} budget; not read"
            )
        if size > READ_AT_OPEN_BYTES:
            described = RobotDescription.read_later(
                lambda: _read_later(model, path),
                where,
                "mjcf",
                size,
                path=path,
                scene_recorded=scene_recorded,
            )
            return described, ""
        text, assets = _read(reader, model, path)
    except FsrError as exc:
        return None, f"robot not drawn: the embedded model cannot be read: {exc.reason}"
    return RobotDescription.of_text(
        text, where, "mjcf", assets, scene_recorded=scene_recorded
    ), ""


def with_embedded_robot(
    model: RecordingModel,
    reader: FsrReader,
    path: Path,
    *,
    scene_recorded: bool,
    budget_bytes: int,
) -> RecordingModel:
    """Return ``model`` carrying the robot its file embeds, or noting why not.

    What a simulator's profile adds to the generic model of its recordings
    (see :func:`embedded_description` for the arguments).
    """
    description, note = embedded_description(
        reader, path, scene_recorded=scene_recorded, budget_bytes=budget_bytes
    )
    if note:
        notes = [*model.report.get("notes", []), note]
        return dataclasses.replace(model, report={**model.report, "notes": notes})
    return dataclasses.replace(model, robot_description=description)
