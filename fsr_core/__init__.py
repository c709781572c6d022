"""FSR Viewer's core: the FSR container, media, calibration and control values.

The public API is re-exported here; everything else is an implementation detail.
Each name is imported on first use, so importing one part of the core (the
reader, for ``inspect``) does not load the writer or the image codecs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsr_core.errors import FsrError
    from fsr_core.format.batching import BatchLimits
    from fsr_core.format.profiles import IntegrityProfile
    from fsr_core.format.reader import FsrReader
    from fsr_core.format.streams import StreamKind, StreamSpec
    from fsr_core.format.writer import FsrWriter
    from fsr_core.media import RGBFrame

__all__ = [
    "BatchLimits",
    "FsrError",
    "FsrReader",
    "FsrWriter",
    "IntegrityProfile",
    "RGBFrame",
    "StreamKind",
    "StreamSpec",
]

# The module each public name comes from.
_HOMES = {
    "BatchLimits": "fsr_core.format.batching",
    "FsrError": "fsr_core.errors",
    "FsrReader": "fsr_core.format.reader",
    "FsrWriter": "fsr_core.format.writer",
    "IntegrityProfile": "fsr_core.format.profiles",
    "RGBFrame": "fsr_core.media",
    "StreamKind": "fsr_core.format.streams",
    "StreamSpec": "fsr_core.format.streams",
}


def __getattr__(name: str) -> object:
    """Import a public name from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'fsr_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the public names with the module's own."""
    return sorted({*globals(), *__all__})
