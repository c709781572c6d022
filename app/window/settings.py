"""What the player remembers between runs: geometry, docks, toggles, recent files."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import QByteArray, QSettings

from app.canvas.overlay_registry import overlays
from app.canvas.view_model import ViewModel

__all__ = ["MAX_RECENT", "WindowSettings", "default_settings"]

MAX_RECENT: Final = 10


def default_settings() -> QSettings:
    """Return the user's settings store (per user, per platform)."""
    return QSettings("FSR Viewer", "fsr-viewer")


def _as_bool(value: Any, default: bool) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.lower() in ("true", "1", "yes")
    return default


class WindowSettings:
    """Typed access to the player's QSettings."""

    def __init__(self, store: QSettings) -> None:
        self._store = store

    @property
    def store(self) -> QSettings:
        """The underlying QSettings."""
        return self._store

    def geometry(self) -> QByteArray | None:
        """Return the saved window geometry."""
        value = self._store.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    def dock_state(self) -> QByteArray | None:
        """Return the saved dock layout (which side, floating, sizes)."""
        value = self._store.value("window/state")
        return value if isinstance(value, QByteArray) else None

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        """Remember the window geometry and dock layout."""
        self._store.setValue("window/geometry", geometry)
        self._store.setValue("window/state", state)

    def overlays(self) -> frozenset[str]:
        """Return the overlays shown (each overlay's default if never saved)."""
        return frozenset(
            overlay.name
            for overlay in overlays()
            if _as_bool(self._store.value(f"view/{overlay.name}"), overlay.default)
        )

    def save_overlays(self, options: ViewModel) -> None:
        """Remember which overlays are shown."""
        for overlay in overlays():
            self._store.setValue(f"view/{overlay.name}", options.shows(overlay.name))

    def speed(self) -> float | None:
        """Return the saved playback speed."""
        value = self._store.value("playback/speed")
        try:
            return None if value is None else float(str(value))
        except (TypeError, ValueError):
            return None

    def save_speed(self, speed: float) -> None:
        """Remember the playback speed."""
        self._store.setValue("playback/speed", speed)

    def recent_files(self) -> list[Path]:
        """Return the recently opened files, newest first."""
        value = self._store.value("files/recent")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return []
        return [Path(item) for item in value if isinstance(item, str) and item]

    def add_recent(self, path: Path) -> list[Path]:
        """Put ``path`` first among the recent files; return the new list."""
        resolved = path.resolve()
        recent = [resolved] + [
            item for item in self.recent_files() if item.resolve() != resolved
        ]
        recent = recent[:MAX_RECENT]
        self._store.setValue("files/recent", [str(item) for item in recent])
        return recent

    def sync(self) -> None:
        """Write to disk now."""
        self._store.sync()
