"""The robosuite episode a replay reads: its environment, model, states and actions.

Read here with h5py (the ``hdf5`` extra), not through the HDF5 source (no
simulator imports a source): ``data/demo_N`` of a file in the robomimic
layout, whose ``data`` group names the environment either in robomimic's
``env_args`` (JSON, ``type`` 1 for robosuite: ``env_name``, ``env_kwargs``)
or in robosuite's own ``env`` and ``env_info`` attributes
(``gather_demonstrations_as_hdf5``). Each demo holds its ``model_file`` (the
MJCF of the scene it was recorded in), ``states`` (MuJoCo's flattened state:
time, qpos, qvel per step) and ``actions``.

An episode is addressed like every dataset episode, ``<file>/episode_000003``
(:mod:`fsr_core.playlists.episodes`), for ``demo_3``; the file itself means its
first episode. Sizes are checked against the memory budget before a read.
The file is opened without HDF5's file locking, as the HDF5 source opens it:
an episode open in the window is replayed while the source holds the file.
"""

from __future__ import annotations

import contextlib
import json
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import FsrError, ReplayError, SourceUnavailableError
from fsr_core.playlists.episodes import split_episode_path

__all__ = [
    "DEFAULT_RATE_HZ",
    "HDF5_MAGIC",
    "IMAGE_SUFFIX",
    "Episode",
    "find_episode",
    "is_hdf5_file",
    "read_model_file",
    "read_rows",
]

HDF5_MAGIC: Final = b"\x89HDF\r\n\x1a\n"
DEFAULT_RATE_HZ: Final = 20.0
"""robosuite's default control frequency, when the file names none."""
IMAGE_SUFFIX: Final = "_image"
"""How robosuite names a camera's observation: ``agentview_image``."""
MAX_ATTRIBUTE_BYTES: Final = 64 << 20
"""Largest ``env_args`` or ``model_file`` text read."""
_DEMO: Final = re.compile(r"^demo_([0-9]{1,9})$")
_H5_ERRORS: Final = (OSError, KeyError, ValueError, RuntimeError, TypeError)


@dataclass(frozen=True)
class Episode:
    """One robosuite episode of an HDF5 file, as far as its attributes tell."""

    file: Path
    index: int
    group: str
    """``data/demo_3``."""
    env_name: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    rate_hz: float = DEFAULT_RATE_HZ
    steps: int = 0
    """Rows of ``states``."""
    state_width: int = 0
    action_rows: int = 0
    action_width: int = 0
    observed_cameras: tuple[str, ...] = ()
    """The cameras whose images the episode holds (``obs/<camera>_image``)."""

    @property
    def name(self) -> str:
        """What the file calls it (``demo_3``)."""
        return self.group.rsplit("/", 1)[-1]

    @property
    def recorded_cameras(self) -> tuple[str, ...]:
        """The cameras the recording observed (``env_kwargs.camera_names``)."""
        names = self.env_kwargs.get("camera_names")
        if isinstance(names, str):
            return (names,)
        if isinstance(names, list):
            return tuple(str(name) for name in names)
        return ()

    @property
    def recorded_size(self) -> tuple[int, int]:
        """The recorded cameras' (width, height), robosuite's 256 by default."""

        def first(key: str) -> int:
            value = self.env_kwargs.get(key, 256)
            value = value[0] if isinstance(value, list) and value else value
            return int(value) if isinstance(value, int | float) else 256

        return first("camera_widths"), first("camera_heights")


def _h5py(path: Path) -> Any:
    try:
        import h5py
    except ImportError:
        raise SourceUnavailableError(
            "replaying a robosuite episode reads it with h5py "
            "(pip install 'fsr-viewer[hdf5]')",
            path=path,
        ) from None
    return h5py


@contextlib.contextmanager
def _reading(path: Path, what: str) -> Iterator[None]:
    """Turn what h5py raises while doing ``what`` into one :class:`ReplayError`."""
    try:
        yield
    except FsrError:
        raise
    except _H5_ERRORS as exc:
        detail = (str(exc).strip() or type(exc).__name__).splitlines()[0][:300]
        raise ReplayError(f"{what}: {detail}", path=path) from None


def _text(value: Any, what: str, path: Path) -> str:
    if isinstance(value, bytes | np.bytes_):
        if len(value) > MAX_ATTRIBUTE_BYTES:
            raise ReplayError(f"{what} is larger than 64 MiB", path=path)
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        return value
    if hasattr(value, "shape") and getattr(value, "shape", None) == ():
        return _text(value.item(), what, path)
    raise ReplayError(f"{what} is not text", path=path)


def _environment(data: Any, path: Path) -> tuple[str, dict[str, Any]]:
    """Return the environment's name and keyword arguments the file names."""
    attrs = data.attrs
    if "env_args" in attrs:
        try:
            args = json.loads(_text(attrs["env_args"], "env_args", path))
        except ValueError:
            raise ReplayError("data@env_args is not JSON", path=path) from None
        if not isinstance(args, dict) or args.get("type") != 1:
            raise ReplayError(
                "data@env_args does not describe a robosuite environment "
                "(robomimic's type 1)",
                path=path,
            )
        kwargs = args.get("env_kwargs")
        return str(args.get("env_name", "")), dict(kwargs or {})
    if "env" in attrs:
        info: Any = {}
        if "env_info" in attrs:
            with contextlib.suppress(ValueError):
                info = json.loads(_text(attrs["env_info"], "env_info", path))
        kwargs = {k: v for k, v in dict(info or {}).items() if k != "env_name"}
        return _text(attrs["env"], "env", path), kwargs
    raise ReplayError(
        "the file names no robosuite environment (neither data@env_args nor data@env)",
        path=path,
    )


def _rate(kwargs: dict[str, Any]) -> float:
    value = kwargs.get("control_freq")
    if isinstance(value, int | float) and np.isfinite(value) and value > 0:
        return float(value)
    return DEFAULT_RATE_HZ


def _demos(data: Any) -> list[tuple[int, str]]:
    found = []
    for key in data:
        match = _DEMO.match(key)
        if match is not None:
            found.append((int(match.group(1)), key))
    return sorted(found)


def _shape(group: Any, name: str, path: Path) -> tuple[int, int]:
    if name not in group:
        return 0, 0
    shape = tuple(group[name].shape)
    if len(shape) != 2:
        raise ReplayError(
            f"{group.name}/{name} has shape {list(shape)}; expected (steps, width)",
            path=path,
        )
    return int(shape[0]), int(shape[1])


def _observed_cameras(group: Any) -> tuple[str, ...]:
    """Return the cameras of the episode's ``obs/<camera>_image`` arrays."""
    observations = group.get("obs")
    if observations is None or not hasattr(observations, "keys"):
        return ()
    return tuple(
        str(key)[: -len(IMAGE_SUFFIX)]
        for key in observations
        if str(key).endswith(IMAGE_SUFFIX) and len(str(key)) > len(IMAGE_SUFFIX)
    )


def is_hdf5_file(path: Path) -> bool:
    """Say whether ``path`` (or the file of an episode address) starts as HDF5 does.

    Reads the eight bytes of the HDF5 signature, nothing else: which layout
    the file follows is :func:`find_episode`'s to say.
    """
    found = split_episode_path(path)
    file = path if found is None else found[0]
    try:
        # A regular file only: a FIFO or a device would block the read.
        if not stat.S_ISREG(file.stat().st_mode):
            return False
        with file.open("rb") as handle:
            return handle.read(len(HDF5_MAGIC)) == HDF5_MAGIC
    except OSError:
        return False


def find_episode(address: Path) -> Episode:
    """Return the episode ``address`` names (the file alone: its first episode).

    Raises
    ------
    ReplayError
        The file cannot be read, is not a robosuite file, or has no such
        episode (the message lists the ones it has).
    SourceUnavailableError
        h5py is not installed (the message names the extra).
    """
    found = split_episode_path(address)
    file, wanted = (address, None) if found is None else found
    h5py = _h5py(file)
    with (
        _reading(file, "cannot read the HDF5 file"),
        h5py.File(file, "r", locking=False) as handle,
    ):
        data = handle.get("data")
        if data is None:
            raise ReplayError(
                "no data group: a robosuite file holds data/demo_N", path=file
            )
        env_name, kwargs = _environment(data, file)
        demos = _demos(data)
        if not demos:
            raise ReplayError("no data/demo_N episode in the file", path=file)
        chosen = demos[0] if wanted is None else None
        for index, key in demos:
            if index == wanted:
                chosen = (index, key)
        if chosen is None:
            names = ", ".join(key for _, key in demos[:5])
            more = ", ..." if len(demos) > 5 else ""
            raise ReplayError(
                f"no episode {wanted}; the file has {len(demos)} ({names}{more})",
                path=file,
            )
        group = data[chosen[1]]
        if "states" not in group or "model_file" not in group.attrs:
            raise ReplayError(
                f"{group.name} has no states or no model_file; both are needed "
                "to rebuild and replay it",
                path=file,
            )
        steps, width = _shape(group, "states", file)
        rows, action_width = _shape(group, "actions", file)
        observed = _observed_cameras(group)
    return Episode(
        file=file,
        index=chosen[0],
        group=f"data/{chosen[1]}",
        env_name=env_name,
        env_kwargs=kwargs,
        rate_hz=_rate(kwargs),
        steps=steps,
        state_width=width,
        action_rows=rows,
        action_width=action_width,
        observed_cameras=observed,
    )


def read_rows(episode: Episode, name: str) -> npt.NDArray[np.float64]:
    """Return the episode's ``states`` or ``actions`` as float64 rows.

    Raises
    ------
    LimitExceededError
        The array is larger than the memory budget (checked before reading).
    ReplayError
        h5py cannot read it.
    """
    file = episode.file
    h5py = _h5py(file)
    what = f"cannot read {episode.group}/{name}"
    with _reading(file, what), h5py.File(file, "r", locking=False) as handle:
        dataset = handle[f"{episode.group}/{name}"]
        check_budget(
            MEMORY,
            float(np.prod(dataset.shape)) * 8.0,
            f"{episode.group}/{name}",
            path=file,
        )
        values: npt.NDArray[np.float64] = np.asarray(dataset[()], dtype=np.float64)
    return values


def read_model_file(episode: Episode) -> bytes:
    """Return the episode's ``model_file`` (the MJCF robosuite rebuilds it from).

    Raises
    ------
    ReplayError
        h5py cannot read it, it is not text, or it is larger than 64 MiB.
    """
    file = episode.file
    h5py = _h5py(file)
    what = f"cannot read {episode.group}@model_file"
    with _reading(file, what), h5py.File(file, "r", locking=False) as handle:
        value = handle[episode.group].attrs["model_file"]
        text = _text(value, f"{episode.group}@model_file", file)
    return text.encode("utf-8")
