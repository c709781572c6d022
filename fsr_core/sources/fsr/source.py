"""The FSR source's registration: FSR files, recognised by their magic.

The model is built by :func:`fsr_core.sources.fsr.load_fsr` and the report by
:func:`fsr_core.sources.fsr.inspection_report.inspect_fsr`; this module only tells the
registry (:mod:`fsr_core.sources.registry`) how to recognise an FSR file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fsr_core.errors import SourceUnavailableError
from fsr_core.format.records import FILE_MAGIC
from fsr_core.recording import RecordingModel
from fsr_core.sources.fsr.inspection_report import FSR_DESCRIPTION, inspect_fsr
from fsr_core.sources.head import read_head
from fsr_core.sources.registry import FsrConversion

__all__ = ["SOURCE", "FsrSource"]


class FsrSource:
    """FSR files (``*.fsr``): the viewer's own container."""

    name: Final = "fsr"
    description: Final = FSR_DESCRIPTION
    patterns: Final = ("*.fsr",)

    def sniff(self, path: Path) -> bool:
        """Whether the file starts with the FSR magic (or is cut inside it).

        A file cut inside its first 8 bytes is claimed too, so its report says
        where it ends instead of calling it an unknown kind.
        """
        head = read_head(path, len(FILE_MAGIC))
        return bool(head) and FILE_MAGIC.startswith(head)

    def open(self, path: Path) -> RecordingModel:
        """Build the recording model (a truncated file opens recovered)."""
        from fsr_core.sources.fsr.load import load_fsr

        return load_fsr(path)

    def unavailable_reason(self) -> str | None:
        """Return ``None``: FSR needs nothing beyond the core."""
        return None

    def inspect(self, path: Path, *, verify: bool = False) -> dict[str, Any]:
        """Return the FSR inspection report (see :mod:`fsr_core.sources.inspection`)."""
        return inspect_fsr(path, verify=verify)

    def to_fsr(
        self, path: Path, output: Path, *, overwrite: bool = False
    ) -> FsrConversion:
        """Refuse: the file is FSR already, a copy would add nothing.

        Raises
        ------
        SourceUnavailableError
            Always.
        """
        del output, overwrite
        raise SourceUnavailableError(
            "already an FSR recording, nothing to convert (a damaged one is "
            "repaired by recover, which writes a sealed copy)",
            path=path,
        )


SOURCE = FsrSource()
"""The instance the registry loads."""
