"""The shipped assets: one palette, the style sheet and the icon.

Every colour the canvases, the camera renderer and the simulators draw with
comes from ``resources/palette.toml``; these tests check that the palette
loads from the package, that every name the code asks for is in it, that a
broken palette is refused with a clear error, that the assets travel in the
package data, and that neither ``resources`` nor the app's drawing code pulls
in what it should not.
"""

from __future__ import annotations

import ast
import fnmatch
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from importlib import resources as package_files
from pathlib import Path

import pytest
from python_probe import probe_json
from source_imports import imported_modules

import resources
from fsr_core.errors import FsrError, ResourceError
from resources.palette import parse_color, parse_palette
from resources.style import build_style_sheet

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Directories whose code may name palette colours.
_CODE_DIRS = ("app", "fsr_core", "resources", "tools")
#: Helpers and Palette methods that take a colour name, by how they read it.
_LOOKUPS = {
    "palette_rgb": "rgb",
    "rgb": "rgb",
    "qcolor": "rgba",
    "rgba": "rgba",
    "palette_cycle": "cycle",
    "palette_table": "table",
    "cycle": "cycle",
    "table": "table",
    "hex": "rgba",
}


def _python_files(*directories: str) -> Iterator[Path]:
    for directory in directories:
        yield from sorted((REPO_ROOT / directory).rglob("*.py"))


def _palette_names_in_code() -> Iterator[tuple[str, str, str]]:
    """Yield ``(file, lookup kind, colour name)`` for every literal lookup."""
    for path in _python_files(*_CODE_DIRS):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else None
            if isinstance(func, ast.Attribute):
                called = func.attr
            first = node.args[0]
            if (
                called in _LOOKUPS
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                relative = path.relative_to(REPO_ROOT).as_posix()
                yield relative, _LOOKUPS[called], first.value


# -- the palette as shipped ----------------------------------------------------


def test_the_palette_loads_from_the_installed_package() -> None:
    shipped = package_files.files("resources")

    for name in (resources.PALETTE_FILE, resources.STYLE_FILE, resources.ICON_FILE):
        assert shipped.joinpath(name).is_file(), name
    loaded = resources.palette()
    assert loaded is resources.palette()  # read once
    assert loaded.rgb("arm.tip") == (220, 40, 40)
    assert len(loaded.cycle("arm.links")) >= 2


def test_every_colour_name_the_code_uses_is_in_the_palette() -> None:
    loaded = resources.palette()
    uses = list(_palette_names_in_code())

    assert len(uses) > 40  # the scan finds the canvases' and renderer's lookups
    for file, kind, name in uses:
        if kind == "table":
            assert loaded.table(name), f"{file}: no colours in table {name!r}"
        else:
            getattr(loaded, kind)(name)  # raises ResourceError when missing


def test_every_palette_value_is_a_valid_colour() -> None:
    loaded = resources.palette()

    assert loaded.names
    for name in loaded.names:
        for color in loaded.entries[name]:
            assert len(color) == 4
            assert all(0 <= channel <= 255 for channel in color), name


def test_the_scene_axes_are_three_colours_x_y_z() -> None:
    assert len(resources.palette().cycle("geometry.axes")) == 3


def test_the_recorded_target_colour_names_keep_their_usual_values() -> None:
    named = resources.palette().table("task.named")

    assert named == {
        "purple": (128, 0, 128, 255),
        "teal": (0, 128, 128, 255),
        "orange": (255, 165, 0, 255),
    }


def test_the_package_data_carries_every_asset() -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text("utf-8"))
    setuptools = config["tool"]["setuptools"]
    patterns = setuptools["package-data"]["resources"]
    assets = [
        path.name
        for path in (REPO_ROOT / "resources").iterdir()
        if path.is_file() and path.suffix not in {".py", ".pyc"}
    ]

    assert "resources*" in setuptools["packages"]["find"]["include"]
    assert assets
    for asset in assets:
        assert any(fnmatch.fnmatch(asset, pattern) for pattern in patterns), asset


# -- a broken palette is a clear error ----------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#2e5c9c", (46, 92, 156, 255)),
        ("#FFB000", (255, 176, 0, 255)),
        ("#ffffffe1", (255, 255, 255, 225)),
    ],
)
def test_a_colour_is_hex_rgb_with_optional_alpha_last(
    text: str, expected: tuple[int, int, int, int]
) -> None:
    assert parse_color(text, "x") == expected


@pytest.mark.parametrize(
    "value", ["red", "#fff", "#12345", "#1234567", "2e5c9c", "#gg0000", 255, None]
)
def test_a_malformed_colour_names_its_entry(value: object) -> None:
    with pytest.raises(ResourceError, match=r"'arm\.tip'"):
        parse_color(value, "arm.tip")


def test_a_malformed_entry_fails_the_whole_palette_when_loaded() -> None:
    with pytest.raises(ResourceError, match=r"palette\.toml: colour 'scene\.com'"):
        parse_palette('[arm]\ntip = "#dc2828"\n[scene]\ncom = "crimson"\n')
    with pytest.raises(ResourceError, match=r"'arm\.links\[1\]'"):
        parse_palette('[arm]\nlinks = ["#2e5c9c", 7]\n')
    with pytest.raises(ResourceError, match="empty"):
        parse_palette("[arm]\nlinks = []\n")
    with pytest.raises(ResourceError, match="not valid TOML"):
        parse_palette("[arm\n")


def test_asking_for_a_missing_or_wrong_kind_of_colour_is_an_error() -> None:
    loaded = parse_palette('[a]\nsolid = "#102030"\nglass = "#10203080"\n')

    assert loaded.rgba("a.glass") == (16, 32, 48, 128)
    with pytest.raises(ResourceError, match=r"no colour 'a\.nothing'"):
        loaded.rgb("a.nothing")
    with pytest.raises(ResourceError, match="translucent"):
        loaded.rgb("a.glass")
    with pytest.raises(ResourceError, match="is a single colour"):
        loaded.cycle("a.solid")
    assert issubclass(ResourceError, FsrError)


def test_a_list_is_not_read_as_one_colour() -> None:
    loaded = parse_palette('[p]\nseries = ["#000000", "#ffffff"]\n')

    assert loaded.cycle("p.series") == ((0, 0, 0), (255, 255, 255))
    with pytest.raises(ResourceError, match="is a list of colours"):
        loaded.rgb("p.series")


# -- style sheet and icon --------------------------------------------------------


def test_the_shipped_style_sheet_sets_no_rule_so_the_look_is_unchanged() -> None:
    assert resources.style_sheet() == ""


def test_a_style_sheet_gets_the_palettes_colours_and_loses_its_comments() -> None:
    loaded = parse_palette('[w]\ntext = "#101010"\nglass = "#10101080"\n')
    template = "/* @w.nothing\n is free text */\nQLabel { color: @w.text; }\n"

    assert build_style_sheet(template, loaded) == "QLabel { color: #101010; }"
    assert build_style_sheet("a { color: @w.glass; }", loaded) == (
        "a { color: rgba(16, 16, 16, 128); }"
    )
    assert build_style_sheet("/* only a comment */\n", loaded) == ""


def test_a_style_sheet_naming_an_unknown_colour_is_an_error() -> None:
    loaded = parse_palette('[w]\ntext = "#101010"\n')

    with pytest.raises(ResourceError, match=r"style\.qss: names 'w\.nothing'"):
        build_style_sheet("a { color: @w.nothing; }", loaded)


def test_the_icon_is_an_svg_document() -> None:
    root = ET.fromstring(resources.icon_bytes())

    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox")


# -- what the packages import ----------------------------------------------------


def test_importing_resources_loads_no_qt() -> None:
    probe = (
        "import json, sys, resources\n"
        "resources.palette(); resources.style_sheet(); resources.icon_bytes()\n"
        "banned = ('PySide6', 'shiboken6', 'pyqtgraph', 'app')\n"
        "print(json.dumps(sorted(n for n in sys.modules\n"
        "    if n.partition('.')[0] in banned)))\n"
    )
    assert probe_json(probe) == []


def test_no_app_module_imports_a_simulator() -> None:
    offenders = set()
    for path in _python_files("app"):
        modules = imported_modules(path)
        if any(
            name == "fsr_core.simulators" or name.startswith("fsr_core.simulators.")
            for name in modules
        ):
            offenders.add(path.relative_to(REPO_ROOT).as_posix())

    assert not offenders, sorted(offenders)
