"""The Genesis source's registration: ``.gstraj`` trajectories of genesis-world.

:meth:`GenesisSource.sniff` checks the ``GSTRAJ`` magic prefix (any version,
so that a version this reader does not know is refused with its number
rather than as an unknown file). Reading GSTRAJ1 needs numpy and zlib only;
GSTRAJ4 needs ``zstandard`` as well, imported when a chunk is decoded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fsr_core.errors import SourceUnavailableError
from fsr_core.recording import RecordingModel
from fsr_core.sources.head import read_head
from fsr_core.sources.inspection import add_verification, file_report
from fsr_core.sources.open_options import OpenOptions
from fsr_core.sources.toolkit.whole_model_conversion import WholeModelConversion

__all__ = ["SOURCE", "GenesisSource"]

_PROVENANCE: Final = {
    "genesis_version": "genesis",
    "genesis_format": "format",
    "genesis_source_digest": "source_digest",
}
"""What ``to_fsr`` copies into the provenance: fact by trajectory metadata key."""


def _zstandard_missing() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return True
    return False


class GenesisSource(WholeModelConversion):
    """Genesis trajectory files (GSTRAJ1 and GSTRAJ4), read without Genesis."""

    name: Final = "genesis"
    description: Final = "Genesis trajectory"
    patterns: Final = ("*.gstraj",)

    def sniff(self, path: Path) -> bool:
        """Whether the file starts with the ``GSTRAJ`` magic prefix."""
        # The container is imported only when a file gets this far: the
        # registry loads every source, and most files are claimed before.
        from fsr_core.sources.genesis.container import MAGIC_PREFIX

        return read_head(path, len(MAGIC_PREFIX)).startswith(MAGIC_PREFIX)

    open_options: Final = ("provisional",)

    def open(self, path: Path, options: OpenOptions | None = None) -> RecordingModel:
        """Build the recording model of the trajectory (fields read when shown).

        With ``options.provisional``, from the record headers and the first
        chunk, the checked model to follow (``RecordingModel.refine``).
        """
        provisional = options is not None and bool(options.provisional)
        return self._open(path, read_everything=False, provisional=provisional)

    def _open(
        self, path: Path, *, read_everything: bool, provisional: bool = False
    ) -> RecordingModel:
        from fsr_core.sources.genesis.recording_model import load_genesis

        if _zstandard_missing() and read_head(path, 8) == b"GSTRAJ4\n":
            raise SourceUnavailableError(
                "GSTRAJ4 trajectories need the 'zstandard' package "
                "(pip install zstandard)",
                path=path,
            )
        return load_genesis(
            path, read_everything=read_everything, provisional=provisional
        )

    def unavailable_reason(self) -> str | None:
        """Return what to install when ``zstandard`` is missing (GSTRAJ4 needs it)."""
        if _zstandard_missing():
            return "the 'zstandard' package for GSTRAJ4 files (pip install zstandard)"
        return None

    def inspect(
        self,
        path: Path,
        *,
        verify: bool = False,
        options: OpenOptions | None = None,
    ) -> dict[str, Any]:
        """Return the file's report; opening decodes every chunk and checks its CRC.

        A report is of the checked file: ``options.provisional`` is not used.

        The ``genesis`` section holds the manifest, the fields, the records and
        any cut (:mod:`fsr_core.sources.genesis.inspection_report`). With
        ``verify``, every member of the embedded scene description is read and
        its CRC-32 checked too
        (:mod:`fsr_core.sources.genesis.description_check`): a member that
        fails makes the file invalid, the problem naming the member.
        """
        model = self._open(path, read_everything=verify)
        records = model.report.get("records")
        checked = len(records) if isinstance(records, list) else 0
        report = file_report(
            model,
            path,
            description=self.description,
            verify=verify,
            checked_records=checked,
        )
        if verify:
            _add_description_check(report, path)
        return report

    provenance_keys = _PROVENANCE

    def whole_model(self, path: Path, options: OpenOptions | None) -> RecordingModel:
        """Return the checked trajectory: every channel and the link poses.

        For ``to_fsr``: ``options.provisional`` is not used.
        """
        return self._open(path, read_everything=True)


def _add_description_check(report: dict[str, Any], path: Path) -> None:
    """Check the scene description's members; a problem makes the file invalid."""
    from fsr_core.sources.genesis.container import index_file
    from fsr_core.sources.genesis.description_check import description_problems
    from fsr_core.sources.genesis.scene_names import description_bytes

    check = description_problems(
        description_bytes(index_file(path, verify=False)), path
    )
    checked = report["verification"]["checked_records"]
    add_verification(report, checked + check.members, check.problems)
    report["genesis"]["description"]["members_checked"] = check.members


SOURCE = GenesisSource()
"""The instance the registry loads."""
