"""A rosbag2 bag compressed per file, inflated within the memory budget.

rosbag2 can compress each storage file whole with zstd (``compression_mode:
file``: ``name.db3.zstd``); SQLite reads only the inflated file, which
``rosbags`` would write to a scratch folder however large the stream says,
or grows, it is. Here each file is inflated by this module instead, into a
scratch folder the open bag owns: a frame whose header states its size is
refused before anything is written when the sizes together claim more than
the memory budget, and every stream is inflated a block at a time, stopped
the moment it passes the budget (the ``rosbags`` writer states no size).
The scratch folder then holds the same bag uncompressed (its
``metadata.yaml`` saying so), which ``rosbags`` opens as any other.
"""

from __future__ import annotations

import io
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Final

from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import CorruptRecordError, DecodeError
from fsr_core.sources.head import read_head
from fsr_core.sources.rosbag.chunk_limits import zstd_module
from fsr_core.sources.toolkit.rosbag2_metadata import (
    MAX_METADATA_BYTES,
    METADATA_FILE,
)

__all__ = ["InflatedBag", "inflated_bag"]

_BLOCK_BYTES: Final = 1 << 20
"""Compressed bytes read, and inflated bytes made, at a time."""
_FRAME_HEADER_BYTES: Final = 18
"""The longest zstd frame header: where a frame states its content size."""


@dataclass
class InflatedBag:
    """The uncompressed copy of a bag, in a scratch folder removed on close."""

    path: Path
    scratch: tempfile.TemporaryDirectory[str]
    files: tuple[str, ...]
    """The bag's own (compressed) storage files, by name."""

    def close(self) -> None:
        """Remove the scratch folder (once)."""
        self.scratch.cleanup()


def _metadata(folder: Path) -> dict[str, Any] | None:
    """Return the bag's ``rosbag2_bagfile_information`` (``None``: none)."""
    from ruamel.yaml import YAML

    text = read_head(folder / METADATA_FILE, MAX_METADATA_BYTES).decode("utf-8")
    loaded = YAML(typ="safe").load(text)
    found = (
        loaded.get("rosbag2_bagfile_information") if isinstance(loaded, dict) else None
    )
    return found if isinstance(found, dict) else None


def _claimed(source: Path) -> int | None:
    """Return the size the file's first frame states (``None``: not stated)."""
    zstd = zstd_module()
    head = read_head(source, _FRAME_HEADER_BYTES)
    try:
        size = zstd.get_frame_info(head).decompressed_size
    except (zstd.ZstdError, ValueError, TypeError) as exc:
        raise DecodeError(f"{source.name}: no zstd frame: {exc}") from None
    return None if size is None else int(size)


def _inflate(source: Path, target: Path, used: int, folder: Path) -> int:
    """Inflate ``source`` into ``target`` after ``used`` bytes; return its size.

    Raises
    ------
    LimitExceededError
        ``used`` and the stream grow past the memory budget (it stops there).
    DecodeError
        The data are no zstd stream, or end inside a frame.
    """
    zstd = zstd_module()
    written = 0
    decompressor = zstd.ZstdDecompressor()
    with source.open("rb") as bio, target.open("xb") as out:
        pending = b""
        while True:
            if decompressor.eof:
                pending = decompressor.unused_data + bio.read(_BLOCK_BYTES)
                if not pending:
                    break
                decompressor = zstd.ZstdDecompressor()  # the next frame
            elif decompressor.needs_input:
                pending = bio.read(_BLOCK_BYTES)
                if not pending:
                    raise DecodeError(f"{source.name}: the zstd stream is cut off")
            try:
                block = decompressor.decompress(pending, max_length=_BLOCK_BYTES)
            except zstd.ZstdError as exc:
                raise DecodeError(
                    f"{source.name}: zstd data do not decompress: {exc}"
                ) from None
            pending = b""
            written += len(block)
            check_budget(
                MEMORY,
                used + written,
                f"the bag's files inflated, at least (stopped in "
                f"{source.name[:80]!r}),",
                path=folder,
            )
            out.write(block)
    return written


def _uncompressed_metadata(info: dict[str, Any], names: list[str]) -> str:
    """Return the bag's metadata naming ``names``, compression none."""
    from ruamel.yaml import YAML

    renamed = dict(zip(info["relative_file_paths"], names, strict=True))
    copy = dict(info)
    copy["compression_format"] = ""
    copy["compression_mode"] = ""
    copy["relative_file_paths"] = names
    copy["files"] = [
        {**item, "path": renamed.get(item.get("path"), item.get("path"))}
        if isinstance(item, dict)
        else item
        for item in info.get("files", []) or []
    ]
    stream = io.StringIO()
    YAML(typ="safe").dump({"rosbag2_bagfile_information": copy}, stream)
    return stream.getvalue()


def inflated_bag(folder: Path) -> InflatedBag | None:
    """Return the uncompressed copy of a bag compressed per file (else ``None``).

    Raises
    ------
    LimitExceededError
        The files' frames state more than the memory budget together (nothing
        inflated), or a stream grows past it.
    DecodeError
        A file is no zstd stream, or is cut off.
    CorruptRecordError
        The metadata's file list is unreadable.
    """
    if not folder.is_dir():
        return None
    info = _metadata(folder)
    if info is None or str(info.get("compression_mode", "")).lower() != "file":
        return None
    listed = info.get("relative_file_paths")
    if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
        raise CorruptRecordError("metadata.yaml lists no storage files", path=folder)
    sources = [folder / PurePath(name).name for name in listed]
    for source in sources:
        if not source.is_file():
            raise CorruptRecordError(
                f"storage file {source.name!r} missing", path=folder
            )
    stated = [_claimed(source) for source in sources]
    check_budget(
        MEMORY,
        sum(size for size in stated if size is not None),
        "the bag's files inflated, as their zstd frames state,",
        path=folder,
    )
    scratch = tempfile.TemporaryDirectory(prefix="fsr-rosbag2-")
    try:
        target = Path(scratch.name)
        names = [PurePath(source.name).stem for source in sources]
        used = 0
        for source, name in zip(sources, names, strict=True):
            used += _inflate(source, target / name, used, folder)
        (target / METADATA_FILE).write_text(_uncompressed_metadata(info, names))
    except BaseException:
        scratch.cleanup()
        raise
    return InflatedBag(target, scratch, tuple(source.name for source in sources))
