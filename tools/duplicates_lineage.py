"""How many of a past revision's repeated blocks still stand in the working tree.

The ``duplicates`` command (a developer tool, see ``docs/style.md``) lists
pairs of places that share six or more lines of the same shape. Its count
over the whole tree grows with the tree; this script answers the narrower
question a clean-up is judged by: of the pairs listed at revision ``--base``,
how many still stand today?

A pair still stands when both of its sides, as they were at ``--base``, are
found again in the working tree, in the same order and at two different
places, line for line by shape (names, strings and numbers masked), the way
``duplicates`` pairs lines. A side that was merged into a shared helper, or
rewritten, no longer stands, so its pair is gone. Blank lines, comments, lone
punctuation and import statements are passed over on both sides, as
``duplicates`` passes them over.

Usage::

    python tools/duplicates_lineage.py --base b647979

It checks ``--base`` out into a temporary worktree, runs ``duplicates`` there
(over the whole tree, then over each top-level folder, because one listing
stops at 200 rows) and prints the count at the base, how many stand by shape
and word for word, and the pairs that stand.
"""

from __future__ import annotations

import argparse
import keyword
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

REPO_ROOT: Final = Path(__file__).resolve().parent.parent
#: Folders listed one by one besides the whole tree (one listing holds 200 rows).
FOLDERS: Final = ("app", "fsr_core", "resources", "tests", "tools")

_TOKEN: Final = re.compile(
    r"""[rbuf]*("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\"\"\"|''')|\d[\w.]*|[A-Za-z_]\w*|\S"""
)
_ROW: Final = re.compile(r"D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)")
_PUNCTUATION: Final = re.compile(r"[()\[\]{},:;]+")


@dataclass(frozen=True, order=True)
class Side:
    """Lines ``first`` to ``last`` (1-based, inclusive) of a file of the tree."""

    path: str
    first: int
    last: int


@dataclass(frozen=True)
class Line:
    """A kept line: its number, its text with white space folded, its shape."""

    number: int
    text: str
    shape: str


def shape_of(text: str) -> str:
    """Mask the names, strings and numbers of one line, keeping keywords."""
    out = []
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if match.group(1) is not None:
            out.append("S")
        elif token[0].isdigit():
            out.append("N")
        elif token[0].isalpha() or token[0] == "_":
            out.append(token if keyword.iskeyword(token) else "I")
        else:
            out.append(token)
    return " ".join(out)


def kept_lines(source: str) -> list[Line]:
    """Return the lines of a Python file that can make a pair, in order."""
    kept: list[Line] = []
    in_import = False
    for number, raw in enumerate(source.splitlines(), 1):
        text = " ".join(raw.split())
        if in_import:
            in_import = ")" not in text
            continue
        if not text or text.startswith("#") or _PUNCTUATION.fullmatch(text):
            continue
        if text.startswith("import ") or (
            text.startswith("from ") and " import " in text
        ):
            in_import = text.endswith("(")
            continue
        kept.append(Line(number, text, shape_of(text)))
    return kept


def parse_pairs(listings: Iterable[str], prefix: str = "") -> set[tuple[Side, Side]]:
    """Return the pairs of ``duplicates`` listings, sides' paths led by ``prefix``."""
    pairs: set[tuple[Side, Side]] = set()
    for listing in listings:
        for row in listing.splitlines():
            match = _ROW.match(row)
            if match is None:
                continue
            one = Side(prefix + match[1], int(match[2]), int(match[3]))
            other = Side(prefix + match[4], int(match[5]), int(match[6]))
            pairs.add((min(one, other), max(one, other)))
    return pairs


class Tree:
    """The kept lines of every Python file of a folder, read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, list[Line]] = {}
        self._by_shape: dict[str, list[tuple[str, int]]] | None = None

    def lines(self, path: str) -> list[Line]:
        """Return the kept lines of one file (none for a file it cannot read)."""
        if path not in self._files:
            try:
                text = (self.root / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            self._files[path] = kept_lines(text)
        return self._files[path]

    def side(self, side: Side) -> list[Line]:
        """Return the kept lines of one side of a pair."""
        return [
            line
            for line in self.lines(side.path)
            if side.first <= line.number <= side.last
        ]

    def places(self, wanted: Sequence[Line], *, exact: bool) -> set[tuple[str, int]]:
        """Where the run ``wanted`` stands in this tree, ``(path, first line)``."""
        if self._by_shape is None:
            self._by_shape = {}
            for path in _python_files(self.root):
                for at, line in enumerate(self.lines(path)):
                    self._by_shape.setdefault(line.shape, []).append((path, at))
        found: set[tuple[str, int]] = set()
        for path, at in self._by_shape.get(wanted[0].shape, []):
            here = self._files[path][at : at + len(wanted)]
            if len(here) == len(wanted) and all(
                (h.text == w.text) if exact else (h.shape == w.shape)
                for h, w in zip(here, wanted, strict=True)
            ):
                found.add((path, here[0].number))
        return found


def _python_files(root: Path) -> list[str]:
    """Return the Python files git tracks under ``root``, and untracked unignored."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(set(listed.stdout.split()))


def stands(old: Tree, new: Tree, pair: tuple[Side, Side], *, exact: bool) -> bool:
    """Whether both sides of an old pair stand in the new tree, at two places."""
    one, other = old.side(pair[0]), old.side(pair[1])
    if not one or not other:
        return True  # nothing left to judge it by: count it as standing
    at_one = new.places(one, exact=exact)
    at_other = new.places(other, exact=exact)
    return bool(at_one and at_other and len(at_one | at_other) >= 2)


def _listings(root: Path, seconds: int) -> set[tuple[Side, Side]]:
    def run(folder: str | None) -> str:
        argv = ["duplicates", "--most", "200", "--seconds", str(seconds)]
        where = root if folder is None else root / folder
        if folder is not None and not where.is_dir():
            return ""
        done = subprocess.run(
            argv, cwd=where, capture_output=True, text=True, check=False
        )
        return done.stdout

    pairs = parse_pairs([run(None)])
    for folder in FOLDERS:
        pairs |= parse_pairs([run(folder)], prefix=f"{folder}/")
    return pairs


def main(argv: Sequence[str] | None = None) -> int:
    """Print how many of the base's pairs stand; 1 without ``duplicates``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--base", required=True, help="the revision whose pairs to follow"
    )
    parser.add_argument(
        "--seconds", type=int, default=120, help="time per duplicates call"
    )
    parser.add_argument(
        "--list", action="store_true", help="print the pairs that stand"
    )
    args = parser.parse_args(argv)
    if shutil.which("duplicates") is None:
        print(
            "duplicates_lineage: the duplicates command is not on PATH", file=sys.stderr
        )
        return 1
    with tempfile.TemporaryDirectory(prefix="lineage-") as scratch:
        base_root = Path(scratch) / "base"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(base_root), args.base],
            cwd=REPO_ROOT,
            check=True,
        )
        try:
            pairs = sorted(_listings(base_root, args.seconds))
            old, new = Tree(base_root), Tree(REPO_ROOT)
            by_shape = [pair for pair in pairs if stands(old, new, pair, exact=False)]
            word_for_word = [
                pair for pair in by_shape if stands(old, new, pair, exact=True)
            ]
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(base_root)],
                cwd=REPO_ROOT,
                check=False,
            )
    print(f"pairs at {args.base}: {len(pairs)}")
    print(
        f"still standing in the working tree: {len(by_shape)} by shape, "
        f"{len(word_for_word)} word for word"
    )
    if args.list:
        for one, other in by_shape:
            where = f"{one.path}:{one.first}-{one.last}"
            print(f"  {where} ~ {other.path}:{other.first}-{other.last}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
