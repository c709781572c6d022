"""Recording sources: what each one offers, and the registry that finds them.

A *source* turns one kind of file into a :class:`~fsr_core.recording.RecordingModel`.
It gives its ``name`` (``"fsr"``, ``"skelarm"``), a human ``description``, the
file ``patterns`` it reads (for file dialogs and default output names),
``sniff(path)`` (a cheap look at the first bytes, through
:func:`~fsr_core.sources.head.read_head`, that never blocks), ``open(path)`` and
``unavailable_reason()`` (``None``, or what to install). A source may also
``inspect`` a file (:class:`InspectingSource`, the report of
:mod:`fsr_core.sources.inspection`), write it as FSR
(:class:`ConvertingSource`) and read open options such as the time base
(:class:`OptionsSource`, :mod:`fsr_core.sources.open_options`).

The built-in sources are named below by module path and imported with
:mod:`importlib` the first time the registry is used, so this module never
imports a source package. An installed package adds a source through the entry
point group ``fsr_viewer.sources``; the entry point names a source object, a
source class or a function returning a source. A plugin that fails to load, is
not a source or takes a name already used is logged and listed by
:func:`plugin_problems`; every other source keeps working. The entry points
are scanned (which reads every installed package's metadata) the first time
every source is asked for, or a file reaches them: :func:`source_for` sniffs
with the built-ins first, so a file one of them claims never pays for it.
"""

from __future__ import annotations

import fnmatch
import functools
import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol, cast, runtime_checkable

from fsr_core.errors import FsrError, UnknownSourceError
from fsr_core.format.records import describe_foreign_magic
from fsr_core.playlists.episodes import EpisodeEntry, split_episode_path
from fsr_core.recording import RecordingModel
from fsr_core.simulation.plugin_loading import (
    PluginRefusedError,
    admit,
    import_target,
    load_entry_points,
)
from fsr_core.sources.head import read_head
from fsr_core.sources.open_options import OpenOptions

__all__ = [
    "BUILTIN_SOURCES",
    "ENTRY_POINT_GROUP",
    "ConvertingSource",
    "EpisodeSource",
    "FolderSource",
    "FsrConversion",
    "InspectingSource",
    "OptionsSource",
    "Source",
    "episode_file_source",
    "folder_source",
    "known_kinds",
    "plugin_problems",
    "refresh_sources",
    "register_source",
    "source_for",
    "source_named",
    "source_names",
    "sources",
    "unregister_source",
]

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP: Final = "fsr_viewer.sources"
"""The entry point group through which an installed package adds a source."""

BUILTIN_SOURCES: Final = (
    "fsr_core.sources.fsr.source:SOURCE",
    "fsr_core.sources.skelarm.source:SOURCE",
    "fsr_core.sources.mcap.source:SOURCE",
    "fsr_core.sources.genesis.source:SOURCE",
    "fsr_core.sources.lerobot.source:SOURCE",
    "fsr_core.sources.rosbag.source:ROSBAG1",
    "fsr_core.sources.rosbag.source:ROSBAG2",
    "fsr_core.sources.rerun.source:SOURCE",
    "fsr_core.sources.hdf5.source:SOURCE",
    "fsr_core.sources.image_sequence.source:SOURCE",
)
"""``module:attribute`` of each built-in source, in sniffing order."""


@runtime_checkable
class Source(Protocol):
    """What every recording source offers."""

    @property
    def name(self) -> str:
        """Registry name, e.g. ``"fsr"``; ``RecordingModel.source`` of its models."""
        ...

    @property
    def description(self) -> str:
        """What the files are, for people: ``"skelarm state log"``."""
        ...

    @property
    def patterns(self) -> tuple[str, ...]:
        """Glob patterns of the files it reads, most specific first (``*.fsr``)."""
        ...

    def sniff(self, path: Path) -> bool:
        """Say whether ``path`` is this source's kind of file, from its first bytes.

        Raises
        ------
        FsrError
            ``path`` is not a regular file or cannot be opened (never blocks).
        """
        ...

    def open(self, path: Path) -> RecordingModel:
        """Read ``path`` into a recording model.

        Raises
        ------
        FsrError
            The file is unreadable or malformed; the message names it.
        """
        ...

    def unavailable_reason(self) -> str | None:
        """Return ``None`` when the source works here, else what to install."""
        ...


@runtime_checkable
class InspectingSource(Source, Protocol):
    """A source that writes its own inspection report."""

    def inspect(self, path: Path, *, verify: bool = False) -> dict[str, Any]:
        """Return the report of :mod:`fsr_core.sources.inspection` for ``path``.

        With ``verify``, every record is read and checked first.
        """
        ...


@runtime_checkable
class FolderSource(Source, Protocol):
    """A source whose recordings may be folders (a rosbag2 bag, a dataset root)."""

    def sniff_folder(self, path: Path) -> bool:
        """Say whether the folder ``path`` is one of this source's recordings.

        It looks at a few named files only; it never lists a large tree.
        """
        ...


@runtime_checkable
class EpisodeSource(FolderSource, Protocol):
    """A source whose roots are datasets of episodes (a LeRobot dataset folder).

    Each episode is a recording addressed by
    :func:`~fsr_core.playlists.episodes.episode_path`; ``open``, ``inspect``
    and ``to_fsr`` take that address. A root may also be a file its ``sniff``
    claims (an HDF5 file of demonstrations): such a file stands for its
    episodes, or for itself when ``episodes`` lists none (a file holding one
    episode).
    """

    def episodes(self, root: Path) -> tuple[EpisodeEntry, ...]:
        """Return the episodes the dataset's metadata lists, in index order.

        Raises
        ------
        FsrError
            The dataset's metadata is unreadable or malformed.
        """
        ...


@dataclass(frozen=True)
class FsrConversion:
    """An FSR file written from another source's file."""

    output: Path
    records: int
    size_bytes: int
    summary: str
    """What was converted, e.g. ``1001 frames, 6 channels (q, dq, ...)``."""


@runtime_checkable
class ConvertingSource(Source, Protocol):
    """A source whose files can be written as FSR."""

    def to_fsr(
        self, path: Path, output: Path, *, overwrite: bool = False
    ) -> FsrConversion:
        """Write ``path`` as the FSR file ``output``, published once complete.

        Raises
        ------
        FsrError
            ``path`` is unreadable, or ``output`` exists without ``overwrite``.
        """
        ...


@runtime_checkable
class OptionsSource(Source, Protocol):
    """A source that reads some open options (:class:`OpenOptions`).

    Its ``open`` (and ``inspect`` and ``to_fsr``, when it has them) takes
    ``options=``; a source without ``open_options`` is never given any.
    """

    @property
    def open_options(self) -> tuple[str, ...]:
        """The names of the options it reads, e.g. ``("time_base",)``."""
        ...

    def open(self, path: Path, options: OpenOptions | None = None) -> RecordingModel:
        """Read ``path`` into a recording model, as ``options`` ask.

        Raises
        ------
        FsrError
            The file is unreadable or malformed; the message names it.
        """
        ...


@dataclass
class _Registry:
    by_name: dict[str, Source] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    loaded: bool = False
    builtins_loaded: bool = False
    plugins_loaded: bool = False


_STATE = _Registry()
_LOCK = threading.RLock()


def _as_source(found: object, origin: str) -> Source:
    """Return ``found`` as a source: itself, or what a class or factory makes."""
    if isinstance(found, type) or (callable(found) and not isinstance(found, Source)):
        found = found()
    if not isinstance(found, Source):
        raise TypeError(
            f"{origin} gives {type(found).__name__}, not a recording source "
            "(name, description, patterns, sniff, open, unavailable_reason)"
        )
    return found


def _add(found: object, origin: str, state: _Registry) -> None:
    """Register what ``origin`` gave.

    Raises
    ------
    PluginRefusedError
        Its name is taken.
    TypeError
        It is not a source (or anything a plugin's own code raises).
    """
    source = _as_source(found, origin)
    name = source.name
    if name in state.by_name:
        raise PluginRefusedError(f"the source name {name!r} is already taken")
    state.by_name[name] = source


def _note_problem(state: _Registry, problem: str) -> None:
    logger.warning("recording source skipped: %s", problem)
    state.problems.append(problem)


def _register(
    state: _Registry, name: str, origin: str, load: Callable[[], object]
) -> None:
    _add(load(), origin, state)


def _load(state: _Registry) -> None:
    """Import the built-in sources."""
    note = functools.partial(_note_problem, state)
    register = functools.partial(_register, state)
    for target in BUILTIN_SOURCES:
        load = functools.partial(import_target, target)
        admit(target, functools.partial(register, target, target, load), note)


def _load_plugins(state: _Registry) -> None:
    """Register the plugins' entry points, after the built-ins."""
    note = functools.partial(_note_problem, state)
    load_entry_points(ENTRY_POINT_GROUP, functools.partial(_register, state), note)


def _loaded(*, plugins: bool = True) -> _Registry:
    """Return the registry with its built-ins and (``plugins``) its plugins loaded.

    Scanning the entry points reads every installed package's metadata, so
    :func:`source_for` asks for them only when no built-in claims the file.
    """
    with _LOCK:
        if not _STATE.loaded:
            _STATE.loaded = True  # set first: a plugin may ask the registry back
            _load(_STATE)
            _STATE.builtins_loaded = True
        if plugins and _STATE.builtins_loaded and not _STATE.plugins_loaded:
            _STATE.plugins_loaded = True  # likewise
            _load_plugins(_STATE)
        return _STATE


def sources() -> tuple[Source, ...]:
    """Return every registered source, in sniffing order (built-ins first)."""
    with _LOCK:
        return tuple(_loaded().by_name.values())


def source_names() -> tuple[str, ...]:
    """Return the names of every registered source, in sniffing order."""
    return tuple(source.name for source in sources())


def plugin_problems() -> tuple[str, ...]:
    """Return why each source that could not be registered was skipped."""
    with _LOCK:
        return tuple(_loaded().problems)


def register_source(source: Source) -> None:
    """Add ``source`` after those already registered.

    Raises
    ------
    ValueError
        Its name is taken, or it is not a source (a programmer error).
    """
    if not isinstance(source, Source):
        raise TypeError(f"{source!r} is not a recording source")
    with _LOCK:
        state = _loaded()
        if source.name in state.by_name:
            raise ValueError(f"a recording source named {source.name!r} exists")
        state.by_name[source.name] = source


def unregister_source(name: str) -> None:
    """Remove the source called ``name`` (nothing happens if there is none)."""
    with _LOCK:
        _loaded().by_name.pop(name, None)


def refresh_sources() -> None:
    """Forget every source; the next use loads built-ins and entry points again."""
    with _LOCK:
        _STATE.by_name.clear()
        _STATE.problems.clear()
        _STATE.loaded = _STATE.builtins_loaded = _STATE.plugins_loaded = False


def known_kinds() -> str:
    """Describe the registered kinds: ``fsr (FSR recording: *.fsr), ...``."""
    return ", ".join(
        f"{source.name} ({source.description}: "
        f"{', '.join(source.patterns) or 'a folder'})"
        for source in sources()
    )


def _sniffing_order() -> Iterator[Source]:
    """Yield every source in sniffing order, the plugins loaded only if reached."""
    with _LOCK:
        first = tuple(_loaded(plugins=False).by_name.values())
    yield from first
    seen = {id(source) for source in first}
    yield from (source for source in sources() if id(source) not in seen)


def source_named(name: str) -> Source | None:
    """Return the registered source called ``name`` (``None`` when none is).

    The built-ins are looked at first: the plugins load only for another name.
    """
    return next((source for source in _sniffing_order() if source.name == name), None)


def _sniffs(source: Source, path: Path) -> bool:
    try:
        return bool(source.sniff(path))
    except FsrError:
        raise
    except Exception:  # a plugin's bug must not hide the other sources
        logger.warning("source %r failed to sniff %s", source.name, path, exc_info=True)
        return False


def _unknown(path: Path, head: bytes) -> UnknownSourceError:
    known = f"not a recording fsr-viewer knows; the kinds it reads: {known_kinds()}"
    if not head:
        reason = f"empty file, {known}"
    else:
        foreign = describe_foreign_magic(head)
        seen = (
            f"this is {foreign}"
            if foreign
            else "no FSR magic nor any other known signature"
        )
        reason = f"bad magic: {seen}, {known}"
    problems = plugin_problems()
    if problems:
        reason += f"; {len(problems)} source plugin(s) failed: {problems[0]}"
    return UnknownSourceError(reason, path=path)


_KIND_OF: dict[tuple[type, type], bool] = {}


def _is_kind(source: Source, kind: type) -> bool:
    """Return ``isinstance(source, kind)``, once per source class.

    The kinds are runtime-checkable protocols, whose check looks at every
    member: a dataset of a thousand episodes asked it a thousand times.
    """
    key = (type(source), kind)
    found = _KIND_OF.get(key)
    if found is None:
        found = _KIND_OF[key] = isinstance(source, kind)
    return found


def folder_source(path: Path) -> Source | None:
    """Return the source that reads the folder ``path`` as one recording, if any."""
    for found in sources():
        if _is_kind(found, FolderSource):
            source = cast(FolderSource, found)
            try:
                if source.sniff_folder(path):
                    return source
            except FsrError:
                raise
            except Exception:  # a plugin's bug must not hide the other sources
                logger.warning(
                    "source %r failed to sniff folder %s",
                    source.name,
                    path,
                    exc_info=True,
                )
    return None


def episode_file_source(path: Path) -> EpisodeSource | None:
    """Return the source that reads the file ``path`` as a dataset of episodes.

    Only sources of episodes whose ``patterns`` match the file's name sniff
    it, so a file of another kind costs no read.
    """
    name = path.name.lower()
    for source in sources():
        if not any(fnmatch.fnmatch(name, p.lower()) for p in source.patterns):
            continue
        if _is_kind(source, EpisodeSource) and _sniffs(source, path):
            return cast(EpisodeSource, source)
    return None


def _folder_source(path: Path) -> Source:
    found = folder_source(path)
    if found is None:
        raise UnknownSourceError(
            "a folder, and no source reads it as one recording (open it as a "
            "playlist of the recordings it holds)",
            path=path,
        )
    return found


def source_for(path: str | os.PathLike[str]) -> Source:
    """Return the first source whose ``sniff`` recognises the file at ``path``.

    A folder (not a symbolic link to one) goes to the first source whose
    ``sniff_folder`` claims it; an episode address inside a dataset root
    (:mod:`fsr_core.playlists.episodes`) to the source of that root.

    Raises
    ------
    OpenFailedError
        ``path`` is missing, unreadable, or not a regular file (a FIFO, device,
        socket, directory or symbolic link is refused before it is read).
    UnknownSourceError
        No source recognises the file; the message names the file, what it
        looks like and every kind known.
    """
    target = Path(path)
    if target.is_dir() and not target.is_symlink():
        return _folder_source(target)
    episode = split_episode_path(target)
    if episode is not None:
        root = episode[0]
        owner = folder_source(root) if root.is_dir() else episode_file_source(root)
        if isinstance(owner, EpisodeSource):
            return owner
        if episode[0].is_file():  # no source holds recordings in that file
            raise _unknown(target, b"")
    head = read_head(target)
    for source in _sniffing_order():
        if _sniffs(source, target):
            return source
    raise _unknown(target, head)
