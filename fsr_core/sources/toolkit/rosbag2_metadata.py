"""A rosbag2 bag folder's ``metadata.yaml``, as the MCAP and ROS bag sources read it.

Each source claims a bag folder whose file names its storage plugin:
:func:`names_storage` reads the file's first mebibyte as text and looks for
the name, never parsing the YAML, so a ``sniff`` stays cheap and never blocks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from fsr_core.errors import FsrError
from fsr_core.sources.head import read_head

__all__ = ["MAX_METADATA_BYTES", "METADATA_FILE", "names_storage"]

METADATA_FILE: Final = "metadata.yaml"
"""The file rosbag2 writes beside a bag's storage files."""
MAX_METADATA_BYTES: Final = 1 << 20
"""Most of ``metadata.yaml`` read."""


def names_storage(folder: Path, storage: str) -> bool:
    """Whether ``folder`` holds a rosbag2 ``metadata.yaml`` naming ``storage``.

    ``storage`` is the plugin's name as the file writes it (``mcap``,
    ``sqlite3``); a missing, linked or unreadable file names none.
    """
    metadata = folder / METADATA_FILE
    if metadata.is_symlink() or not metadata.is_file():
        return False
    try:
        text = read_head(metadata, MAX_METADATA_BYTES).decode("utf-8", "replace")
    except FsrError:
        return False
    return "rosbag2_bagfile_information" in text and storage in text
