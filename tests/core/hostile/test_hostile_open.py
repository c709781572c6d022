"""Hostile input A (docs/robustness.md): opening, the filesystem (1-10), open options.

Every case goes through :func:`hostile_harness.full_read` (2 s watchdog), so a
FIFO that blocked or a device that streamed forever would be a ``hang``, not a
stuck test run.
"""

from __future__ import annotations

import errno
import hashlib
import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_harness import (
    expect_clean_read,
    expect_junk_after_trailer,
    expect_open_error,
    full_read,
)

from fsr_core.errors import (
    CorruptRecordError,
    LimitExceededError,
    NotRegularFileError,
    OpenFailedError,
    SymlinkRefusedError,
    TruncatedFileError,
)
from fsr_core.format import safe_open
from fsr_core.format.reader import FsrReader

WriteFile = Callable[..., Path]


def test_symlink_final_component_is_refused(
    tmp_path: Path, write_file: WriteFile, valid_bytes: bytes
) -> None:
    """#1: ``O_NOFOLLOW`` turns the symlink into ``SymlinkRefusedError(ELOOP)``."""
    target = write_file(valid_bytes, "real.fsr")
    link = tmp_path / "link.fsr"
    link.symlink_to(target)

    error = expect_open_error(link, SymlinkRefusedError)

    assert error.errno == errno.ELOOP
    assert error.path == str(link)


def test_symlinked_parent_directory_is_allowed_by_default(
    tmp_path: Path, valid_bytes: bytes
) -> None:
    """#2: the documented default follows user-chosen parent directories."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "run.fsr").write_bytes(valid_bytes)
    alias = tmp_path / "alias"
    alias.symlink_to(real, target_is_directory=True)

    result = expect_clean_read(alias / "run.fsr")

    assert result.record_count == expect_clean_read(valid_bytes).record_count


def test_fifo_is_refused_quickly_without_blocking(tmp_path: Path) -> None:
    """#3: a FIFO with no writer is refused (``O_NONBLOCK``), never waited on.

    A blocking open would hang here; the harness's watchdog turns a hang into
    a failure, so no wall-clock assertion is needed (timings are benchmarks).
    """
    fifo = tmp_path / "pipe.fsr"
    os.mkfifo(fifo)

    error = expect_open_error(fifo, NotRegularFileError)

    assert "fifo" in error.reason
    assert error.path == str(fifo)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_character_device_is_refused(device: str) -> None:
    """#4: ``/dev/zero`` and friends are character devices, never read."""
    error = expect_open_error(device, NotRegularFileError)

    assert "character device" in error.reason


def test_directory_named_like_a_recording_is_refused(tmp_path: Path) -> None:
    """#5: a directory ``x.fsr``."""
    folder = tmp_path / "x.fsr"
    folder.mkdir()

    error = expect_open_error(folder, NotRegularFileError)

    assert "directory" in error.reason


def test_unix_socket_is_refused_with_enxio_wrapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#6: ``open`` on a socket fails with ``ENXIO``, wrapped, never raised raw."""
    monkeypatch.chdir(tmp_path)  # AF_UNIX paths are limited to ~108 bytes
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind("sock.fsr")

        error = expect_open_error(tmp_path / "sock.fsr", NotRegularFileError)

    assert error.errno == errno.ENXIO


def test_procfs_file_with_zero_size_is_an_empty_file() -> None:
    """#7: reads are bounded by the ``fstat`` size, which procfs reports as 0."""
    error = expect_open_error("/proc/self/status", TruncatedFileError)

    assert error.reason == "empty file"
    assert (error.section, error.offset) == ("header", 0)


def test_empty_file_is_truncated_at_offset_zero(write_file: WriteFile) -> None:
    """#8: 0 bytes."""
    path = write_file(b"")

    error = expect_open_error(path, TruncatedFileError)

    assert (error.reason, error.section, error.offset) == ("empty file", "header", 0)
    assert error.path == str(path)


def test_unreadable_file_is_open_failed_with_eacces(
    write_file: WriteFile, valid_bytes: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#9: no read permission gives ``OpenFailedError(errno=EACCES)`` with the path.

    Permission bits do not stop root, so when the suite runs as root the
    kernel's refusal is reproduced by making ``os.open`` fail as it would.
    """
    path = write_file(valid_bytes)
    path.chmod(0)
    if os.geteuid() == 0:
        real_open = os.open

        def refuse(
            name: str | os.PathLike[str], flags: int, *args: int, **kwargs: int
        ) -> int:
            if Path(name) == path:
                raise PermissionError(
                    errno.EACCES, os.strerror(errno.EACCES), str(name)
                )
            return real_open(name, flags, *args, **kwargs)

        monkeypatch.setattr(safe_open.os, "open", refuse)

    error = expect_open_error(path, OpenFailedError)

    assert error.errno == errno.EACCES
    assert error.path == str(path)
    assert "permission denied" in error.reason


def test_missing_file_is_open_failed_with_enoent(tmp_path: Path) -> None:
    """A missing path is an ``OpenFailedError``, not ``FileNotFoundError``."""
    error = expect_open_error(tmp_path / "absent.fsr", OpenFailedError)

    assert error.errno == errno.ENOENT


def test_huge_sparse_file_is_judged_by_its_index_without_scanning_the_hole(
    tmp_path: Path, valid_bytes: bytes
) -> None:
    """#10: a 1 TiB sparse file (a valid recording, a hole, a copy of its trailer).

    The trailer at the end locates a footer that is not there, so the strict
    open falls back to diagnosing from the front: the recording is intact and
    followed by junk (the hole). Neither mode reads the hole, so both finish
    far inside the time budget.
    """
    path = tmp_path / "sparse.fsr"
    size = 1 << 40
    with path.open("wb") as handle:
        handle.write(valid_bytes)
        handle.truncate(size - 32)
        handle.seek(size - 32)
        handle.write(valid_bytes[-32:])
    assert path.stat().st_size == size

    expect_junk_after_trailer(path, valid_bytes, size - len(valid_bytes))


def test_file_larger_than_max_bytes_is_refused(valid_bytes: bytes) -> None:
    """``max_bytes``: refused before anything is parsed."""
    error = expect_open_error(
        valid_bytes, LimitExceededError, max_bytes=len(valid_bytes) - 1
    )

    assert error.section == "file"
    assert str(len(valid_bytes)) in error.reason


def test_file_of_exactly_max_bytes_opens(valid_bytes: bytes) -> None:
    """``max_bytes`` at N opens, at N-1 refuses (§4.1: limits tested at N and N+1)."""
    expect_clean_read(valid_bytes, max_bytes=len(valid_bytes))


def test_expected_sha256_mismatch_is_a_corrupt_file(valid_bytes: bytes) -> None:
    """``expected_sha256`` that does not match the bytes."""
    error = expect_open_error(valid_bytes, CorruptRecordError, expected_sha256="0" * 64)

    assert error.section == "file"
    assert "0" * 64 in error.reason


def test_expected_sha256_match_opens_and_is_cached(
    write_file: WriteFile, valid_bytes: bytes
) -> None:
    """The right digest opens (upper case accepted) and is reported as the file's."""
    digest = hashlib.sha256(valid_bytes).hexdigest()
    path = write_file(valid_bytes)

    result = full_read(path, expected_sha256=digest.upper())

    assert result.outcome.kind == "ok"
    with FsrReader.open(path, expected_sha256=digest) as reader:
        assert reader.file_sha256 == digest
