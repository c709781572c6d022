"""docs/architecture.md against the import contracts of pyproject.toml.

The page's contracts table must name every contract of ``[tool.importlinter]``
by its id, and no other; the core rows of its layer table (the rows whose
folders are in ``fsr_core``) must give, top to bottom, the modules of each
layer of the ``core-layers`` contract. So neither can change without the other.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DOC = REPO_ROOT / "docs" / "architecture.md"
PYPROJECT = REPO_ROOT / "pyproject.toml"

CONTRACTS_HEADER = "| contract | rule |"
LAYERS_HEADER = "| layer | folder | holds | may import |"

_CODE = re.compile(r"`([^`]+)`")
_LAYER_SEPARATOR = re.compile(r"[|:]")


def _contracts() -> list[dict[str, Any]]:
    with PYPROJECT.open("rb") as file:
        contracts: list[dict[str, Any]] = tomllib.load(file)["tool"]["importlinter"][
            "contracts"
        ]
    return contracts


def _table(text: str, header: str) -> list[list[str]]:
    """Return the cells of every row of the table whose header line is ``header``."""
    lines = [line.strip() for line in text.splitlines()]
    assert lines.count(header) == 1, f"expected one table headed {header!r}"
    rows: list[list[str]] = []
    for line in lines[lines.index(header) + 2 :]:  # past the header and |---|
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _doc_contract_ids(text: str) -> list[str]:
    """Return the contract ids of the contracts table, in the page's order."""
    ids: list[str] = []
    for row in _table(text, CONTRACTS_HEADER):
        assert len(row) >= 2, f"a contract row without its rule: {row}"
        assert row[1], f"a contract row without its rule: {row}"
        ids += _CODE.findall(row[0])
    return ids


def _module(folder: str) -> str:
    """Return the dotted module of ``fsr_core/format/`` or ``fsr_core/heap.py``."""
    return folder.removesuffix("/").removesuffix(".py").replace("/", ".")


def _doc_core_layers(text: str) -> list[set[str]]:
    """Return the modules of each core row of the layer table, top to bottom."""
    layers: list[set[str]] = []
    for row in _table(text, LAYERS_HEADER):
        folders = _CODE.findall(row[1])
        if any(folder.startswith("fsr_core/") for folder in folders):
            assert all(folder.startswith("fsr_core/") for folder in folders), row[1]
            layers.append({_module(folder) for folder in folders})
    return layers


def _contract_core_layers() -> list[set[str]]:
    """Return the modules of each layer of ``core-layers``, top to bottom."""
    (contract,) = [c for c in _contracts() if c["id"] == "core-layers"]
    return [
        {name.strip().strip("()") for name in _LAYER_SEPARATOR.split(layer)}
        for layer in contract["layers"]
    ]


def test_the_table_reader_stops_at_the_end_of_its_table() -> None:
    text = "\n".join(
        [
            "Some text.",
            CONTRACTS_HEADER,
            "|---|---|",
            "| `a`, `b` | one rule |",
            "| `c` | another |",
            "",
            "| `d` | not in the table |",
        ]
    )

    assert _doc_contract_ids(text) == ["a", "b", "c"]


def test_a_folder_row_reads_as_its_modules() -> None:
    text = "\n".join(
        [
            LAYERS_HEADER,
            "|---|---|---|---|",
            "| window | `app/window/` | the player | all |",
            "| basics | `fsr_core/heap.py`, `fsr_core/format/` | things | errors |",
        ]
    )

    assert _doc_core_layers(text) == [{"fsr_core.heap", "fsr_core.format"}]


def test_the_contracts_table_names_every_contract_and_no_other() -> None:
    documented = _doc_contract_ids(DOC.read_text(encoding="utf-8"))
    configured = [contract["id"] for contract in _contracts()]

    assert len(documented) == len(set(documented)), "a contract is listed twice"
    assert sorted(documented) == sorted(configured)


def test_the_core_layer_rows_are_the_core_layers_contract() -> None:
    documented = _doc_core_layers(DOC.read_text(encoding="utf-8"))

    assert documented == _contract_core_layers()
