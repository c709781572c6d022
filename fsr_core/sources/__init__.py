"""Recording sources: each turns one file format into a RecordingModel.

:func:`open_recording` picks the source by the file's first bytes, so a file's
name never decides how it is parsed.
"""

from __future__ import annotations

from pathlib import Path

from fsr_core.errors import OpenFailedError
from fsr_core.recording import RecordingModel

__all__ = ["open_recording"]

_ZIP_MAGIC = b"PK\x03\x04"


def open_recording(path: str | Path) -> RecordingModel:
    """Open an FSR file or a skelarm ``.sklog.npz`` log as a recording model.

    Raises
    ------
    FsrError
        The file cannot be read or is not a recording this viewer knows; the
        message names the file and the problem.
    """
    source = Path(path)
    try:
        with source.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise OpenFailedError(
            f"cannot open: {exc.strerror}", errno=exc.errno, path=source
        ) from exc
    if head.startswith(_ZIP_MAGIC):
        from fsr_core.sources.skelarm import load_skelarm

        return load_skelarm(source)
    from fsr_core.sources.fsr import load_fsr

    return load_fsr(source)
