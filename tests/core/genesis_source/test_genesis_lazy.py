"""A trajectory's fields are read when shown, each the same as a whole read gives.

Opening decodes every chunk once (to find where the file can be trusted) and
keeps only what the timeline and the scene need: the step counts and the
link poses. A field's channels (one per environment) are read the first time
one of them is asked for, from the chunks, and hold exactly what reading the
whole file at once (``inspect --verify``, ``convert``) gives.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fsr_core.errors import LimitExceededError
from fsr_core.sources.genesis.container import ChunkRecord, index_file
from fsr_core.sources.genesis.frames import Bytes, FrameDecoder
from fsr_core.sources.genesis.recording_model import TIME_CHANNEL, load_genesis

DATA = Path(__file__).resolve().parents[2] / "data" / "genesis"
FILES = ["v4_batch_exact", "v4_arm_minimal", "v1_arm_compressed", "v4_box_every2_exact"]


@pytest.mark.parametrize("name", FILES)
def test_fields_are_unread_at_open_and_read_as_a_whole_read_gives(name: str) -> None:
    lazy = load_genesis(DATA / f"{name}.gstraj")
    whole = load_genesis(DATA / f"{name}.gstraj", read_everything=True)

    unread = [key for key, channel in lazy.channels.items() if not channel.loaded]
    assert set(unread) == set(lazy.channels) - {TIME_CHANNEL}
    assert list(lazy.channels) == list(whole.channels)
    for key, channel in lazy.channels.items():
        expected = whole.channels[key]
        assert channel.count == expected.count
        assert channel.columns == expected.columns
        np.testing.assert_array_equal(channel.times_s, expected.times_s)
        np.testing.assert_array_equal(channel.values, expected.values)


def test_reading_one_field_decodes_the_chunks_once_for_all_its_environments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = load_genesis(DATA / "v4_batch_exact.gstraj")
    decoded: list[int] = []
    real_decode = FrameDecoder._decode

    def counting(self: FrameDecoder, chunk: ChunkRecord, number: int) -> Bytes:
        decoded.append(number)
        return real_decode(self, chunk, number)

    monkeypatch.setattr(FrameDecoder, "_decode", counting)
    qpos = [key for key in model.channels if key.endswith("rigid_info.qpos")]
    assert qpos == [f"env{e}/RigidSolver.rigid_info.qpos" for e in range(3)]

    _ = model.channels[qpos[1]].values
    after_one = len(decoded)
    rows = [model.channels[key].values for key in qpos]

    assert after_one >= 3  # four chunks; the last one decoded may be cached
    assert len(decoded) == after_one  # the other environments: no decode
    assert not np.array_equal(rows[0], rows[2])  # each its own environment
    unread = [key for key, channel in model.channels.items() if not channel.loaded]
    assert len(unread) == len(model.channels) - 1 - len(qpos)


def test_a_file_too_big_to_read_whole_opens_and_reads_field_by_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = DATA / "v4_batch_exact.gstraj"
    channels = load_genesis(path).channels.values()
    whole = sum(8 * channel.width * (channel.count or 0) for channel in channels)
    index = index_file(path)
    chunk = 3 * max(c.frame_count for c in index.chunks) * index.manifest.frame_size
    fields: dict[str, int] = {}  # a field's environments are read together
    for channel in channels:
        field = channel.name.split("/", 1)[1] if channel.name.startswith("env") else ""
        key = field or channel.name
        fields[key] = fields.get(key, 0) + 8 * channel.width * (channel.count or 0)
    biggest = max(fields.values())
    budget = max(chunk, biggest) + 1024
    assert budget < whole
    monkeypatch.setenv("FSR_VIEWER_MEMORY_BUDGET", str(budget))

    model = load_genesis(path)  # refused at open before fields were read lazily
    for channel in model.channels.values():
        assert channel.values.shape == (channel.count, channel.width)
    with pytest.raises(LimitExceededError, match="FSR_VIEWER_MEMORY_BUDGET") as caught:
        load_genesis(path, read_everything=True)
    assert path.name in str(caught.value)


@pytest.mark.parametrize(
    "name", ["v4_batch_exact", "v4_arm_minimal", "v1_arm_exact", "v1_box_compressed"]
)
def test_decoding_some_fields_of_a_chunk_gives_their_bytes_of_the_whole_decode(
    name: str,
) -> None:
    index = index_file(DATA / f"{name}.gstraj")
    decoder = FrameDecoder(index)
    fields = [item for item in index.manifest.fields if item.nbytes]
    picked = [fields[0], fields[len(fields) // 2], fields[-1]]

    for number in range(len(index.chunks)):
        whole = decoder.decode_chunk(number)
        some = decoder.decode_fields(number, picked)
        assert some.shape == whole.shape
        for item in picked:
            cut = slice(item.offset, item.offset + item.nbytes)
            np.testing.assert_array_equal(some[:, cut], whole[:, cut])
        # Other bytes are zeros, or (GSTRAJ4: whole 256-byte blocks) right.
        assert np.all((some == 0) | (some == whole))
