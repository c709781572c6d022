"""The batch report: one JSON line per recording, flushed as each one ends.

Each line is a result of :func:`~app.headless.batch.work.run_item` with the
verb in front: ``verb``, ``input``, ``output``, ``status`` (``ok``,
``skipped``, ``failed``), ``error`` (one line, or ``null``), ``seconds``,
``bytes`` (what was written; for ``validate`` and ``index`` the bytes
checked), ``input_bytes``, ``input_sha256``, then the verb's own keys. A line
is written and flushed in one piece as soon as its recording is done, so a
report cut short by Ctrl-C or a crash holds every line that finished.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from fsr_core.errors import WriteFailedError
from fsr_core.output_paths import check_output_path
from fsr_core.sources.inspection import json_safe

__all__ = ["ReportWriter"]


class ReportWriter:
    """Append results to ``path`` (nothing when ``path`` is ``None``).

    Without ``append`` an existing report is replaced; with it (``--resume``)
    the new lines follow the old ones.

    Raises
    ------
    WriteFailedError
        The report is one of ``inputs``, not a regular file, or cannot be
        opened (the message names it).
    """

    def __init__(
        self, path: Path | None, *, append: bool, inputs: Iterable[Path] = ()
    ) -> None:
        self.path = path
        self._handle: TextIO | None = None
        if path is None:
            return
        check_output_path(path, inputs, overwrite=True)
        try:
            self._handle = path.open("a" if append else "w", encoding="utf-8")
        except OSError as exc:
            raise WriteFailedError.from_os_error(
                "cannot write the report", exc, path
            ) from exc

    def write(self, result: dict[str, Any]) -> None:
        """Write ``result`` as one line and flush it."""
        if self._handle is None:
            return
        line = json.dumps(json_safe(result), ensure_ascii=False, allow_nan=False)
        try:
            self._handle.write(line + "\n")
            self._handle.flush()
        except OSError as exc:
            raise WriteFailedError.from_os_error(
                "cannot write the report", exc, self.path or Path()
            ) from exc

    def close(self) -> None:
        """Close the report (idempotent)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
