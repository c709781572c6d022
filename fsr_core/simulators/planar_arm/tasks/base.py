"""What every planar-arm task does alike: its JSON form and, by default, no target.

A task class names its ``kind``, the keys its JSON form requires and the
ones it may leave out; :meth:`TaskJson.from_json` checks an object against
them and hands the fields to the class's ``_from_fields``, and
:meth:`TaskJson.to_json` puts ``kind`` before the class's ``_json_fields``:
by default every field of the task's dataclass, in order, tuples as lists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from fsr_core.simulators.planar_arm.tasks._checks import check_fields, check_time

__all__ = ["TaskJson"]


def _json_value(value: object) -> object:
    """Return ``value`` with every tuple in it a list (``(x, y)`` as ``[x, y]``)."""
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value


class TaskJson:
    """Base of the task classes: the JSON form, and ``active_target`` None."""

    kind: ClassVar[str]
    required_keys: ClassVar[tuple[str, ...]]
    optional_keys: ClassVar[tuple[str, ...]] = ()
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    def to_json(self) -> dict[str, Any]:
        """Return the task as JSON-ready values, ``kind`` first."""
        return {"kind": self.kind, **self._json_fields()}

    @classmethod
    def from_json(cls, obj: object) -> Self:
        """Inverse of :meth:`to_json`; the optional keys take their defaults.

        Parameters
        ----------
        obj
            The task's JSON object (or a TOML ``[task]`` table).

        Returns
        -------
        Self
            The task.

        Raises
        ------
        SchemaError
            Wrong kind, a missing or unknown key, or an invalid value.
        """
        fields = check_fields(obj, cls.kind, cls.required_keys, cls.optional_keys)
        return cls._from_fields(fields)

    def active_target(self, t_s: float) -> int | None:
        """Return None: the task has no targets."""
        check_time(t_s)
        return None

    def _json_fields(self) -> dict[str, Any]:
        """Return the fields of the JSON form but ``kind``: the dataclass's fields."""
        return {
            item.name: _json_value(getattr(self, item.name))
            for item in dataclasses.fields(self)
        }

    @classmethod
    def _from_fields(cls, fields: Mapping[str, Any]) -> Self:
        """Build the task from checked fields (kind and keys already checked)."""
        raise NotImplementedError
