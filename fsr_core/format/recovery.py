"""Save what can be trusted from a damaged or unfinished FSR file.

:func:`recover_file` opens the damaged file with ``recover=True`` (exactly its
complete, intact batches), copies every record, byte for byte, into a new
sealed file, and marks that file ``recovered`` in its footer, with what was
lost. The source is never modified.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsr_core.errors import FsrError
from fsr_core.format.reader import FsrReader
from fsr_core.format.writer import FsrWriter
from fsr_core.format.writer_raw import copy_records
from fsr_core.output_paths import same_file

__all__ = ["RecoveryReport", "recover_file"]


@dataclass(frozen=True)
class RecoveryReport:
    """What :func:`recover_file` kept."""

    output: Path
    records_kept: int
    batches_kept: int
    trusted_bytes: int
    source_bytes: int
    reason: str
    was_damaged: bool


def recover_file(
    damaged: str | os.PathLike[str], output: str | os.PathLike[str]
) -> RecoveryReport:
    """Write a sealed copy of the trustworthy part of ``damaged`` to ``output``.

    Raises
    ------
    FsrError
        Nothing could be trusted (bad header or metadata), ``output`` exists, or
        writing failed.
    """
    source_path, output_path = Path(damaged), Path(output)
    if same_file(output_path, source_path):  # a hard or symbolic link counts
        raise FsrError("recover output must differ from its input", path=output_path)
    with FsrReader.open(source_path, recover=True) as reader:
        info = reader.recovery
        recovered: dict[str, Any] = {
            "source_sha256": reader.file_sha256,
            "source_bytes": reader.size_bytes,
            "trusted_bytes": info.trusted_bytes if info else reader.size_bytes,
            "reason": info.reason if info else "file was intact",
            "records_kept": reader.record_count,
            "batches_kept": info.batches_kept
            if info
            else len(reader._layout.directory),
        }
        provenance = dict(reader.footer.provenance) if reader.footer else {}
        provenance["recovered_from"] = str(source_path)
        writer = FsrWriter(
            output_path,
            [s.spec for s in reader.streams.values()],
            metadata=reader.metadata,
            integrity=reader.profile,
            provenance=provenance,
        )
        with writer:
            copy_records(reader, writer, recovered)
        result = writer.finish()
    return RecoveryReport(
        output=result.path,
        records_kept=int(recovered["records_kept"]),
        batches_kept=int(recovered["batches_kept"]),
        trusted_bytes=int(recovered["trusted_bytes"]),
        source_bytes=int(recovered["source_bytes"]),
        reason=str(recovered["reason"]),
        was_damaged=info is not None,
    )
