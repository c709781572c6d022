"""File → Load Robot Model…: draw the playing recording with a robot, remembered.

The chosen description (URDF or MJCF) reopens the playing recording with it
(as ``--robot`` would), and the choice is remembered for the recording's
``robot_type`` (a LeRobot dataset's) and for its dataset (the dataset root of
an episode, else the recording's folder): the next recording of that robot or
of that dataset, opened without a robot of its own, is drawn with it too.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Final

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QWidget

from app.window.state.session import PlayerSession
from fsr_core.playlists.episodes import split_episode_path
from fsr_core.recording import RecordingModel
from fsr_core.robots import RobotRequest

__all__ = ["DESCRIPTION_FILTER", "RobotMemory", "remembered_keys"]

DESCRIPTION_FILTER: Final = "Robot descriptions (*.urdf *.xml *.mjcf);;All files (*)"
_GROUP: Final = "robots"


def remembered_keys(model: RecordingModel) -> list[str]:
    """Return the keys a robot choice is remembered by, most specific first."""
    keys = []
    robot_type = model.metadata.get("robot_type")
    if isinstance(robot_type, str) and robot_type:
        keys.append(f"robot_type:{robot_type}")
    split = split_episode_path(model.path)
    dataset = split[0] if split is not None else model.path.parent
    keys.append(f"dataset:{dataset.resolve()}")
    return keys


class RobotMemory:
    """Which robot description was chosen, per robot type and per dataset."""

    def __init__(self, store: QSettings) -> None:
        self._store = store

    def _key(self, key: str) -> str:
        # QSettings keys treat "/" and "\\" as groups: keep them in the value.
        return f"{_GROUP}/{key.replace('/', '|').replace(chr(92), '|')}"

    def recall(self, model: RecordingModel) -> Path | None:
        """Return the description remembered for ``model`` that still exists."""
        for key in remembered_keys(model):
            value = self._store.value(self._key(key))
            if isinstance(value, str) and value and Path(value).is_file():
                return Path(value)
        return None

    def remember(self, model: RecordingModel, description: Path) -> None:
        """Remember ``description`` for ``model``'s robot type and dataset."""
        for key in remembered_keys(model):
            self._store.setValue(self._key(key), str(description.resolve()))

    def draw_remembered(self, session: PlayerSession, model: RecordingModel) -> bool:
        """Reopen ``model`` with its remembered robot when it has none drawn.

        Returns whether it reopens. A recording with a robot already (its
        own, or ``--robot``) is left as it is.
        """
        if "robot" in model.metadata or session.open_options.robot is not None:
            return False
        description = self.recall(model)
        if description is None:
            return False
        request = RobotRequest(path=description, required=False)
        return session.reopen(replace(session.open_options, robot=request))

    def choose(self, parent: QWidget, session: PlayerSession) -> bool:
        """Ask for a description, draw the playing recording with it, remember it."""
        model = session.model
        if model is None:
            return False
        name, _ = QFileDialog.getOpenFileName(
            parent, "Load a robot model (URDF or MJCF)", "", DESCRIPTION_FILTER
        )
        if not name:
            return False
        description = Path(name)
        folders = session.open_options.package_paths
        request = RobotRequest(
            path=description, package_paths=folders or (), required=False
        )
        if not session.reopen(replace(session.open_options, robot=request)):
            return False
        self.remember(model, description)
        return True
