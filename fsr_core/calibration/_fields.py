"""Field checks of the calibration values (each names the field as a JSON pointer)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.errors import CalibrationError

#: ``section`` of the errors about a camera pose.
POSE_SECTION: Final = "camera pose"


def describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def int_field(value: object, pointer: str, section: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CalibrationError(
            f"{pointer}: expected an integer, found {describe(value)}",
            section=section,
        )
    if value < minimum:
        raise CalibrationError(
            f"{pointer}: expected an integer >= {minimum}, found {value}",
            section=section,
        )
    return value


def float_field(
    value: object, pointer: str, section: str, *, positive: bool = False
) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CalibrationError(
            f"{pointer}: expected a number, found {describe(value)}",
            section=section,
        )
    number = float(value)
    if not math.isfinite(number):
        raise CalibrationError(
            f"{pointer}: expected a finite number, found {number}", section=section
        )
    if positive and number <= 0.0:
        raise CalibrationError(
            f"{pointer}: expected a positive number, found {number}", section=section
        )
    return number + 0.0  # folds -0.0 into 0.0 so equal values digest equally


def choice_field(
    value: object, pointer: str, section: str, allowed: Sequence[str] | frozenset[str]
) -> str:
    if not isinstance(value, str) or value not in allowed:
        options = ", ".join(repr(item) for item in sorted(allowed))
        raise CalibrationError(
            f"{pointer}: expected one of {options}, found {describe(value)}",
            section=section,
        )
    return value


def vector_field(value: object, length: int, pointer: str) -> FloatArray:
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CalibrationError(
            f"{pointer}: expected {length} numbers, found {describe(value)}",
            section=POSE_SECTION,
        ) from exc
    if array.shape != (length,):
        raise CalibrationError(
            f"{pointer}: expected shape ({length},), found {array.shape}",
            section=POSE_SECTION,
        )
    if not np.isfinite(array).all():
        raise CalibrationError(f"{pointer}: non-finite component", section=POSE_SECTION)
    array = array + 0.0
    array.setflags(write=False)
    return array


def with_prefix(exc: CalibrationError, where: str) -> CalibrationError:
    if not where:
        return exc
    return CalibrationError(f"{where}{exc.reason}", section=exc.section)


def points_array(points: npt.ArrayLike, name: str) -> FloatArray:
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"{name} must have shape (N, 3), got {array.shape}")
    return array
