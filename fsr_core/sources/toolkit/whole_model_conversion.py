"""``to_fsr`` of a source that writes the whole model it opens.

A source deriving from :class:`WholeModelConversion` opens a file with every
part read (:meth:`~WholeModelConversion.whole_model`) and writes it as FSR
with :func:`~fsr_core.sources.toolkit.model_to_fsr.write_model_as_fsr`; the
provenance copies the metadata entries that ``provenance_keys`` names, and
names the file or folder :meth:`~WholeModelConversion.converted_path` gives
(the file of an episode's address). A source adds facts of its own by
extending :meth:`~WholeModelConversion.provenance`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from fsr_core.errors import FsrError
from fsr_core.recording import RecordingModel
from fsr_core.robots import with_robot
from fsr_core.sources.open_options import OpenOptions
from fsr_core.sources.registry import FsrConversion

__all__ = ["WholeModelConversion", "write_converted"]


class WholeModelConversion:
    """A source's ``to_fsr``: its whole model, with provenance from its metadata."""

    name: str
    """The source's registry name, written as the source kind."""
    provenance_keys: ClassVar[Mapping[str, str]] = {}
    """Provenance fact by the model's metadata key it copies (``""`` if absent)."""
    converts_with_robot: ClassVar[bool] = True
    """``to_fsr`` poses the robot ``options.robot`` names and writes its
    ``robot/<link>`` channels with the rest."""
    writing_errors_name_path: ClassVar[bool] = False
    """An error met while writing (reading the model's parts as it goes) that
    names no file names the ``path`` converted."""

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the model of ``path`` with every part read (the source's own)."""
        raise NotImplementedError

    def converted_path(self, path: Path) -> Path:
        """Return the file or folder the provenance names: ``path`` itself here.

        A source whose addresses stand for a part of a file (an episode, one
        recording of several) gives the file.
        """
        return path

    def provenance(self, model: RecordingModel, path: Path) -> dict[str, object]:
        """Return the provenance of ``path``: the entries ``provenance_keys`` names."""
        return {
            fact: model.metadata.get(key, "")
            for fact, key in self.provenance_keys.items()
        }

    def to_fsr(
        self,
        path: Path,
        output: Path,
        *,
        overwrite: bool = False,
        options: OpenOptions | None = None,
    ) -> FsrConversion:
        """Write the file's whole model (:meth:`whole_model`) as FSR."""
        model = self.whole_model(path, options)
        try:
            return write_converted(
                model,
                output,
                source_path=self.converted_path(path),
                source_kind=self.name,
                overwrite=overwrite,
                provenance=self.provenance(model, path),
                options=options,
            )
        except FsrError as exc:
            if not self.writing_errors_name_path:
                raise
            raise exc.with_path(path) from None


def write_converted(
    model: RecordingModel,
    output: Path,
    *,
    source_path: Path,
    source_kind: str,
    overwrite: bool,
    provenance: Mapping[str, object],
    options: OpenOptions | None,
) -> FsrConversion:
    """Write a source's ``model`` as FSR, with the robot ``options`` name, if any.

    With ``options.robot`` the robot is posed first: its ``robot/<link>``
    channels and meshes are written with the rest and the provenance names
    the description.
    """
    from fsr_core.sources.toolkit.model_to_fsr import write_model_as_fsr

    robot = None if options is None else options.robot
    if robot is not None:
        model = with_robot(model, robot)
        provenance = {**provenance, "robot_description": str(robot.path)}
    return write_model_as_fsr(
        model,
        output,
        source_path=source_path,
        source_kind=source_kind,
        overwrite=overwrite,
        provenance=dict(provenance),
    )
