"""A write that fails mid-export (full disk, file-size limit) is told as such.

docs/robustness.md, W14 and U12: the export ends with a ``WriteFailedError`` naming the
file and the cause (for a full disk, the free space and the size the export
needs), nothing is left under the final or the partial name, and the command
line prints one line and exits 1 instead of an "internal error".
"""

from __future__ import annotations

import errno
import io
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from view_models import export_video_as

import app.headless.export.atomic as atomic
from app.headless.export.encoder import EncodedSize
from fsr_core.errors import WriteFailedError
from fsr_core.sources import open_recording
from tests.app.conftest import record_short_take

pytestmark = pytest.mark.gui

FORMATS = [".mp4", ".gif", ".webm"]


@pytest.fixture(scope="module")
def take(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record_short_take(tmp_path_factory.mktemp("take"), "02_multi_target")


class _DiskWithQuota(io.RawIOBase):
    """The partial file on a disk that fills up after ``quota`` bytes."""

    def __init__(self, fd: int, quota: int) -> None:
        self._file = io.FileIO(fd, "r+b", closefd=False)
        self._quota = quota

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._file.readinto(buffer) or 0

    def write(self, data: Any) -> int:
        room = self._quota - self._file.tell()
        if room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._file.write(bytes(data)[:room]) or 0

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()


@pytest.mark.parametrize("suffix", FORMATS)
def test_a_full_disk_mid_export_names_the_cause_and_leaves_nothing(
    take: Path,
    tmp_path: Path,
    qapp: Any,
    monkeypatch: pytest.MonkeyPatch,
    suffix: str,
) -> None:
    def full_disk(fd: int, mode: str, closefd: bool = True) -> io.BufferedRandom:
        return io.BufferedRandom(_DiskWithQuota(fd, 20_000))

    monkeypatch.setattr(atomic.os, "fdopen", full_disk)
    out = tmp_path / "out" / f"run{suffix}"
    out.parent.mkdir()
    with pytest.raises(WriteFailedError) as caught:
        export_video_as(open_recording(take), out, panel=True, size=(320, 320))

    message = str(caught.value)
    assert str(out) in message
    assert "No space left on device" in message
    assert " free in " in message  # the free space where the file was going
    assert " needed)" in message  # and what the whole export would take
    assert caught.value.errno == errno.ENOSPC
    assert list(out.parent.iterdir()) == []  # no final file, no partial file


@pytest.mark.parametrize("suffix", FORMATS)
def test_a_file_size_limit_hit_by_the_command_exits_1_with_one_line(
    take: Path, tmp_path: Path, suffix: str
) -> None:
    out = tmp_path / f"run{suffix}"

    def limit_file_size() -> None:  # a real failing write(2): EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))

    done = subprocess.run(
        [sys.executable, "-m", "app", str(take), "--export", str(out), "--panel"],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        preexec_fn=limit_file_size,  # the child sets only a file-size limit
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 1, done.stderr
    last_line = done.stderr.strip().splitlines()[-1]
    assert last_line == f"fsr-viewer: {out}: export failed: File too large"
    assert "Traceback" not in done.stderr
    assert "internal error" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_size_needed_is_estimated_from_the_frames_after_the_first() -> None:
    class Packet:
        def __init__(self, size: int) -> None:
            self.size = size

    size = EncodedSize()
    assert size.estimate(100) is None  # nothing encoded yet
    size.add([Packet(80_000)])  # a GIF's first frame holds the whole picture
    assert size.estimate(100) == 8_000_000  # one frame: all it can go by
    size.add([Packet(10_000), Packet(12_000)])  # the others only what changed
    assert size.estimate(100) == 80_000 + 11_000 * 99
