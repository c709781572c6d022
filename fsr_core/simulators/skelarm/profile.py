"""How an FSR file converted from a skelarm log opens: exactly as the log does.

The log the file holds (:func:`~fsr_core.logs.skelarm.converted.read_converted`)
is built into a model by the same code as a ``.sklog.npz`` log, so channels,
overlays, markers and readouts are the same. What belongs to the FSR file
(integrity, footer provenance, inspection report, run name) comes from the
FSR reader.
"""

from __future__ import annotations

from dataclasses import replace

from fsr_core.format.report import inspection_report
from fsr_core.logs.skelarm.converted import read_converted
from fsr_core.logs.skelarm.recording_model import build_model
from fsr_core.recording import RecordingModel
from fsr_core.simulation.profile import FsrOpening

__all__ = ["ConvertedLogProfile"]


class ConvertedLogProfile:
    """The recording profile of skelarm: converted logs open as the log did."""

    def build(self, opening: FsrOpening) -> RecordingModel:
        """Build the model of the converted log ``opening`` holds.

        Raises
        ------
        SchemaError
            The kept TOML or the channel streams are not a valid skelarm log.
        """
        reader = opening.reader
        model = build_model(read_converted(reader, opening.path), opening.path)
        provenance = dict(model.provenance)
        if reader.footer is not None:
            provenance.update(reader.footer.provenance)
        run = reader.metadata.get("run")
        title = run.get("name") if isinstance(run, dict) else None
        return replace(
            model,
            source="fsr",
            title=title if isinstance(title, str) and title else model.title,
            metadata=reader.metadata,
            provenance=provenance,
            integrity=opening.integrity,
            integrity_reason=opening.integrity_reason,
            report={**inspection_report(reader), "skelarm": model.report},
        )
