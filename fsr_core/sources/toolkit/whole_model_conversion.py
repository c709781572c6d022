"""``to_fsr`` of a source that writes the whole model it opens.

A source deriving from :class:`WholeModelConversion` opens a file with every
part read (:meth:`~WholeModelConversion.whole_model`) and writes it as FSR
with :func:`~fsr_core.sources.toolkit.model_to_fsr.write_model_as_fsr`; the
provenance copies the metadata entries that ``provenance_keys`` names.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

from fsr_core.recording import RecordingModel
from fsr_core.robots import with_robot
from fsr_core.sources.open_options import OpenOptions
from fsr_core.sources.registry import FsrConversion

__all__ = ["WholeModelConversion", "write_converted"]


class WholeModelConversion:
    """A source's ``to_fsr``: its whole model, with provenance from its metadata."""

    name: str
    """The source's registry name, written as the source kind."""
    provenance_keys: ClassVar[Mapping[str, str]]
    """Provenance fact by the model's metadata key it copies (``""`` if absent)."""
    converts_with_robot: ClassVar[bool] = True
    """``to_fsr`` poses the robot ``options.robot`` names and writes its
    ``robot/<link>`` channels with the rest."""

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the model of ``path`` with every part read (the source's own)."""
        raise NotImplementedError

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
        return write_converted(
            model,
            output,
            source_path=path,
            source_kind=self.name,
            overwrite=overwrite,
            provenance={
                fact: model.metadata.get(key, "")
                for fact, key in self.provenance_keys.items()
            },
            options=options,
        )


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
