"""The image-sequence source's registration: a folder of numbered frames.

A folder holding two or more numbered frames of one prefix
(``rgb_0000.png``, ``distance_to_camera_0000.npy``, Blender's ``0001.exr``)
is one recording, each prefix a camera
(:mod:`fsr_core.sources.image_sequence.recording_model`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fsr_core.errors import FsrError
from fsr_core.recording import RecordingModel
from fsr_core.sources.head import read_head
from fsr_core.sources.open_options import OpenOptions
from fsr_core.sources.toolkit.whole_model_conversion import WholeModelConversion

__all__ = ["SOURCE", "ImageSequenceSource"]


def _fps(options: OpenOptions | None) -> float | None:
    return None if options is None else options.fps


class ImageSequenceSource(WholeModelConversion):
    """Folders of numbered image frames, read with imageio (and numpy for .npy)."""

    name: Final = "image_sequence"
    description: Final = "image-sequence folder"
    patterns: Final[tuple[str, ...]] = ()
    open_options: Final = ("fps",)

    def sniff(self, path: Path) -> bool:
        """Say no: an image sequence is a folder, never a single file."""
        read_head(path, 1)
        return False

    def sniff_folder(self, path: Path) -> bool:
        """Whether the folder's first entries hold a sequence of numbered frames."""
        from fsr_core.sources.image_sequence.frames import find_sequences

        try:
            return bool(find_sequences(path, sniff=True))
        except FsrError:
            return False

    def open(self, path: Path, options: OpenOptions | None = None) -> RecordingModel:
        """Open the folder ``path`` as a recording of its sequences."""
        from fsr_core.sources.image_sequence.recording_model import open_folder

        return open_folder(path, _fps(options))

    def unavailable_reason(self) -> str | None:
        """Return what to install when imageio is missing."""
        from fsr_core.sources.image_sequence.images import imageio_missing

        return imageio_missing()

    def inspect(
        self, path: Path, *, verify: bool = False, options: OpenOptions | None = None
    ) -> dict[str, Any]:
        """Report the folder's cameras (``verify`` reads every frame)."""
        from fsr_core.sources.image_sequence.verify import folder_report

        return folder_report(self.open(path, options), path, self.description, verify)

    converts_with_robot = False
    """``to_fsr`` writes the cameras only: no robot is posed with them."""

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the folder's cameras (for ``to_fsr``), as :meth:`open` does."""
        return self.open(path, options)

    def provenance(self, model: RecordingModel, path: Path) -> dict[str, object]:
        """Name the folder converted."""
        return {"folder": str(path)}


SOURCE = ImageSequenceSource()
"""The instance the registry loads."""
