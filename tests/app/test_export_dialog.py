"""File → Export… driven through the real widgets: the dialog, the progress, Cancel."""

from __future__ import annotations

import shutil
from pathlib import Path

import av
import pytest
from data_paths import TEST_DATA
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractButton, QMenu, QPushButton
from pytestqt.qtbot import QtBot

from app.headless.export.atomic import partial_name
from app.headless.export.video import ExportResult, frame_count
from app.window.export.dialog import ExportDialog
from app.window.export.window_export import WindowExport
from app.window.main_window import MainWindow
from fsr_core.playlists.episodes import episode_path
from fsr_core.sources import open_recording

pytestmark = pytest.mark.gui


LEROBOT = TEST_DATA / "lerobot"

#: The size of the conftest's ``window``.
WINDOW_SIZE = (1100, 700)


def _export(window: MainWindow) -> WindowExport:
    return window.menus.export


def _file_action(window: MainWindow, text: str) -> QAction:
    menu = window.menuBar().actions()[0].menu()
    assert isinstance(menu, QMenu)
    found = [a for a in menu.actions() if a.text().replace("&", "") == text]
    assert len(found) == 1, [a.text() for a in menu.actions()]
    return found[0]


def _open_dialog(qtbot: QtBot, window: MainWindow, take: Path) -> ExportDialog:
    window.open_files([take])
    _file_action(window, "Export…").trigger()
    dialog = _export(window).dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def _type_output(qtbot: QtBot, dialog: ExportDialog, path: Path) -> None:
    dialog.output_edit.selectAll()
    qtbot.keyClick(dialog.output_edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(dialog.output_edit, str(path))


def _fill(
    qtbot: QtBot,
    dialog: ExportDialog,
    out: Path,
    size: tuple[int, int],
    speed: float | None = None,
) -> None:
    """Type ``out`` as the output, then set the frame size (and the speed)."""
    _type_output(qtbot, dialog, out)
    dialog.width_spin.setValue(size[0])
    dialog.height_spin.setValue(size[1])
    if speed is not None:
        dialog.speed_spin.setValue(speed)


def _click(qtbot: QtBot, button: QAbstractButton) -> None:
    """Click ``button`` near its left edge (a check box's box)."""
    where = QPoint(min(8, button.width() // 2), button.height() // 2)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=where)


def _decoded(path: Path) -> tuple[int, tuple[int, int]]:
    with av.open(str(path)) as container:
        frames = list(container.decode(container.streams.video[0]))
    return len(frames), (frames[0].width, frames[0].height)


def test_export_is_offered_once_a_recording_plays_with_the_window_defaults(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path]
) -> None:
    action = _file_action(window, "Export…")
    assert not action.isEnabled()
    window.session.clock.set_speed(2.0)
    window.session.options.set_overlay("com", True)

    dialog = _open_dialog(qtbot, window, short_takes["multi"])

    assert action.isEnabled()
    assert dialog.output_edit.text() == str(
        short_takes["multi"].with_name("02_multi_target.mp4")
    )
    assert dialog.format_combo.currentText() == "MP4 (H.264)"
    assert dialog.speed_spin.value() == 2.0
    assert dialog.overlay_checks["com"].isChecked()
    assert dialog.view_combo.count() == 1  # no cameras: the scene only
    model = open_recording(short_takes["multi"])
    frames = frame_count(model.duration_s, fps=30.0, speed=2.0)
    assert dialog.summary_label.text().startswith(f"{frames} frames, 800x800 px")
    dialog.reject()


def test_format_follows_the_extension_and_an_unknown_one_is_refused(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path], tmp_path: Path
) -> None:
    dialog = _open_dialog(qtbot, window, short_takes["multi"])

    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData(".gif"))
    assert dialog.output_edit.text().endswith("02_multi_target.gif")
    _type_output(qtbot, dialog, tmp_path / "run.webm")
    assert dialog.format_combo.currentText() == "WebM (VP9)"
    assert dialog.export_button.isEnabled()
    _type_output(qtbot, dialog, tmp_path / "run.avi")

    assert not dialog.export_button.isEnabled()
    assert "must be .mp4, .webm or .gif" in dialog.problem_label.text()
    assert dialog.summary_label.text() == ""
    dialog.reject()


def test_filled_dialog_exports_the_frames_and_size_it_announces(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path], tmp_path: Path
) -> None:
    dialog = _open_dialog(qtbot, window, short_takes["reach"])
    out = tmp_path / "reach panel.mp4"
    _type_output(qtbot, dialog, out)
    dialog.view_combo.setCurrentIndex(dialog.view_combo.findData("both"))
    dialog.width_spin.setValue(161)
    dialog.height_spin.setValue(121)
    dialog.fps_spin.setValue(20.0)
    dialog.speed_spin.setValue(1.0)
    dialog.start_spin.setValue(0.1)
    _click(qtbot, dialog.panel_check)
    assert dialog.camera_combo.isEnabled()
    assert dialog.camera_combo.currentText() == "front"
    # 2 views of 161 px and the 304 px panel, padded to even for yuv420p
    duration_s = open_recording(short_takes["reach"]).duration_s
    expected_frames = frame_count(duration_s - 0.1, fps=20.0, speed=1.0)
    assert dialog.summary_label.text().startswith(
        f"{expected_frames} frames, 626x122 px"
    )

    with qtbot.waitSignal(_export(window).finished, timeout=60_000) as done:
        _click(qtbot, dialog.export_button)

    result = done.args[0]
    assert isinstance(result, ExportResult)
    assert _decoded(out) == (expected_frames, (626, 122))
    assert not (tmp_path / partial_name(out)).exists()
    box = _export(window).message_box
    assert box is not None
    assert box.isVisible()
    assert not box.isModal()
    assert str(out) in box.text()
    assert str(out) in window.status_label.text()
    assert _file_action(window, "Export…").isEnabled()


def test_cancel_half_way_leaves_nothing_under_the_final_name(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path], tmp_path: Path
) -> None:
    dialog = _open_dialog(qtbot, window, short_takes["multi"])
    out = tmp_path / "long.mp4"
    _fill(qtbot, dialog, out, (64, 64), speed=0.01)  # about 1500 frames
    duration_s = open_recording(short_takes["multi"]).duration_s
    _click(qtbot, dialog.export_button)
    export = _export(window)
    progress = export.progress
    assert progress is not None
    assert progress.isVisible()
    assert not _file_action(window, "Export…").isEnabled()
    qtbot.waitUntil(lambda: progress.value() >= 10, timeout=30_000)
    assert progress.maximum() == frame_count(duration_s, fps=30.0, speed=0.01)
    assert (tmp_path / partial_name(out)).exists()
    cancel = progress.findChild(QPushButton)
    assert cancel is not None
    assert cancel.text() == "Cancel"

    with qtbot.waitSignal(export.cancelled, timeout=30_000) as stopped:
        _click(qtbot, cancel)

    message = stopped.args[0]
    assert message == f"{out}: export cancelled, nothing written"
    assert list(tmp_path.glob("*long.mp4*")) == []
    assert window.status_label.text() == message
    assert export.progress is None
    assert _file_action(window, "Export…").isEnabled()


def test_an_existing_file_is_kept_until_replace_is_ticked(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "kept.gif"
    out.write_bytes(b"old")
    dialog = _open_dialog(qtbot, window, short_takes["pushed"])
    _fill(qtbot, dialog, out, (64, 48))

    _click(qtbot, dialog.export_button)
    assert dialog.isVisible()
    assert "kept.gif exists" in dialog.problem_label.text()
    assert out.read_bytes() == b"old"

    _click(qtbot, dialog.overwrite_check)
    with qtbot.waitSignal(_export(window).finished, timeout=60_000):
        _click(qtbot, dialog.export_button)
    assert out.read_bytes()[:6] == b"GIF89a"


def test_a_failed_export_is_shown_without_blocking_the_window(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path], tmp_path: Path
) -> None:
    take = tmp_path / "moved.fsr"
    shutil.copyfile(short_takes["pushed"], take)
    dialog = _open_dialog(qtbot, window, take)
    out = tmp_path / "moved.mp4"
    take.unlink()  # the recording disappears before the export opens it

    with qtbot.waitSignal(_export(window).failed, timeout=30_000) as failed:
        _click(qtbot, dialog.export_button)

    assert "moved.fsr" in failed.args[0]
    box = _export(window).message_box
    assert box is not None
    assert box.isVisible()
    assert not box.isModal()
    assert box.text().startswith("Export failed: ")
    assert "moved.fsr" in box.text()
    assert not out.exists()
    assert not (tmp_path / partial_name(out)).exists()


def test_closing_the_window_cancels_a_running_export(
    qtbot: QtBot, window: MainWindow, short_takes: dict[str, Path], tmp_path: Path
) -> None:
    dialog = _open_dialog(qtbot, window, short_takes["multi"])
    out = tmp_path / "closed.webm"
    _fill(qtbot, dialog, out, (64, 64), speed=0.01)
    _click(qtbot, dialog.export_button)
    progress = _export(window).progress
    assert progress is not None
    qtbot.waitUntil(lambda: progress.value() >= 5, timeout=30_000)

    window.close()

    assert _export(window).wait_done(0)
    assert list(tmp_path.glob("*closed.webm*")) == []


def test_a_recording_without_a_scene_is_offered_with_its_camera(
    qtbot: QtBot, window: MainWindow
) -> None:
    episode = episode_path(LEROBOT / "tiny_v21", 0)
    dialog = _open_dialog(qtbot, window, episode)

    # A LeRobot episode has cameras but no arm to draw: the camera comes first.
    assert dialog.view_combo.currentData() == "camera"
    assert dialog.camera_combo.currentText() == "observation.images.front"
    dialog.reject()
