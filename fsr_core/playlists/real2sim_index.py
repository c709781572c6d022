"""``real2sim-replay/v1`` indexes: EmbodiChain's read-only lists of replayable episodes.

EmbodiChain publishes such an index over recorder roots: ``schema``,
``read_only``, ``recordings`` (each dataset and its episode count),
``episodes`` (``dataset``: the root; ``receipt``; ``sources``: the lineage of
each call; ``metadata``: the episode's sidecar row), ``failed_attempts``
(each with its ``detail`` and, when kept, a ``partial_rollout``) and
``source_assets`` (named original videos or calibration, by absolute path).
Every artifact is pinned by ``path`` (inside its dataset root) and
``sha256``.

The index opens as a playlist of the episodes it lists, across datasets
(each an episode address, :mod:`fsr_core.playlists.episodes`). Each episode's
artifacts are checked when the episode is checked or opened
(:meth:`Real2SimEpisode.verify`); a missing, changed or outside-the-root
artifact fails that episode with the reason. The index is read within
:data:`MAX_INDEX_BYTES` (the budget EmbodiChain's own reader applies to
replay metadata); nothing is ever written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Final

from fsr_core.errors import DigestMismatchError, FsrError, IndexFileError
from fsr_core.format.safe_open import open_source
from fsr_core.playlists.episodes import episode_path
from fsr_core.playlists.index_file import json_head

__all__ = [
    "MAX_INDEX_BYTES",
    "REAL2SIM_SCHEMA",
    "PinnedArtifact",
    "Real2SimEpisode",
    "Real2SimIndex",
    "looks_like_real2sim",
    "read_real2sim",
]

REAL2SIM_SCHEMA: Final = "real2sim-replay/v1"
MAX_INDEX_BYTES: Final = 64 << 20
"""The largest index read (64 MiB), as EmbodiChain bounds replay metadata."""
MAX_EPISODES: Final = 1_000_000
_HASH_BLOCK: Final = 1 << 20


@dataclass(frozen=True)
class PinnedArtifact:
    """A file the index pins: where, its SHA-256, and what it is."""

    role: str
    relative: str
    sha256: str
    root: Path
    """The dataset root it must stay inside (its folder for a source asset)."""
    absolute: bool = False

    @property
    def path(self) -> Path:
        """Where the artifact should be."""
        return Path(self.relative) if self.absolute else self.root / self.relative

    def problem(self) -> str:
        """Return why the artifact cannot be trusted ('' when it can)."""
        pure = PurePosixPath(self.relative)
        if not self.absolute and (pure.is_absolute() or ".." in pure.parts):
            return f"{self.role} {self.relative!r} is outside its dataset"
        path = self.path
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError) as exc:
            return f"{self.role} {self.relative!r}: {exc}"
        if not self.absolute and not resolved.is_relative_to(self.root.resolve()):
            return f"{self.role} {self.relative!r} leads outside its dataset"
        try:
            found = _sha256(path)
        except FsrError as exc:
            return (
                f"{self.role} {self.relative!r} is missing or unreadable ({exc.reason})"
            )
        if found != self.sha256:
            return (
                f"{self.role} {self.relative!r} changed: SHA-256 {found[:12]}…, "
                f"the index pins {self.sha256[:12]}…"
            )
        return ""


def _sha256(path: Path) -> str:
    source = open_source(path)
    digest = hashlib.sha256()
    try:
        offset = 0
        while offset < source.size:
            length = min(_HASH_BLOCK, source.size - offset)
            digest.update(source.read_at(offset, length, section="artifact"))
            offset += length
    finally:
        source.close()
    return digest.hexdigest()


@dataclass(frozen=True)
class Real2SimEpisode:
    """One episode an index lists, with the artifacts it pins."""

    path: Path
    """The episode's address (its dataset root joined with ``episode_NNNNNN``)."""
    dataset: Path
    index: int
    artifacts: tuple[PinnedArtifact, ...]
    facts: dict[str, Any] = field(default_factory=dict)
    """What the index says of it: receipt, sources, failed attempts."""

    def problems(self) -> list[str]:
        """Return what is wrong with its artifacts (every one is hashed)."""
        found = [artifact.problem() for artifact in self.artifacts]
        return [problem for problem in found if problem]

    def verify(self) -> None:
        """Refuse the episode when an artifact is missing, changed or outside.

        Raises
        ------
        DigestMismatchError
            The first artifact that fails, and how many others do.
        """
        problems = self.problems()
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise DigestMismatchError(problems[0] + more, path=self.path)


@dataclass(frozen=True)
class Real2SimIndex:
    """A read index: its episodes in order, failed attempts and source assets."""

    path: Path
    episodes: tuple[Real2SimEpisode, ...]
    failed_attempts: tuple[dict[str, Any], ...]
    source_assets: tuple[PinnedArtifact, ...]


def looks_like_real2sim(path: Path) -> bool:
    """Say whether ``path`` is a ``*.json`` file naming ``real2sim-replay/v1``."""
    return REAL2SIM_SCHEMA.encode() in json_head(path)


def _document(path: Path) -> dict[str, Any]:
    source = open_source(path)
    try:
        if source.size > MAX_INDEX_BYTES:
            raise IndexFileError(
                f"an index of {source.size:,} bytes, over its read budget of "
                f"{MAX_INDEX_BYTES:,}",
                path=path,
            )
        data = source.read_at(0, source.size, section="index")
    finally:
        source.close()
    try:
        document = json.loads(data.decode("utf-8"))
    except RecursionError as exc:
        raise IndexFileError("JSON nested too deeply", path=path) from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise IndexFileError(f"not valid JSON: {exc}", path=path) from exc
    if not isinstance(document, dict) or document.get("schema") != REAL2SIM_SCHEMA:
        raise IndexFileError(f"not a {REAL2SIM_SCHEMA} index", path=path)
    return document


def _pins(value: object, role: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Yield ``(role, {path, sha256})`` for every pin found under ``value``."""
    if isinstance(value, Mapping):
        if isinstance(value.get("path"), str) and isinstance(value.get("sha256"), str):
            yield role, value
            return
        for key, item in value.items():
            yield from _pins(item, f"{role}.{key}" if role else str(key))


def _artifacts(row: Mapping[str, Any], root: Path) -> tuple[PinnedArtifact, ...]:
    found: list[PinnedArtifact] = []
    for key in (
        "real2sim_lineage",
        "real2sim_episode_evidence",
        "real2sim_observed_geometry",
        "real2sim_artifacts",
    ):
        for role, pin in _pins(row.get(key), key):
            found.append(
                PinnedArtifact(role, str(pin["path"]), str(pin["sha256"]), root)
            )
    return tuple(found)


def _dataset(index: Path, value: object, number: int) -> Path:
    if not isinstance(value, str) or not value:
        raise IndexFileError(f"episode {number}: no dataset", path=index)
    given = Path(value)
    return given if given.is_absolute() else index.parent / given


def _failed(
    index: Path, items: object
) -> tuple[tuple[dict[str, Any], ...], dict[Path, list[PinnedArtifact]]]:
    """Return the failed attempts and each dataset's partial rollouts to check."""
    attempts: list[dict[str, Any]] = []
    rollouts: dict[Path, list[PinnedArtifact]] = {}
    for number, item in enumerate(items if isinstance(items, list) else [], 1):
        if not isinstance(item, dict):
            raise IndexFileError(
                f"failed attempt {number} is not an object", path=index
            )
        attempts.append(item)
        detail = item.get("detail")
        rollout = detail.get("partial_rollout") if isinstance(detail, dict) else None
        if isinstance(rollout, dict) and isinstance(rollout.get("path"), str):
            root = _dataset(index, item.get("dataset"), number)
            rollouts.setdefault(root, []).append(
                PinnedArtifact(
                    f"partial rollout of failed attempt {number}",
                    str(rollout["path"]),
                    str(rollout.get("sha256", "")),
                    root,
                )
            )
    return tuple(attempts), rollouts


def read_real2sim(path: Path) -> Real2SimIndex:
    """Read the ``real2sim-replay/v1`` index at ``path`` (nothing is hashed yet).

    Raises
    ------
    IndexFileError
        The file is over its budget, not JSON, of another schema, or an
        episode lacks its dataset or LeRobot episode index.
    """
    document = _document(path)
    items = document.get("episodes")
    if not isinstance(items, list):
        raise IndexFileError("'episodes' must be a list", path=path)
    if len(items) > MAX_EPISODES:
        raise IndexFileError(f"more than {MAX_EPISODES:,} episodes", path=path)
    attempts, rollouts = _failed(path, document.get("failed_attempts"))
    episodes: list[Real2SimEpisode] = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise IndexFileError(f"episode {number} is not an object", path=path)
        root = _dataset(path, item.get("dataset"), number)
        row = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
        assert isinstance(row, dict)
        index = row.get("lerobot_episode_index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise IndexFileError(
                f"episode {number}: no lerobot_episode_index in its metadata", path=path
            )
        failed_here = [
            a for a in attempts if _dataset(path, a.get("dataset"), 0) == root
        ]
        episodes.append(
            Real2SimEpisode(
                path=episode_path(root, index),
                dataset=root,
                index=index,
                artifacts=(*_artifacts(row, root), *rollouts.get(root, [])),
                facts={
                    "index": str(path),
                    "receipt": item.get("receipt"),
                    "sources": item.get("sources"),
                    "failed_attempts": failed_here,
                },
            )
        )
    assets = tuple(
        PinnedArtifact(
            f"source asset {name}",
            str(pin["path"]),
            str(pin["sha256"]),
            path.parent,
            absolute=True,
        )
        for name, pin in _pins(document.get("source_assets"), "")
    )
    return Real2SimIndex(path, tuple(episodes), attempts, assets)


def real2sim_episodes(paths: Iterable[Path]) -> dict[Path, Real2SimEpisode]:
    """Return the episodes of every real2sim index among ``paths``, by address."""
    found: dict[Path, Real2SimEpisode] = {}
    for path in paths:
        if looks_like_real2sim(path):
            found.update((e.path, e) for e in read_real2sim(path).episodes)
    return found
