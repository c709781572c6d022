"""Untrusted strings made visible on one line (docs/robustness.md, U14); no Qt."""

from __future__ import annotations

import pytest

from app.window.widgets.plain_text import (
    LABEL_CHARS,
    byte_size_text,
    fixed_text,
    markup_text,
    number_text,
    pairs_text,
    safe_str,
    scalar_text,
    time_span_text,
    tooltip_html,
    visible_text,
)


@pytest.mark.parametrize(
    "char",
    [
        "\u202a",
        "\u202b",
        "\u202c",
        "\u202d",
        "\u202e",
        "\u2066",
        "\u2067",
        "\u2068",
        "\u2069",
        "\u200e",
        "\u200f",
        "\u061c",
        "\u200b",
        "\u200c",
        "\u200d",
        "\ufeff",
        "\u2060",
        "\u00ad",
        "\u2028",
        "\u2029",
    ],
)
def test_bidi_zero_width_and_format_characters_become_visible_escapes(
    char: str,
) -> None:
    shown = visible_text(f"a{char}b")

    assert shown == f"a⟨U+{ord(char):04X}⟩b"
    assert char not in shown


def test_newlines_and_tabs_are_escaped_onto_one_line() -> None:
    assert visible_text("a\nb\tc\rd") == "a\\nb\\tc\\rd"


def test_control_characters_become_visible_escapes() -> None:
    assert visible_text("\x00x\x1b[31m\x7f") == "⟨U+0000⟩x⟨U+001B⟩[31m⟨U+007F⟩"


def test_ordinary_text_in_any_script_is_kept_as_it_is() -> None:
    text = 'Grüße, 日本語, שלום, <b>bold</b> & \\ "q"'

    assert visible_text(text) == text


def test_long_text_is_elided_with_the_number_of_characters_left_out() -> None:
    shown = visible_text("x" * 1234, max_chars=200)

    assert shown == "x" * 200 + "… (+1034 chars)"


def test_text_of_exactly_the_limit_is_not_elided() -> None:
    assert visible_text("y" * 200) == "y" * 200


def test_elision_never_cuts_an_escape_in_half() -> None:
    shown = visible_text("\u202e" * 100, max_chars=20)

    assert shown == "⟨U+202E⟩⟨U+202E⟩… (+98 chars)"


def test_non_string_values_are_shown_through_str() -> None:
    assert visible_text({"a": 1}) == "{'a': 1}"
    assert visible_text(None) == "None"
    assert visible_text(1.5) == "1.5"


def test_tooltip_shows_markup_literally_and_wraps_long_text() -> None:
    assert tooltip_html("<b>x</b>\u202e") == "<qt>&lt;b&gt;x&lt;/b&gt;⟨U+202E⟩</qt>"
    assert tooltip_html("z" * 250).count("<br>") == 2


def test_tooltip_of_a_huge_value_is_bounded() -> None:
    tip = tooltip_html("w" * 1_000_000)

    assert len(tip) < 5000
    assert "(+996000 chars)" in tip


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (72, "72 B"),
        (48000, "46.9 KiB (48000 bytes)"),
        (3 * 1024**3, "3.0 GiB (3221225472 bytes)"),
        (None, "—"),
        ("12", "12"),
    ],
)
def test_byte_sizes_read_in_binary_units_with_the_exact_count(
    size: object, text: str
) -> None:
    assert byte_size_text(size) == text


def test_time_spans_and_pairs_read_as_short_text() -> None:
    assert time_span_text(0.0, 0.4981) == "0.000..0.498 s"
    assert time_span_text(None, 1.0) is None
    assert time_span_text(True, 1.0) is None
    assert pairs_text({"a": 1, "b": None, "c": "x"}, ("c",)) == "a=1, b=—"
    assert scalar_text(None) == "—"


def test_markup_text_shows_tags_as_characters_and_is_elided() -> None:
    shown = markup_text('<img src="/dev/zero">' + "<b>" * 70_000)

    assert shown.startswith('&lt;img src="/dev/zero"&gt;')
    assert "<" not in shown
    assert len(shown) < 4 * LABEL_CHARS


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (1.25, 2, "1.25"),
        (1e308, 3, "1.000e+308"),
        (-2e9, 0, "-2.000e+09"),
        (5e-324, 3, "0.000"),
        (float("inf"), 1, "inf"),
        (float("nan"), 1, "nan"),
    ],
)
def test_fixed_text_keeps_any_float_short(
    value: float, decimals: int, text: str
) -> None:
    assert fixed_text(value, decimals) == text


def test_an_integer_too_long_for_str_is_described_not_raised() -> None:
    huge = 10**5000

    assert safe_str(huge).startswith("(integer of ")
    assert visible_text({"n": huge}) == "(dict too large to show)"
    assert number_text(huge, ".1f") is not None
