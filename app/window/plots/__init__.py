"""Channel plots (pyqtgraph) and the "Plot channels…" picker.

:class:`ChannelPlots` stacks x-linked plots with a time cursor and asks for
seeks; :class:`ChannelPickerDialog` chooses what they show as series keys
(:func:`series_keys` lists a recording's keys).
"""

from __future__ import annotations

from app.window.plots.channel_picker import ChannelPickerDialog
from app.window.plots.channel_plots import ChannelPlots
from app.window.plots.series_cache import series_keys

__all__ = ["ChannelPickerDialog", "ChannelPlots", "series_keys"]
