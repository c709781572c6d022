"""The player window: composition only. Builds the views and docks, connects signals.

Logic lives in :mod:`app.window.state` (session, clock, playlist, options), the
views in :mod:`app.window.widgets`, :mod:`app.window.camera` and
:mod:`app.window.plots`; File → Export… and the Replay menu in their controllers,
which get the pieces of the window they use (:mod:`app.window.ports`).
:func:`open_player` runs the window under the last-resort exception hook
(:mod:`app.window.last_resort`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.canvas.overlay_registry import default_overlays
from app.canvas.qt_app import ensure_app
from app.canvas.view_model import ViewModel
from app.window.camera import CameraArea
from app.window.dataset.overview import DatasetOverview
from app.window.dock_fit import DockWidthFitter
from app.window.export.window_export import WindowExport
from app.window.last_resort import LastResort
from app.window.menus import build_menus
from app.window.plots import ChannelPickerDialog, ChannelPlots
from app.window.plots.first_plots import first_plots, plots_are_all
from app.window.replay.presenter import ComparisonPresenter
from app.window.replay.window_replay import WindowReplay
from app.window.robot_models import RobotMemory
from app.window.settings import WindowSettings, default_settings
from app.window.state.session import PlayerSession
from app.window.widgets.inspector import InspectorDock
from app.window.widgets.plain_text import tooltip_html, visible_text
from app.window.widgets.playlist_dock import PlaylistDock
from app.window.widgets.scene_view import SceneView
from app.window.widgets.side_panel import SidePanel, scrolling
from app.window.widgets.timeline import TimelineScrubber
from app.window.widgets.transport import TransportBar
from app.window.workers.collector import GuiCollector
from fsr_core.errors import FsrError
from fsr_core.playlists.pinned import pinned_entries
from fsr_core.recording import RecordingModel
from fsr_core.sources import OpenOptions, expand_recordings

__all__ = ["APP_TITLE", "MainWindow", "open_player"]

logger = logging.getLogger(__name__)

APP_TITLE = "FSR Viewer"
#: Seconds the plots show while LIVE (they scroll with the newest data).
LIVE_WINDOW_S = 10.0
DEFAULT_SIZE = (1280, 800)
#: Characters of a status-bar message shown (the tooltip holds more).
STATUS_CHARS = 300


class MainWindow(QMainWindow):
    """The player: scene and cameras in the centre, panel right, timeline below."""

    def __init__(
        self,
        session: PlayerSession | None = None,
        settings: QSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session if session is not None else PlayerSession(parent=self)
        self.settings = WindowSettings(settings or default_settings())
        self.robot_memory = RobotMemory(self.settings.store)
        #: The plots last chosen for a numbers-only recording (not the user's).
        self._first_plots_shown: tuple[tuple[str, ...], ...] = ()
        clock = self.session.clock
        self.setWindowTitle(APP_TITLE)
        self.setAcceptDrops(True)
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks
            | QMainWindow.DockOption.AllowTabbedDocks
        )
        self.scene_view = SceneView(clock)
        self.camera_area = CameraArea(clock)
        self.side_panel = SidePanel(clock, self.session.options)
        self.timeline = TimelineScrubber()
        self.transport = TransportBar(clock)
        self.plots = ChannelPlots()
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setSizePolicy(
            QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred
        )
        self.setCentralWidget(self._centre())
        self.playlist_dock = PlaylistDock(self.session.playlist, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.playlist_dock)
        self.playlist_dock.hide()
        self.plots_dock = self._plots_dock()
        self.inspector_dock = InspectorDock(self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.inspector_dock)
        self.inspector_dock.hide()
        self.dataset = DatasetOverview(
            self,
            session=self.session,
            timeline=self.timeline,
            status=self,
            store=self.settings.store,
        )
        self.dataset_dock = self.dataset.dock
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dataset_dock)
        # The overview shares the bottom with the plots, a tab each.
        self.tabifyDockWidget(self.plots_dock, self.dataset_dock)
        self.dataset_dock.hide()
        self.statusBar().addWidget(self.status_label, 1)
        self.live_label = QLabel()
        self.live_label.setTextFormat(Qt.TextFormat.PlainText)
        self.live_label.hide()
        self.statusBar().addPermanentWidget(self.live_label)
        self.dock_fit = DockWidthFitter(self, self.playlist_dock)
        self.menus = build_menus(
            self,
            self,
            export=self._build_export(),
            replay=self._build_replay(),
            recent=self.settings.recent_files(),
        )
        self._connect()
        self._restore()

    # -- building ---------------------------------------------------------

    def _centre(self) -> QWidget:
        views = self.views_splitter = QSplitter(Qt.Orientation.Horizontal)
        views.setObjectName("views_splitter")
        views.setChildrenCollapsible(False)
        views.addWidget(self.scene_view)
        views.addWidget(self.camera_area)
        views.setStretchFactor(0, 1)
        views.setStretchFactor(1, 1)
        upper = QHBoxLayout()
        upper.setContentsMargins(0, 0, 0, 0)
        upper.addWidget(views, 1)
        upper.addWidget(scrolling(self.side_panel))
        centre = QWidget()
        layout = QVBoxLayout(centre)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.setSpacing(2)
        layout.addLayout(upper, 1)
        layout.addWidget(self.timeline)
        layout.addWidget(self.transport)
        return centre

    def _plots_dock(self) -> QDockWidget:
        dock = QDockWidget("Plots", self)
        dock.setObjectName("plots_dock")
        dock.setWidget(self.plots)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        dock.hide()
        return dock

    def _build_export(self) -> WindowExport:
        session = self.session
        return WindowExport(
            self,
            clock=session.clock,
            options=session.options,
            status=self,
            opening=session,
        )

    def _build_replay(self) -> WindowReplay:
        session = self.session
        presenter = ComparisonPresenter(
            self,
            clock=session.clock,
            timeline=self.timeline,
            inspector=self.inspector_dock.panel,
            plots=self.plots,
            status=self,
        )
        comparison_plots = presenter.dock.plots
        session.clock.position_changed.connect(comparison_plots.set_position)
        comparison_plots.seek_requested.connect(session.clock.seek)
        return WindowReplay(self, presenter, playlist=session, status=self)

    def _connect(self) -> None:
        session, clock = self.session, self.session.clock
        session.model_changed.connect(self._on_session_model_changed)
        session.model_grown.connect(self._on_session_model_grown)
        session.live_changed.connect(self._on_live_changed)
        session.message.connect(self.show_message)
        session.options.changed.connect(self._on_options_changed)
        session.playlist.current_changed.connect(self._on_playlist_current_changed)
        session.playlist.rowsInserted.connect(self._on_playlist_rows_inserted)
        clock.position_changed.connect(self.timeline.set_position)
        clock.position_changed.connect(self.plots.set_position)
        self.timeline.seek_requested.connect(clock.seek)
        self.plots.seek_requested.connect(clock.seek)
        self.transport.next_file_requested.connect(lambda: session.step_file(1))
        self.transport.previous_file_requested.connect(lambda: session.step_file(-1))
        self.playlist_dock.view.play_requested.connect(
            lambda row: session.load_row(row, play=True)
        )
        self.playlist_dock.visibilityChanged.connect(self._on_playlist_visibility)
        self.dataset_dock.toggleViewAction().triggered.connect(self._on_dataset_toggled)
        self.side_panel.playlist_toggled.connect(self.playlist_dock.setVisible)
        self.side_panel.plot_requested.connect(self.pick_channels)

    def _restore(self) -> None:
        settings = self.settings
        self.resize(*DEFAULT_SIZE)
        geometry = settings.geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = settings.dock_state()
        if state is not None:
            self.restoreState(state)
            self.dock_fit.assume_counted(
                not self.playlist_dock.isHidden()
                and not self.playlist_dock.isFloating()
            )
        self.session.options.update(overlays=settings.overlays())
        speed = settings.speed()
        if speed is not None:
            self.session.clock.set_speed(speed)

    # -- intents ----------------------------------------------------------

    def open_files(self, paths: Sequence[Path], *, play: bool = False) -> None:
        """Add files to the playlist; the first loads when nothing plays yet.

        A folder adds the recordings it holds (or itself, when a source reads
        the folder as one recording, such as a rosbag2 bag; a LeRobot dataset
        adds its episodes).
        """
        given = [Path(path) for path in paths]
        try:
            files = expand_recordings(given)
            indexed = pinned_entries(given)  # playlist files: digests to check
        except FsrError as exc:
            self.statusBar().showMessage(visible_text(str(exc)), 8000)
            return
        if not files:
            if given:
                shown = visible_text(str(given[0]))
                self.statusBar().showMessage(f"{shown}: no recordings found", 8000)
            return
        self.session.open_paths(files, play=play, indexed=indexed)
        for path in given:
            self.menus.set_recent(self.settings.add_recent(path))

    def show_playlist(self, visible: bool) -> None:
        """Show or hide the playlist dock."""
        self.playlist_dock.setVisible(visible)

    def pick_channels(self) -> None:
        """Ask which channels to plot (Plot channels…) and show the plots."""
        model = self.session.model
        if model is None:
            self.show_message("open a recording first")
            return
        dialog = ChannelPickerDialog(model, self.session.options.options.plots, self)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.accepted.connect(
            lambda: self.session.options.update(plots=dialog.selected_plots())
        )
        dialog.open()

    def toggle_flag(self) -> None:
        """Flag or unflag the playing entry (key F), remembered per dataset."""
        if self.dataset.toggle_current() is None:
            self.show_message("open a recording first")

    def show_message(self, text: str) -> None:
        """Show ``text`` in the status bar (non-modal), elided; all of it as tooltip.

        Messages name files and quote what is wrong in them, so they are file
        text: plain, one line, escaped in the tooltip.
        """
        self.status_label.setText(visible_text(text, STATUS_CHARS))
        self.status_label.setToolTip(tooltip_html(text))

    # -- reactions --------------------------------------------------------

    def load_robot_model(self) -> None:
        """Ask for a URDF or MJCF and draw the playing recording with it."""
        self.robot_memory.choose(self, self.session)

    def _on_session_model_changed(self, model: RecordingModel | None) -> None:
        options = self.session.options.options
        self.scene_view.set_model(model)
        self.scene_view.set_options(options)
        self.camera_area.set_model(model, options)
        # A recording with cameras and nothing to draw in the scene (a dataset
        # episode) gives the cameras the whole width.
        scene = model is None or not model.cameras or model.has_scene
        self.scene_view.setVisible(scene)
        if self.camera_area.views and scene:
            half = max(self.views_splitter.width() // 2, 200)
            self.views_splitter.setSizes([half, half])
        self.side_panel.set_model(model)
        self.plots.set_model(model)
        if self.session.following and model is not None and not options.plots:
            # A followed recording shows its first channel scrolling by.
            first = next(iter(model.channels.values()), None)
            if first is not None:
                keys = tuple(f"{first.name}[{c}]" for c in first.columns[:4])
                self.session.options.update(plots=(keys or (first.name,),))
                options = self.session.options.options
        self._follow_first_plots(model, options.plots)
        self.plots.set_plots(self.session.options.options.plots)
        self.inspector_dock.panel.set_model(model)
        clock = self.session.clock
        self.timeline.set_range(float(clock.frame_times_s[0]), clock.duration_s)
        self.timeline.set_markers(() if model is None else model.markers)
        self.timeline.set_position(clock.position_s)
        self.transport.set_model(model)
        self.plots.set_position(clock.position_s)
        self.menus.set_model(model)
        self._update_title()
        self._update_file_buttons()
        if model is not None:
            self.robot_memory.draw_remembered(self.session, model)

    def follow_file(self, path: Path) -> None:
        """Follow a recording being written (File → Follow Recording…)."""
        self.session.follow_path(path)

    def _on_session_model_grown(self, model: RecordingModel) -> None:
        """Extend the views to a followed recording that grew (no rebuild)."""
        clock = self.session.clock
        self.timeline.set_range(float(clock.frame_times_s[0]), clock.duration_s)
        self.timeline.set_markers(model.markers)
        self.timeline.set_position(clock.position_s)
        if model.cameras:
            self.camera_area.set_model(model, self.session.options.options)
        self.side_panel.set_model(model)
        self.plots.grow(model, window_s=LIVE_WINDOW_S if self.session.live else None)
        self.plots.set_position(clock.position_s)
        self.transport.set_model(model)
        self._on_live_changed(self.session.live)

    def _on_live_changed(self, live: bool) -> None:
        following = self.session.following
        self.live_label.setVisible(following)
        if not following:
            return
        if live:
            self.live_label.setText("● LIVE")
            self.live_label.setStyleSheet("color: #c82878; font-weight: bold;")
        else:
            self.live_label.setText("live: scrubbing (End returns to LIVE)")
            self.live_label.setStyleSheet("")

    def _follow_first_plots(
        self, model: RecordingModel | None, plots: tuple[tuple[str, ...], ...]
    ) -> None:
        """Open a recording's first plots (:mod:`~app.window.plots.first_plots`).

        Only when no plots are open: a dataset episode's joints and action, a
        numbers-only recording's first channels.

        Plots the window chose itself (and the user left as they were) follow
        the playing file: the next file gets its own first plots, or none.
        """
        ours = bool(plots) and plots == self._first_plots_shown
        first = first_plots(model) if model is not None and (ours or not plots) else ()
        self._first_plots_shown = first
        if first and first != plots:
            self.session.options.update(plots=first)  # shows the plots dock
            if model is not None and plots_are_all(model):
                # The plots are all there is: they get most of the height.
                self.resizeDocks(
                    [self.plots_dock],
                    [self.height() * 3 // 5],
                    Qt.Orientation.Vertical,
                )
        elif ours and not first:
            self.session.options.update(plots=())
            self.plots_dock.hide()

    def _on_options_changed(self, options: ViewModel) -> None:
        self.scene_view.set_options(options)
        self.camera_area.set_options(options)
        self.plots.set_plots(options.plots)
        if options.plots and self.plots_dock.isHidden():
            self.plots_dock.show()
            # Room for the plots and their legends, not a strip at the bottom.
            self.resizeDocks(
                [self.plots_dock], [self.height() // 3], Qt.Orientation.Vertical
            )
        self.menus.sync_options(options)

    def _on_playlist_current_changed(self, row: int) -> None:
        del row
        self._update_title()
        self._update_file_buttons()

    def _on_playlist_rows_inserted(self, *_: object) -> None:
        if self.session.playlist.rowCount() > 1 and self.playlist_dock.isHidden():
            self.playlist_dock.show()
        self._update_file_buttons()

    def show_dataset(self) -> None:
        """Show the Dataset overview in front, with room for its table."""
        self.dataset_dock.show()
        self._on_dataset_toggled(True)

    def _on_dataset_toggled(self, visible: bool) -> None:
        if not visible:
            return
        self.dataset_dock.raise_()
        if not self.dataset_dock.isFloating():
            self.resizeDocks(
                [self.dataset_dock], [self.height() * 9 // 20], Qt.Orientation.Vertical
            )

    def _on_playlist_visibility(self, visible: bool) -> None:
        self.side_panel.set_playlist_checked(visible)
        self.menus.playlist_action.setChecked(visible)

    def _update_title(self) -> None:
        playlist = self.session.playlist
        row = playlist.current
        if row < 0:
            self.setWindowTitle(APP_TITLE)
            return
        name = playlist.entry(row).name
        count = playlist.rowCount()
        where = f" ({row + 1}/{count})" if count > 1 else ""
        self.setWindowTitle(f"{name}{where} — {APP_TITLE}")

    def _update_file_buttons(self) -> None:
        playlist = self.session.playlist
        row = playlist.current
        self.transport.set_file_buttons(
            previous=playlist.playable_from(row - 1, -1) is not None and row > 0,
            following=playlist.playable_from(row + 1, 1) is not None,
        )

    # -- Qt overrides -----------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        """Accept dragged local files (Qt override)."""
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        """Open the dropped files; the first one plays (Qt override)."""
        paths = [Path(url.toLocalFile()) for url in event.mimeData().urls()]
        paths = [path for path in paths if str(path)]
        if paths:
            self.open_files(paths, play=True)
            event.acceptProposedAction()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        """Remember the layout, stop playback and background work (Qt override)."""
        self.settings.save_window(self.saveGeometry(), self.saveState())
        self.settings.save_overlays(self.session.options.options)
        self.settings.save_speed(self.session.clock.speed)
        self.settings.sync()
        self.dataset.shutdown()
        self.session.shutdown()
        super().closeEvent(event)


def open_player(
    paths: Sequence[Path],
    *,
    shown: ViewModel | None = None,
    inspector: bool = False,
    open_options: OpenOptions | None = None,
    dataset: bool = False,
    follow: bool = False,
) -> int:
    """Open the player window on ``paths`` and run until it closes; return 0.

    ``shown`` is what the command line asked to see: an overlay it switched
    away from its default, a speed other than 1, an environment and plots
    replace what the window remembered; the rest stays as remembered.
    ``inspector`` opens the inspector dock, ``dataset`` the Dataset
    overview; ``follow`` follows the first path while its writer writes it.
    ``open_options``
    (the command line's ``--time-base``) is how files open. While the window
    runs, an exception nobody catches is logged and shown in a non-modal box
    (:class:`~app.window.last_resort.LastResort`).
    """
    app = ensure_app()
    last_resort = LastResort(parent=app)
    last_resort.install()
    collector = GuiCollector(parent=app)
    collector.install()
    try:
        window = MainWindow()
        last_resort.watch(window)
        if shown is not None:
            _apply_command_line(window, shown)
        if inspector:
            window.inspector_dock.show()
        if open_options is not None:
            window.session.set_open_options(open_options)
        window.show()
        if follow and paths:
            window.follow_file(paths[0])
            window.open_files(list(paths[1:]))
        else:
            window.open_files(list(paths))
        if dataset:
            window.show_dataset()
        return int(app.exec())
    finally:
        collector.uninstall()
        last_resort.uninstall()
        last_resort.watch(None)


def _apply_command_line(window: MainWindow, shown: ViewModel) -> None:
    """Put what the command line asked over what the window remembered."""
    session = window.session
    if shown.speed != 1.0:
        session.clock.set_speed(shown.speed)
    model = session.options.options
    for name in shown.overlays ^ default_overlays():  # each flag flips a default
        model = model.with_overlay(name, shown.shows(name))
    if shown.environment:
        model = replace(model, environment=shown.environment)
    if shown.plots:
        model = replace(model, plots=shown.plots)
    session.options.set(model)
