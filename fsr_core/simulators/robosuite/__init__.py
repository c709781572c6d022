"""The robosuite simulator adapter: re-render and re-simulate robosuite episodes.

A robosuite-layout HDF5 episode (robosuite's ``gather_demonstrations_as_hdf5``
or robomimic's files: ``data/demo_N/{states, actions}``, the demo's
``model_file``, ``env_args`` of ``data``) is replayed through robosuite's own
environment rebuilt from ``env_args`` and the episode's MJCF.

Registered in :mod:`fsr_core.simulation.registry`; nothing else imports this
package, and ``robosuite`` itself is imported by :mod:`.session` alone, inside
its functions, in this process when it imports here or in a child interpreter
(:mod:`.worker`) named by ``FSR_VIEWER_ROBOSUITE_PYTHON``.

Viewer side (no robosuite): :mod:`.availability` (where robosuite runs),
:mod:`.episode_file` (the episode read with h5py), :mod:`.request` (what a
run is asked to do), :mod:`.divergence` (the state comparison),
:mod:`.output` (the FSR file), :mod:`.runner`, :mod:`.replay` and
:mod:`.adapter`. robosuite side: :mod:`.session` and :mod:`.worker`.
"""
