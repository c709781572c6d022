"""The MCAP source: ROS 2, Foxglove and other MCAP logs as recordings.

``container`` finds what a file holds (summary or scan; ``chunk_index`` reads
the summary's chunk indexes) and ``block_reading`` reads the messages of its
chunks; ``decoding`` turns message bytes into plain values by encoding; the
message types the viewer understands, numeric leaves, the transform tree and
camera images are read by the toolkit's ``message_kinds``, ``numeric_leaves``,
``transform_tree``, ``frames_scene`` and ``message_images``, which the ROS bag
sources share. ``topics`` holds what is read of
each channel; ``reading`` reads every block at open, or ``indexed_reading``
opens a file from its indexes (``message_index``), leaving each numeric topic
to ``topic_loader`` and each camera's frame times to ``cameras`` until first
shown, with ``late_problems`` reporting what those later reads find.
``recording_model`` builds the recording model and ``inspection_report`` the
inspector's section; ``source`` registers it all.
"""
