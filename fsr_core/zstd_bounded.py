"""One zstd frame decompressed within a bound, whatever its header claims.

Given a frame whose header states its content size, zstd allocates that
size whatever ``max_output_size`` says: a hostile header could ask for any
amount. :func:`zstd_bounded` refuses a claim over the bound before anything
is made, and bounds a frame that states no size by ``max_output_size``. Each
thread reuses one decompressor (making one costs more than a small chunk).
Used for MCAP chunks and Genesis trajectory chunks.
"""

from __future__ import annotations

import threading
from typing import Any, Final

from fsr_core.errors import DecodeError

__all__ = ["zstd_bounded"]

_PER_THREAD: Final = threading.local()


def _decompressor(zstandard: Any) -> Any:
    found = getattr(_PER_THREAD, "zstd", None)
    if found is None:
        found = _PER_THREAD.zstd = zstandard.ZstdDecompressor()
    return found


def zstd_bounded(data: bytes | memoryview, bound: int, what: str) -> bytes:
    """Return the frame ``data`` decompressed, at most ``bound`` bytes.

    Raises
    ------
    ImportError
        The ``zstandard`` package is missing (the caller names its extra).
    DecodeError
        The header claims more than ``bound`` bytes, or the frame does not
        decompress within it; the message starts with ``what``.
    """
    import zstandard

    try:
        claimed = zstandard.frame_content_size(data)
        if claimed > bound:
            raise DecodeError(f"{what} claims {claimed} bytes, more than {bound}")
        found: bytes = _decompressor(zstandard).decompress(data, max_output_size=bound)
    except zstandard.ZstdError as exc:
        raise DecodeError(f"{what} does not decompress: {exc}") from None
    return found
