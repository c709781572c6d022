"""The header of a Genesis trajectory, read without Genesis.

The format is in docs/genesis_trajectory.md. A ``.gstraj`` file starts with
an 8-byte magic (``GSTRAJ1`` or ``GSTRAJ4`` and a newline), a length-prefixed
JSON manifest and a length-prefixed scene description (the zip archive
``Scene.export`` writes). This module reads those
three, within size limits, for what the adapter needs before Genesis runs:
which format version and mode, the environment layout, the time step and
precision, the rows of ``fields`` and ``info_fields``, and the link, joint,
dof and position names of the description's entities (for the channel
columns, :mod:`.channels`). Records are not read: Genesis reads the frames.

Only the standard library is used.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from fsr_core.logs.genesis.field_rows import FieldRow
from fsr_core.logs.genesis.naming import SceneNames, scene_names_of

__all__ = [
    "FORMAT_BY_GENESIS",
    "MAGIC_PREFIX",
    "FieldRow",
    "HeaderError",
    "SceneNames",
    "TrajectoryHeader",
    "header_problem",
    "read_description",
    "read_header",
]

MAGIC_PREFIX: Final = b"GSTRAJ"
FORMAT_BY_GENESIS: Final = {1: "1.4.0 to 1.4.4", 4: "1.4.5"}
"""The genesis-world releases that write (and alone read) each format version."""
_MAX_MANIFEST_BYTES: Final = 64 << 20
_MAX_DESCRIPTION_BYTES: Final = 1 << 30
_MAX_SCENE_JSON_BYTES: Final = 32 << 20
_LENGTH: Final = struct.Struct("<Q")


class HeaderError(ValueError):
    """The file is not a trajectory this adapter can read (the reason says why)."""


@dataclass(frozen=True)
class TrajectoryHeader:
    """What the header of a trajectory says."""

    path: Path
    version: int
    manifest: dict[str, Any]
    fields: tuple[FieldRow, ...]
    info_fields: tuple[FieldRow, ...]
    names: SceneNames
    description_bytes: int

    @property
    def genesis(self) -> str:
        """The version of the Genesis that wrote the file."""
        return str(self.manifest.get("genesis", ""))

    @property
    def mode(self) -> str:
        """``exact`` / ``minimal`` (GSTRAJ4), ``exact`` / ``compressed`` (GSTRAJ1)."""
        if self.version == 1:
            return "exact" if self.manifest.get("exact") is True else "compressed"
        return str(self.manifest.get("mode", ""))

    @property
    def n_envs(self) -> int:
        """Environments of the layout (0: an unbatched scene)."""
        layout = self.manifest.get("layout")
        value = layout.get("n_envs") if isinstance(layout, dict) else None
        return value if isinstance(value, int) and value >= 0 else 0

    @property
    def batch(self) -> int:
        """Environments in every array: ``n_envs``, or 1 for an unbatched scene."""
        return max(self.n_envs, 1)

    @property
    def dt(self) -> float:
        """Seconds per simulation step."""
        return float(self.manifest["dt"])

    @property
    def precision(self) -> str:
        """The float type of the simulation (``float32`` or ``float64``)."""
        return str(self.manifest.get("precision", "float32"))

    @property
    def steps_field(self) -> str:
        """The name the step counts stand under in a frame."""
        return "steps" if self.version == 1 else "Simulator.steps"


def _rows(manifest: dict[str, Any], key: str) -> tuple[FieldRow, ...]:
    rows = manifest.get(key, [])
    if not isinstance(rows, list):
        raise HeaderError(f"the manifest's {key!r} is not a list")
    found = []
    for row in rows:
        if not isinstance(row, list) or len(row) < 4:
            raise HeaderError(
                f"a row of {key!r} is not [name, kind, shape, dtype, ...]"
            )
        name, kind, shape, dtype = row[:4]
        if not (
            isinstance(name, str)
            and isinstance(kind, str)
            and isinstance(dtype, str)
            and isinstance(shape, list)
            and all(isinstance(side, int) and side >= 0 for side in shape)
        ):
            raise HeaderError(f"a row of {key!r} is malformed: {str(row)[:120]}")
        found.append(FieldRow(name, kind, tuple(shape), dtype))
    return tuple(found)


def _scene_names(description: bytes) -> SceneNames:
    """Return the names the description's entities give; none when it cannot say."""
    try:
        with zipfile.ZipFile(io.BytesIO(description)) as archive:
            member = archive.getinfo("scene.json")
            if member.file_size > _MAX_SCENE_JSON_BYTES:
                return SceneNames()
            scene = json.loads(archive.read(member).decode("utf-8"))
        return scene_names_of(scene)
    except Exception:  # noqa: BLE001 - names are a convenience: any damage gives none
        return SceneNames()


def _read_block(handle: io.BufferedReader, limit: int, what: str) -> bytes:
    raw = handle.read(_LENGTH.size)
    if len(raw) < _LENGTH.size:
        raise HeaderError(f"the file ends inside the length of its {what}")
    (length,) = _LENGTH.unpack(raw)
    if length > limit:
        raise HeaderError(f"its {what} claims {length} bytes (more than {limit})")
    data = handle.read(length)
    if len(data) < length:
        raise HeaderError(f"the file ends inside its {what}")
    return data


def read_header(path: Path) -> TrajectoryHeader:
    """Read the magic, the manifest and the scene description's names of ``path``.

    Raises
    ------
    HeaderError
        Not a trajectory, a version this adapter does not know, or a header
        cut short or malformed (the message says which).
    OSError
        The file cannot be read.
    """
    with path.open("rb") as handle:
        magic = handle.read(8)
        if not magic.startswith(MAGIC_PREFIX):
            raise HeaderError("not a Genesis trajectory (no GSTRAJ magic)")
        version_text = magic[len(MAGIC_PREFIX) : -1].decode("ascii", "replace")
        if magic[-1:] != b"\n" or not version_text.isdigit():
            raise HeaderError(f"unknown trajectory magic {magic!r}")
        version = int(version_text)
        if version not in FORMAT_BY_GENESIS:
            raise HeaderError(
                f"trajectory format version {version} is not one a released "
                "genesis-world writes (1 or 4)"
            )
        try:
            manifest = json.loads(_read_block(handle, _MAX_MANIFEST_BYTES, "manifest"))
        except ValueError as exc:
            raise HeaderError(f"its manifest is not JSON ({exc})") from None
        if not isinstance(manifest, dict):
            raise HeaderError("its manifest is not a JSON object")
        description = _read_block(handle, _MAX_DESCRIPTION_BYTES, "scene description")
    dt = manifest.get("dt")
    if isinstance(dt, bool) or not isinstance(dt, int | float) or not dt > 0:
        raise HeaderError(f"its manifest's dt is not a positive number: {dt!r}")
    return TrajectoryHeader(
        path=path,
        version=version,
        manifest=manifest,
        fields=_rows(manifest, "fields"),
        info_fields=_rows(manifest, "info_fields"),
        names=_scene_names(description),
        description_bytes=len(description),
    )


def read_description(path: Path) -> bytes:
    """Return the scene description the trajectory embeds (``Scene.export``'s file).

    Raises
    ------
    HeaderError
        The header is cut short or malformed.
    OSError
        The file cannot be read.
    """
    with path.open("rb") as handle:
        if not handle.read(8).startswith(MAGIC_PREFIX):
            raise HeaderError("not a Genesis trajectory (no GSTRAJ magic)")
        _read_block(handle, _MAX_MANIFEST_BYTES, "manifest")
        return _read_block(handle, _MAX_DESCRIPTION_BYTES, "scene description")


def header_problem(path: Path) -> str | None:
    """Return why ``path`` is not a readable trajectory header (None: it is)."""
    try:
        read_header(path)
    except HeaderError as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None
