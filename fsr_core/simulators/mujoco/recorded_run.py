"""Reading what a replay needs back out of a MuJoCo recording.

The model files come from the ``model.files`` stream and must match the
digests in the metadata; the scenario from the ``config`` metadata; the
control from the recorded ``control.authored`` chunks (never from
``control.applied``, which is evidence only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsr_core.control import AuthoredChunk, validate_authored_chunks
from fsr_core.errors import FsrError, ReplayError
from fsr_core.format.reader import FsrReader
from fsr_core.simulation.model_files import MODEL_FILES, ModelFiles
from fsr_core.simulation.recorded_streams import AUTHORED, RENDER_STATE
from fsr_core.simulators.mujoco.runtime import SIMULATOR_NAME, unavailable_reason
from fsr_core.simulators.mujoco.scenario import MujocoScenario

__all__ = ["RecordedRun", "can_replay", "read_recorded_run"]


@dataclass(frozen=True)
class RecordedRun:
    """A MuJoCo recording's model, scenario, contract and authored control."""

    path: Path
    sha256: str
    metadata: dict[str, Any]
    scenario: MujocoScenario
    chunks: tuple[AuthoredChunk, ...]
    ticks: int
    render_frames: int


def _is_mujoco(metadata: dict[str, Any]) -> bool:
    contract = metadata.get("simulation_contract")
    return isinstance(contract, dict) and contract.get("simulator") == SIMULATOR_NAME


def can_replay(source: Path) -> str | None:
    """Return ``None`` when ``source`` is a MuJoCo recording MuJoCo can replay here."""
    reason = unavailable_reason()
    if reason is not None:
        return reason
    try:
        with FsrReader.open(source) as reader:
            if not _is_mujoco(reader.metadata):
                return "not a MuJoCo recording (its simulation_contract names another)"
            if MODEL_FILES not in reader.streams:
                return "the recording does not embed its MJCF model"
    except FsrError as exc:
        return str(exc)
    return None


def _chunks(reader: FsrReader, path: Path) -> tuple[AuthoredChunk, ...]:
    if AUTHORED not in reader.streams:
        return ()
    chunks = tuple(
        AuthoredChunk.from_json(record.decoded, where=f"/{record.stream_seq}")
        for record in reader.iter_records(AUTHORED)
    )
    try:
        validate_authored_chunks(chunks)
    except FsrError as exc:
        raise ReplayError(
            f"authored control cannot be replayed: {exc}", path=path
        ) from exc
    return chunks


def read_recorded_run(
    source: Path,
    pinned_sha256: str | None,
    check: Callable[[], None] | None = None,
) -> RecordedRun:
    """Open ``source`` and read back its model, scenario and control.

    ``check()`` runs between the chunks of the digest pass (it may raise).

    Raises
    ------
    ReplayError
        Not a MuJoCo recording, a digest differs, or the control is invalid.
    """
    with FsrReader.open(source) as reader:
        metadata = reader.metadata
        if not _is_mujoco(metadata):
            raise ReplayError("not a MuJoCo recording", path=source)
        digest = reader.sha256(check)
        if pinned_sha256 is not None and digest != pinned_sha256:
            raise ReplayError(
                f"source has SHA-256 {digest}, expected {pinned_sha256}", path=source
            )
        try:
            records = [record.decoded for record in reader.iter_records(MODEL_FILES)]
            files = ModelFiles.from_records(
                metadata.get("model", {}), records, where=source
            )
            scenario = MujocoScenario.from_json(metadata.get("config"), files)
        except FsrError as exc:
            raise ReplayError(
                f"cannot rebuild the MuJoCo run: {exc.reason}", path=source
            ) from exc
        chunks = _chunks(reader, source)
        observations = reader.rows("observations.mujoco")
        render = reader.streams.get(RENDER_STATE)
        return RecordedRun(
            path=source,
            sha256=digest,
            metadata=metadata,
            scenario=scenario,
            chunks=chunks,
            ticks=len(observations),
            render_frames=0 if render is None else render.record_count,
        )
