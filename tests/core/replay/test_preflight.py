"""Every resimulate and render preflight check refuses its bad source by name.

Each bad source is a copy of a 0.3 s recording with one thing changed; the
replay must raise :class:`ReplayError` naming the source file and the problem,
before anything is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from replay_sources import (
    AUTHORED,
    RENDER,
    RESIMULATE,
    ChunkEdit,
    Written,
    record,
    rewrite,
    scenario_document,
)

from fsr_core.control import CommandSpace, Interpolation, TerminalPolicy
from fsr_core.errors import AdapterUnavailableError, ReplayError
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind, StreamSpec
from fsr_core.format.values import Record
from fsr_core.replay.engine import replay_file
from fsr_core.simulation.preflight import authored_chunks
from fsr_core.simulation.protocol import ReplayOptions, TargetContract
from fsr_core.simulation.target_checks import check_chunks_fit


def _refused(
    source: Path,
    tmp_path: Path,
    options: ReplayOptions = RESIMULATE,
    *,
    simulator: str | None = None,
) -> ReplayError:
    output = tmp_path / "out.fsr"
    with pytest.raises(ReplayError) as caught:
        replay_file(source, output, options, simulator=simulator)
    assert caught.value.path == str(source)
    assert [path for path in tmp_path.iterdir() if "out.fsr" in path.name] == []
    return caught.value


Refuse = Callable[..., ReplayError]


@pytest.fixture
def refuse(short_recording: Path, tmp_path: Path) -> Refuse:
    """Return a function that copies a recording with edits and replays it.

    ``refuse(name, options, *, simulator=None, recording=short_recording,
    **edits)`` rewrites ``recording`` as ``tmp_path / name`` with ``edits``
    (see ``replay_sources.rewrite``) and returns the :class:`ReplayError` the
    replay of the copy raises (see :func:`_refused`).
    """

    def refused_copy(
        name: str,
        options: ReplayOptions = RESIMULATE,
        *,
        simulator: str | None = None,
        recording: Path | None = None,
        **edits: Any,
    ) -> ReplayError:
        source = rewrite(recording or short_recording, tmp_path / name, **edits)
        return _refused(source, tmp_path, options, simulator=simulator)

    return refused_copy


def _chunk_edit(change: Callable[[dict[str, Any]], None]) -> ChunkEdit:
    def edit(index: int, item: Record) -> list[Written]:
        value = dict(item.decoded)
        change(value)
        return [(value, item.generation, item.tick)]

    return edit


def _without(kind: StreamKind) -> Callable[[list[StreamSpec]], list[StreamSpec]]:
    return lambda specs: [spec for spec in specs if spec.kind is not kind]


def _contract(change: Callable[[dict[str, Any]], None]) -> Callable[[dict], None]:
    def edit(metadata: dict[str, Any]) -> None:
        change(metadata["simulation_contract"])

    return edit


# -- limits, digest, validation -------------------------------------------------


def test_source_over_the_input_limit_is_refused(
    short_recording: Path, tmp_path: Path
) -> None:
    options = dataclasses.replace(RESIMULATE, max_input_bytes=1000)

    error = _refused(short_recording, tmp_path, options)

    assert "over the replay input limit of 1000 bytes" in error.reason


def test_source_with_another_digest_than_the_pinned_one_is_refused(
    short_recording: Path, tmp_path: Path
) -> None:
    options = dataclasses.replace(RESIMULATE, pinned_sha256="ab" * 32)

    error = _refused(short_recording, tmp_path, options)

    assert "does not have the pinned SHA-256" in error.reason
    assert "ab" * 32 in error.reason


def test_a_simulator_setting_the_simulator_does_not_take_is_refused(
    short_recording: Path, tmp_path: Path
) -> None:
    options = dataclasses.replace(RESIMULATE, settings=(("camera", "fov=30"),))

    error = _refused(short_recording, tmp_path, options)

    assert "has no replay setting 'camera' (it takes none)" in error.reason


def test_source_with_a_damaged_record_fails_full_validation(
    short_recording: Path, tmp_path: Path
) -> None:
    with FsrReader.open(short_recording) as reader:
        observed = reader.record("observations.arm", 40)
        offset = observed.offset + len(observed.payload) // 2
    damaged = tmp_path / "damaged.fsr"
    data = bytearray(short_recording.read_bytes())
    data[offset] ^= 0xFF
    damaged.write_bytes(bytes(data))

    error = _refused(damaged, tmp_path)

    assert "failed full validation" in error.reason


# -- authored control -------------------------------------------------------------


def test_applied_frames_without_an_authored_stream_are_refused(refuse: Refuse) -> None:
    error = refuse("applied_only.fsr", streams=_without(StreamKind.CONTROL_AUTHORED))

    assert "applied-control frames but no authored control stream" in error.reason
    assert "never replayed" in error.reason


def test_source_without_any_control_is_refused(refuse: Refuse) -> None:
    error = refuse(
        "no_control.fsr",
        streams=lambda specs: [
            spec
            for spec in specs
            if spec.kind
            not in (StreamKind.CONTROL_AUTHORED, StreamKind.CONTROL_APPLIED)
        ],
    )

    assert "no authored control stream to resimulate" in error.reason


def test_authored_command_that_does_not_decode_is_refused(refuse: Refuse) -> None:
    def backwards(chunk: dict[str, Any]) -> None:
        chunk["times_s"] = [0.0, 0.1, 0.05]
        chunk["values"] = [chunk["values"][0]] * 3

    error = refuse("undecodable.fsr", chunks=_chunk_edit(backwards))

    assert "authored command at generation 0, tick 0 does not decode" in error.reason
    assert error.stream == AUTHORED
    assert error.record == 0


def test_duplicate_chunk_ids_are_refused(refuse: Refuse) -> None:
    def twice(index: int, item: Record) -> list[Written]:
        return [(dict(item.decoded), item.generation, item.tick)] * 2

    error = refuse("duplicate.fsr", chunks=twice)

    assert "duplicate chunk ID 'reach-0' in generation 0 (records 0 and 1)" in (
        error.reason
    )


def test_chunk_naming_another_generation_than_its_own_is_refused(
    refuse: Refuse,
) -> None:
    error = refuse(
        "other_generation.fsr",
        chunks=_chunk_edit(lambda chunk: chunk.update(generation=1)),
    )

    assert (
        "chunk 'reach-0' was recorded in generation 0 but names generation 1; "
        "a chunk must belong to exactly one source generation"
    ) in error.reason


@pytest.fixture(scope="module")
def reset_recording(replay_dir: Path) -> Path:
    """Record 0.3 s with a scripted reset after 0.1 s: generations of 50 and 150."""
    document = scenario_document(resets=[{"after_s": 0.1}])
    return record(replay_dir / "reset.fsr", document)


def test_chunk_spanning_a_generation_reset_is_refused(
    reset_recording: Path, refuse: Refuse
) -> None:
    def longer(index: int, item: Record) -> list[Written]:
        chunk = dict(item.decoded)
        if item.generation == 0:
            chunk["times_s"] = [0.0, 0.25]
            chunk["values"] = [chunk["values"][0], chunk["values"][-1]]
        return [(chunk, item.generation, item.tick)]

    error = refuse("spanning.fsr", recording=reset_recording, chunks=longer)

    assert "runs to 0.25 s, past the reset that ends generation 0 at 0.098 s" in (
        error.reason
    )
    assert "must not span a generation reset" in error.reason


def test_chunk_starting_before_the_one_recorded_before_it_is_refused(
    refuse: Refuse,
) -> None:
    def early_second(index: int, item: Record) -> list[Written]:
        first = dict(item.decoded)
        second = dict(first, chunk_id="reach-1", start_sim_time_s=0.0)
        first["start_sim_time_s"] = 0.02
        return [(first, 0, 10), (second, 0, 10)]

    error = refuse("unordered.fsr", chunks=early_second)

    assert "chunk 'reach-1' starts at 0.0 s, before the chunk recorded before it" in (
        error.reason
    )


def test_reset_that_the_config_does_not_script_is_refused(
    reset_recording: Path, refuse: Refuse
) -> None:
    def no_resets(metadata: dict[str, Any]) -> None:
        metadata["config"]["resets"] = []

    error = refuse("outside_reset.fsr", recording=reset_recording, metadata=no_resets)

    assert (
        "the source has generation(s) [0, 1] but the resets of its config make 1"
    ) in error.reason
    assert "a reset from outside the config cannot be re-simulated" in error.reason


def test_generation_of_another_length_than_its_config_plans_is_refused(
    reset_recording: Path, refuse: Refuse
) -> None:
    def later_reset(metadata: dict[str, Any]) -> None:
        metadata["config"]["resets"][0]["after_s"] = 0.2

    error = refuse("moved_reset.fsr", recording=reset_recording, metadata=later_reset)

    assert "generation 0 of the source ran 50 ticks but its config plans 100" in (
        error.reason
    )


def test_scripted_reset_replays_one_session_per_generation(
    reset_recording: Path, tmp_path: Path
) -> None:
    output = tmp_path / "replayed.fsr"

    result = replay_file(reset_recording, output, RESIMULATE)

    with FsrReader.open(output) as reader:
        sessions = reader.footer.provenance["sessions"]
        chunks = list(reader.iter_records(AUTHORED))
    assert [item["generation"] for item in sessions] == [0, 1]
    assert [chunk.metadata["session_id"] for chunk in chunks] == [
        item["session_id"] for item in sessions
    ]
    assert result.reason_code == "REPLAY_COMPLETED"


# -- source vs target contract ---------------------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda contract: contract.update(simulator="mujoco"),
            "the source simulation contract is for simulator 'mujoco'; the target "
            "simulator 'planar_arm' replays 'planar_arm' recordings",
        ),
        (
            lambda contract: contract.update(axes=["q0", "q1"]),
            "the source simulation contract has axes ['q0', 'q1']; the target "
            "simulator 'planar_arm' has ['q0', 'q1', 'q2']",
        ),
        (
            lambda contract: contract.update(dt_s=0.001),
            "the source simulation contract steps 0.001 s; the target simulator "
            "'planar_arm' steps 0.002 s",
        ),
        (
            lambda contract: contract["units"].update(joint_position="deg"),
            "the source simulation contract gives joint_position in 'deg'; the "
            "target simulator 'planar_arm' takes 'rad'",
        ),
        (
            lambda contract: contract.update(frame="world"),
            "the source simulation contract commands in frame 'world'; the target "
            "simulator 'planar_arm' accepts ['joint']",
        ),
    ],
    ids=["simulator", "axes", "step", "unit", "frame"],
)
def test_source_contract_the_target_does_not_accept_is_refused(
    change: Callable[[dict[str, Any]], None], expected: str, refuse: Refuse
) -> None:
    error = refuse("contract.fsr", simulator="planar_arm", metadata=_contract(change))

    assert expected in error.reason


def test_source_without_a_simulation_contract_is_refused(refuse: Refuse) -> None:
    error = refuse(
        "no_contract.fsr",
        simulator="planar_arm",
        metadata=lambda metadata: metadata.pop("simulation_contract"),
    )

    assert "the source has no simulation_contract metadata" in error.reason


def test_source_naming_no_simulator_asks_for_one(refuse: Refuse) -> None:
    error = refuse(
        "nameless.fsr", metadata=lambda metadata: metadata.pop("simulation_contract")
    )

    assert "names no simulator" in error.reason
    assert "choose one explicitly" in error.reason


def test_unknown_simulator_is_named_with_the_known_ones(
    short_recording: Path, tmp_path: Path
) -> None:
    with pytest.raises(AdapterUnavailableError) as caught:
        replay_file(short_recording, tmp_path / "out.fsr", RESIMULATE, simulator="x")

    assert "no simulator adapter named 'x' (known: " in str(caught.value)
    assert "planar_arm" in str(caught.value)
    assert caught.value.path == str(short_recording)


# -- every chunk against the target ------------------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda chunk: chunk.update(target="gripper"),
            "resource 'gripper' is not one simulator 'planar_arm' drives (['arm'])",
        ),
        (
            lambda chunk: chunk.update(command_space="joint_torque", units=["N*m"] * 3),
            "command space 'joint_torque' is not accepted",
        ),
        (
            lambda chunk: chunk.update(axes=["q0", "q2", "q1"]),
            "axes ['q0', 'q2', 'q1'] are not the target's ['q0', 'q1', 'q2']",
        ),
        (
            lambda chunk: chunk.update(units=["rad", "m", "rad"]),
            "axis 'q1' is in 'm'; simulator 'planar_arm' takes joint_position in 'rad'",
        ),
        (
            lambda chunk: chunk.update(controller="pd"),
            "controller 'pd' is not the target's (['computed_torque'])",
        ),
    ],
    ids=["resource", "command_space", "axes", "unit", "controller"],
)
def test_chunk_the_target_does_not_accept_is_refused(
    change: Callable[[dict[str, Any]], None], expected: str, refuse: Refuse
) -> None:
    error = refuse("misfit.fsr", chunks=_chunk_edit(change))

    assert error.reason.startswith("chunk 'reach-0' (generation 0): ")
    assert expected in error.reason
    assert (error.stream, error.record) == (AUTHORED, 0)


@pytest.mark.parametrize(
    ("narrowed", "expected"),
    [
        (
            {"interpolations": frozenset({Interpolation.ZERO_ORDER_HOLD})},
            "interpolation 'linear' is not accepted",
        ),
        (
            {"terminal_policies": frozenset({TerminalPolicy.ZERO})},
            "terminal policy 'hold' is not accepted",
        ),
    ],
    ids=["interpolation", "terminal_policy"],
)
def test_chunk_with_a_mode_a_narrower_target_lacks_is_refused(
    short_recording: Path, narrowed: dict[str, Any], expected: str
) -> None:
    # The planar arm runs every interpolation and terminal policy, so these two
    # checks are exercised with a narrower target contract.
    contract = TargetContract(
        simulator="narrow",
        resources=frozenset({"arm"}),
        axes=("q0", "q1", "q2"),
        units={CommandSpace.JOINT_POSITION: "rad"},
        interpolations=frozenset(Interpolation),
        terminal_policies=frozenset(TerminalPolicy),
    )
    contract = dataclasses.replace(contract, **narrowed)
    with FsrReader.open(short_recording) as reader:
        chunks = authored_chunks(reader)

    with pytest.raises(ReplayError) as caught:
        check_chunks_fit(str(short_recording), AUTHORED, chunks, contract)

    assert expected in caught.value.reason
    assert caught.value.section == "preflight"


# -- recorded force, render state ---------------------------------------------------


def test_recorded_force_without_a_force_channel_is_refused(refuse: Refuse) -> None:
    def renamed(specs: list[StreamSpec]) -> list[StreamSpec]:
        return [
            dataclasses.replace(
                spec,
                channels=tuple(
                    name.replace("ext_f", "push_f") for name in spec.channels or ()
                ),
            )
            if spec.kind is StreamKind.NUMERIC
            else spec
            for spec in specs
        ]

    options = dataclasses.replace(RESIMULATE, with_recorded_force=True)

    error = refuse("no_force.fsr", options, streams=renamed)

    assert "with_recorded_force needs a recorded external force channel" in (
        error.reason
    )


def test_render_of_a_command_only_recording_says_to_resimulate(refuse: Refuse) -> None:
    error = refuse(
        "command_only.fsr", RENDER, streams=_without(StreamKind.RENDER_STATE)
    )

    assert "render mode needs recorded render state" in error.reason
    assert "command-only recording" in error.reason
    assert "use resimulate mode" in error.reason


def test_render_of_a_recording_without_render_state_or_control_is_refused(
    refuse: Refuse,
) -> None:
    error = refuse(
        "bare.fsr",
        RENDER,
        streams=lambda specs: [
            spec
            for spec in specs
            if spec.kind not in (StreamKind.RENDER_STATE, StreamKind.CONTROL_AUTHORED)
        ],
    )

    assert "render mode needs recorded render state; the source has none" in (
        error.reason
    )
