"""The MJCF model and its asset files, embedded in a recording with their digest.

A MuJoCo scene is an MJCF file plus the files it names (meshes, textures,
height fields, skins and included MJCF). :func:`collect_model_files` gathers
them, relative to the MJCF's folder; each is stored in the recording as one
record of the ``model.files`` stream (base64 in canonical JSON) and listed,
with its SHA-256, in the metadata. The model digest is the SHA-256 of that
list, so two recordings of the same files share a digest whatever their
folders were. :func:`materialize` writes them back into a folder so MuJoCo
loads exactly what was recorded.
"""

from __future__ import annotations

import base64
import hashlib
import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Final

from fsr_core.errors import SchemaError

__all__ = [
    "MODEL_FILES",
    "MODEL_FILE_SCHEMA",
    "ModelFiles",
    "collect_model_files",
]

MODEL_FILES: Final = "model.files"
"""The stream that carries the model files, one record per file."""
MODEL_FILE_SCHEMA: Final = "fsr.mujoco.model_file/1"
_MAX_FILES: Final = 256
_MAX_FILE_BYTES: Final = 12 << 20  # a record's JSON stays under the 16 MiB payload cap
# Element -> the compiler directory its ``file`` attribute is relative to.
_FILE_ATTRIBUTES: Final = (
    "file", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback",
)  # fmt: skip
_ASSET_DIRS: Final = {
    "mesh": "meshdir",
    "skin": "meshdir",
    "texture": "texturedir",
    "hfield": "texturedir",
}


def _sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _relative(name: str, where: Path) -> str:
    """Check that an asset path stays inside the model's folder."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise SchemaError(
            f"model file {name!r} must be a relative path inside the model's folder",
            path=where,
        )
    return path.as_posix()


@dataclass(frozen=True)
class ModelFiles:
    """An MJCF entry file and every file it needs, by relative path."""

    entry: str
    files: dict[str, bytes]

    @property
    def manifest(self) -> list[dict[str, Any]]:
        """Path, size and SHA-256 of each file, sorted by path."""
        return [
            {"path": name, "size_bytes": len(data), "sha256": _sha256(data)}
            for name, data in sorted(self.files.items())
        ]

    @property
    def digest(self) -> str:
        """SHA-256 of the entry name and the manifest: the model's identity."""
        text = json.dumps({"entry": self.entry, "files": self.manifest}, sort_keys=True)
        return _sha256(text.encode("utf-8"))

    def metadata(self) -> dict[str, Any]:
        """Return the ``model`` table of the run metadata."""
        return {"entry": self.entry, "digest": self.digest, "files": self.manifest}

    def records(self) -> list[dict[str, Any]]:
        """Return one ``model.files`` record value per file."""
        return [
            {
                "path": name,
                "sha256": _sha256(data),
                "size_bytes": len(data),
                "base64": base64.b64encode(data).decode("ascii"),
            }
            for name, data in sorted(self.files.items())
        ]

    @classmethod
    def from_records(
        cls, model: dict[str, Any], records: list[Any], *, where: Path
    ) -> ModelFiles:
        """Rebuild the files from a recording, checking every digest.

        Raises
        ------
        SchemaError
            A file is missing, malformed, or does not match its digest, or the
            model digest differs from the metadata's.
        """
        files: dict[str, bytes] = {}
        for value in records:
            try:
                name = _relative(str(value["path"]), where)
                data = base64.b64decode(str(value["base64"]), validate=True)
                expected = str(value["sha256"])
            except (KeyError, TypeError, ValueError) as exc:
                raise SchemaError(
                    f"model.files record is malformed: {exc!r}", path=where
                ) from exc
            if _sha256(data) != expected:
                raise SchemaError(
                    f"embedded model file {name!r} has digest {_sha256(data)}, "
                    f"expected {expected}",
                    path=where,
                )
            files[name] = data
        entry = str(model.get("entry", ""))
        if entry not in files:
            raise SchemaError(
                f"the recording does not embed its MJCF file {entry!r}", path=where
            )
        result = cls(entry, files)
        if result.digest != model.get("digest"):
            raise SchemaError(
                f"embedded model has digest {result.digest}, the metadata says "
                f"{model.get('digest')}",
                path=where,
            )
        return result

    def materialize(self, folder: Path) -> Path:
        """Write every file under ``folder``; return the MJCF's path."""
        for name, data in self.files.items():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return folder / self.entry


def _parse(data: bytes, path: Path) -> ET.Element:
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        raise SchemaError(f"not a valid MJCF (XML) file: {exc}", path=path) from exc


def _asset_dirs(documents: list[ET.Element]) -> dict[str, str]:
    """Return the compiler's ``meshdir`` / ``texturedir`` (``assetdir`` for both).

    They apply to the whole model, whichever document sets them.
    """
    dirs = {"meshdir": "", "texturedir": ""}
    for root in documents:
        for compiler in root.iter("compiler"):
            base = compiler.get("assetdir")
            for key in dirs:
                value = compiler.get(key, base)
                if value is not None:
                    dirs[key] = value
    return dirs


def _asset_references(root: ET.Element, dirs: dict[str, str], where: Path) -> list[str]:
    """Relative paths of the asset files one MJCF document names."""
    names = []
    for element in root.iter():
        if element.tag == "include":
            continue
        folder = dirs.get(_ASSET_DIRS.get(element.tag, ""), "")
        for attribute in _FILE_ATTRIBUTES:
            name = element.get(attribute)
            if name:
                names.append(_relative(str(PurePosixPath(folder) / name), where))
    return names


def _read(mjcf: Path, name: str, files: dict[str, bytes]) -> bytes:
    """Read model file ``name`` (relative to the MJCF's folder) into ``files``."""
    try:
        data = (mjcf.parent / name).read_bytes()
    except OSError as exc:
        raise SchemaError(
            f"cannot read model file {name!r}: {exc.strerror}", path=mjcf
        ) from exc
    if len(data) > _MAX_FILE_BYTES or len(files) >= _MAX_FILES:
        raise SchemaError(
            f"model file {name!r} is too large or there are more than "
            f"{_MAX_FILES} files",
            path=mjcf,
        )
    files[name] = data
    return data


def collect_model_files(mjcf: Path) -> ModelFiles:
    """Read an MJCF file, the MJCF files it includes and every asset they name.

    Included files are relative to the main MJCF's folder, assets to the
    compiler's ``meshdir`` / ``texturedir`` (or ``assetdir``) inside it,
    whichever document sets them; cube and skybox textures name up to six
    files (``fileright`` ... ``fileback``).

    Raises
    ------
    SchemaError
        The MJCF or a file it names cannot be read, a path leaves the model's
        folder, or there are too many or too large files; the message names
        the file.
    """
    files: dict[str, bytes] = {}
    documents: list[ET.Element] = []
    pending = [mjcf.name]
    while pending:
        name = pending.pop(0)
        if name in files:
            continue
        root = _parse(_read(mjcf, name, files), mjcf.parent / name)
        documents.append(root)
        pending += [
            _relative(element.get("file", ""), mjcf.parent / name)
            for element in root.iter("include")
        ]
    dirs = _asset_dirs(documents)
    for root in documents:
        for name in _asset_references(root, dirs, mjcf):
            if name not in files:
                _read(mjcf, name, files)
    return ModelFiles(mjcf.name, files)
