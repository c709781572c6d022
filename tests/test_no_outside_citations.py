"""Every reference points inside the repository: no design notes kept elsewhere.

The project's rules live in ``docs/`` (style, robustness, performance, format,
architecture). Code, tests, tools and docs cite those pages by section; a
citation of a document that does not ship with the project (the old design
notes, a sibling ``shared`` folder) is a dead end for every reader. This test
greps every tracked text file for such citations and lists each ``file:line``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

TEXT_SUFFIXES = (".py", ".md", ".toml", ".sh", ".qss", ".txt")
EXTRA_FILES = (".ci/run",)

# Built from pieces so that this file never contains what it bans.
_NOTES = (
    "HOST" + "ILE",
    "STY" + "LE",
    "PERFOR" + "MANCE",
    "BRI" + "EF",
    "SKEL" + "ARM",
)
_NAME = "(?:" + "|".join(_NOTES) + ")"
_SECTION = "\u00a7"
OUTSIDE_CITATION = re.compile(
    # The note's file name: "NAME.md".
    rf"(?<![A-Za-z0-9_]){_NAME}\.md\b"
    # A bare note name with a section, rule, case or goal: "NAME section 7",
    # "NAME rule 4", "NAME #21", "NAME U13", "NAME 2" or a section sign.
    rf"|(?<![A-Za-z0-9_]){_NAME}(?:\s*{_SECTION}"
    r"|\s+(?:sections?\b|rules?\b|#\d|[WUG]\d|\d))"
    # A bare note name in parentheses: "(NAME)".
    rf"|(?<![A-Za-z0-9_])\({_NAME}\)"
    # The folders the notes lived in.
    r"|\.\./" + "sha" + "red" + r"|\b" + "sha" + "red" + r"/(?:design|seeds)\b"
    r"|\.\./" + "see" + r"ds\b"
)


def _tracked_text_files() -> list[Path]:
    git = shutil.which("git")
    if git is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("needs a git checkout to list the tracked files")
    listed = subprocess.run(
        [git, "ls-files", "-z"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    names = [name for name in listed.split("\0") if name]
    return [
        REPO_ROOT / name
        for name in names
        if name.endswith(TEXT_SUFFIXES) or name in EXTRA_FILES
    ]


def find_outside_citations(paths: list[Path]) -> list[str]:
    """Return ``path:line: text`` for every line citing an outside document."""
    hits: list[str] = []
    for path in paths:
        if not path.is_file():  # deleted in the working tree, not yet committed
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE_CITATION.search(line):
                where = path.relative_to(REPO_ROOT)
                hits.append(f"{where}:{number}: {line.strip()}")
    return hits


def test_no_tracked_file_cites_a_document_outside_the_repository() -> None:
    hits = find_outside_citations(_tracked_text_files())

    assert not hits, (
        "cite docs/ instead (docs/style.md, docs/robustness.md, "
        "docs/performance.md, docs/format.md, docs/architecture.md):\n"
        + "\n".join(hits)
    )


@pytest.mark.parametrize(
    "line",
    [
        "see " + _NOTES[0] + ".md for the catalogue",
        "(" + _NOTES[1] + " section 7)",
        _NOTES[0] + " rule 4 applies",
        "checked in the background (" + _NOTES[0] + " U13)",
        '"""' + _NOTES[0] + " #21 and G5",
        "model (" + _NOTES[3] + " " + _SECTION + "2)",
        "the figure from " + _NOTES[4] + " " + _SECTION + "5",
        "printed beside the limit (" + _NOTES[2] + ")",
        "real logs are in ../" + "shared/data",
        "the seeds in ../" + "seeds/ are the reference",
        "/work/sha" + "red/" + "design/notes.md",
    ],
)
def test_the_pattern_catches_each_way_of_citing(line: str) -> None:
    assert OUTSIDE_CITATION.search(line)


@pytest.mark.parametrize(
    "line",
    [
        _NOTES[0] + ' = "<b>bold</b>"',
        "_" + _NOTES[0] + ' = "<b>arm</b>"',
        "FSR_" + _NOTES[0] + "_FULL=1",
        _NOTES[4] + '_DATA = Path("tests/data")',
        "sorted(" + _NOTES[0] + ")",
        "the canvases shared by the window and the export",
        "see docs/robustness.md, U13",
    ],
)
def test_the_pattern_spares_names_that_are_not_citations(line: str) -> None:
    assert not OUTSIDE_CITATION.search(line)
