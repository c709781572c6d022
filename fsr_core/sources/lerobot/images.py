"""Camera features stored as images: PNG or JPEG bytes inside the data parquet.

A frame is read on demand: the one column of the one row group that holds
the row, kept per thread while the next frames come from the same group, and
decoded through the media codecs (size checked against the pixel budget
before any pixel is made).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsr_core.errors import DecodeError, FsrError
from fsr_core.media import RGBFrame, decode_frame
from fsr_core.sources.lerobot.parquet import guarded, open_parquet, read_table

__all__ = ["ImageColumn", "image_codec"]

_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8\xff"


def image_codec(data: bytes) -> str:
    """Return the codec name of image bytes from their signature.

    Raises
    ------
    DecodeError
        They are neither PNG nor JPEG.
    """
    if data.startswith(_PNG):
        return "png"
    if data.startswith(_JPEG):
        return "jpeg"
    raise DecodeError("an image that is neither PNG nor JPEG")


_LOCAL = threading.local()


@dataclass(frozen=True)
class ImageColumn:
    """One image feature of one data file."""

    path: Path
    key: str
    size: tuple[int, int]
    """Declared ``(width, height)``."""

    def _group_values(self, group: int) -> list[Any]:
        cached = getattr(_LOCAL, "group", None)
        wanted = (str(self.path), self.key, group)
        if cached is not None and cached[0] == wanted:
            values: list[Any] = cached[1]
            return values
        handle = open_parquet(self.path)
        table = read_table(
            self.path, handle, [self.key], [group], bytes_per_row=1 << 16
        )
        if self.key not in table.column_names:
            raise DecodeError(f"no image column {self.key!r}", path=self.path)
        values = guarded(
            self.path,
            f"image column {self.key!r}",
            lambda: table.column(self.key).to_pylist(),
        )
        _LOCAL.group = (wanted, values)
        return values

    def payload(self, group: int, offset: int) -> bytes:
        """Return the encoded image at ``offset`` of row group ``group``."""
        values = self._group_values(group)
        if not 0 <= offset < len(values):
            raise DecodeError(
                f"row {offset} of row group {group} is missing", path=self.path
            )
        item = values[offset]
        data = item.get("bytes") if isinstance(item, dict) else item
        if not isinstance(data, bytes) or not data:
            raise DecodeError(
                f"{self.key}: row {offset} of row group {group} holds no image bytes",
                path=self.path,
            )
        return data

    def frame(self, group: int, offset: int) -> RGBFrame:
        """Decode the image at ``offset`` of row group ``group``."""
        data = self.payload(group, offset)
        width, height = self.size
        try:
            return decode_frame(image_codec(data), data, width=width, height=height)
        except FsrError as exc:
            raise exc.with_path(self.path) from None
