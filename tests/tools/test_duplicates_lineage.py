"""tools/duplicates_lineage.py: which of a past revision's repeated blocks stand."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tool_scripts import import_tool

lineage = import_tool("duplicates_lineage")

_BLOCK = """\
def {name}(values, limit):
    total = 0
    for value in values:
        if value > limit:
            total += value * 2
        else:
            total -= 1
    return total
"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_kept_lines_pass_over_blanks_comments_punctuation_and_imports() -> None:
    source = (
        "import os\n"
        "from pathlib import (\n"
        "    Path,\n"
        ")\n"
        "\n"
        "# a comment\n"
        "x = call(\n"
        '    "text", 12,\n'
        ")\n"
    )
    kept = lineage.kept_lines(source)
    assert [(line.number, line.text) for line in kept] == [
        (7, "x = call("),
        (8, '"text", 12,'),
    ]
    assert kept[0].shape == "I = I ("
    assert kept[1].shape == "S , N ,"


def test_parse_pairs_reads_rows_and_orders_each_pair() -> None:
    listing = (
        "2 pairs of places (3 files read), ...\n"
        "D1 b.py:10-20 ~ a.py:1-11 shape\n"
        "D2 a.py:1-11 ~ b.py:10-20\n"
        "left out: nothing\n"
    )
    pairs = lineage.parse_pairs([listing], prefix="pkg/")
    assert pairs == {
        (lineage.Side("pkg/a.py", 1, 11), lineage.Side("pkg/b.py", 10, 20))
    }


def test_a_pair_stands_until_one_side_is_merged_away(tmp_path: Path) -> None:
    old = _tree(
        tmp_path / "old",
        {"a.py": _BLOCK.format(name="first"), "b.py": _BLOCK.format(name="second")},
    )
    pair = (lineage.Side("a.py", 1, 8), lineage.Side("b.py", 1, 8))
    moved = _tree(
        tmp_path / "moved",
        {"c.py": "\n\n" + _BLOCK.format(name="third") + "\n" + _BLOCK.format(name="x")},
    )
    merged = _tree(
        tmp_path / "merged",
        {
            "a.py": _BLOCK.format(name="first"),
            "b.py": "def second(v, l):\n    return 0\n",
        },
    )
    old_tree = lineage.Tree(old)
    # Moved and renamed, both copies still there: it stands by shape, not word for word.
    assert lineage.stands(old_tree, lineage.Tree(moved), pair, exact=False)
    assert not lineage.stands(old_tree, lineage.Tree(moved), pair, exact=True)
    # One copy left: the pair is gone.
    assert not lineage.stands(old_tree, lineage.Tree(merged), pair, exact=False)
