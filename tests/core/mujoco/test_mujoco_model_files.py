"""Gathering an MJCF model's files: includes, asset folders, cube textures."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsr_core.errors import SchemaError
from fsr_core.simulation.model_files import ModelFiles, collect_model_files

_MAIN = """<mujoco model="parts">
  <compiler meshdir="meshes" texturedir="textures"/>
  <include file="parts/arm.xml"/>
  <asset>
    <texture name="sky" type="skybox" fileright="r.png" fileleft="l.png"
             fileup="u.png" filedown="d.png" filefront="f.png" fileback="b.png"/>
  </asset>
</mujoco>
"""
_ARM = """<mujocoinclude>
  <asset><mesh name="block" file="block.obj"/></asset>
  <worldbody>
    <body name="block"><freejoint/><geom type="mesh" mesh="block"/></body>
  </worldbody>
</mujocoinclude>
"""
_OBJ = """v 0 0 0
v 0.1 0 0
v 0 0.1 0
v 0 0 0.1
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 4
"""


def _model(folder: Path, main: str = _MAIN) -> Path:
    (folder / "parts").mkdir()
    (folder / "meshes").mkdir()
    (folder / "textures").mkdir()
    (folder / "main.xml").write_text(main, encoding="utf-8")
    (folder / "parts" / "arm.xml").write_text(_ARM, encoding="utf-8")
    (folder / "meshes" / "block.obj").write_text(_OBJ, encoding="utf-8")
    for face in "rludfb":
        (folder / "textures" / f"{face}.png").write_bytes(face.encode())
    return folder / "main.xml"


def test_includes_and_assets_are_found_in_their_folders(tmp_path: Path) -> None:
    files = collect_model_files(_model(tmp_path))
    assert sorted(files.files) == [
        "main.xml",
        "meshes/block.obj",
        "parts/arm.xml",
        *[f"textures/{face}.png" for face in "bdflru"],
    ]


def test_the_digest_depends_on_the_contents_not_the_folder(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = collect_model_files(_model(tmp_path / "a"))
    second = collect_model_files(_model(tmp_path / "b"))
    (tmp_path / "b" / "meshes" / "block.obj").write_text(_OBJ + "\n", encoding="utf-8")
    changed = collect_model_files(tmp_path / "b" / "main.xml")
    assert first.digest == second.digest
    assert changed.digest != first.digest


def test_embedded_files_come_back_checked(tmp_path: Path) -> None:
    files = collect_model_files(_model(tmp_path))
    records = files.records()
    rebuilt = ModelFiles.from_records(files.metadata(), records, where=tmp_path)
    assert rebuilt.files == files.files
    records[1] = {**records[1], "base64": "AAAA"}
    with pytest.raises(SchemaError, match=r"has digest sha256:.*, expected sha256:"):
        ModelFiles.from_records(files.metadata(), records, where=tmp_path)


def test_a_path_leaving_the_model_folder_is_refused(tmp_path: Path) -> None:
    main = _MAIN.replace("parts/arm.xml", "../arm.xml")
    with pytest.raises(SchemaError, match="must be a relative path inside"):
        collect_model_files(_model(tmp_path, main))


def test_a_missing_asset_names_the_model_and_the_file(tmp_path: Path) -> None:
    mjcf = _model(tmp_path)
    (tmp_path / "meshes" / "block.obj").unlink()
    with pytest.raises(SchemaError) as caught:
        collect_model_files(mjcf)
    assert caught.value.path == str(mjcf)
    assert "cannot read model file 'meshes/block.obj'" in caught.value.reason


def test_the_collected_model_compiles_from_the_recording(tmp_path: Path) -> None:
    mujoco = pytest.importorskip("mujoco")
    main = _MAIN.replace("<texture", "<!--texture").replace(
        'fileback="b.png"/>', 'fileback="b.png"/-->'
    )
    files = collect_model_files(_model(tmp_path, main))
    entry = files.materialize(tmp_path / "copy")
    model = mujoco.MjModel.from_xml_path(str(entry))
    assert model.nmesh == 1
    assert model.nbody == 2
