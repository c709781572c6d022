"""Tests for fsr_core.control: authored chunks, applied evidence and results."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from fsr_core.canonical_json import canonical_dumps, parse_json
from fsr_core.control import (
    AppliedControl,
    AuthoredChunk,
    ChunkResult,
    ChunkStatus,
    CommandSpace,
    Interpolation,
    TerminalPolicy,
    validate_authored_chunks,
)
from fsr_core.errors import SchemaError


def make_chunk(**changes: Any) -> AuthoredChunk:
    fields: dict[str, Any] = {
        "chunk_id": "c-1",
        "target": "arm",
        "command_space": CommandSpace.JOINT_POSITION,
        "axes": ("shoulder", "elbow"),
        "units": ("rad", "rad"),
        "interpolation": Interpolation.LINEAR,
        "terminal_policy": TerminalPolicy.HOLD,
        "start_sim_time_s": 1.0,
        "times_s": np.array([0.0, 0.5, 1.0]),
        "values": np.array([[0.0, 1.0], [1.0, 3.0], [2.0, -1.0]]),
        "controller": "pd",
        "generation": 2,
    }
    fields.update(changes)
    return AuthoredChunk(**fields)


def sample(chunk: AuthoredChunk, sim_time_s: float) -> np.ndarray:
    value = chunk.value_at(sim_time_s)
    assert value is not None
    return value


def round_trip(value: Any) -> Any:
    return parse_json(canonical_dumps(value.to_json()))


# --- round trips -------------------------------------------------------------


def test_authored_chunk_round_trips_through_canonical_json() -> None:
    chunk = make_chunk()

    again = AuthoredChunk.from_json(round_trip(chunk))

    assert again == chunk
    assert hash(again) == hash(chunk)
    assert again.values.dtype == np.float64
    assert not again.values.flags.writeable
    assert again.command_space is CommandSpace.JOINT_POSITION


def test_authored_chunk_accepts_plain_strings_and_lists() -> None:
    chunk = make_chunk(
        command_space="joint_torque",
        units=["N*m", "N"],
        axes=["a", "b"],
        interpolation="zero_order_hold",
        terminal_policy="zero",
        times_s=[0, 1],
        values=[[1, 2], [3, 4]],
    )

    assert chunk.command_space is CommandSpace.JOINT_TORQUE
    assert chunk.axes == ("a", "b")
    assert chunk.times_s.tolist() == [0.0, 1.0]


@pytest.mark.parametrize("chunk_id", [None, "c-7"])
def test_applied_control_round_trips(chunk_id: str | None) -> None:
    applied = AppliedControl(
        tick=120,
        sim_time_s=1.0,
        target="arm",
        command_space=CommandSpace.JOINT_VELOCITY,
        axes=("shoulder", "elbow"),
        values=np.array([0.25, -0.5]),
        chunk_id=chunk_id,
    )

    again = AppliedControl.from_json(round_trip(applied))

    assert again == applied
    assert again.to_json()["chunk_id"] == chunk_id


@pytest.mark.parametrize("status", list(ChunkStatus))
def test_chunk_result_round_trips(status: ChunkStatus) -> None:
    result = ChunkResult(chunk_id="c-1", status=status, reason_code="TIMEOUT_AFTER_S")

    assert ChunkResult.from_json(round_trip(result)) == result


# --- invalid chunks ----------------------------------------------------------


def _chunk_json(key: str, value: object) -> dict[str, Any]:
    obj = make_chunk().to_json()
    obj[key] = value
    return obj


def _without(key: str) -> dict[str, Any]:
    obj = make_chunk().to_json()
    del obj[key]
    return obj


@pytest.mark.parametrize(
    ("obj", "pointer"),
    [
        pytest.param("chunk", "/", id="not-an-object"),
        pytest.param(_without("values"), "/values", id="missing-key"),
        pytest.param({**make_chunk().to_json(), "x": 1}, "/x", id="unknown-key"),
        pytest.param(_chunk_json("chunk_id", ""), "/chunk_id", id="empty-id"),
        pytest.param(_chunk_json("chunk_id", 7), "/chunk_id", id="id-number"),
        pytest.param(_chunk_json("target", None), "/target", id="target"),
        pytest.param(_chunk_json("controller", ""), "/controller", id="controller"),
        pytest.param(_chunk_json("generation", -1), "/generation", id="gen-neg"),
        pytest.param(_chunk_json("generation", 1.0), "/generation", id="gen-float"),
        pytest.param(_chunk_json("generation", True), "/generation", id="gen-bool"),
        pytest.param(
            _chunk_json("command_space", "cartesian"), "/command_space", id="space"
        ),
        pytest.param(
            _chunk_json("interpolation", "cubic"), "/interpolation", id="interp"
        ),
        pytest.param(
            _chunk_json("terminal_policy", "brake"), "/terminal_policy", id="policy"
        ),
        pytest.param(
            _chunk_json("start_sim_time_s", -0.5), "/start_sim_time_s", id="start"
        ),
        pytest.param(
            _chunk_json("start_sim_time_s", "1"), "/start_sim_time_s", id="start-str"
        ),
        pytest.param(_chunk_json("axes", []), "/axes", id="no-axes"),
        pytest.param(_chunk_json("axes", ["a", "a"]), "/axes/1", id="dup-axes"),
        pytest.param(_chunk_json("axes", ["a", ""]), "/axes/1", id="empty-axis"),
        pytest.param(_chunk_json("units", ["rad"]), "/units", id="units-count"),
        pytest.param(_chunk_json("units", ["rad", "N*m"]), "/units/1", id="unit"),
        pytest.param(_chunk_json("times_s", []), "/times_s", id="no-times"),
        pytest.param(_chunk_json("times_s", [0.1, 0.5, 1.0]), "/times_s/0", id="t0"),
        pytest.param(
            _chunk_json("times_s", [0.0, 0.5, 0.5]), "/times_s/2", id="not-increasing"
        ),
        pytest.param(
            _chunk_json("times_s", [0.0, 0.7, 0.5]), "/times_s/2", id="decreasing"
        ),
        pytest.param(_chunk_json("times_s", [0.0, "1", 2.0]), "/times_s/1", id="t-s"),
        pytest.param(_chunk_json("times_s", [0.0, True, 2.0]), "/times_s/1", id="t-b"),
        pytest.param(
            _chunk_json("times_s", [[0.0], [0.5], [1.0]]), "/times_s/0", id="t-2d"
        ),
        pytest.param(
            _chunk_json("values", [[0.0, 1.0], [1.0, 3.0]]), "/values", id="rows"
        ),
        pytest.param(
            _chunk_json("values", [[0.0], [1.0], [2.0]]), "/values", id="columns"
        ),
        pytest.param(
            _chunk_json("values", [[0.0, 1.0], [1.0], [2.0, 2.0]]),
            "/values",
            id="ragged",
        ),
        pytest.param(
            _chunk_json("values", [[0.0, 1.0], [1.0, None], [2.0, 2.0]]),
            "/values/1/1",
            id="null-value",
        ),
        pytest.param(_chunk_json("values", [0.0, 1.0, 2.0]), "/values/0", id="flat"),
    ],
)
def test_authored_chunk_from_json_rejects_invalid_field(
    obj: object, pointer: str
) -> None:
    with pytest.raises(SchemaError) as info:
        AuthoredChunk.from_json(obj)

    assert info.value.reason.startswith(pointer + ":")
    assert info.value.section == "authored chunk"


@pytest.mark.parametrize(
    ("changes", "pointer"),
    [
        (
            {"values": np.array([[0.0, 1.0], [math.nan, 3.0], [2.0, 1.0]])},
            "/values/1/0",
        ),
        ({"times_s": np.array([0.0, math.inf, 1.0])}, "/times_s/1"),
        ({"values": np.array([[True, False]] * 3)}, "/values"),
        ({"values": np.array([["a", "b"]] * 3)}, "/values"),
    ],
)
def test_authored_chunk_rejects_bad_arrays(
    changes: dict[str, Any], pointer: str
) -> None:
    with pytest.raises(SchemaError, match=f"^{pointer}:"):
        make_chunk(**changes)


def test_from_json_prefixes_error_location() -> None:
    with pytest.raises(SchemaError, match=r"^/chunks/4/times_s/0:"):
        AuthoredChunk.from_json(
            _chunk_json("times_s", [1.0, 2.0, 3.0]), where="/chunks/4"
        )


def test_chunk_arrays_are_read_only_copies() -> None:
    values = np.array([[0.0, 1.0], [1.0, 3.0], [2.0, -1.0]])
    chunk = make_chunk(values=values)
    values[0, 0] = 42.0

    assert chunk.values[0, 0] == 0.0
    with pytest.raises(ValueError, match="read-only"):
        chunk.values[0, 0] = 1.0


@pytest.mark.parametrize(
    ("obj", "pointer"),
    [
        ({"chunk_id": "c", "status": "done", "reason_code": "OK"}, "/status"),
        (
            {"chunk_id": "c", "status": "failed", "reason_code": "timeout"},
            "/reason_code",
        ),
        ({"chunk_id": "c", "status": "failed", "reason_code": ""}, "/reason_code"),
        ({"chunk_id": "c", "status": "failed", "reason_code": "E1"}, "/reason_code"),
        ({"chunk_id": "", "status": "failed", "reason_code": "X"}, "/chunk_id"),
        ({"chunk_id": "c", "status": "failed"}, "/reason_code"),
    ],
)
def test_chunk_result_rejects_invalid_field(obj: object, pointer: str) -> None:
    with pytest.raises(SchemaError, match=f"^{pointer}:"):
        ChunkResult.from_json(obj)


@pytest.mark.parametrize(
    ("key", "value", "pointer"),
    [
        ("tick", -1, "/tick"),
        ("sim_time_s", math.inf, "/sim_time_s"),
        ("values", [0.25], "/values"),
        ("chunk_id", "", "/chunk_id"),
        ("command_space", "joint_speed", "/command_space"),
    ],
)
def test_applied_control_rejects_invalid_field(
    key: str, value: object, pointer: str
) -> None:
    obj: dict[str, Any] = {
        "axes": ["shoulder", "elbow"],
        "chunk_id": None,
        "command_space": "joint_velocity",
        "sim_time_s": 1.0,
        "target": "arm",
        "tick": 120,
        "values": [0.25, -0.5],
    }
    obj[key] = value

    with pytest.raises(SchemaError, match=f"^{pointer}:"):
        AppliedControl.from_json(obj)


# --- sampling ----------------------------------------------------------------


def test_linear_interpolation_blends_between_points() -> None:
    chunk = make_chunk()

    np.testing.assert_allclose(sample(chunk, 1.0), [0.0, 1.0])
    np.testing.assert_allclose(sample(chunk, 1.25), [0.5, 2.0])
    np.testing.assert_allclose(sample(chunk, 1.75), [1.5, 1.0])
    np.testing.assert_allclose(sample(chunk, 2.0), [2.0, -1.0])


def test_zero_order_hold_keeps_the_earlier_point() -> None:
    chunk = make_chunk(interpolation=Interpolation.ZERO_ORDER_HOLD)

    np.testing.assert_array_equal(sample(chunk, 1.0), [0.0, 1.0])
    np.testing.assert_array_equal(sample(chunk, 1.499), [0.0, 1.0])
    np.testing.assert_array_equal(sample(chunk, 1.5), [1.0, 3.0])
    np.testing.assert_array_equal(sample(chunk, 2.0), [2.0, -1.0])


def test_point_times_hit_exactly_despite_rounding() -> None:
    chunk = make_chunk(
        start_sim_time_s=0.1,
        times_s=np.array([0.0, 0.1, 0.2]),
        terminal_policy=TerminalPolicy.ZERO,
    )

    for index in range(3):
        sim_time_s = chunk.start_sim_time_s + float(chunk.times_s[index])
        np.testing.assert_allclose(sample(chunk, sim_time_s), chunk.values[index])


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (TerminalPolicy.HOLD, [2.0, -1.0]),
        (TerminalPolicy.ZERO, [0.0, 0.0]),
        (TerminalPolicy.CONTROLLER_DEFAULT, None),
    ],
)
def test_terminal_policy_applies_after_the_last_point(
    policy: TerminalPolicy, expected: list[float] | None
) -> None:
    chunk = make_chunk(terminal_policy=policy)

    after = chunk.value_at(2.0 + 1e-9)
    far_after = chunk.value_at(100.0)

    if expected is None:
        assert after is None
        assert far_after is None
    else:
        np.testing.assert_array_equal(after, expected)
        np.testing.assert_array_equal(far_after, expected)
    np.testing.assert_array_equal(sample(chunk, 2.0), [2.0, -1.0])


def test_value_before_start_raises_value_error() -> None:
    chunk = make_chunk()

    with pytest.raises(ValueError, match="before chunk"):
        chunk.value_at(0.999)
    with pytest.raises(ValueError, match="finite"):
        chunk.value_at(math.nan)


def test_value_at_returns_a_fresh_array() -> None:
    chunk = make_chunk(interpolation=Interpolation.ZERO_ORDER_HOLD)

    value = chunk.value_at(1.0)
    assert value is not None
    value[0] = 99.0

    assert chunk.values[0, 0] == 0.0


def test_single_point_chunk_has_zero_duration() -> None:
    chunk = make_chunk(times_s=np.array([0.0]), values=np.array([[0.5, 0.25]]))

    assert chunk.duration_s == 0.0
    assert chunk.end_sim_time_s == 1.0
    np.testing.assert_array_equal(sample(chunk, 1.0), [0.5, 0.25])
    np.testing.assert_array_equal(sample(chunk, 3.0), [0.5, 0.25])


def test_duration_is_the_last_point_time() -> None:
    chunk = make_chunk()

    assert chunk.duration_s == 1.0
    assert chunk.end_sim_time_s == 2.0


# --- sequences ---------------------------------------------------------------


def test_valid_sequence_passes() -> None:
    chunks = [
        make_chunk(chunk_id="a", start_sim_time_s=0.0),
        make_chunk(chunk_id="b", start_sim_time_s=0.0),
        make_chunk(chunk_id="c", start_sim_time_s=2.5),
    ]

    validate_authored_chunks(chunks)
    validate_authored_chunks([])


def test_duplicate_chunk_ids_are_rejected() -> None:
    chunks = [
        make_chunk(chunk_id="a", start_sim_time_s=0.0),
        make_chunk(chunk_id="b", start_sim_time_s=1.0),
        make_chunk(chunk_id="a", start_sim_time_s=2.0),
    ]

    with pytest.raises(SchemaError, match=r"^/2/chunk_id: duplicate chunk ID 'a'"):
        validate_authored_chunks(chunks)


def test_chunks_from_two_generations_are_rejected() -> None:
    chunks = [make_chunk(chunk_id="a"), make_chunk(chunk_id="b", generation=3)]

    with pytest.raises(SchemaError, match=r"^/1/generation:"):
        validate_authored_chunks(chunks)


def test_chunks_out_of_start_order_are_rejected() -> None:
    chunks = [
        make_chunk(chunk_id="a", start_sim_time_s=2.0),
        make_chunk(chunk_id="b", start_sim_time_s=1.0),
    ]

    with pytest.raises(SchemaError, match=r"^/1/start_sim_time_s:"):
        validate_authored_chunks(chunks)


def test_equality_covers_every_field() -> None:
    chunk = make_chunk()

    assert chunk == make_chunk()
    assert chunk != dataclasses.replace(chunk, controller="computed_torque")
    assert chunk != make_chunk(values=np.array([[0.0, 1.0], [1.0, 3.0], [2.0, -2.0]]))
