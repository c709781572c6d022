"""The skelarm log source: ``*.sklog.npz`` state logs, opened without skelarm.

:mod:`.source` tells the registry how to recognise a log; the reading itself is
:mod:`fsr_core.logs.skelarm`, which the skelarm simulator shares.
"""
