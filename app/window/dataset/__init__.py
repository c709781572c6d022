"""View → Dataset: the quality checks of a playlist's entries in the window.

:mod:`~app.window.dataset.overview` (the controller) runs the checks of
:mod:`fsr_core.checks` over the playlist off the GUI thread
(:mod:`~app.window.dataset.check_job`), compares each dataset's entries
(:mod:`~app.window.dataset.outcomes`), and shows them in the dock
(:mod:`~app.window.dataset.dock`: the table model, the histograms), on the
timeline and as playlist badges; the user's own flags are kept in the
settings (:mod:`~app.window.dataset.manual_flags`), and the kept or flagged
entries go to a playlist index (:mod:`~app.window.dataset.index_export`).
Nothing is imported here, so the timeline can use the flag texts alone.
"""
