"""The system calls the writer makes, behind one object so tests can inject faults."""

from __future__ import annotations

import errno as errno_codes
import os

from fsr_core.errors import TargetExistsError, WriteFailedError

__all__ = ["FileOps"]


class FileOps:
    """Thin, overridable wrappers around the writer's I/O system calls.

    Every method raises :class:`WriteFailedError` (or ``TargetExistsError``)
    instead of ``OSError``. A test subclass can fail the Nth call.
    """

    def open_dir(self, path: str) -> int:
        """Open the destination directory and return its descriptor."""
        try:
            return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise WriteFailedError(
                f"cannot open output folder: {exc.strerror}", errno=exc.errno, path=path
            ) from exc

    def create(self, name: str, dir_fd: int) -> int:
        """Create ``name`` exclusively inside ``dir_fd`` for writing."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        try:
            return os.open(name, flags, 0o644, dir_fd=dir_fd)
        except FileExistsError as exc:
            raise TargetExistsError(
                "file already exists; it is never overwritten",
                errno=exc.errno,
                path=name,
            ) from exc
        except OSError as exc:
            raise WriteFailedError(
                f"cannot create: {exc.strerror}", errno=exc.errno, path=name
            ) from exc

    def write(self, fd: int, data: bytes | memoryview, name: str) -> None:
        """Write all of ``data``, looping over short writes."""
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except OSError as exc:
                raise WriteFailedError(
                    f"write failed: {exc.strerror}", errno=exc.errno, path=name
                ) from exc
            view = view[written:]

    def fsync(self, fd: int, name: str) -> None:
        """Flush a file (or directory) to stable storage; failure is fatal."""
        try:
            os.fsync(fd)
        except OSError as exc:
            raise WriteFailedError(
                f"fsync failed: {exc.strerror}", errno=exc.errno, path=name
            ) from exc

    def exists(self, name: str, dir_fd: int) -> bool:
        """Whether ``name`` exists in ``dir_fd`` (symlinks count, even dangling)."""
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise WriteFailedError(
                f"cannot check the target: {exc.strerror}", errno=exc.errno, path=name
            ) from exc
        return True

    def link(self, source: str, target: str, dir_fd: int) -> bool:
        """Publish ``source`` as ``target`` without overwriting.

        Returns whether the publication was atomic (a hard link); filesystems
        without hard links get an exclusive-create copy instead.
        """
        try:
            os.link(
                source,
                target,
                src_dir_fd=dir_fd,
                dst_dir_fd=dir_fd,
                follow_symlinks=False,
            )
        except FileExistsError as exc:
            raise TargetExistsError(
                "file already exists; it is never overwritten",
                errno=exc.errno,
                path=target,
            ) from exc
        except OSError as exc:
            if exc.errno in (
                errno_codes.EPERM,
                errno_codes.ENOTSUP,
                errno_codes.EOPNOTSUPP,
                errno_codes.ENOSYS,
            ):
                self._copy_exclusive(source, target, dir_fd)
                return False
            raise WriteFailedError(
                f"cannot publish: {exc.strerror}", errno=exc.errno, path=target
            ) from exc
        return True

    def _copy_exclusive(self, source: str, target: str, dir_fd: int) -> None:
        """Copy to an exclusively created ``target`` and fsync it (no hard links)."""
        out = self.create(target, dir_fd)
        try:
            src = os.open(source, os.O_RDONLY | os.O_CLOEXEC, dir_fd=dir_fd)
            try:
                while chunk := os.read(src, 8 << 20):
                    self.write(out, chunk, target)
            finally:
                os.close(src)
            self.fsync(out, target)
        except BaseException:
            os.close(out)
            self.unlink(target, dir_fd)
            raise
        os.close(out)

    def unlink(self, name: str, dir_fd: int) -> None:
        """Remove ``name`` if it exists; errors are ignored (cleanup only)."""
        try:
            os.unlink(name, dir_fd=dir_fd)
        except OSError:
            return

    def close(self, fd: int) -> None:
        """Close a descriptor, ignoring errors (cleanup only)."""
        try:
            os.close(fd)
        except OSError:
            return
