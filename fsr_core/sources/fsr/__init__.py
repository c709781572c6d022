"""The FSR source: the viewer's own container, read into the recording model.

:mod:`.source` tells the registry how to recognise an FSR file, :mod:`.load`
builds the model (with :mod:`.geometry`, :mod:`.joints` and :mod:`.tail`), and
:mod:`.inspection` writes the ``inspect`` report.
"""

from fsr_core.sources.fsr.load import load_fsr

__all__ = ["load_fsr"]
