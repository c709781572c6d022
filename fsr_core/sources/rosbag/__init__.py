"""The ROS bag sources: ROS 1 ``.bag`` files and rosbag2 SQLite bags.

Both are read with the ``rosbags`` library (the ``rosbag`` extra): its
readers find the connections and messages, and a type store built from the
message definitions the bag carries deserialises them (:mod:`type_store`,
which lists a definition that does not parse and keeps the other topics).
``library`` names the extra when the package is missing; ``bag_files`` says
what a path stands for and checks the sizes a ROS 1 chunk header claims
against the memory budget; ``unindexed`` opens a ROS 1 bag whose index was
never written (a killed recording) by a bounded scan of its chunks, and a cut
bag up to its last complete chunk. ``plain_tree`` turns a deserialised
message into the plain values the toolkit's readers take; ``reading`` reads
at open what the scene needs (transforms, calibrations, the robot
description) and the first message of every other topic, or every message
(``inspect --verify``, ``convert``); ``shared_bag`` is the one reader through
which the lazy channels and ``cameras``' frames are read when shown;
``recording_model`` builds the model and its inspector section; ``source``
registers both sources.
"""
