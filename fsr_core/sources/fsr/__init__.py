"""The FSR source: the viewer's own container, read into the recording model.

:mod:`.source` tells the registry how to recognise an FSR file, :mod:`.load`
builds the model (with :mod:`.geometry`, :mod:`.joints` and :mod:`.tail`), and
:mod:`.inspection_report` writes the ``inspect`` report. :func:`load_fsr` is imported
on first use, so the registry and ``inspect`` do not load the model builder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsr_core.sources.fsr.load import load_fsr

__all__ = ["load_fsr"]


def __getattr__(name: str) -> object:
    """Import :func:`load_fsr` the first time it is asked for."""
    if name != "load_fsr":
        raise AttributeError(f"module 'fsr_core.sources.fsr' has no attribute {name!r}")
    from fsr_core.sources.fsr.load import load_fsr

    return load_fsr
