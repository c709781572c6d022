"""Series keys and min/max decimation of the plots (plain numpy, no Qt)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from recording_models import channels_model

from app.window.plots.series_cache import (
    decimate,
    extent_indices,
    grown_extent_indices,
    parse_key,
    resolve_key,
    series_keys,
    view_points,
)
from fsr_core.arrays import FloatArray
from fsr_core.recording import Channel, RecordingModel


def _joint_model() -> RecordingModel:
    times = np.linspace(0.0, 1.0, 5)
    return channels_model(
        Channel(
            "q",
            times,
            np.arange(15.0).reshape(5, 3),
            unit="rad",
            label="joint angle",
            columns=("q0", "q1", "q2"),
        ),
        Channel("force", times, np.ones((5, 2)), unit="N"),
        Channel("speed", times, np.linspace(0.0, 4.0, 5)),
    )


def test_a_channel_key_resolves_to_every_column_named_by_columns() -> None:
    series = resolve_key(_joint_model(), "q")

    assert [item.name for item in series] == ["q0", "q1", "q2"]
    assert [item.key for item in series] == ["q[q0]", "q[q1]", "q[q2]"]
    assert {(item.unit, item.label) for item in series} == {("rad", "joint angle")}
    np.testing.assert_array_equal(series[1].y, [1.0, 4.0, 7.0, 10.0, 13.0])
    np.testing.assert_array_equal(series[1].x, np.linspace(0.0, 1.0, 5))


@pytest.mark.parametrize("key", ["q[q2]", "q[2]"])
def test_a_column_key_resolves_by_name_or_index(key: str) -> None:
    (series,) = resolve_key(_joint_model(), key)

    assert series.name == "q2"
    np.testing.assert_array_equal(series.y, [2.0, 5.0, 8.0, 11.0, 14.0])


def test_columns_without_names_are_called_channel_index_and_label_is_the_name() -> None:
    series = resolve_key(_joint_model(), "force")

    assert [item.name for item in series] == ["force[0]", "force[1]"]
    assert [item.key for item in series] == ["force[0]", "force[1]"]
    assert series[0].label == "force"


def test_a_one_dimensional_channel_is_one_series() -> None:
    (series,) = resolve_key(_joint_model(), "speed")

    assert series.name == "speed[0]"
    np.testing.assert_array_equal(series.y, np.linspace(0.0, 4.0, 5))


@pytest.mark.parametrize("key", ["missing", "q[q9]", "q[7]", "missing[q0]", "q[]"])
def test_keys_naming_nothing_resolve_to_no_series(key: str) -> None:
    assert resolve_key(_joint_model(), key) == []


def test_a_channel_named_with_brackets_wins_over_a_column_key() -> None:
    times = np.zeros(1)
    model = channels_model(
        Channel("a[b]", times, np.zeros(1)), Channel("a", times, np.zeros(1))
    )

    assert [item.channel for item in resolve_key(model, "a[b]")] == ["a[b]"]
    assert parse_key("a[b]") == ("a", "b")
    assert parse_key("plain") == ("plain", None)
    assert parse_key("tau[tau[3]]") == ("tau", "tau[3]")  # a column named "tau[3]"


def test_series_keys_list_each_channel_then_its_columns() -> None:
    assert series_keys(_joint_model()) == [
        "q",
        "q[q0]",
        "q[q1]",
        "q[q2]",
        "force",
        "force[0]",
        "force[1]",
        "speed",
        "speed[0]",
    ]


def test_every_listed_key_resolves() -> None:
    model = _joint_model()

    assert all(resolve_key(model, key) for key in series_keys(model))


def test_a_short_series_is_only_clipped_keeping_one_point_beyond_each_edge() -> None:
    x = np.arange(10.0)
    y = x * 2

    x_out, y_out = decimate(x, y, 3.5, 6.5, buckets=100)

    np.testing.assert_array_equal(x_out, [3.0, 4.0, 5.0, 6.0, 7.0])
    np.testing.assert_array_equal(y_out, [6.0, 8.0, 10.0, 12.0, 14.0])


def test_a_view_past_the_data_keeps_the_nearest_sample() -> None:
    x = np.arange(10.0)

    assert decimate(x, x, 20.0, 30.0, buckets=10)[0].tolist() == [9.0]
    assert decimate(x, x, -5.0, -1.0, buckets=10)[0].tolist() == [0.0]


def test_a_long_series_keeps_at_most_two_points_a_bucket_and_its_spikes() -> None:
    x = np.linspace(0.0, 100.0, 100_000)
    y = np.sin(x)
    y[31_234] = 50.0
    y[77_777] = -40.0

    x_out, y_out = decimate(x, y, 0.0, 100.0, buckets=500)

    assert x_out.size <= 2 * 500 + 2
    assert y_out.max() == 50.0
    assert y_out.min() == -40.0
    assert np.all(np.diff(x_out) > 0)
    bucket_s = 100.0 / 500
    assert x_out[0] < bucket_s
    assert x_out[-1] > 100.0 - bucket_s


def test_decimation_of_a_zoomed_view_covers_the_view_edges() -> None:
    x = np.linspace(0.0, 100.0, 100_000)

    x_out, _ = decimate(x, np.cos(x), 40.0, 60.0, buckets=200)

    assert x_out.size <= 2 * 200 + 2
    assert x_out[0] < 40.0 <= x_out[1]
    assert x_out[-2] <= 60.0 < x_out[-1]


def test_decimation_keeps_nan_gaps_and_survives_all_nan_buckets() -> None:
    x = np.arange(10_000.0)
    y = np.sin(x / 100)
    y[2_000:4_000] = np.nan

    x_out, y_out = decimate(x, y, 0.0, 10_000.0, buckets=50)

    assert np.isnan(y_out).any()
    assert np.nanmax(y_out) == np.nanmax(y)
    assert np.nanmin(y_out) == np.nanmin(y)
    assert np.all(np.diff(x_out) > 0)


def test_decimation_of_an_empty_series_is_empty() -> None:
    x_out, y_out = decimate(np.zeros(0), np.zeros(0), 0.0, 1.0, buckets=10)

    assert x_out.size == y_out.size == 0


def test_decimation_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="x has 3 samples, y has 2"):
        decimate(np.zeros(3), np.zeros(2), 0.0, 1.0, buckets=10)


@settings(max_examples=60, deadline=None)
@given(
    y=hnp.arrays(
        np.float64,
        st.integers(1, 3_000),
        elements=st.floats(-1e6, 1e6) | st.just(np.nan),
    ),
    buckets=st.integers(1, 200),
    edges=st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
)
def test_decimation_keeps_the_extremes_inside_the_view(
    y: FloatArray, buckets: int, edges: tuple[float, float]
) -> None:
    x = np.linspace(0.0, 1.0, y.size)
    x_min, x_max = sorted(edges)
    inside = (x >= x_min) & (x <= x_max) & np.isfinite(y)

    x_out, y_out = decimate(x, y, x_min, x_max, buckets)

    assert x_out.size <= max(2 * buckets + 2, 2 + inside.sum())
    if inside.any():
        kept = (x_out >= x_min) & (x_out <= x_max) & np.isfinite(y_out)
        assert y_out[kept].max() == y[inside].max()
        assert y_out[kept].min() == y[inside].min()


def test_extent_indices_give_first_last_lowest_and_highest_ignoring_nan() -> None:
    y = np.array([np.nan, 3.0, -2.0, 9.0, 1.0])

    assert extent_indices(y).tolist() == [0, 2, 3, 4]
    assert extent_indices(np.zeros(0)).size == 0


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        st.integers(1, 60),
        elements=st.sampled_from([np.nan, np.inf, -np.inf, -3.0, 0.0, 2.0, 5.0]),
    ),
    st.data(),
)
def test_a_grown_series_keeps_the_extent_of_the_whole(
    y: FloatArray, data: st.DataObject
) -> None:
    # A followed channel grows at its end; its anchors are updated from the
    # samples added, and must be those of the whole series.
    cuts = sorted(data.draw(st.lists(st.integers(1, y.size), max_size=4)))
    anchors = extent_indices(y[: cuts[0]]) if cuts else extent_indices(y)
    for before, after in itertools.pairwise([*cuts, y.size]):
        anchors = grown_extent_indices(y[:after], anchors, before)
    assert anchors.tolist() == extent_indices(y).tolist()


def test_view_points_span_the_whole_series_for_any_zoom() -> None:
    x = np.linspace(0.0, 100.0, 100_000)
    y = np.sin(x) * x
    (series,) = resolve_key(channels_model(Channel("s", x, y)), "s")

    x_out, y_out = view_points(series, extent_indices(y), 45.0, 55.0, buckets=100)

    assert (x_out.min(), x_out.max()) == (0.0, 100.0)
    assert (y_out.min(), y_out.max()) == (y.min(), y.max())
    assert x_out.size <= 2 * 100 + 2 + 4
    assert np.all(np.diff(x_out) > 0)
