"""A 3D scene's solid meshes rasterised by OpenGL, offscreen, into an image.

Painting triangles one by one with QPainter, far to near, costs about a
microsecond of Python each: a robot as shipped (a Franka: 100,000 to
160,000 triangles) would take a second a frame. :class:`GlSolids` hands them
to OpenGL instead, through moderngl on a headless EGL context (Mesa's
llvmpipe where there is no GPU), with a depth buffer: the meshes are
uploaded once, and each frame uploads only the bodies' poses (a small float
texture) and reads back one image, which the canvas draws like any other.
Shading is the QPainter path's: flat, ambient plus a light over the eye's
right shoulder.

Where OpenGL cannot be had (no moderngl, no EGL driver, or
``FSR_VIEWER_SCENE_GL=0``), :func:`gl_solids_for` returns ``None`` and the
canvas paints with QPainter as before. A context belongs to one thread and
one process: each thread (the window's, an export worker's) gets its own,
and a forked batch worker makes a new one.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Final

import numpy as np
from PySide6.QtGui import QImage

from app.canvas.scene_view3d import SceneView3d
from fsr_core.arrays import FloatArray
from fsr_core.calibration import matrices_from_quaternions
from fsr_core.recording import GeometryMesh

__all__ = ["GL_VARIABLE", "GlSolids", "gl_solids_for"]

GL_VARIABLE: Final = "FSR_VIEWER_SCENE_GL"
"""``0`` paints every scene with QPainter (no OpenGL)."""
_LOG = logging.getLogger(__name__)

_VERTEX = """
#version 330
uniform sampler2D poses;
uniform mat4 view_projection;
in vec3 in_position;
in vec4 in_color;
in float in_body;
in float in_fade;
out vec3 v_world;
out vec4 v_color;
out float v_fade;
void main() {
    int body = int(in_body + 0.5);
    vec4 local = vec4(in_position, 1.0);
    vec3 world = vec3(
        dot(texelFetch(poses, ivec2(0, body), 0), local),
        dot(texelFetch(poses, ivec2(1, body), 0), local),
        dot(texelFetch(poses, ivec2(2, body), 0), local));
    v_world = world;
    v_color = in_color;
    v_fade = in_fade;
    gl_Position = view_projection * vec4(world, 1.0);
}
"""

_FRAGMENT = """
#version 330
uniform vec3 light;
uniform float ambient;
uniform vec3 background;
in vec3 v_world;
in vec4 v_color;
in float v_fade;
out vec4 f_color;
void main() {
    vec3 normal = normalize(cross(dFdx(v_world), dFdy(v_world)));
    float shade = ambient + (1.0 - ambient) * abs(dot(normal, light));
    vec3 shown = mix(min(v_color.rgb * shade, 1.0), background, v_fade);
    f_color = vec4(shown * v_color.a, v_color.a);
}
"""


class _Context:
    """One thread's EGL context, its shader program and its framebuffers."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        import moderngl

        create: Any = moderngl.create_standalone_context
        self.gl: Any = create(backend="egl")
        with self.gl:
            self.program: Any = self.gl.program(
                vertex_shader=_VERTEX, fragment_shader=_FRAGMENT
            )
        self._target: tuple[tuple[int, int], Any] | None = None

    def target(self, size: tuple[int, int]) -> Any:
        """Return a colour-and-depth framebuffer of ``size``, kept while it fits."""
        if self._target is not None and self._target[0] == size:
            return self._target[1]
        if self._target is not None:
            framebuffer = self._target[1]
            for attachment in (
                *framebuffer.color_attachments,
                framebuffer.depth_attachment,
            ):
                attachment.release()
            framebuffer.release()
        framebuffer = self.gl.framebuffer(
            color_attachments=[self.gl.renderbuffer(size, 4)],
            depth_attachment=self.gl.depth_renderbuffer(size),
        )
        self._target = (size, framebuffer)
        return framebuffer


_local = threading.local()
_failed: list[str] = []


def _context() -> _Context | None:
    """Return this thread's context (made once), or ``None`` without OpenGL."""
    if os.environ.get(GL_VARIABLE, "1") == "0" or _failed:
        return None
    found: _Context | None = getattr(_local, "context", None)
    if found is not None and found.pid == os.getpid():
        return found
    try:
        found = _Context()
    except Exception as error:  # noqa: BLE001 - any driver problem: fall back
        _failed.append(str(error))
        _LOG.warning("no OpenGL for the 3D scene (%s); painting with QPainter", error)
        return None
    _local.context = found
    return found


def _view_projection(
    view: SceneView3d, width: int, height: int, far_m: float
) -> FloatArray:
    """Return the matrix from world points to clip space, matching ``view.pixels``."""
    rotation = view.rotation
    world_to_camera = np.eye(4)
    world_to_camera[:3, :3] = rotation
    world_to_camera[:3, 3] = -rotation @ view.eye_m
    half = 0.5 * min(width, height)
    focal = half / np.tan(np.radians(view.fovy_deg) / 2.0)
    near = max(view.near_m, 1e-6)
    far = max(far_m, 2.0 * near)
    projection = np.zeros((4, 4))
    projection[0, 0] = focal / (0.5 * width)
    projection[1, 1] = focal / (0.5 * height)
    # Camera z looks ahead (OpenGL's looks back): depth from z, w = z.
    projection[2, 2] = (far + near) / (far - near)
    projection[2, 3] = -2.0 * far * near / (far - near)
    projection[3, 2] = 1.0
    result: FloatArray = projection @ world_to_camera
    return result


class GlSolids:
    """The solid meshes of one scene, ready to draw at any pose and view."""

    def __init__(
        self, meshes: Iterable[GeometryMesh], bodies: int, faded: Mapping[int, float]
    ) -> None:
        parts = [(mesh, mesh.rgba) for mesh in meshes]
        positions = [mesh.vertices_m for mesh, _ in parts]
        counts = [len(vertices) for vertices in positions]
        offsets = np.cumsum([0, *counts[:-1]]) if parts else np.zeros(0, dtype=int)
        self._vertices = np.zeros((sum(counts), 9), dtype=np.float32)
        if parts:
            self._vertices[:, :3] = np.concatenate(positions)
            self._vertices[:, 3:7] = np.repeat(
                [rgba for _, rgba in parts], counts, axis=0
            )
            self._vertices[:, 7] = np.repeat([mesh.body for mesh, _ in parts], counts)
            fades = [faded.get(mesh.body, 0.0) for mesh, _ in parts]
            self._vertices[:, 8] = np.repeat(fades, counts)
        self._indices = (
            np.concatenate(
                [
                    mesh.faces + offset
                    for (mesh, _), offset in zip(parts, offsets, strict=True)
                ]
            ).astype(np.int32)
            if parts
            else np.zeros((0, 3), dtype=np.int32)
        )
        self._bodies = max(bodies, 1)
        self._uploaded: dict[int, Any] = {}

    @property
    def triangles(self) -> int:
        """Triangles drawn each frame."""
        return len(self._indices)

    def _vertex_array(self, context: _Context) -> Any:
        key = id(context)
        if key not in self._uploaded:
            gl = context.gl
            vertices = gl.buffer(self._vertices.tobytes())
            indices = gl.buffer(self._indices.tobytes())
            array = gl.vertex_array(
                context.program,
                [
                    (
                        vertices,
                        "3f 4f 1f 1f",
                        "in_position",
                        "in_color",
                        "in_body",
                        "in_fade",
                    )
                ],
                index_buffer=indices,
                index_element_size=4,
            )
            poses = gl.texture((4, self._bodies), 4, dtype="f4")
            poses.filter = (
                (gl.NEAREST, gl.NEAREST) if hasattr(gl, "NEAREST") else poses.filter
            )
            self._uploaded[key] = (array, poses)
        return self._uploaded[key]

    def render(
        self,
        view: SceneView3d,
        size: tuple[int, int],
        poses: FloatArray,
        light: FloatArray,
        ambient: float,
        far_m: float,
        background: tuple[float, float, float],
    ) -> QImage | None:
        """Return the meshes at ``poses`` (``x y z qx qy qz qw``) seen by ``view``.

        A ``size`` image, transparent where no mesh is (premultiplied
        alpha); ``None`` when OpenGL is not available here.
        """
        context = _context()
        if context is None:
            return None
        width, height = max(int(size[0]), 1), max(int(size[1]), 1)
        try:
            # Another library (MuJoCo's renderer) may have made its own
            # context current on this thread: make this one current for the
            # draw, and the other again after.
            with context.gl:
                shading = (tuple(float(x) for x in light), float(ambient), background)
                pixels = self._draw(
                    context, view, (width, height), poses, far_m, shading
                )
                return _image(pixels, width, height)
        except Exception as error:  # noqa: BLE001 - a driver failure: QPainter draws
            _LOG.warning(
                "OpenGL could not draw the scene (%s); QPainter draws it", error
            )
            return None

    def _draw(
        self,
        context: _Context,
        view: SceneView3d,
        size: tuple[int, int],
        poses: FloatArray,
        far_m: float,
        shading: tuple[tuple[float, ...], float, tuple[float, float, float]],
    ) -> Any:
        import moderngl

        width, height = size
        gl = context.gl
        array, texture = self._vertex_array(context)
        matrices = np.zeros((self._bodies, 4, 4), dtype=np.float32)
        count = min(len(poses), self._bodies)
        matrices[:count, :3, :3] = matrices_from_quaternions(poses[:count, 3:7])
        matrices[:count, :3, 3] = poses[:count, :3]
        matrices[:, 3, 3] = 1.0
        texture.write(matrices.tobytes())
        texture.use(location=0)
        program = context.program
        program["poses"].value = 0
        program["view_projection"].write(
            _view_projection(view, width, height, far_m).T.astype(np.float32).tobytes()
        )
        (
            program["light"].value,
            program["ambient"].value,
            program["background"].value,
        ) = shading
        target = context.target((width, height))
        target.use()
        gl.viewport = (0, 0, width, height)
        gl.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)
        gl.enable(moderngl.DEPTH_TEST)
        gl.disable(moderngl.CULL_FACE)
        array.render(moderngl.TRIANGLES)
        return np.frombuffer(target.read(components=4), dtype=np.uint8)


def _image(pixels: Any, width: int, height: int) -> QImage:
    """Return an image of OpenGL's rows (bottom up), top row first."""
    rows = np.asarray(pixels).reshape(height, width, 4)[::-1].copy()
    image = QImage(
        rows.data, width, height, 4 * width, QImage.Format.Format_RGBA8888_Premultiplied
    )
    return image.copy()


def gl_solids_for(
    meshes: Iterable[GeometryMesh], bodies: int, faded: Mapping[int, float]
) -> GlSolids | None:
    """Return the meshes ready for OpenGL, or ``None`` where there is none.

    ``faded`` maps a body to how far its meshes fade toward the background
    (another environment than the one highlighted).
    """
    if _context() is None:
        return None
    return GlSolids(meshes, bodies, faded)
