"""The Genesis source: ``.gstraj`` trajectories, read without Genesis.

``container`` reads the magic, the manifest and the record headers (where a
damaged file is cut), ``frames`` decodes chunks, INFO and LAST records into
arrays, ``scene_names`` takes link and joint names from the scene
description, ``recording_model`` builds the recording model,
``inspection_report`` the inspector's section; ``source`` registers it all.
The format is in docs/genesis_trajectory.md.
"""
