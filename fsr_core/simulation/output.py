"""Where a replay publishes: never over an existing file unless asked.

:class:`~fsr_core.format.writer.FsrWriter` publishes atomically and never
overwrites. With ``overwrite=True`` and an existing output, the writer
publishes under a hidden sibling name and that file then replaces the output
in one ``os.replace``, so the old file stays whole until the new one is
complete; on failure or cancellation nothing changes under the final name.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fsr_core.errors import ReplayError, TargetExistsError, WriteFailedError
from fsr_core.output_paths import check_output_path, same_file

__all__ = ["check_output", "replay_output"]


def check_output(source: Path, output: Path, *, overwrite: bool) -> None:
    """Refuse an output that is the source, not a file, or exists without overwrite.

    The shared check of :mod:`fsr_core.output_paths`: the source under any
    name (a hard or symbolic link to it) is refused even with ``overwrite``.

    Raises
    ------
    ReplayError
        ``output`` names the source file (path, hard link or symbolic link).
    OutputNotFileError
        ``output`` is a folder, FIFO, device, socket or link loop, or its
        folder is missing or read-only.
    TargetExistsError
        ``output`` exists and ``overwrite`` is false.
    """
    if same_file(output, source):
        raise ReplayError(
            "the replay output is the source file itself (the same file under "
            "this name); choose another name",
            path=output,
        )
    check_output_path(
        output,
        overwrite=overwrite,
        hint="; a replay never overwrites it unless asked (overwrite)",
    )


@contextmanager
def replay_output(output: Path, *, overwrite: bool) -> Iterator[Path]:
    """Yield the name to publish to; it ends up at ``output`` only on success.

    Raises
    ------
    TargetExistsError
        ``output`` exists and ``overwrite`` is false.
    WriteFailedError
        The finished file could not replace ``output``.
    """
    if not os.path.lexists(output):
        yield output
        return
    if not overwrite:
        raise TargetExistsError(
            "file already exists; a replay never overwrites it unless asked",
            path=output,
        )
    sibling = output.with_name(f".{output.name}.{secrets.token_hex(4)}.replacing")
    try:
        yield sibling
        if sibling.exists():
            try:
                sibling.replace(output)
            except OSError as exc:
                raise WriteFailedError.from_os_error(
                    "could not replace the existing file", exc, output
                ) from exc
    finally:
        if os.path.lexists(sibling):
            sibling.unlink()
