"""A value read on first use, once, whichever thread asks first.

:class:`LoadOnce` holds a loader; the first :meth:`~LoadOnce.get` runs it under a
lock and keeps what it returned, so a model read from a worker thread and the
GUI thread at once reads its data one time. A loader that fails raises
:class:`~fsr_core.errors.FsrError` naming the file, and every later ``get``
raises the same error again without reading anything: a file that failed to
read does not make each redraw read it again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from fsr_core.errors import FsrError

__all__ = ["LoadOnce"]

T = TypeVar("T")


class LoadOnce(Generic[T]):
    """A value made by ``load`` the first time it is asked for, then kept.

    Parameters
    ----------
    load
        Makes the value; called at most once while it succeeds.
    what
        What the value is, for the error message (``"channel '/odom'"``).
    path
        The file the value comes from, named in the error.
    """

    __slots__ = ("_error", "_load", "_lock", "_path", "_value", "_what")

    def __init__(
        self, load: Callable[[], T], *, what: str, path: str | Path | None = None
    ) -> None:
        self._load: Callable[[], T] | None = load
        self._what = what
        self._path = path
        self._value: T | None = None
        self._error: FsrError | None = None
        self._lock = threading.Lock()

    @classmethod
    def ready(cls, value: T) -> LoadOnce[T]:
        """Return a holder of a value that is already there."""
        holder: LoadOnce[T] = cls(lambda: value, what="")
        holder._value = value
        holder._load = None
        return holder

    @property
    def loaded(self) -> bool:
        """Whether the value is there (reading this never loads)."""
        return self._load is None and self._error is None

    @property
    def error(self) -> FsrError | None:
        """The error loading raised, when it failed (reading this never loads)."""
        return self._error

    def get(self) -> T:
        """Return the value, loading it on the first call.

        Raises
        ------
        FsrError
            The loader failed (now or on an earlier call); the message names
            the file.
        """
        if self._load is None and self._error is None:
            return self._value  # type: ignore[return-value]
        with self._lock:
            if self._error is not None:
                raise self._error.with_traceback(None)
            if self._load is not None:
                self._value = self._run(self._load)
                self._load = None
        return self._value  # type: ignore[return-value]

    def _run(self, load: Callable[[], T]) -> T:
        try:
            return load()
        except FsrError as exc:
            self._error = exc.locate(path=self._path) if self._path else exc
            raise
        except Exception as exc:
            self._error = FsrError(
                f"{self._what or 'data'} could not be read: "
                f"{type(exc).__name__}: {exc}",
                path=self._path,
            )
            raise self._error from exc
