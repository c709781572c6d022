"""The LeRobot dataset source: dataset roots (v2.1 and v3.0) as playlists of episodes.

Reading needs ``pyarrow`` (the ``lerobot`` extra); videos decode with PyAV and
images with Pillow. The LeRobot library itself is never imported. Only the
episode being viewed is read: its rows of one parquet file and its time span
of each camera's video file.
"""
