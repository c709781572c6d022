"""A resimulation's session, completion, cancellation, deadline and output rules."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from occupied_targets import refused_target
from replay_sources import (
    AUTHORED,
    RENDER,
    RESIMULATE,
    Written,
    record,
    rewrite,
    scenario_document,
)

from fsr_core.errors import ReplayError, TargetExistsError
from fsr_core.format.reader import FsrReader
from fsr_core.format.values import Record
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.lifecycle import Completion
from fsr_core.simulation.protocol import (
    CancelToken,
    Execution,
    ReplayOptions,
    ReplayOutcome,
    ReplayResult,
    Timing,
)
from fsr_core.simulators.planar_arm.recorder import ExternalPush
from fsr_core.simulators.planar_arm.resimulation import _Resimulation


def _chunks(path: Path) -> list[Record]:
    with FsrReader.open(path) as reader:
        return list(reader.iter_records(AUTHORED))


def _events(path: Path, name: str) -> list[dict[str, Any]]:
    with FsrReader.open(path) as reader:
        return [
            record.decoded
            for record in reader.iter_records("events")
            if record.decoded["name"] == name
        ]


@pytest.fixture(scope="module")
def resimulated(
    short_recording: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, ReplayResult]:
    """Resimulate the short recording once with the default options."""
    output = tmp_path_factory.mktemp("resimulated") / "replayed.fsr"
    return output, replay_file(short_recording, output, RESIMULATE)


def test_resimulation_completes_once_as_succeeded(
    resimulated: tuple[Path, ReplayResult],
) -> None:
    output, result = resimulated

    with FsrReader.open(output) as reader:
        completions = [
            record.decoded
            for record in reader.iter_records("run.lifecycle")
            if record.decoded["event"] == "completion"
        ]
        footer = reader.footer.completion

    assert result.outcome is ReplayOutcome.SUCCEEDED
    assert result.output == output
    assert completions == [
        {
            "event": "completion",
            "status": "succeeded",
            "reason_code": "REPLAY_COMPLETED",
        }
    ]
    assert (footer["status"], footer["reason_code"]) == (
        "succeeded",
        "REPLAY_COMPLETED",
    )


def test_resimulation_uses_fresh_ids_and_keeps_the_originals_as_provenance(
    short_recording: Path, resimulated: tuple[Path, ReplayResult]
) -> None:
    output, _ = resimulated

    source_ids = [chunk.decoded["chunk_id"] for chunk in _chunks(short_recording)]
    fresh = _chunks(output)
    with FsrReader.open(output) as reader:
        provenance = reader.footer.provenance

    fresh_ids = [chunk.decoded["chunk_id"] for chunk in fresh]
    assert not set(fresh_ids) & set(source_ids)
    assert [chunk.metadata["source_chunk_id"] for chunk in fresh] == source_ids
    run_id = provenance["run_id"]
    assert run_id.startswith("replay-")
    assert provenance["sessions"] == [
        {
            "session_id": f"{run_id}.g0",
            "generation": 0,
            "chunk_ids": dict(zip(fresh_ids, source_ids, strict=True)),
        }
    ]
    assert provenance["options"] == {
        "timing": "recorded_sim_time",
        "execution": "recorded_preemption",
        "max_in_flight": 4,
        "with_recorded_force": False,
    }


def test_two_resimulations_get_different_run_ids(
    short_recording: Path, resimulated: tuple[Path, ReplayResult], tmp_path: Path
) -> None:
    first, _ = resimulated
    second = tmp_path / "again.fsr"

    replay_file(short_recording, second, RESIMULATE)

    with FsrReader.open(first) as one, FsrReader.open(second) as two:
        assert one.footer.provenance["run_id"] != two.footer.provenance["run_id"]


def test_cancelled_resimulation_publishes_nothing_and_records_cancelled(
    short_recording: Path, tmp_path: Path
) -> None:
    cancel = CancelToken()
    seen: list[int] = []

    def cancel_midway(done: int, total: int) -> None:
        seen.append(done)
        if done >= 50:
            cancel.cancel()

    result = replay_file(
        short_recording,
        tmp_path / "out.fsr",
        RESIMULATE,
        progress=cancel_midway,
        cancel=cancel,
    )

    assert result.outcome is ReplayOutcome.CANCELLED
    assert result.reason_code == "REPLAY_CANCELLED"
    assert result.output is None
    assert "nothing was written" in result.message
    assert max(seen) < 150  # it stopped before the end
    assert list(tmp_path.iterdir()) == []


class _CancelOnRead(CancelToken):
    """A token the caller cancels on the ``n``-th time the replay looks at it."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.looks = 0
        self._n = n

    @property
    def cancelled(self) -> bool:
        self.looks += 1
        if self.looks >= self._n:
            self.cancel()
        return super().cancelled


@pytest.mark.parametrize("options", [RESIMULATE, RENDER], ids=["resimulate", "render"])
def test_cancel_during_the_preflight_read_stops_it_and_writes_nothing(
    camera_recording: Path, tmp_path: Path, options: ReplayOptions
) -> None:
    cancel = _CancelOnRead(2)  # the full read looks more than once
    progress: list[int] = []
    result = replay_file(
        camera_recording,
        tmp_path / "out.fsr",
        options,
        progress=lambda done, total: progress.append(done),
        cancel=cancel,
    )

    assert result.outcome is ReplayOutcome.CANCELLED
    assert result.output is None
    assert "during the preflight" in result.message
    assert "nothing was written" in result.message
    assert cancel.looks == 2
    assert progress == []
    assert list(tmp_path.iterdir()) == []


def test_cancel_while_the_adapter_rereads_the_source_writes_nothing(
    short_recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fsr_core.replay import engine

    cancel = CancelToken()
    preflight = engine._preflight

    def then_cancel(*args: Any) -> Any:
        found = preflight(*args)
        cancel.cancel()  # the user presses Cancel as the preflight ends
        return found

    monkeypatch.setattr(engine, "_preflight", then_cancel)
    result = replay_file(
        short_recording, tmp_path / "out.fsr", RESIMULATE, cancel=cancel
    )

    assert result.outcome is ReplayOutcome.CANCELLED
    assert "while reading the source" in result.message
    assert result.source_sha256  # the digest the preflight checked
    assert list(tmp_path.iterdir()) == []


def test_missed_teardown_deadline_fails_and_publishes_nothing(
    short_recording: Path, tmp_path: Path
) -> None:
    options = dataclasses.replace(RESIMULATE, teardown_deadline_s=0.0)

    result = replay_file(short_recording, tmp_path / "out.fsr", options)

    assert result.outcome is ReplayOutcome.FAILED
    assert result.reason_code == "REPLAY_FAILED"
    assert "did not finish within its deadline of 0.0 s" in result.message
    assert list(tmp_path.iterdir()) == []


def test_unexpected_error_in_the_simulator_fails_once_and_publishes_nothing(
    short_recording: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> None:
        raise ZeroDivisionError("the integrator broke")

    monkeypatch.setattr(_Resimulation, "_force", broken)

    result = replay_file(short_recording, tmp_path / "out.fsr", RESIMULATE)

    assert result.outcome is ReplayOutcome.FAILED
    assert result.reason_code == "REPLAY_FAILED"
    assert "internal error (ZeroDivisionError: the integrator broke)" in (
        result.message
    )
    assert list(tmp_path.iterdir()) == []


def test_completion_is_requested_exactly_once() -> None:
    completion = Completion()
    completion.complete(ReplayOutcome.SUCCEEDED)

    with pytest.raises(RuntimeError, match="already completed as succeeded"):
        completion.complete(ReplayOutcome.FAILED)
    assert completion.outcome is ReplayOutcome.SUCCEEDED


# -- the output file ---------------------------------------------------------------


def test_existing_output_is_refused_and_kept(
    short_recording: Path, tmp_path: Path
) -> None:
    with refused_target(
        tmp_path / "taken.fsr", TargetExistsError, match="never overwrites it"
    ) as output:
        replay_file(short_recording, output, RESIMULATE)


def test_overwrite_replaces_an_existing_output_only_on_success(
    short_recording: Path, tmp_path: Path
) -> None:
    output = tmp_path / "taken.fsr"
    output.write_bytes(b"mine")
    options = dataclasses.replace(RESIMULATE, overwrite=True)
    cancel = CancelToken()
    cancel.cancel()

    cancelled = replay_file(short_recording, output, options, cancel=cancel)
    kept = output.read_bytes()
    written = replay_file(short_recording, output, options)

    assert cancelled.outcome is ReplayOutcome.CANCELLED
    assert kept == b"mine"
    assert written.outcome is ReplayOutcome.SUCCEEDED
    assert FsrReader.open(output).footer.provenance["mode"] == "resimulate"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["taken.fsr"]


def test_output_that_is_the_source_is_refused(short_recording: Path) -> None:
    options = dataclasses.replace(RESIMULATE, overwrite=True)

    with pytest.raises(ReplayError, match="the replay output is the source file"):
        replay_file(short_recording, short_recording, options)


# -- execution and timing ------------------------------------------------------------


@pytest.fixture(scope="module")
def overlapping_recording(
    short_recording: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Copy the short recording with a second chunk recorded at 0.1 s.

    The first chunk runs to 0.16 s, so the second one preempts it.
    """

    def overlap(index: int, item: Record) -> list[Written]:
        first = dict(item.decoded)
        second = dict(first, chunk_id="reach-1", start_sim_time_s=0.1)
        return [(first, 0, 0), (second, 0, 50)]

    folder = tmp_path_factory.mktemp("overlap")
    return rewrite(short_recording, folder / "overlap.fsr", chunks=overlap)


def _submitted(
    source: Path, output: Path, **options: Any
) -> tuple[ReplayResult, list[tuple[int, float]]]:
    result = replay_file(source, output, dataclasses.replace(RESIMULATE, **options))
    starts = [
        (chunk.tick, chunk.decoded["start_sim_time_s"]) for chunk in _chunks(output)
    ]
    return result, starts


def test_recorded_preemption_keeps_the_recorded_start_of_a_preempting_chunk(
    overlapping_recording: Path, tmp_path: Path
) -> None:
    result, starts = _submitted(overlapping_recording, tmp_path / "out.fsr")
    results = _events(tmp_path / "out.fsr", "chunk_result")

    assert starts == [(0, 0.0), (50, 0.1)]
    assert [(r["status"], r["reason_code"]) for r in results] == [
        ("cancelled", "CHUNK_PREEMPTED"),
        ("succeeded", "CHUNK_COMPLETED"),
    ]
    assert result.notes == ()


@pytest.mark.parametrize(
    "options",
    [
        {"execution": Execution.SEQUENTIAL},
        {"execution": Execution.RECORDED_PREEMPTION, "max_in_flight": 1},
    ],
    ids=["sequential", "full_window"],
)
def test_chunk_waits_for_the_terminal_result_of_the_one_before_it(
    overlapping_recording: Path, tmp_path: Path, options: dict[str, Any]
) -> None:
    result, starts = _submitted(overlapping_recording, tmp_path / "out.fsr", **options)
    results = _events(tmp_path / "out.fsr", "chunk_result")

    # The first chunk ends at 0.16 s (tick 80); only then is the second admitted,
    # so it runs past the recorded cut and the closing session cancels it.
    assert starts == [(0, 0.0), (80, 0.16)]
    assert [(r["status"], r["reason_code"]) for r in results] == [
        ("succeeded", "CHUNK_COMPLETED"),
        ("cancelled", "SESSION_CLOSED"),
    ]
    assert "1 chunk(s) started later than recorded" in result.notes


def test_recorded_sim_time_holds_the_terminal_policy_to_the_recorded_cut(
    short_recording: Path, resimulated: tuple[Path, ReplayResult]
) -> None:
    output, _ = resimulated

    with FsrReader.open(short_recording) as source, FsrReader.open(output) as new:
        assert new.footer.terminal_cut == source.footer.terminal_cut
        assert new.streams["observations.arm"].last_tick == 149


def test_as_fast_as_valid_stops_once_every_chunk_has_its_terminal_result(
    short_recording: Path, tmp_path: Path
) -> None:
    output = tmp_path / "fast.fsr"
    steps: list[tuple[int, int]] = []

    replay_file(
        short_recording,
        output,
        dataclasses.replace(RESIMULATE, timing=Timing.AS_FAST_AS_VALID),
        progress=lambda done, total: steps.append((done, total)),
    )

    with FsrReader.open(output) as reader:
        # The only chunk ends at 0.16 s: tick 80 is the first past its last point.
        assert reader.streams["observations.arm"].last_tick == 80
        assert reader.footer.terminal_cut["tick"] == 80
    assert steps[-1] == (81, 81)  # the progress ends full, not at 81 of 150


@pytest.fixture(scope="module")
def pushed_recording(replay_dir: Path) -> Path:
    """Record the short reach pushed at the tip from 0.05 to 0.15 s."""
    push = ExternalPush(0.05, 0.15, (-15.0, 5.0))
    return record(replay_dir / "pushed.fsr", scenario_document(), (push,))


@pytest.mark.parametrize(("with_force", "interactive"), [(False, False), (True, True)])
def test_a_pushed_run_resimulated_says_whether_it_was_pushed_again(
    pushed_recording: Path, tmp_path: Path, with_force: bool, interactive: bool
) -> None:
    with FsrReader.open(pushed_recording) as reader:
        source_run = reader.metadata["run"]
    assert source_run["interactive"] is True
    options = dataclasses.replace(RESIMULATE, with_recorded_force=with_force)
    output = tmp_path / "again.fsr"
    replay_file(pushed_recording, output, options)

    with FsrReader.open(output) as reader:
        run = reader.metadata["run"]
    assert run["interactive"] is interactive
    assert run["reproducibility"].startswith(
        "interactive" if interactive else "deterministic"
    )
    kept = {k: v for k, v in run.items() if k not in ("interactive", "reproducibility")}
    assert kept == {
        k: v
        for k, v in source_run.items()
        if k not in ("interactive", "reproducibility")
    }
