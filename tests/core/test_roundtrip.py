"""Writer/reader symmetry (docs/robustness.md, W13 and goal G8).

Property: for random stream tables, records, batch limits and integrity
profiles, the written file opens strictly, every record comes back exactly,
``verify()`` finds nothing, and the same input gives the same bytes. Then the
other direction: values the reader would reject are refused by the writer
before anything is published.
"""

from __future__ import annotations

import math
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fsr_core.calibration import CalibrationProfile
from fsr_core.canonical_json import canonical_dumps
from fsr_core.errors import (
    CorruptRecordError,
    FsrError,
    SchemaError,
    StreamNotFoundError,
)
from fsr_core.format.batching import BatchLimits
from fsr_core.format.catalog import (
    camera_streams,
    json_stream,
    numeric_stream,
    render_state_stream,
)
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import DTYPES, StreamKind, StreamSpec
from fsr_core.format.writer import FsrWriter
from fsr_core.media import RGBFrame
from fsr_core.synthetic import SyntheticRun, write_synthetic

PROPERTY = settings(max_examples=60, deadline=None)
NAMES = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,11}", fullmatch=True)
VALID_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,255}")
TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3)
    ),
    max_leaves=8,
)
UNIT_QUATERNIONS = [(0.0, 0.0, 0.0, 1.0), (1.0, 0.0, 0.0, 0.0), (0.5, 0.5, 0.5, 0.5)]


# ------------------------------------------------------------- the model
@dataclass
class Written:
    """One record as given to the writer."""

    stream: str
    generation: int
    tick: int
    sim_time_s: float
    value: Any
    metadata: dict[str, Any] = field(default_factory=dict)


@st.composite
def stream_tables(draw: st.DrawFn) -> list[StreamSpec]:
    """1-4 random streams: numeric (any dtype and rank), JSON, camera, arrays."""
    kinds = draw(
        st.lists(
            st.sampled_from(["numeric", "json", "camera", "arrays"]),
            min_size=1,
            max_size=4,
        )
    )
    specs: list[StreamSpec] = []
    for index, kind in enumerate(kinds):
        name = f"{draw(NAMES)}.{index}"
        if kind == "numeric":
            specs.append(
                StreamSpec(
                    name,
                    StreamKind.NUMERIC,
                    "raw",
                    dtype=draw(st.sampled_from(sorted(DTYPES))),
                    shape=tuple(draw(st.lists(st.integers(1, 3), max_size=3))),
                    finite=draw(st.booleans()),
                )
            )
        elif kind == "json":
            specs.append(json_stream(name, required=draw(st.booleans())))
        elif kind == "camera":
            specs += camera_streams(
                f"cam{index}",
                width=draw(st.integers(1, 4)),
                height=draw(st.integers(1, 4)),
                codec=draw(st.sampled_from(["rgb24", "png"])),
                prefix=name,
            )
        else:
            specs.append(render_state_stream(name))
    return specs


batch_limits = st.builds(
    BatchLimits,
    max_records=st.integers(1, 300),
    max_bytes=st.sampled_from([1, 64, 1000, 4 << 20]),
    max_span_s=st.sampled_from([1e-9, 0.01, 1.0, 1e9]),
)


def value_for(draw: st.DrawFn, spec: StreamSpec) -> Any:
    if spec.kind is StreamKind.NUMERIC:
        dtype = spec.numpy_dtype
        elements = None
        if dtype.kind == "f":
            finite = spec.finite
            elements = st.floats(
                width=dtype.itemsize * 8,
                allow_nan=not finite,
                allow_infinity=not finite,
            )
        return draw(hnp.arrays(dtype, spec.shape, elements=elements))
    if spec.kind is StreamKind.JSON:
        return draw(JSON_VALUES)
    if spec.kind is StreamKind.CAMERA_RGB:
        return draw(hnp.arrays(np.uint8, spec.shape))
    if spec.kind is StreamKind.CAMERA_TRANSLATION:
        return np.array(draw(st.lists(st.floats(-10, 10), min_size=3, max_size=3)))
    if spec.kind is StreamKind.CAMERA_QUATERNION:
        return np.array(draw(st.sampled_from(UNIT_QUATERNIONS)))
    if spec.kind is StreamKind.RENDER_STATE:
        return {
            "q": draw(hnp.arrays(np.float64, (2,), elements=st.floats(-1e6, 1e6))),
            "particles": draw(
                hnp.arrays(
                    np.float32,
                    (draw(st.integers(0, 3)), 3),
                    elements=st.floats(-1e3, 1e3, width=32),
                )
            ),
        }
    raise AssertionError(spec.kind)


def profile_for(spec: StreamSpec, variant: int) -> CalibrationProfile:
    width, height = spec.frame_size
    focal = (1.0, 2.5)[variant]
    return CalibrationProfile(width, height, focal, focal, width / 2, height / 2)


@st.composite
def recordings(draw: st.DrawFn) -> tuple[list[StreamSpec], list[Written]]:
    """Draw a stream table and records with non-decreasing clocks per generation."""
    specs = draw(stream_tables())
    by_camera = {s.camera: s for s in specs if s.kind is StreamKind.CAMERA_RGB}
    intrinsics_of = {
        s.camera: s.name for s in specs if s.kind is StreamKind.CAMERA_INTRINSICS
    }
    writable = [s for s in specs if s.kind is not StreamKind.CAMERA_INTRINSICS]
    generation, tick = 0, draw(st.integers(0, 2**40))
    sim_time = draw(st.floats(-1e6, 1e6))
    calibrated: dict[str, int] = {}
    records: list[Written] = []
    for _ in range(draw(st.integers(0, 30))):
        if draw(st.integers(0, 9)) == 0:  # a generation reset restarts the clocks
            generation += 1
            tick, sim_time = draw(st.integers(0, 100)), draw(st.floats(-10, 10))
            calibrated.clear()
        else:
            tick += draw(st.integers(0, 3))
            sim_time += draw(st.sampled_from([0.0, 0.001, 0.1, 0.5, 2.0]))
        spec = draw(st.sampled_from(writable))
        clock = {"generation": generation, "tick": tick, "sim_time_s": sim_time}
        camera = spec.camera
        if camera is not None and (camera not in calibrated or draw(st.booleans())):
            variant = draw(st.integers(0, 1))
            calibrated[camera] = variant
            profile = profile_for(by_camera[camera], variant)
            records.append(Written(intrinsics_of[camera], value=profile, **clock))
        metadata = {}
        if camera is None:
            metadata = draw(st.dictionaries(TEXT, JSON_LEAVES, max_size=2))
        records.append(
            Written(spec.name, value=value_for(draw, spec), metadata=metadata, **clock)
        )
    return specs, records


@dataclass(frozen=True)
class WriteCase:
    """One input of the write properties: streams, records, batch bounds, profile."""

    specs: list[StreamSpec]
    records: list[Written]
    limits: BatchLimits
    profile: IntegrityProfile


@st.composite
def write_cases(draw: st.DrawFn) -> WriteCase:
    specs, records = draw(recordings())
    limits = draw(batch_limits)
    return WriteCase(
        specs, records, limits, draw(st.sampled_from(list(IntegrityProfile)))
    )


def write_all(path: Path, case: WriteCase) -> int:
    specs, limits, profile = case.specs, case.limits, case.profile
    with FsrWriter(path, specs, integrity=profile, batch_limits=limits) as writer:
        for record in case.records:
            writer.write(
                record.stream,
                record.value,
                tick=record.tick,
                sim_time_s=record.sim_time_s,
                generation=record.generation,
                metadata=record.metadata or None,
            )
    return writer.finish().size_bytes


def assert_same_value(
    spec: StreamSpec, written: Written, got: Any, metadata: Any
) -> None:
    value = written.value
    if spec.kind is StreamKind.JSON:
        assert canonical_dumps(got) == canonical_dumps(value)
    elif spec.kind is StreamKind.CAMERA_RGB:
        assert got == RGBFrame(value)
    elif spec.kind is StreamKind.CAMERA_INTRINSICS:
        assert np.array_equal(got, value.K)
        assert metadata["profile"] == value.to_json()
    elif spec.kind is StreamKind.RENDER_STATE:
        assert got.keys() == value.keys()
        for name, array in value.items():
            assert got[name].dtype == array.dtype
            assert got[name].tobytes() == array.tobytes()
    else:
        assert got.dtype == spec.numpy_dtype
        assert got.shape == spec.shape
        assert got.tobytes() == np.asarray(value, dtype=spec.numpy_dtype).tobytes()


# ------------------------------------------------------------ round trip
@PROPERTY
@given(case=write_cases())
def test_every_written_record_reads_back_exactly_from_a_strictly_valid_file(
    case: WriteCase,
) -> None:
    specs, records, profile = case.specs, case.records, case.profile
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "prop.fsr"

        size = write_all(path, case)

        assert path.stat().st_size == size
        with FsrReader.open(path) as reader:
            assert reader.profile is profile
            assert reader.verify() == []
            got = list(reader.iter_records())
            assert [r.stream for r in got] == [w.stream for w in records]
            by_spec = {s.name: s for s in specs}
            for written, record in zip(records, got, strict=True):
                clocks = (record.generation, record.tick, record.sim_time_s)
                assert clocks == (written.generation, written.tick, written.sim_time_s)
                if by_spec[written.stream].camera is None:
                    assert record.metadata == written.metadata
                assert_same_value(
                    by_spec[written.stream], written, record.decoded, record.metadata
                )
                assert record.verified == (profile is not IntegrityProfile.STRUCTURAL)
            for name, info in reader.streams.items():
                assert info.record_count == sum(w.stream == name for w in records)


@settings(max_examples=25, deadline=None)
@given(case=write_cases())
def test_the_same_input_is_written_as_the_same_bytes(case: WriteCase) -> None:
    with tempfile.TemporaryDirectory() as work:
        first, second = Path(work) / "first.fsr", Path(work) / "second.fsr"

        write_all(first, case)
        write_all(second, case)

        assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("codec", ["rgb24", "png"])
@pytest.mark.parametrize("profile", list(IntegrityProfile))
def test_the_synthetic_run_is_byte_stable(
    tmp_path: Path, codec: str, profile: IntegrityProfile
) -> None:
    run = SyntheticRun(ticks=12, width=6, height=4, codec=codec, integrity=profile)

    write_synthetic(tmp_path / "a.fsr", run)
    write_synthetic(tmp_path / "b.fsr", run)

    assert (tmp_path / "a.fsr").read_bytes() == (tmp_path / "b.fsr").read_bytes()


def test_a_reused_frame_buffer_records_each_frame_as_it_was_written(
    tmp_path: Path,
) -> None:
    streams = [
        *camera_streams("cam", width=4, height=3, codec="png"),
        render_state_stream(),
    ]
    pixels = np.zeros((3, 4, 3), dtype=np.uint8)
    joints = np.zeros(2)
    profile = CalibrationProfile(4, 3, 3.0, 3.0, 2.0, 1.5)

    with FsrWriter(tmp_path / "reuse.fsr", streams) as writer:
        writer.write("sensors.cam.camera.intrinsics", profile, tick=0, sim_time_s=0.0)
        for tick in range(64):
            pixels[...] = tick  # a simulator refilling one buffer per step
            joints[...] = tick
            writer.write("sensors.cam.camera.rgb", pixels, tick=tick, sim_time_s=tick)
            writer.write("render.state", {"q": joints}, tick=tick, sim_time_s=tick)

    with FsrReader.open(tmp_path / "reuse.fsr") as reader:
        frames = [
            (r.tick, r.decoded.pixels)
            for r in reader.iter_records("sensors.cam.camera.rgb")
        ]
        states = [(r.tick, r.decoded["q"]) for r in reader.iter_records("render.state")]
    assert [t for t, p in frames if not (p == t).all()] == []
    assert [t for t, q in states if not (q == t).all()] == []


# ----------------------------------------------------------- refusals
def nothing_left(directory: Path) -> bool:
    return list(directory.iterdir()) == []


BAD_NAMES = [
    "",
    "a/b",
    "../up",
    ".hidden",
    "-dash",
    "a b",
    "caf\u00e9",
    "a\u200bb",
    "x" * 257,
    "tab\t",
]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_stream_name_the_reader_would_reject_is_refused(
    tmp_path: Path, name: str
) -> None:
    with pytest.raises(SchemaError):
        FsrWriter(tmp_path / "x.fsr", [numeric_stream(name, ["x"])])

    assert nothing_left(tmp_path)


@settings(max_examples=50, deadline=None)
@given(name=st.text(max_size=20).filter(lambda s: not VALID_NAME.fullmatch(s)))
def test_any_name_outside_the_allowed_alphabet_is_refused(name: str) -> None:
    with pytest.raises(SchemaError):
        json_stream(name)


def test_duplicate_stream_names_are_refused(tmp_path: Path) -> None:
    streams = [numeric_stream("a", ["x"]), json_stream("a")]

    with pytest.raises(SchemaError, match="duplicate"):
        FsrWriter(tmp_path / "x.fsr", streams)

    assert nothing_left(tmp_path)


@pytest.mark.parametrize(
    "metadata",
    [
        {"gain": math.nan},
        {"gain": math.inf},
        {"nested": [1.0, {"x": -math.inf}]},
        {1: "non-string key"},
        {"text": "lone \ud800 surrogate"},
        {"value": {1, 2}},
    ],
    ids=["nan", "inf", "nested-inf", "int-key", "surrogate", "set"],
)
@pytest.mark.parametrize("where", ["metadata", "provenance"])
def test_metadata_that_is_not_canonical_json_is_refused_before_writing(
    tmp_path: Path, metadata: dict[Any, Any], where: str
) -> None:
    with pytest.raises(SchemaError):
        FsrWriter(tmp_path / "x.fsr", [numeric_stream("a", ["x"])], **{where: metadata})

    assert nothing_left(tmp_path)


def test_an_unknown_integrity_profile_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SchemaError):
        FsrWriter(
            tmp_path / "x.fsr", [numeric_stream("a", ["x"])], integrity="paranoid"
        )


CAMERA = camera_streams("cam", width=4, height=3, codec="png")
PROFILE = CalibrationProfile(4, 3, 3.0, 3.0, 2.0, 1.5)
GOOD_FRAME = np.zeros((3, 4, 3), dtype=np.uint8)


@dataclass(frozen=True)
class Refusal:
    """A call the writer must refuse, after some good records."""

    stream: str
    value: Any
    clock: dict[str, Any]
    error: type[FsrError]
    metadata: dict[str, Any] | None = None


REFUSALS = {
    "nan-in-finite-stream": Refusal("a", [math.nan, 0.0], {"tick": 5}, SchemaError),
    "inf-in-finite-stream": Refusal("a", [0.0, -math.inf], {"tick": 5}, SchemaError),
    "wrong-shape": Refusal("a", [1.0, 2.0, 3.0], {"tick": 5}, SchemaError),
    "scalar-for-vector": Refusal("a", 1.0, {"tick": 5}, SchemaError),
    "float-into-int-stream": Refusal("i", [1.5], {"tick": 5}, SchemaError),
    "text-into-numeric": Refusal("a", "1, 2", {"tick": 5}, SchemaError),
    "tick-backwards": Refusal("a", [0.0, 0.0], {"tick": 1}, CorruptRecordError),
    "time-backwards": Refusal(
        "a", [0.0, 0.0], {"tick": 5, "sim_time_s": 0.1}, CorruptRecordError
    ),
    "generation-backwards": Refusal(
        "a", [0.0, 0.0], {"tick": 5, "generation": 0}, CorruptRecordError
    ),
    "nan-time": Refusal(
        "a", [0.0, 0.0], {"tick": 5, "sim_time_s": math.nan}, SchemaError
    ),
    "float-tick": Refusal("a", [0.0, 0.0], {"tick": 5.0}, SchemaError),
    "bool-tick": Refusal("a", [0.0, 0.0], {"tick": True}, SchemaError),
    "tick-past-int64": Refusal("a", [0.0, 0.0], {"tick": 1 << 63}, SchemaError),
    "negative-generation": Refusal(
        "a", [0.0, 0.0], {"tick": 5, "generation": -1}, SchemaError
    ),
    "nan-in-json": Refusal("j", {"x": math.nan}, {"tick": 5}, SchemaError),
    "nan-in-record-metadata": Refusal(
        "a", [0.0, 0.0], {"tick": 5}, SchemaError, {"x": math.nan}
    ),
    "unknown-stream": Refusal("nope", [0.0, 0.0], {"tick": 5}, StreamNotFoundError),
    "frame-too-small": Refusal(
        "sensors.cam.camera.rgb",
        np.zeros((2, 4, 3), np.uint8),
        {"tick": 5},
        SchemaError,
    ),
    "frame-not-uint8": Refusal(
        "sensors.cam.camera.rgb", np.zeros((3, 4, 3)), {"tick": 5}, SchemaError
    ),
    "arrays-not-a-dict": Refusal("render.state", [1.0], {"tick": 5}, SchemaError),
    "nan-in-packed-arrays": Refusal(
        "render.state", {"q": np.array([math.nan])}, {"tick": 5}, SchemaError
    ),
}


def refusal_streams() -> list[StreamSpec]:
    return [
        numeric_stream("a", ["x", "y"]),
        numeric_stream("i", ["n"], dtype="int32"),
        json_stream("j"),
        *CAMERA,
        render_state_stream(),
    ]


def write_good_records(writer: FsrWriter, ticks: range) -> None:
    for tick in ticks:
        clock: dict[str, Any] = {"tick": tick, "sim_time_s": tick / 10, "generation": 1}
        writer.write("a", [0.0, 1.0], **clock)
        writer.write("i", [tick], **clock)
        writer.write("j", {"tick": tick}, **clock)
        if tick == ticks.start:
            writer.write("sensors.cam.camera.intrinsics", PROFILE, **clock)
        writer.write("sensors.cam.camera.rgb", GOOD_FRAME, **clock)
        writer.write("render.state", {"q": np.zeros(2)}, **clock)


def record_then_attempt(target: Path, refusal: Refusal) -> None:
    with FsrWriter(target, refusal_streams()) as writer:
        write_good_records(writer, range(5))
        attempt(writer, refusal)


def attempt(writer: FsrWriter, refusal: Refusal) -> None:
    clock = {"sim_time_s": 0.5, "generation": 1, **refusal.clock}
    writer.write(refusal.stream, refusal.value, metadata=refusal.metadata, **clock)


@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_value_the_reader_would_reject_is_refused_and_nothing_is_published(
    tmp_path: Path, case: Refusal
) -> None:
    target = tmp_path / "x.fsr"

    with pytest.raises(case.error):
        record_then_attempt(target, case)

    assert nothing_left(tmp_path)


@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_refused_record_leaves_the_writer_usable(
    tmp_path: Path, case: Refusal
) -> None:
    target = tmp_path / "x.fsr"

    with FsrWriter(target, refusal_streams()) as writer:
        write_good_records(writer, range(5))
        with pytest.raises(case.error):
            attempt(writer, case)
        write_good_records(writer, range(5, 8))

    with FsrReader.open(target) as reader:
        assert reader.verify() == []
        assert reader.streams["a"].record_count == 8
        assert reader.streams["sensors.cam.camera.rgb"].record_count == 8
