"""Field checks of the control values (each names the field as a JSON pointer)."""

from __future__ import annotations

import dataclasses
import math
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar, cast

import numpy as np

from fsr_core.arrays import FloatArray
from fsr_core.errors import SchemaError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_E = TypeVar("_E", bound=StrEnum)


def describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def fail(pointer: str, message: str, section: str) -> SchemaError:
    return SchemaError(f"{pointer}: {message}", section=section)


def text_field(value: object, pointer: str, section: str) -> str:
    if not isinstance(value, str) or not value:
        raise fail(
            pointer, f"expected a non-empty string, found {describe(value)}", section
        )
    return value


def integer_field(value: object, pointer: str, section: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise fail(
            pointer, f"expected an integer >= 0, found {describe(value)}", section
        )
    return value


def time_field(value: object, pointer: str, section: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(pointer, f"expected a number, found {describe(value)}", section)
    number = float(value)
    if not (math.isfinite(number) and number >= 0.0):
        raise fail(pointer, f"expected a finite time >= 0, found {number}", section)
    return number + 0.0


def enum_field(kind: type[_E], value: object, pointer: str, section: str) -> _E:
    if isinstance(value, kind):
        return value
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    options = ", ".join(repr(member.value) for member in kind)
    raise fail(pointer, f"expected one of {options}, found {describe(value)}", section)


def names_field(
    value: object, pointer: str, section: str, *, unique: bool
) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or not value:
        raise fail(
            pointer, f"expected a non-empty array, found {describe(value)}", section
        )
    names = tuple(
        text_field(item, f"{pointer}/{i}", section) for i, item in enumerate(value)
    )
    if unique:
        for index, name in enumerate(names):
            if name in names[:index]:
                raise fail(f"{pointer}/{index}", f"duplicate name {name!r}", section)
    return names


def check_numbers(value: object, ndim: int, pointer: str, section: str) -> None:
    """Check that ``value`` is a nested list of numbers of depth ``ndim``."""
    if not isinstance(value, list | tuple):
        raise fail(pointer, f"expected an array, found {describe(value)}", section)
    for index, item in enumerate(value):
        where = f"{pointer}/{index}"
        if ndim > 1:
            check_numbers(item, ndim - 1, where, section)
        elif isinstance(item, bool) or not isinstance(item, int | float):
            raise fail(where, f"expected a number, found {describe(item)}", section)


def float_array_field(
    value: object, shape: tuple[int | None, ...], pointer: str, section: str
) -> FloatArray:
    """Return ``value`` as a read-only, finite float64 array of ``shape``.

    ``None`` in ``shape`` accepts any length of at least 1 along that axis.
    """
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "fiu":
            raise fail(
                pointer, f"expected a numeric array, found {value.dtype}", section
            )
    else:
        check_numbers(value, len(shape), pointer, section)
    try:
        array = np.array(value, dtype=np.float64)
    except ValueError as exc:  # ragged nested lists
        raise fail(pointer, "rows have different lengths", section) from exc
    wanted = "(" + ", ".join("K" if n is None else str(n) for n in shape) + ")"
    if array.ndim != len(shape) or any(
        (size < 1) if n is None else (size != n)
        for size, n in zip(array.shape, shape, strict=False)
    ):
        raise fail(pointer, f"expected shape {wanted}, found {array.shape}", section)
    bad = np.argwhere(~np.isfinite(array))
    if bad.size:
        where = "".join(f"/{int(i)}" for i in bad[0])
        raise fail(f"{pointer}{where}", "non-finite number", section)
    array = array + 0.0  # copy, and fold -0.0 into 0.0
    array.setflags(write=False)
    return array


def json_object_field(
    obj: object, keys: tuple[str, ...], where: str, section: str
) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise fail(
            where or "/", f"expected a JSON object, found {describe(obj)}", section
        )
    for key in keys:
        if key not in obj:
            raise fail(f"{where}/{key}", "required key is missing", section)
    for key in sorted(str(key) for key in obj):
        if key not in keys:
            raise fail(f"{where}/{key}", "unknown key", section)
    return obj


def with_prefix(exc: SchemaError, where: str) -> SchemaError:
    if not where:
        return exc
    return SchemaError(f"{where}{exc.reason}", section=exc.section)


def identity(value: DataclassInstance) -> tuple[object, ...]:
    """Hashable field tuple of a dataclass, arrays as (shape, bytes)."""
    items: list[object] = []
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if isinstance(item, np.ndarray):
            item = (item.shape, item.tobytes())
        items.append(item)
    return tuple(items)


class StrictJson:
    """Base of the control values: :meth:`from_json` takes exactly their keys.

    A subclass is a dataclass whose fields are ``json_keys`` and whose
    ``__post_init__`` checks them; ``json_section`` names it in errors.
    """

    json_keys: ClassVar[tuple[str, ...]]
    json_section: ClassVar[str]

    @classmethod
    def from_json(cls, obj: object, *, where: str = "") -> Self:
        """Build a value from a parsed JSON object, strictly.

        Parameters
        ----------
        obj
            The value produced by ``to_json`` (after a JSON round trip);
            every key is required and no other is accepted.
        where
            JSON pointer of ``obj`` in a larger document, prefixed to error
            locations.

        Returns
        -------
        Self
            The validated value.

        Raises
        ------
        SchemaError
            Not an object, a missing or unknown key, or an invalid field.
        """
        fields = json_object_field(obj, cls.json_keys, where, cls.json_section)
        try:
            return cls(**{key: fields[key] for key in cls.json_keys})
        except SchemaError as exc:
            raise with_prefix(exc, where) from exc

    def to_json(self) -> dict[str, Any]:
        """Return the value as a JSON object with exactly its ``json_keys``.

        Enums become their values, tuples lists and arrays nested lists.
        """
        return {key: _json_value(getattr(self, key)) for key in self.json_keys}


def _json_value(value: Any) -> Any:
    """Return one field of a control value as JSON."""
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return list(value)
    return value


class ArrayEquality:
    """Equality and hash of a frozen dataclass (``eq=False``) holding arrays."""

    def __eq__(self, other: object) -> bool:
        """Compare every field, arrays element-wise."""
        if not isinstance(other, type(self)):
            return NotImplemented
        return identity(cast("DataclassInstance", self)) == identity(
            cast("DataclassInstance", other)
        )

    def __hash__(self) -> int:
        """Hash consistently with ``__eq__``."""
        return hash(identity(cast("DataclassInstance", self)))
