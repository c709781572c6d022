"""What the Genesis source and the Genesis simulator both need of a trajectory.

The source (:mod:`fsr_core.sources.genesis`) opens trajectories in the viewer;
the simulator (:mod:`fsr_core.simulators.genesis`) writes replays whose
channels must be named exactly as the source names them, so that a replay
pairs with its recording channel by channel. Neither may import the other;
both take the naming rules from :mod:`.naming` and the rows of a manifest's
field lists from :mod:`.field_rows`.
"""
