"""Readers of other tools' log formats, shared by that tool's source and simulator.

One package per tool (``skelarm``). A log reader knows the file format and
builds the :class:`~fsr_core.recording.RecordingModel`; the registry-facing
source lives in :mod:`fsr_core.sources`, the re-running simulator in
:mod:`fsr_core.simulators`, and both import the reader from here. Readers of
different tools never import each other; what several read alike (the
``.npy`` header of a numpy archive, :mod:`.npy_header`) stands at the top.
"""
