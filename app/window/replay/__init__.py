"""Replay from the window: Re-render…, Re-simulate…, Compare with…, and the comparison.

:class:`~app.window.replay.window_replay.WindowReplay` owns the Replay menu's
actions, the options dialog, the background job and its progress;
:class:`~app.window.replay.presenter.ComparisonPresenter` shows a comparison in the
comparison dock, on the timeline, in the inspector and the status bar.
"""

from app.window.replay.report import ComparisonReport
from app.window.replay.request import ReplayRequest, default_output

__all__ = ["ComparisonReport", "ReplayRequest", "default_output"]
