"""Build the viewer's :class:`~fsr_core.recording.RecordingModel` from a skelarm log.

A skelarm state log (``*.sklog.npz``, schema 1) is ``np.savez_compressed`` output:
a zip with one ``.npy`` member per array. ``time`` holds the N frame times in
seconds; every other member but ``__meta__`` is a float64 channel of shape (N,) or
(N, k); ``__meta__`` is a 0-d unicode array holding a TOML document (schema
version, producer, ``[skeleton]``, ``[channels.<name>]``, free-form ``[extra]``).

Reading is defensive: the zip directory is checked (member count, stored or
deflate only, total uncompressed size within the memory budget, ``.npy`` names,
no duplicates, no encryption) and each member's ``.npy`` header is read and
bounded before numpy loads anything (the float64 model the headers imply must
fit :data:`fsr_core.budgets.MEMORY`), and the arrays are loaded with
``allow_pickle=False``. Every problem raises an
:class:`~fsr_core.errors.FsrError` subclass whose message names the file.

Choices made where the log leaves room:

- Geometry. skelarm mounts the arm at the plane origin and gives each joint
  angle relative to the previous link (checked on the real logs: the reach
  log's last tip is its target). ``base_length`` is a fixed base link along +x
  from the origin to the first joint at ``(base_length, 0)``, as skelarm's
  ``Skeleton`` stores it; it is drawn grey from the mount, as skelarm's canvas
  draws it. The centre of mass offset along
  the link is ``rgx``; :class:`PlanarKinematics` has no perpendicular offset, so
  a non-zero ``rgy`` is left out and noted in ``report["notes"]``.
- Channels. One :class:`Channel` per member besides ``time`` and ``__meta__``,
  in archive order, with unit, label and columns from ``[channels.<name>]``
  (defaults: no unit, the name as label, columns ``name[j]``, or ``(name,)`` for
  a scalar channel). One derived channel, ``tip_speed`` = ``|J(q) dq|`` in m/s,
  is added when ``q``, ``dq`` and the skeleton agree, so the side panel can show
  tip speed as skelarm's does (:data:`DERIVED_CHANNELS`).
- Task overlay. From ``extra.source_config.task``, else ``extra.playback.task``.
  A task this module cannot draw gives no overlay (and a note), never an error:
  the log still plays.
"""

from fsr_core.logs.skelarm.archive import MAX_MEMBERS, MAX_META_BYTES
from fsr_core.logs.skelarm.meta import SUPPORTED_SCHEMA_VERSIONS
from fsr_core.logs.skelarm.overlays import CURVE_SAMPLES, SUPPORTED_CURVES
from fsr_core.logs.skelarm.recording_model import (
    DERIVED_CHANNELS,
    GUI_PRODUCER,
    load_skelarm,
)

__all__ = [
    "CURVE_SAMPLES",
    "DERIVED_CHANNELS",
    "GUI_PRODUCER",
    "MAX_MEMBERS",
    "MAX_META_BYTES",
    "SUPPORTED_CURVES",
    "SUPPORTED_SCHEMA_VERSIONS",
    "load_skelarm",
]
