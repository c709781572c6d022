"""What source packages build with: shared code that is no source itself.

The registry never lists this package; source packages import it.
:mod:`~fsr_core.sources.toolkit.model_to_fsr` writes any recording model as
an FSR file (its streams from :mod:`~fsr_core.sources.toolkit.model_streams`,
their names made valid by :mod:`~fsr_core.sources.toolkit.stream_names`);
:class:`~fsr_core.sources.toolkit.whole_model_conversion.WholeModelConversion`
is the ``to_fsr`` of a source that converts the whole model it opens;
:mod:`~fsr_core.sources.toolkit.optional_packages` says whether a reader's
package is installed and imports it;
:mod:`~fsr_core.sources.toolkit.axis_triads` draws the frames of a scene that
carries no shapes. The ROS message sources (MCAP, ROS bags) share the
readers of decoded messages ("plain trees": dicts, lists, numbers):
:mod:`~fsr_core.sources.toolkit.message_kinds` (images, calibrations,
transforms), :mod:`~fsr_core.sources.toolkit.numeric_leaves` (channels of
every other number), :mod:`~fsr_core.sources.toolkit.transform_tree` and
:mod:`~fsr_core.sources.toolkit.frames_scene` (the coordinate frames),
:mod:`~fsr_core.sources.toolkit.message_images` (camera frames) and
:mod:`~fsr_core.sources.toolkit.joint_state_columns` (joints of a
``JointState`` channel), and :mod:`~fsr_core.sources.toolkit.rosbag2_metadata`
says which storage a rosbag2 bag folder holds.
"""
