"""The player's menus and keys: File, View, Playback, Replay, Help, transport keys.

File → Export… (Ctrl+E) renders the playing recording to a video in the
background (:class:`app.window.export.window_export.WindowExport`); the
Replay menu's entries come from
:class:`app.window.replay.window_replay.WindowReplay`. The menus take the
``QMainWindow`` they sit in and a :class:`MenuHost` for the player's intents.
View → Time base reopens the playing recording with another time base (log
time, publish time, header stamp) when its source reads one (an MCAP log).

View → Dataset shows the Dataset overview (the quality checks of the
playlist's entries); key F flags or unflags the playing entry.

Keys are application-wide shortcuts, so they work while the playlist (even
floating) has the focus: Space, ←/B, →, F, R/Home, End, N, P, Q.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
)

from app.canvas.overlay_registry import overlays
from app.canvas.view_model import ViewModel
from app.window.export.window_export import WindowExport
from app.window.replay.window_replay import WindowReplay
from app.window.state.session import PlayerSession
from fsr_core.recording import RecordingModel
from fsr_core.sources import (
    TIME_BASE_NAMES,
    TIME_BASES,
    open_dialog_filter,
    source_reads_option,
)

__all__ = ["KEYS", "MenuHost", "Menus", "build_menus"]


#: The player keys and what they do (also the Help → Keys text).
KEYS: tuple[tuple[str, str], ...] = (
    ("Space", "play / pause"),
    ("← or B", "previous frame (paused)"),
    ("→", "next frame (paused)"),
    ("F", "flag / unflag the playing entry (View → Dataset)"),
    ("R or Home", "back to start"),
    ("End", "last frame (back to LIVE while following)"),
    ("N / P", "next / previous file (keeps playing)"),
    ("Ctrl+O", "open files"),
    ("Ctrl+E", "export a video (File → Export…)"),
    ("Ctrl+L", "show / hide the playlist"),
    ("Ctrl+I", "show / hide the inspector"),
    ("Q", "quit"),
)

#: What View → Time base says of each base (the text is its name, capitalised).
_TIME_BASE_TIPS: dict[str, str] = {
    "log": "place each message at the time the recorder wrote it (the default)",
    "publish": "place each message at the time it was sent",
    "header": "place each message at its header stamp (when its data were taken); "
    "a message without one stays at its log time, and the inspector's notes "
    "name its topic",
}


class MenuHost(Protocol):
    """What the menus ask of the player window besides its ``QMainWindow``."""

    @property
    def session(self) -> PlayerSession:
        """The playlist, clock and view options the menus drive."""

    @property
    def inspector_dock(self) -> QDockWidget:
        """The inspector dock (View → Inspector)."""

    @property
    def plots_dock(self) -> QDockWidget:
        """The channel plots dock (View → Plots)."""

    @property
    def dataset_dock(self) -> QDockWidget:
        """The Dataset overview's dock (View → Dataset)."""

    def toggle_flag(self) -> None:
        """Flag or unflag the playing entry (key F)."""

    def open_files(self, paths: Sequence[Path], *, play: bool = False) -> None:
        """Add files to the playlist (File → Open…, Open Recent)."""

    def follow_file(self, path: Path) -> None:
        """Follow a recording being written (File → Follow Recording…)."""

    def show_playlist(self, visible: bool) -> None:
        """Show or hide the playlist dock (View → Playlist)."""

    def pick_channels(self) -> None:
        """Ask which channels to plot (View → Plot channels…)."""

    def load_robot_model(self) -> None:
        """Ask for a robot description to draw the recording with (File menu)."""


@dataclass
class Menus:
    """The actions other parts of the window update."""

    host: MenuHost
    recent_menu: QMenu
    camera_menu: QMenu
    playlist_action: QAction
    inspector_action: QAction
    export: WindowExport
    replay: WindowReplay
    time_base_menu: QMenu
    environment_menu: QMenu
    time_base_actions: dict[str, QAction] = field(default_factory=dict)
    toggles: dict[str, QAction] = field(default_factory=dict)

    def set_recent(self, paths: list[Path]) -> None:
        """List these files under File → Open Recent."""
        self.recent_menu.clear()
        for path in paths:
            # "&" would be read as a mnemonic; "&&" shows one.
            action = self.recent_menu.addAction(str(path).replace("&", "&&"))
            action.triggered.connect(
                lambda _=False, chosen=path: self.host.open_files([chosen], play=True)
            )
        self.recent_menu.setEnabled(bool(paths))

    def set_model(self, model: RecordingModel | None) -> None:
        """Offer the cameras of ``model`` under View → Cameras; export, replay it."""
        self.export.set_model(model)
        self.replay.set_model(model)
        self.camera_menu.clear()
        names = [] if model is None else [track.name for track in model.cameras]
        options = self.host.session.options
        chosen = set(options.options.cameras) & set(names) or set(names)
        for name in names:
            action = self.camera_menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(name in chosen)
            action.toggled.connect(self._on_camera_toggled)
        self.camera_menu.setEnabled(bool(names))
        self.time_base_menu.setEnabled(
            model is not None and source_reads_option(model.source, "time_base")
        )
        offered = None if model is None else model.metadata.get("time_bases")
        if isinstance(offered, list) and offered:
            self._fill_time_bases(tuple(str(name) for name in offered))
        else:
            self._fill_time_bases(TIME_BASES)
        self.sync_time_base()
        self._set_environments(model)

    def _set_environments(self, model: RecordingModel | None) -> None:
        """Offer the environments of a batched 3D scene under View → Environment."""
        menu = self.environment_menu
        menu.clear()
        geometry = None if model is None else model.geometry
        groups = () if geometry is None else geometry.groups
        chosen = self.host.session.options.options.environment
        chosen = chosen if chosen in groups else ""
        exclusive = QActionGroup(menu)
        for name, label in (("", "All"), *((group, group) for group in groups)):
            action = menu.addAction(label.replace("&", "&&"))  # "&" is no mnemonic
            action.setCheckable(True)
            action.setChecked(name == chosen)
            action.setActionGroup(exclusive)
            action.triggered.connect(
                lambda _=False, picked=name: self.host.session.options.update(
                    environment=picked
                )
            )
        menu.setEnabled(bool(groups))

    def sync_time_base(self, *_: object) -> None:
        """Tick the time base chosen, else the one the playing recording is on."""
        session = self.host.session
        model = session.model
        in_effect = None if model is None else model.metadata.get("time_base")
        names = tuple(self.time_base_actions)
        base = session.open_options.time_base
        if base not in names:
            base = in_effect if in_effect in names else (names[0] if names else None)
        for name, action in self.time_base_actions.items():
            action.setChecked(name == base)

    def add_time_base_actions(self, window: QMainWindow) -> None:
        """Fill View → Time base: one exclusive, checkable action per base."""
        del window  # the actions belong to the menu, rebuilt per recording
        self.time_base_menu.setToolTipsVisible(True)
        self._fill_time_bases(TIME_BASES)
        self.host.session.open_options_changed.connect(self.sync_time_base)

    def _fill_time_bases(self, names: Sequence[str]) -> None:
        """List ``names`` under View → Time base (an MCAP's, or a recording's own).

        A Rerun recording offers its timelines; any other source the MCAP bases.
        """
        if tuple(self.time_base_actions) == tuple(names):
            return
        menu = self.time_base_menu
        menu.clear()
        self.time_base_actions.clear()
        group = QActionGroup(menu)
        group.setExclusive(True)
        for base in names:
            known = base in TIME_BASE_NAMES
            label = TIME_BASE_NAMES[base].capitalize() if known else f"Timeline {base}"
            tip = (
                _TIME_BASE_TIPS[base]
                if known
                else f"place each row at its time on the recording's {base!r} timeline"
            )
            action = menu.addAction(label.replace("&", "&&"))  # "&": no mnemonic
            action.setCheckable(True)
            action.setToolTip(tip)
            action.setStatusTip(tip)
            action.setActionGroup(group)
            action.triggered.connect(
                lambda _=False, chosen=base: self._on_time_base_triggered(chosen)
            )
            self.time_base_actions[base] = action

    def _on_time_base_triggered(self, base: str) -> None:
        """Reopen the playing recording on ``base``; later files open on it too."""
        session = self.host.session
        options = replace(session.open_options, time_base=base)
        model = session.model
        if model is not None and model.metadata.get("time_base") == base:
            session.set_open_options(options)  # already on it: nothing to reopen
        elif not session.reopen(options):
            session.set_open_options(options)

    def _on_camera_toggled(self, _: bool) -> None:
        chosen = tuple(
            action.text() for action in self.camera_menu.actions() if action.isChecked()
        )
        self.host.session.options.update(cameras=chosen)

    def sync_options(self, options: ViewModel) -> None:
        """Tick the overlay actions to match ``options``."""
        for name, action in self.toggles.items():
            action.blockSignals(True)
            action.setChecked(options.shows(name))
            action.blockSignals(False)


def _key_action(
    window: QMainWindow, text: str, keys: list[str], slot: Callable[[], object]
) -> QAction:
    action = QAction(text, window)
    action.setShortcuts([QKeySequence(key) for key in keys])
    action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
    action.triggered.connect(lambda _=False: slot())
    window.addAction(action)
    return action


def _open_dialog(window: QMainWindow, host: MenuHost) -> None:
    names, _ = QFileDialog.getOpenFileNames(
        window, "Open recordings", "", open_dialog_filter()
    )
    host.open_files([Path(name) for name in names], play=True)


def _follow_dialog(window: QMainWindow, host: MenuHost) -> None:
    name, _ = QFileDialog.getOpenFileName(
        window, "Follow a recording being written", "", open_dialog_filter()
    )
    if name:
        host.follow_file(Path(name))


def _open_folder_dialog(window: QMainWindow, host: MenuHost) -> None:
    folder = QFileDialog.getExistingDirectory(window, "Open a folder of recordings")
    if folder:
        host.open_files([Path(folder)], play=True)


def _keys_help(window: QMainWindow) -> None:
    text = "\n".join(f"{key:<12} {what}" for key, what in KEYS)
    box = QMessageBox(QMessageBox.Icon.Information, "Keys", text, parent=window)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setModal(False)
    box.show()


def build_menus(
    window: QMainWindow,
    host: MenuHost,
    *,
    export: WindowExport,
    replay: WindowReplay,
    recent: list[Path],
) -> Menus:
    """Create the menu bar and the player keys of ``window``.

    ``host`` carries out the player's intents; ``export`` and ``replay``
    give File → Export… and the Replay menu; ``recent`` fills Open Recent.
    """
    session = host.session
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    open_action = file_menu.addAction("&Open…")
    open_action.setShortcut(QKeySequence.StandardKey.Open)
    open_action.triggered.connect(lambda _=False: _open_dialog(window, host))
    folder_action = file_menu.addAction("Open &Folder…")
    folder_action.triggered.connect(lambda _=False: _open_folder_dialog(window, host))
    follow_action = file_menu.addAction("Fo&llow Recording…")
    follow_action.setToolTip(
        "open a recording while it is being written (FSR, MCAP, Genesis): "
        "it grows on the timeline, LIVE keeps the newest data shown"
    )
    follow_action.triggered.connect(lambda _=False: _follow_dialog(window, host))
    recent_menu = file_menu.addMenu("Open &Recent")
    robot_action = file_menu.addAction("Load &Robot Model…")
    robot_action.setToolTip(
        "draw the recording with a URDF or MJCF robot, posed by its joints"
    )
    robot_action.triggered.connect(lambda _=False: host.load_robot_model())
    file_menu.addSeparator()
    file_menu.addAction(export.action)
    file_menu.addSeparator()
    quit_action = file_menu.addAction("&Quit")
    quit_action.setShortcuts(
        [QKeySequence("Q"), QKeySequence(QKeySequence.StandardKey.Quit)]
    )
    quit_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
    quit_action.triggered.connect(window.close)

    view_menu = bar.addMenu("&View")
    playlist_action = view_menu.addAction("&Playlist")
    playlist_action.setCheckable(True)
    playlist_action.setShortcut(QKeySequence("Ctrl+L"))
    playlist_action.toggled.connect(host.show_playlist)
    inspector_action = host.inspector_dock.toggleViewAction()
    inspector_action.setText("&Inspector")
    inspector_action.setShortcut(QKeySequence("Ctrl+I"))
    view_menu.addAction(inspector_action)
    plots_action = host.plots_dock.toggleViewAction()
    plots_action.setText("P&lots")
    view_menu.addAction(plots_action)
    plot_pick = view_menu.addAction("Plot &channels…")
    plot_pick.triggered.connect(lambda _=False: host.pick_channels())
    dataset_action = host.dataset_dock.toggleViewAction()
    dataset_action.setText("&Dataset")
    dataset_action.setToolTip(
        "the quality checks of the playlist's entries: metrics, histograms, flags"
    )
    view_menu.addAction(dataset_action)
    view_menu.addAction(
        _key_action(window, "&Flag / unflag entry", ["F"], host.toggle_flag)
    )
    view_menu.addSeparator()
    camera_menu = view_menu.addMenu("&Cameras")
    menus = Menus(
        host,
        recent_menu,
        camera_menu,
        playlist_action,
        inspector_action,
        export,
        replay,
        view_menu.addMenu("Time &base"),
        view_menu.addMenu("&Environment"),
    )
    menus.add_time_base_actions(window)
    for overlay in overlays():
        action = view_menu.addAction(overlay.label)
        action.setCheckable(True)
        action.setChecked(session.options.options.shows(overlay.name))
        action.toggled.connect(
            lambda checked, key=overlay.name: session.options.set_overlay(key, checked)
        )
        menus.toggles[overlay.name] = action

    _playback_menu(window, session, bar.addMenu("&Playback"))
    replay_menu = bar.addMenu("&Replay")
    replay_menu.setToolTipsVisible(True)
    replay_menu.addActions(list(replay.actions))
    replay_menu.addSeparator()
    replay_menu.addAction(replay.dock_action)
    help_menu = bar.addMenu("&Help")
    help_menu.addAction("&Keys").triggered.connect(lambda _=False: _keys_help(window))
    menus.set_recent(recent)
    menus.set_model(None)
    return menus


def _playback_menu(window: QMainWindow, session: PlayerSession, menu: QMenu) -> None:
    clock = session.clock
    entries: list[tuple[str, list[str], Callable[[], object]]] = [
        ("Play / pause", ["Space"], clock.toggle),
        ("Previous frame", ["Left", "B"], lambda: clock.step(-1)),
        ("Next frame", ["Right"], lambda: clock.step(1)),
        ("Back to start", ["R", "Home"], clock.to_start),
        ("Last frame", ["End"], clock.to_end),
        ("Next file", ["N"], lambda: session.step_file(1)),
        ("Previous file", ["P"], lambda: session.step_file(-1)),
    ]
    for text, keys, slot in entries:
        menu.addAction(_key_action(window, text, keys, slot))
    loop = menu.addAction("Loop")
    loop.setCheckable(True)
    loop.toggled.connect(clock.set_loop)
    clock.loop_changed.connect(loop.setChecked)
