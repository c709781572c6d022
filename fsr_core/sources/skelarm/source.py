"""The skelarm source's registration: ``.sklog.npz`` state logs.

A skelarm log is ``np.savez_compressed`` output, so it starts with a zip local
file header whose member name ends in ``.npy``; that is what :meth:`sniff`
checks (an empty zip is claimed too, so the log reader says what it is). The
model is :func:`~fsr_core.logs.skelarm.recording_model.load_skelarm`'s and the
conversion :func:`~fsr_core.logs.skelarm.convert.convert_log`'s.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, Final

from fsr_core.format.safe_open import open_source
from fsr_core.recording import RecordingModel
from fsr_core.sources.head import read_head
from fsr_core.sources.inspection import model_report
from fsr_core.sources.registry import FsrConversion

__all__ = ["SOURCE", "SkelarmSource"]

_LOCAL_HEADER = b"PK\x03\x04"
_EMPTY_ARCHIVE = b"PK\x05\x06"
_NAME_LENGTH = struct.Struct("<H")
_NAME_LENGTH_OFFSET = 26
_NAME_OFFSET = 30
_MAX_NAME = 1024


def _size_bytes(path: Path) -> int:
    source = open_source(path)
    try:
        return source.size
    finally:
        source.close()


class SkelarmSource:
    """skelarm state logs (``*.sklog.npz``), read with numpy only."""

    name: Final = "skelarm"
    description: Final = "skelarm state log"
    patterns: Final = ("*.sklog.npz", "*.npz")

    def sniff(self, path: Path) -> bool:
        """Whether the file is a zip whose first member is a ``.npy`` array."""
        head = read_head(path)
        if head.startswith(_EMPTY_ARCHIVE):
            return True
        if not head.startswith(_LOCAL_HEADER) or len(head) < _NAME_OFFSET:
            return False
        (length,) = _NAME_LENGTH.unpack_from(head, _NAME_LENGTH_OFFSET)
        if not 0 < length <= _MAX_NAME:
            return False
        if _NAME_OFFSET + length > len(head):
            head = read_head(path, _NAME_OFFSET + length)
        return head[_NAME_OFFSET : _NAME_OFFSET + length].endswith(b".npy")

    def open(self, path: Path) -> RecordingModel:
        """Build the recording model of the log."""
        from fsr_core.logs.skelarm.recording_model import load_skelarm

        return load_skelarm(path)

    def unavailable_reason(self) -> str | None:
        """Return ``None``: reading a log needs nothing but numpy."""
        return None

    def inspect(self, path: Path, *, verify: bool = False) -> dict[str, Any]:
        """Return the log's report (see :mod:`fsr_core.sources.inspection`).

        Opening a log reads every member and checks its zip CRC-32, so
        ``verify`` adds nothing but the ``verification`` entry (one record per
        frame). The ``skelarm`` section holds ``schema_version``, ``producer``,
        ``frames``, ``span_s``, ``member_shapes`` and ``can_resimulate``.
        """
        size_bytes = _size_bytes(path)
        model = self.open(path)
        frames = model.report.get("frames")
        report = model_report(
            model,
            description=self.description,
            size_bytes=size_bytes,
            verify=verify,
            checked_records=frames if isinstance(frames, int) else None,
        )
        own = report[self.name]
        own["member_shapes"] = own.pop("channels", {})
        own["can_resimulate"] = model.can_resimulate
        return report

    def to_fsr(
        self, path: Path, output: Path, *, overwrite: bool = False
    ) -> FsrConversion:
        """Write the log as FSR (see :mod:`fsr_core.logs.skelarm.convert`)."""
        from fsr_core.logs.skelarm.convert import convert_log

        result = convert_log(path, output, overwrite=overwrite)
        published = result.published
        return FsrConversion(
            output=published.path,
            records=published.records,
            size_bytes=published.size_bytes,
            summary=(
                f"{result.frames} frames, {len(result.channels)} channels "
                f"({', '.join(result.channels)})"
            ),
        )


SOURCE = SkelarmSource()
"""The instance the registry loads."""
