"""The Genesis simulator adapter: re-render and re-simulate ``.gstraj`` trajectories.

Registered in :mod:`fsr_core.simulation.registry`; nothing else imports this
package, and ``genesis`` itself is imported by :mod:`.session` alone, inside
its functions, in this process when it imports here or in a child interpreter
(:mod:`.worker`) named by ``FSR_VIEWER_GENESIS_PYTHON``.

Viewer side (no Genesis): :mod:`.availability` (where Genesis runs),
:mod:`.trajectory_file` (the header of a trajectory), :mod:`.channels` (the
channels a replay writes, named as the Genesis source names them),
:mod:`.request` (what a run is asked to do), :mod:`.comparison` (the verdict),
:mod:`.output` (the FSR file), :mod:`.runner` and :mod:`.replay`. Genesis side:
:mod:`.session` and :mod:`.worker`.
"""
