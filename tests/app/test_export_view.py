"""``--view auto``: the scene when a recording has one, else its camera."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_paths import TEST_DATA

from app.headless.export.frames import check_view, resolve_view
from fsr_core.playlists.episodes import episode_path
from fsr_core.sources import open_recording


def test_a_recording_with_an_arm_shows_its_scene(
    short_takes: dict[str, Path],
) -> None:
    model = open_recording(short_takes["multi"])
    assert resolve_view(model, "auto") == "scene"
    assert check_view(model, "auto", None) is None


def test_a_dataset_episode_without_a_scene_shows_its_first_camera() -> None:
    model = open_recording(episode_path(TEST_DATA / "lerobot" / "tiny_v21", 1))
    assert model.kinematics is None
    assert model.geometry is None
    assert resolve_view(model, "auto") == "camera"
    assert check_view(model, "auto", None) == model.cameras[0].name
    # A view asked for by name is kept as it is.
    assert resolve_view(model, "scene") == "scene"
    assert check_view(model, "scene", None) is None


def test_an_unknown_view_is_refused_with_the_choices() -> None:
    model = open_recording(episode_path(TEST_DATA / "lerobot" / "tiny_v21", 1))
    with pytest.raises(ValueError, match="auto, scene, camera, both"):
        check_view(model, "top", None)
