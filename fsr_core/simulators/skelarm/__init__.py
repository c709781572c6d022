"""The skelarm simulator adapter: re-runs skelarm scenarios in a child Python >= 3.12.

Registered in :mod:`fsr_core.simulation.registry`; nothing else imports this package.
skelarm itself is never imported into the viewer's process (see :mod:`.worker`).
"""
