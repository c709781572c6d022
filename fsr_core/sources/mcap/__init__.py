"""The MCAP source: ROS 2, Foxglove and other MCAP logs as recordings.

``container`` finds what a file holds (summary or scan), ``decoding`` turns
message bytes into plain values by encoding, ``known_types`` reads the
message types the viewer understands (images, calibrations, transforms),
``numeric_leaves`` makes channels of every other numeric field,
``transform_tree`` and ``frames_scene`` place the coordinate frames,
``images`` decodes camera frames, ``model`` builds the recording model and
``report`` the inspector's section; ``source`` registers it all.
"""
