"""Our decoder against what Genesis's own reader returned for its own files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from genesis_data import DATA, expected, intact, table, unpack

from fsr_core.sources.genesis.container import index_file
from fsr_core.sources.genesis.frames import FrameDecoder
from fsr_core.sources.genesis.recording_model import TIME_CHANNEL, load_genesis


def _same(ours: np.ndarray, theirs: np.ndarray) -> bool:
    return (
        ours.shape == theirs.shape
        and ours.dtype == theirs.dtype
        and ours.tobytes() == theirs.tobytes()
    )


@pytest.mark.parametrize("name", intact())
def test_every_stored_frame_is_bit_for_bit(name: str) -> None:
    entry = expected()[name]
    index = index_file(DATA / name)
    decoder = FrameDecoder(index)
    loaded, layout = table(name)
    assert index.n_frames == entry["n_frames"]
    assert [c.first_frame + c.frame_count for c in index.chunks] == entry[
        "chunk_frame_ends"
    ]
    assert (index.last is not None) == entry["has_last"]
    assert [info.first_frame for info in index.infos] == entry["info_frames"]
    rows = loaded["frames_data"] if "frames_data" in loaded.files else []
    assert len(rows) == len(loaded["frames_index"])
    for row, frame in zip(rows, loaded["frames_index"], strict=True):
        theirs = unpack(row, layout["frames"])
        ours = decoder.frame(int(frame))
        assert set(ours) == set(theirs)
        for key, array in theirs.items():
            assert _same(ours[key], array), (frame, key)
    last = decoder.frame(-1)
    theirs = unpack(loaded["last_data"][0], layout["last"])
    assert set(last) == set(theirs)
    for key, array in theirs.items():
        assert _same(last[key], array), ("LAST", key)


@pytest.mark.parametrize("name", intact())
def test_manifest_steps_and_times(name: str) -> None:
    entry = expected()[name]
    loaded, _ = table(name)
    index = index_file(DATA / name)
    manifest = json.loads(loaded["manifest_json"].tobytes())
    assert index.manifest.raw == manifest
    assert index.manifest.dt == entry["dt"]
    assert index.manifest.mode == entry["mode"]
    assert index.manifest.n_envs == entry["n_envs"]
    model = load_genesis(DATA / name)
    steps_name = index.manifest.steps_field
    decoder = FrameDecoder(index)
    steps = np.stack([decoder.frame(i)[steps_name] for i in range(len(decoder))])
    np.testing.assert_array_equal(steps, loaded["steps"])
    np.testing.assert_array_equal(steps, np.asarray(entry["steps"]))
    time = model.channels[TIME_CHANNEL].values
    assert time.astype(loaded["time"].dtype).tobytes() == loaded["time"].tobytes()
    for key in loaded.files:
        if key.startswith("timings/"):
            ours = model.channels[key].values[:, 0]
            assert ours.tobytes() == loaded[key].astype(np.float64).tobytes(), key


def test_a_chunk_is_decoded_once_while_scrubbing() -> None:
    decoder = FrameDecoder(index_file(DATA / "v4_box_exact.gstraj"))
    first = decoder.decode_chunk(1)
    assert decoder.decode_chunk(1) is first
    decoder.frame(9)
    assert decoder.decode_chunk(1) is first
    with pytest.raises(IndexError):
        decoder.frame(41)
