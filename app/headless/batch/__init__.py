"""``fsr-viewer batch``: one verb over many recordings, in worker processes.

:mod:`~app.headless.batch.plan` turns the command line's paths into work
items, :mod:`~app.headless.batch.work` runs one item (the same function in
every engine), :mod:`~app.headless.batch.engines` runs the items in local
worker processes or as Ray tasks, and :mod:`~app.headless.batch.command` wires
the report, the progress and the summary around them.
"""
