"""FSR Viewer's core: the FSR container, media, calibration and control values.

The public API is re-exported here; everything else is an implementation detail.
"""

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
