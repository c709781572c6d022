"""What a MuJoCo recording adds to the model every FSR file gets: its robot.

The recorder embeds the MJCF model and every file it names (the
``model.files`` stream, listed with sizes and digests in the ``model``
metadata; :mod:`fsr_core.simulation.model_files`). Opened, the
recording carries them as its robot description (``kind`` ``mjcf``: the
MJCF's text, and the other files by the path the MJCF names them with), so
the player draws the robot's ``robot/<body>`` channels and tip trail with no
``--robot``.

The recording's own scene geometry (every body's recorded pose: the arm,
the floor, targets and loose objects) already draws that model as MuJoCo
simulated it, so it stays: the description says so
(:attr:`~fsr_core.recording.RobotDescription.scene_recorded`), and posing it
only adds the channels and the trail.

The embedded files are read back as every simulator's are
(:mod:`fsr_core.simulation.embedded_model`: sizes from the metadata checked
against the budget first, a big model read when first used, every digest
checked). Nothing here needs MuJoCo itself: viewing needs nothing extra,
drawing the model needs the ``mujoco`` extra.
"""

from __future__ import annotations

from fsr_core.recording import RecordingModel
from fsr_core.robots.urdf import MAX_DESCRIPTION_BYTES
from fsr_core.simulation.embedded_model import with_embedded_robot
from fsr_core.simulation.profile import FsrOpening

__all__ = ["MujocoProfile"]


class MujocoProfile:
    """The model of a MuJoCo recording: the generic one, with its robot."""

    def build(self, opening: FsrOpening) -> RecordingModel:
        """Return the model every FSR file gets, carrying the embedded model."""
        return with_embedded_robot(
            opening.generic_model(),
            opening.reader,
            opening.path,
            scene_recorded=True,
            budget_bytes=MAX_DESCRIPTION_BYTES,
        )
