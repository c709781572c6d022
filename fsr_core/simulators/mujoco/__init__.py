"""The MuJoCo adapter: record MuJoCo runs to FSR, re-render and re-simulate them.

MuJoCo is optional (``pip install 'fsr-viewer[mujoco]'``). Every module here
imports it lazily through :func:`fsr_core.simulators.mujoco.runtime.import_mujoco`,
so ``fsr_core`` imports, and a MuJoCo recording opens in the player, without it.
"""
