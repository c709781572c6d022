"""What the subcommands' parsers share: common options, checked numbers.

Each ``*_commands`` module adds the options every writing command has
(:func:`add_output`, :func:`add_overwrite`, :func:`add_enum_option`); option
types built on :func:`checked_number` refuse a bad value with an argparse
usage error (exit 2) that names the value and what was expected.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TypeVar

__all__ = [
    "add_enum_option",
    "add_output",
    "add_overwrite",
    "checked_number",
]

Number = TypeVar("Number", int, float)


def add_output(
    parser: argparse.ArgumentParser, help: str, *, required: bool = True
) -> None:
    """Add ``-o/--output PATH`` (no default: ``None`` when optional and absent)."""
    parser.add_argument("-o", "--output", type=Path, required=required, help=help)


def add_overwrite(parser: argparse.ArgumentParser) -> None:
    """Add ``--overwrite``: replace an existing output (atomically)."""
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an existing output"
    )


def add_enum_option(
    parser: argparse.ArgumentParser, flag: str, default: Enum, help: str
) -> None:
    """Add ``flag`` taking the value of a member of ``default``'s enum."""
    parser.add_argument(
        flag,
        choices=[member.value for member in type(default)],
        default=default.value,
        help=help,
    )


def checked_number(
    text: str,
    convert: Callable[[str], Number],
    accept: Callable[[Number], bool],
    expected: str,
) -> Number:
    """Return ``text`` as a number that ``accept`` takes.

    Raises
    ------
    argparse.ArgumentTypeError
        ``text`` is not a number or not accepted: ``'x': expected <expected>``.
    """
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not accept(value):
        raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}")
    return value
