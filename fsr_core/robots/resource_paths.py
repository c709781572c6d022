"""Where a description's mesh references point: ``package://``, relative, absolute.

A URDF names its meshes as ``package://NAME/path``, as paths relative to the
description, or as absolute paths (``file://`` too). :class:`ResourceRoots`
resolves each against, in order:

1. the package folders given by the user (``--package-path DIR``, repeatable),
   each either the package itself (its folder is called ``NAME``) or a folder
   holding it (``DIR/NAME``);
2. the same for each entry of ``ROS_PACKAGE_PATH``;
3. the description's own folder and its ancestors, as package folders or
   holders; and, for a description copied out of its package, the
   description's folder itself (``package://NAME/meshes/a.stl`` as
   ``meshes/a.stl`` beside it).

A reference never leads outside the root it was found under: ``..`` and
symbolic links that escape it are refused, and so is a relative or absolute
path outside the description's package (the nearest ancestor holding a
``package.xml``, else the folder above the description) and the package
folders.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

__all__ = ["ResourceRoots"]

_PACKAGE: str = "package://"
_FILE: str = "file://"


def _inside(candidate: Path, root: Path) -> Path | None:
    """``candidate`` with links resolved when it is a file inside ``root``."""
    try:
        real = candidate.resolve(strict=True)
        if real.is_file() and real.is_relative_to(root.resolve(strict=True)):
            return real
    except (OSError, RuntimeError):
        pass
    return None


@dataclass(frozen=True)
class ResourceRoots:
    """The folders a description's references may resolve into."""

    folder: Path
    """The description's folder (for a description read from a recording, the
    recording's folder)."""
    package_paths: tuple[Path, ...] = ()
    """``--package-path`` folders, then ``ROS_PACKAGE_PATH``'s."""

    @classmethod
    def for_description(
        cls,
        description: Path,
        package_paths: tuple[Path, ...] = (),
        environ: Mapping[str, str] | None = None,
    ) -> ResourceRoots:
        """Make a description file's roots: given paths, then ``ROS_PACKAGE_PATH``."""
        variable = (os.environ if environ is None else environ).get(
            "ROS_PACKAGE_PATH", ""
        )
        from_ros = tuple(Path(item) for item in variable.split(os.pathsep) if item)
        return cls(folder=description.parent, package_paths=(*package_paths, *from_ros))

    @property
    def package_root(self) -> Path:
        """Return the description's package folder.

        That is the nearest ancestor with a ``package.xml``, else the folder
        above the description's.
        """
        for folder in (self.folder, *self.folder.parents):
            if (folder / "package.xml").is_file():
                return folder
        return self.folder.parent

    def _package_candidates(self, name: str, rest: str) -> Iterator[tuple[Path, Path]]:
        """``(candidate, root it must stay in)`` for ``package://name/rest``."""
        for base in (*self.package_paths, self.folder, *self.folder.parents):
            if base.name == name:
                yield base / rest, base
            yield base / name / rest, base / name
        yield self.folder / rest, self.folder

    def resolve(self, reference: str) -> Path | None:
        """Return the file ``reference`` names inside the roots.

        ``None`` when there is none (a missing mesh; the caller warns).
        """
        if reference.startswith(_PACKAGE):
            name, _, rest = reference[len(_PACKAGE) :].partition("/")
            if not name or not rest:
                return None
            for candidate, root in self._package_candidates(name, unquote(rest)):
                found = _inside(candidate, root)
                if found is not None:
                    return found
            return None
        path = Path(
            unquote(reference[len(_FILE) :])
            if reference.startswith(_FILE)
            else reference
        )
        if not path.is_absolute():
            path = self.folder / path
        for root in (self.package_root, *self.package_paths):
            found = _inside(path, root)
            if found is not None:
                return found
        return None
