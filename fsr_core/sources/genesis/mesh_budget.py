"""Which meshes of a Genesis scene are drawn, within the drawing budget.

The scene view rasterises meshes with OpenGL (``app/canvas/gl_solids.py``:
a 155,000-triangle Franka in about 40 ms a frame on Mesa's llvmpipe) and,
without OpenGL, thins them for QPainter itself; so a recording keeps its
meshes as Genesis holds them up to :data:`MAX_TRIANGLES` triangles, counted
over every environment, a bound on memory and on the OpenGL frame time (a
batched run of hundreds of visual Frankas would pass it).

A robot loaded as users load it brings its visual meshes: the Franka arm
Genesis ships has 134,888 visual triangles against 3,050 of collision
meshes. :func:`place_meshes` chooses, entity by entity:

1. Every link is drawn with its visual meshes (those
   :func:`~fsr_core.sources.genesis.scene_geometry.link_meshes` gives first).
2. While that passes the budget, the entity whose visual meshes cost the most
   over its collision ones is drawn with its collision meshes instead (those
   of its links that have them; Genesis's own collision view of it), with a
   note naming it.
3. Should that still pass the budget, links are taken environment by
   environment, link by link, each with all its meshes or none: a link never
   shows some of its meshes without the others (pieces away from the link
   they belong to); one left out is drawn as an axis triad by the caller,
   with a note.

No mesh is decimated here: each is kept as Genesis holds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from fsr_core.recording import GeometryMesh
from fsr_core.sources.genesis.scene_geometry import LinkMesh

__all__ = ["MAX_TRIANGLES", "place_meshes"]

MAX_TRIANGLES: Final = 1_000_000
"""Triangles drawn per recording at most (every environment counted)."""


@dataclass(frozen=True)
class _Entity:
    """The meshes of one entity: drawn as they come, or their stand-ins."""

    number: int
    name: str
    visual: tuple[LinkMesh, ...]
    collision: tuple[LinkMesh, ...]

    @property
    def saving(self) -> int:
        """Triangles saved per environment by drawing the stand-ins."""
        return _triangles(self.visual) - _triangles(self.collision)


def _triangles(meshes: Sequence[LinkMesh]) -> int:
    return sum(len(mesh.faces) for mesh in meshes)


def _entities(meshes: Sequence[LinkMesh], entity_names: Sequence[str]) -> list[_Entity]:
    """Group ``meshes`` by entity: what each draws first, and with stand-ins."""
    found = []
    for number in sorted({mesh.entity for mesh in meshes}):
        own = [mesh for mesh in meshes if mesh.entity == number]
        first = tuple(mesh for mesh in own if not mesh.stand_in)
        standing_in = {mesh.link for mesh in own if mesh.stand_in}
        swapped = tuple(
            mesh for mesh in own if mesh.stand_in or mesh.link not in standing_in
        )
        name = entity_names[number] if number < len(entity_names) else ""
        found.append(_Entity(number, name or f"entity {number}", first, swapped))
    return found


def _choose(entities: list[_Entity], envs: int, notes: list[str]) -> list[LinkMesh]:
    """Return the meshes to draw in one environment, stand-ins where needed."""
    chosen = {entity.number: entity.visual for entity in entities}
    total = envs * _triangles([m for meshes in chosen.values() for m in meshes])
    for entity in sorted(entities, key=lambda item: item.saving, reverse=True):
        if total <= MAX_TRIANGLES or entity.saving <= 0:
            break
        chosen[entity.number] = entity.collision
        total -= envs * entity.saving
        notes.append(
            f"{entity.name} is drawn with its collision meshes "
            f"({_triangles(entity.collision)} triangles) instead of its visual "
            f"ones ({_triangles(entity.visual)}): the scene view draws at most "
            f"{MAX_TRIANGLES} triangles"
        )
    return [mesh for entity in entities for mesh in chosen[entity.number]]


def _by_link(meshes: Sequence[LinkMesh]) -> dict[int, list[LinkMesh]]:
    links: dict[int, list[LinkMesh]] = {}
    for mesh in meshes:
        links.setdefault(mesh.link, []).append(mesh)
    return links


def place_meshes(
    meshes: Sequence[LinkMesh],
    n_links: int,
    bodies: Sequence[str],
    entity_names: Sequence[str] = (),
) -> tuple[tuple[GeometryMesh, ...], npt.NDArray[np.bool_], list[str]]:
    """Put ``meshes`` on the bodies of every environment, within the budget.

    ``bodies`` are ``n_links`` per environment, environment after
    environment; ``entity_names`` name the entities in the notes. Returns the
    meshes, which bodies got one, and notes on what the budget changed.
    """
    envs = len(bodies) // max(n_links, 1)
    notes: list[str] = []
    links = _by_link(_choose(_entities(meshes, entity_names), envs, notes))
    placed: list[GeometryMesh] = []
    covered = np.zeros(len(bodies), dtype=bool)
    triangles = skipped = skipped_triangles = 0
    for env in range(envs):
        for link, own in sorted(links.items()):
            count = _triangles(own)
            if triangles + count > MAX_TRIANGLES:
                skipped += 1
                skipped_triangles += count
                continue
            triangles += count
            body = env * n_links + link
            covered[body] = True
            placed.extend(
                GeometryMesh(
                    name=f"{bodies[body]}:{mesh.name}",
                    body=body,
                    kind=mesh.kind,
                    vertices_m=mesh.vertices_m,
                    faces=mesh.faces,
                    rgba=mesh.rgba,
                )
                for mesh in own
            )
    if skipped:
        notes.append(
            f"{skipped} links ({skipped_triangles} triangles) are drawn as axis "
            f"triads: the scene view draws at most {MAX_TRIANGLES} triangles"
        )
    return tuple(placed), covered, notes
