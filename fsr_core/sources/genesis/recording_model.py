"""Build the recording model of a Genesis trajectory.

At open every chunk is decoded once, in order, through :class:`FrameDecoder`
(memory: one chunk at a time); a chunk that does not decode cuts the file
there like a bad record. That pass keeps only what the timeline and the scene
need (the step counts, the link poses, the joint positions); every other field
is read when one of its channels is first shown, all its environments at once
(every chunk decoded again, that field picked out, its memory checked against
the budget first), or at open for ``inspect --verify`` and ``convert``
(``read_everything``). Each frame is a sample:

* **Time.** Genesis's time of environment ``e`` at frame ``i`` is
  ``steps[i, e] * dt`` computed in the simulation float type (``precision``);
  the channel ``Simulator.time`` holds it per environment. The play-time axis
  follows the largest step count of a frame; when it goes back (a full reset)
  a new generation starts, marked on the timeline.
* **Channels.** Every non-empty numeric field of the chunk frames (and the
  GSTRAJ4 INFO fields in force) is a channel, one per environment when
  ``n_envs`` > 1 (``env1/RigidSolver.rigid_info.qpos``); fields without an
  environment axis keep their bare name. Columns name links, joints, dofs and
  positions from the scene description, ``x y z`` and quaternion ``w x y z``,
  else indices ``i.j``. The LAST frame fills the last sample by field name.
  ``timings/...`` fields are channels in seconds.
* **Geometry.** Every link is a body (``env1/link3`` when ``n_envs`` > 1),
  posed by the recorded link poses (exact mode) or, where the frames hold only
  ``qpos`` (minimal, compressed), by forward kinematics over the link tree of
  the scene description (:mod:`~fsr_core.sources.genesis.kinematics`).
  Environment ``e`` is shown at Genesis's own environment offset. Bodies carry
  the meshes of the description (:mod:`~fsr_core.sources.genesis.scene_geometry`:
  visual geoms, else collision geoms; planes as a square under the scene),
  within a triangle budget (:mod:`~fsr_core.sources.genesis.mesh_budget`: an
  entity whose visual meshes pass it is drawn with its collision ones); a link
  without a readable mesh is drawn as an axis triad.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fsr_core.arrays import FloatArray
from fsr_core.budgets import MEMORY, check_budget
from fsr_core.errors import FsrError, TruncatedFileError
from fsr_core.load_once import LoadOnce
from fsr_core.logs.genesis.naming import batch_axis as field_batch_axis
from fsr_core.logs.genesis.naming import field_columns
from fsr_core.recording import (
    Channel,
    GeometryMesh,
    Integrity,
    Marker,
    MarkerKind,
    RecordingModel,
    SceneGeometry,
    Segment,
    Timeline,
)
from fsr_core.sources.genesis.container import (
    STEPS_FIELDS,
    Cut,
    Field,
    TrajectoryIndex,
    index_file,
)
from fsr_core.sources.genesis.frames import FrameDecoder
from fsr_core.sources.genesis.inspection_report import manifest_facts, trajectory_report
from fsr_core.sources.genesis.joints import genesis_joints
from fsr_core.sources.genesis.kinematics import (
    KinematicTree,
    env_offsets,
    forward_kinematics,
    kinematic_tree,
)
from fsr_core.sources.genesis.mesh_budget import place_meshes
from fsr_core.sources.genesis.scene_geometry import (
    Description,
    entity_names,
    link_meshes,
    plane_half_size,
    read_description,
)
from fsr_core.sources.genesis.scene_names import SceneNames, scene_names
from fsr_core.sources.toolkit.axis_triads import triad_length, triad_meshes

__all__ = [
    "MAX_BODIES",
    "TIME_CHANNEL",
    "batch_axis",
    "load_genesis",
    "open_trajectory",
]

TIME_CHANNEL: Final = "Simulator.time"
MAX_BODIES: Final = 1024
_LINK_POS: Final = "RigidSolver.dyn_state.links.pos"
_LINK_QUAT: Final = "RigidSolver.dyn_state.links.quat"
_QPOS: Final = "RigidSolver.rigid_info.qpos"
_AT_OPEN: Final = (_LINK_POS, _LINK_QUAT, _QPOS)
Progress = Callable[[int, int], None]
"""``progress(done, total)``: chunks decoded of those to decode."""
"""Chunk fields the model reads at open (the scene's poses), besides the steps."""


def batch_axis(item: Field, batch: int) -> int | None:
    """Return the environment axis of a field's canonical shape (None: none).

    The rule is :func:`fsr_core.logs.genesis.naming.batch_axis`, shared with
    the Genesis simulator's replays.
    """
    return field_batch_axis(item.name, item.shape, batch)


class _Series:
    """The channels of one field: ``(frames, columns)`` per environment."""

    def __init__(self, item: Field, batch: int, frames: int, names: SceneNames) -> None:
        self.item = item
        self.axis = batch_axis(item, batch) if batch > 1 else None
        value_shape = list(item.shape)
        if self.axis is not None:
            value_shape.pop(self.axis)
        elif batch == 1 and len(item.shape) >= 2 and item.shape[1] == 1:
            value_shape.pop(1)
        self.envs = batch if self.axis is not None else 1
        self.columns = field_columns(item.name, tuple(value_shape), names)
        self.frames = frames
        self.values = np.zeros((self.envs, 0, len(self.columns)))

    @property
    def nbytes(self) -> int:
        """Bytes of the field's channels once read (float64)."""
        return 8 * self.envs * self.frames * len(self.columns)

    def start(self) -> None:
        """Make room for every frame (NaN until a frame fills it)."""
        shape = (self.envs, self.frames, len(self.columns))
        self.values = np.full(shape, np.nan, dtype=np.float64)

    def put(self, rows: slice | int, arrays: npt.NDArray[Any]) -> None:
        """Store ``arrays`` (frames first, then the canonical shape) at ``rows``."""
        if isinstance(rows, int):
            rows = slice(rows, rows + 1)
        data = arrays.astype(np.float64)
        if self.axis is not None:
            data = np.moveaxis(data, self.axis + 1, 1)
        else:
            data = data[:, np.newaxis]
        self.values[:, rows] = data.reshape(data.shape[0], self.envs, -1).transpose(
            1, 0, 2
        )

    def channels(
        self, times: FloatArray, batched: bool, data: LoadOnce[FloatArray], path: Path
    ) -> list[Channel]:
        """One channel per environment, reading the field through ``data``."""
        name = self.item.name
        unit = "s" if name.startswith("timings/") else ""
        found = []
        for env in range(self.envs):
            label = f"env{env}/{name}" if batched and self.axis is not None else name

            def load(env: int = env) -> tuple[FloatArray, FloatArray]:
                return times, data.get()[env]

            found.append(
                Channel.lazy(
                    label,
                    load,
                    unit=unit,
                    label=label,
                    columns=self.columns,
                    count=self.frames,
                    path=path,
                )
            )
        return found


def _stack(frames: npt.NDArray[np.uint8], item: Field) -> npt.NDArray[Any]:
    """Return ``item`` of every frame of a decoded chunk, frames first."""
    count = frames.shape[0]
    raw = np.ascontiguousarray(frames[:, item.offset : item.offset + item.nbytes])
    stored = raw.view(np.dtype(item.dtype)).reshape(
        [count] + [item.shape[axis] for axis in item.axes]
    )
    order = [0] + [1 + int(axis) for axis in np.argsort(item.axes)]
    return stored.transpose(order)


def open_trajectory(path: Path) -> tuple[TrajectoryIndex, FrameDecoder]:
    """Index ``path`` and decode every chunk once, cutting at the first bad one.

    Raises
    ------
    FsrError
        As :func:`~fsr_core.sources.genesis.container.index_file`, or no frame
        decodes.
    """
    index, decoder, _ = _open_keeping(path, ())
    return index, decoder


def _open_keeping(
    path: Path,
    names: tuple[str, ...],
    *,
    progress: Progress | None = None,
) -> tuple[TrajectoryIndex, FrameDecoder, dict[str, npt.NDArray[Any]]]:
    """:func:`open_trajectory`, keeping the chunk fields ``names`` on the way.

    The open decodes every chunk anyway; the fields the model needs at once
    (steps, link poses, joint positions) are picked out then, so no second
    pass over the chunks is made. Each kept array is frames first, one row
    per chunk frame (before any LAST), in the field's own type.
    ``progress(done, total)`` follows the chunks.
    """
    index = index_file(path)
    kept = _keep(index, names, len(index.chunks), progress)
    return index, _checked_last(index), kept


def _keep(
    index: TrajectoryIndex,
    names: tuple[str, ...],
    chunks: int,
    progress: Progress | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Decode the first ``chunks`` chunks, keeping fields ``names``.

    A chunk that does not decode cuts the file there (:attr:`TrajectoryIndex.cut`).
    """
    decoder = FrameDecoder(index)
    items = [f for f in index.manifest.fields if f.name in names and f.size > 0]
    check_budget(
        MEMORY,
        float(sum(item.nbytes for item in items) * index.chunk_frames),
        "the steps and poses of the trajectory",
        path=index.path,
    )
    parts: dict[str, list[npt.NDArray[Any]]] = {item.name: [] for item in items}
    total = min(chunks, len(index.chunks))
    for number in range(total):
        try:
            # Every chunk's framing is checked; only the kept fields' bytes
            # are rebuilt (a chunk of a large scene is tens of MB decoded).
            frames = decoder.decode_fields(number, items)
        except FsrError as exc:
            index.cut_chunks_from(
                number, f"chunk {number} does not decode: {exc.reason}"
            )
            break
        for item in items:
            parts[item.name].append(np.array(_stack(frames, item)))
        if progress is not None:
            progress(number + 1, total)
    return {name: np.concatenate(found) for name, found in parts.items() if found}


def _checked_last(index: TrajectoryIndex) -> FrameDecoder:
    """Return the decoder of ``index`` once its LAST frame decodes (else cut there).

    Raises
    ------
    TruncatedFileError
        No frame is left.
    """
    decoder = FrameDecoder(index)
    if index.last is not None:
        try:
            decoder.last_frame()
        except FsrError as exc:
            last = index.last
            index.last = None
            index.cut = Cut(
                last.offset, index.n_frames, f"LAST does not decode: {exc.reason}"
            )
            decoder = FrameDecoder(index)
    if index.n_frames == 0:
        reason = index.cut.describe() if index.cut is not None else "no record"
        raise TruncatedFileError(f"holds no frame ({reason})", path=index.path)
    return decoder


class _Builder:
    def __init__(
        self,
        index: TrajectoryIndex,
        decoder: FrameDecoder,
        *,
        read_everything: bool = False,
        kept: dict[str, npt.NDArray[Any]] | None = None,
        provisional: bool = False,
    ) -> None:
        self.index = index
        self.decoder = decoder
        self.read_everything = read_everything
        self.provisional = provisional
        """Built from the record headers and the first chunk only."""
        self.kept = kept or {}
        self.manifest = index.manifest
        self.names = scene_names(index)
        self.n_frames = index.n_frames
        self.notes: list[str] = []

    def steps(self) -> npt.NDArray[np.int32]:
        name = self.manifest.steps_field
        steps = np.zeros((self.n_frames, self.manifest.batch), dtype=np.int32)
        chunk_field = next((f for f in self.manifest.fields if f.name == name), None)
        known = 0
        if chunk_field is not None:
            chunked = self._chunk_frames_of(chunk_field)
            steps[: len(chunked)] = chunked
            known = len(chunked)
            if self.provisional and 0 < known < self.n_frames:
                steps[known:] = _carried_on(chunked, self.n_frames)
        # Provisional: LAST is read only when it is the one frame (a checkpoint).
        if self.index.last is not None and not (self.provisional and known):
            last = self.decoder.last_frame()
            if name in last:
                steps[-1] = last[name]
        return steps

    def play_times(
        self, steps: npt.NDArray[np.int32]
    ) -> tuple[FloatArray, list[Segment]]:
        dt = self.manifest.dt
        reference = steps.max(axis=1).astype(np.int64)
        play = np.zeros(self.n_frames, dtype=np.float64)
        segments: list[Segment] = []
        # A segment ends where the largest step count stops growing (a reset).
        ends = (np.flatnonzero(reference[1:] <= reference[:-1]) + 1).tolist()
        bounds = [0, *ends, self.n_frames]
        start = 0.0
        step = 1
        for first, end in itertools.pairwise(bounds):
            rows = slice(first, end)
            play[rows] = start + (reference[rows] - reference[first]) * dt
            if end - first > 1:  # the step of its last frame (else the one before)
                step = int(reference[end - 1] - reference[end - 2])
            segments.append(
                Segment(
                    len(segments),
                    start,
                    float(play[end - 1]),
                    float(reference[first] * dt),
                    int(reference[first]),
                    int(reference[end - 1]),
                )
            )
            start = float(play[end - 1]) + step * dt
        return play, segments

    def series(self) -> list[_Series]:
        """Every field's channels, unread."""
        fields = [
            f for f in self.manifest.fields + self.manifest.info_fields if f.size > 0
        ]
        fields = [f for f in fields if f.kind != "SCRATCH"]
        batch = self.manifest.batch
        return [_Series(f, batch, self.n_frames, self.names) for f in fields]

    def fill(self, found: list[_Series]) -> list[FloatArray]:
        """Read the fields of ``found`` in one pass over the chunks; their values.

        The memory they take is checked against the budget first.
        """
        what = found[0].item.name[:80] if len(found) == 1 else "the trajectory"
        check_budget(
            MEMORY,
            float(sum(item.nbytes for item in found)),
            f"the channels of {what}",
            path=self.index.path,
        )
        for item in found:
            item.start()
        self._fill_chunks([s for s in found if s.item in self.manifest.fields])
        self._fill_infos([s for s in found if s.item not in self.manifest.fields])
        if self.index.last is not None:
            last = self.decoder.last_frame()
            for item in found:
                value = last.get(item.item.name)
                if value is not None and value.shape == item.item.shape:
                    item.put(self.n_frames - 1, value[np.newaxis])
        values = []
        for item in found:
            values.append(item.values)
            item.values = np.zeros((item.envs, 0, len(item.columns)))
        return values

    def _fill_chunks(self, found: list[_Series]) -> None:
        if not found:
            return
        for number, chunk in enumerate(self.index.chunks):
            frames = self.decoder.decode_chunk(number)
            rows = slice(chunk.first_frame, chunk.first_frame + chunk.frame_count)
            for item in found:
                item.put(rows, _stack(frames, item.item))

    def _fill_infos(self, found: list[_Series]) -> None:
        if not found:
            return
        for frame in range(self.index.chunk_frames):
            info = self.decoder.info_for(frame)
            if info is None:
                continue
            for item in found:
                item.put(frame, info[item.item.name][np.newaxis])

    def _field_data(self, item: _Series) -> LoadOnce[FloatArray]:
        """Return one field's values, read (every chunk decoded) when first asked."""
        return LoadOnce(
            lambda: self.fill([item])[0],
            what=f"field {item.item.name[:80]!r}",
            path=self.index.path,
        )

    def channels(
        self, steps: npt.NDArray[np.int32], play: FloatArray
    ) -> dict[str, Channel]:
        channels: dict[str, Channel] = {}
        float_type = np.dtype(self.manifest.precision).type
        time = steps.astype(float_type) * float_type(self.manifest.dt)
        batch = self.manifest.batch
        columns = tuple(f"env{e}" for e in range(batch)) if batch > 1 else ("value",)
        channels[TIME_CHANNEL] = Channel(
            TIME_CHANNEL,
            play,
            time.astype(np.float64),
            "s",
            "simulated time per environment (steps x dt, as Genesis computes it)",
            columns,
        )
        found = self.series()
        path = self.index.path
        if self.read_everything:
            datas = [LoadOnce.ready(values) for values in self.fill(found)]
        else:
            # A field is read (every chunk decoded) when one of its channels is.
            datas = [self._field_data(item) for item in found]
        for series, data in zip(found, datas, strict=True):
            for channel in series.channels(play, batch > 1, data, path):
                channels[channel.name] = channel
        return channels

    def _chunk_frames_of(self, item: Field) -> npt.NDArray[Any]:
        """Return ``item`` of every chunk frame, frames first (LAST not included).

        What the open kept, else every chunk decoded again.
        """
        kept = self.kept.get(item.name)
        if kept is not None:
            return kept
        parts = [
            _stack(self.decoder.decode_chunk(number), item)
            for number in range(len(self.index.chunks))
        ]
        return np.concatenate(parts) if parts else np.zeros((0, *item.shape))

    def _frames_of(self, name: str) -> npt.NDArray[np.float64] | None:
        """Return chunk field ``name`` of every frame, frames first (None: absent).

        The LAST frame fills the last row when it holds the field with the
        same shape; a row no frame fills stays NaN.
        """
        item = next((f for f in self.manifest.fields if f.name == name), None)
        if item is None or item.size == 0:
            return None
        if self.provisional:  # the first chunk's frames only
            return np.asarray(self._chunk_frames_of(item), dtype=np.float64)
        check_budget(
            MEMORY, 8.0 * item.size * self.n_frames, name, path=self.index.path
        )
        values = np.full((self.n_frames, *item.shape), np.nan)
        chunked = self._chunk_frames_of(item)
        values[: len(chunked)] = chunked
        if self.index.last is not None:
            last = self.decoder.last_frame().get(name)
            if last is not None and last.shape == item.shape:
                values[-1] = last
        return values

    def _recorded_poses(self) -> FloatArray | None:
        """Return the recorded link poses, ``(frames, B, links, 7)`` (xyz, wxyz)."""
        pos, quat = self._frames_of(_LINK_POS), self._frames_of(_LINK_QUAT)
        if pos is None or quat is None:
            return None
        batch = self.manifest.batch
        quat_shape = (*pos.shape[:3], 4)
        if pos.ndim != 4 or pos.shape[2:] != (batch, 3) or quat.shape != quat_shape:
            self.notes.append("the recorded link poses have an unexpected shape")
            return None
        poses: FloatArray = np.concatenate(
            [np.moveaxis(pos, 2, 1), np.moveaxis(quat, 2, 1)], axis=-1
        )
        return poses

    def _kinematic_poses(self, tree: KinematicTree | None) -> FloatArray | None:
        """Return link poses from ``qpos`` by forward kinematics (as recorded ones)."""
        if tree is None:
            self.notes.append(
                "the frames hold no link poses and the description no readable "
                "link tree: no 3D scene"
            )
            return None
        batch = self.manifest.batch
        qpos = self._frames_of(_QPOS)
        if qpos is None and tree.n_qs == 0:
            qpos = np.zeros((self.n_frames, 0, batch))
        if qpos is None or qpos.shape[1:] != (tree.n_qs, batch):
            self.notes.append(
                "the frames hold neither link poses nor a qpos that fits the "
                "description's joints: no 3D scene"
            )
            return None
        check_budget(
            MEMORY,
            8.0 * 7 * 3 * self.n_frames * batch * len(tree.parents),
            "the link poses",
            path=self.index.path,
        )
        pos, quat = forward_kinematics(tree, np.moveaxis(qpos, 1, 2))
        self.notes.append(
            "the frames hold no link poses (minimal or compressed mode): the 3D "
            "scene places the links by forward kinematics from qpos"
        )
        poses: FloatArray = np.concatenate([pos, quat], axis=-1)
        return poses

    def _meshes(
        self,
        description: Description | None,
        bodies: tuple[str, ...],
        poses: FloatArray,
        local_m: FloatArray,
    ) -> tuple[GeometryMesh, ...]:
        """Return the description's meshes on ``bodies``, triads where none reads.

        ``local_m`` are the link positions in their environment, ``(frames,
        envs, links, 3)``; ``poses`` the bodies' poses as drawn.
        """
        n_links = local_m.shape[2]
        placed: tuple[GeometryMesh, ...] = ()
        covered = np.zeros(len(bodies), dtype=bool)
        if description is not None and len(description.links) == n_links:
            found, notes = link_meshes(description, plane_half_size(local_m))
            placed, covered, budget_notes = place_meshes(
                found, n_links, bodies, entity_names(description)
            )
            self.notes.extend(notes + budget_notes)
        elif description is not None:
            self.notes.append(
                f"the scene description has {len(description.links)} links, the "
                f"frames {n_links}: links are drawn as axis triads"
            )
        missing = np.flatnonzero(~covered)
        if not len(missing):
            return placed
        length = triad_length(poses[..., :3], share=0.08, shortest=0.03, longest=0.3)
        triads = triad_meshes(
            [bodies[body] for body in missing], length, thickness_share=1 / 10
        )
        return placed + tuple(
            dataclasses.replace(mesh, body=int(missing[mesh.body])) for mesh in triads
        )

    def _link_poses(self, description: Description | None) -> FloatArray | None:
        """Return the link poses, recorded or else computed; None (noted): none."""
        try:
            poses = self._recorded_poses()
            if poses is not None:
                return poses
        except FsrError as exc:  # the scene is optional: the channels still play
            self.notes.append(f"no 3D scene: {exc.reason}")
            return None
        tree = None  # no recorded poses: the link tree places the links
        if description is not None:
            try:
                tree = kinematic_tree(description)
            except FsrError as exc:
                self.notes.append(f"no forward kinematics: {exc.reason}")
        try:
            return self._kinematic_poses(tree)
        except FsrError as exc:
            self.notes.append(f"no 3D scene: {exc.reason}")
            return None

    def geometry(
        self, play: FloatArray, description: Description | None
    ) -> SceneGeometry | None:
        poses = self._link_poses(description)
        if poses is None:
            return None
        batch, n_links = poses.shape[1], poses.shape[2]
        envs = max(1, min(batch, MAX_BODIES // max(n_links, 1)))
        if envs < batch:
            self.notes.append(
                f"the 3D scene shows the first {envs} of {batch} environments"
            )
        local = poses[:, :envs]
        offsets, note = env_offsets(self.manifest.raw.get("layout"), batch)
        if note:
            self.notes.append(note)
        link_names = (
            self.names.links
            if len(self.names.links) == n_links
            else tuple(f"link{k}" for k in range(n_links))
        )
        bodies = tuple(
            f"env{env}/{link}" if batch > 1 else link
            for env in range(envs)
            for link in link_names
        )
        frames = local.shape[0]  # every frame, or the first chunk's (provisional)
        flat = np.empty((frames, envs, n_links, 7))
        flat[..., :3] = local[..., :3] + offsets[:envs, np.newaxis]
        flat[..., 3:6] = local[..., 4:7]
        flat[..., 6] = local[..., 3]
        flat = flat.reshape(frames, envs * n_links, 7)
        meshes = self._meshes(description, bodies, flat, local[..., :3])
        groups = (
            tuple(f"env{env}" for env in range(envs) for _ in link_names)
            if batch > 1
            else ()
        )
        return SceneGeometry(
            bodies=bodies,
            meshes=meshes,
            times_s=play[:frames],
            poses=flat,
            body_groups=groups,
        )

    def markers(
        self, steps: npt.NDArray[np.int32], play: FloatArray, segments: list[Segment]
    ) -> tuple[Marker, ...]:
        markers = [
            Marker(
                MarkerKind.GENERATION_RESET, segment.start_play_s, "the scene was reset"
            )
            for segment in segments[1:]
        ]
        # Environments whose steps went back while the run went on (not a reset).
        back = steps[1:] < steps[:-1]
        going_on = steps[1:].max(axis=1) >= steps[:-1].max(axis=1)
        for frame in (np.flatnonzero(back.any(axis=1) & going_on) + 1).tolist():
            envs = ", ".join(f"env{e}" for e in np.flatnonzero(back[frame - 1])[:8])
            markers.append(
                Marker(MarkerKind.EVENT, float(play[frame]), f"{envs} reset")
            )
        for info in self.index.infos:
            if 0 < info.first_frame < self.n_frames:
                markers.append(
                    Marker(
                        MarkerKind.EVENT,
                        float(play[info.first_frame]),
                        "model parameters change (INFO record)",
                    )
                )
        if self.index.cut is not None:
            markers.append(
                Marker(
                    MarkerKind.TERMINAL_CUT, float(play[-1]), self.index.cut.describe()
                )
            )
        return tuple(sorted(markers, key=lambda marker: marker.play_time_s))

    def model(self) -> RecordingModel:
        steps = self.steps()
        play, segments = self.play_times(steps)
        channels = self.channels(steps, play)
        description, problem = read_description(self.index)
        if problem:
            self.notes.append(problem)
        geometry = self.geometry(play, description)
        joints = genesis_joints(description, self.names, channels, self.manifest.batch)
        manifest = self.manifest
        cut = self.index.cut
        integrity = Integrity.VALID if cut is None else Integrity.RECOVERED
        reason = "" if cut is None else cut.describe()
        if self.provisional:
            integrity = Integrity.UNVERIFIED
            reason = (
                f"opened from its record headers; {len(self.index.chunks)} chunks "
                "are being checked"
            )
        last = None
        if self.index.last is not None and not self.provisional:
            last = self.decoder.last_frame()  # decoded and checked at open
        report = trajectory_report(self.index, self.notes, last)
        return RecordingModel(
            path=self.index.path,
            source="genesis",
            title=self.index.path.name,
            timeline=Timeline(tuple(segments)),
            channels=channels,
            geometry=geometry,
            joints=joints,
            markers=self.markers(steps, play, segments),
            provenance={
                "genesis": manifest.genesis,
                "genesis_source": manifest.source_digest,
            },
            metadata={
                **manifest_facts(manifest),
                "n_envs": manifest.n_envs,
                "frames": self.n_frames,
            },
            integrity=integrity,
            integrity_reason=reason,
            report=report,
        )


def load_genesis(
    path: Path,
    *,
    read_everything: bool = False,
    provisional: bool = False,
    progress: Progress | None = None,
) -> RecordingModel:
    """Open ``path`` as a recording model.

    A field's channels are read (every chunk decoded, that field picked) the
    first time one is asked for; with ``read_everything`` (``inspect
    --verify``, ``convert``) every field is read at open, in one pass.

    With ``provisional`` (the window), the model comes from the record
    headers and the first chunk alone, without reading the file through: the
    frames are counted from the headers, their steps carried on from the
    first chunk's and the scene posed by its frames until the model it
    refines to (:attr:`RecordingModel.refine`: every record checked and
    decoded, as without ``provisional``) takes its place. A file whose first
    chunk does not decode is opened the full way at once. ``progress(done,
    total)`` follows the chunks of a full open.

    Raises
    ------
    FsrError
        Not a supported trajectory, a bad manifest, a claim over the memory
        budget, or no readable frame; the message names the file.
    """
    with_steps = (*_AT_OPEN, *STEPS_FIELDS)
    if provisional and not read_everything:
        try:
            return _provisional(path, with_steps)
        except FsrError:
            pass  # the full open below says what is wrong
    index, decoder, kept = _open_keeping(path, with_steps, progress=progress)
    return _Builder(index, decoder, read_everything=read_everything, kept=kept).model()


def _provisional(path: Path, names: tuple[str, ...]) -> RecordingModel:
    index = index_file(path, verify=False)
    kept = _keep(index, names, 1)
    if index.cut is not None and not index.chunks:
        raise TruncatedFileError("the first chunk does not decode", path=path)
    builder = _Builder(index, FrameDecoder(index), kept=kept, provisional=True)

    def refine(progress: Progress) -> RecordingModel:
        return load_genesis(path, progress=progress)

    return dataclasses.replace(builder.model(), refine=refine)


def _carried_on(first: npt.NDArray[Any], frames: int) -> npt.NDArray[np.int32]:
    """Return the steps of frames ``len(first)`` to ``frames``, going on as ``first``.

    Each environment advances by the median step of ``first`` (one with a
    single frame: by one step a frame).
    """
    known = np.asarray(first, dtype=np.int64)
    step = (
        np.median(np.diff(known, axis=0), axis=0).round().astype(np.int64)
        if len(known) > 1
        else np.ones(known.shape[1:], dtype=np.int64)
    )
    ahead = np.arange(1, frames - len(known) + 1, dtype=np.int64)
    later = known[-1] + ahead.reshape(-1, *([1] * (known.ndim - 1))) * step
    steps: npt.NDArray[np.int32] = np.clip(later, 0, 2**31 - 1).astype(np.int32)
    return steps
