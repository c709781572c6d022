"""Hostile skelarm logs built from a real one (tests/data/skelarm/reach.sklog.npz).

Imported by the window tests, in process and end to end (``tests/`` is on
``sys.path``, so ``from hostile_logs import ...``). Each
builder loads the real log with numpy, changes its ``__meta__`` TOML text or
its arrays, and saves it with ``np.savez_compressed`` as skelarm would.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = [
    "HTML_LABEL",
    "IMG",
    "huge_link_log",
    "huge_values_log",
    "markup_log",
    "wide_log",
    "write_log",
]

REACH = Path(__file__).parent / "data" / "skelarm" / "reach.sklog.npz"
#: An element that makes Qt read /dev/zero when it is rendered as rich text.
IMG = '<img src="/dev/zero">'
#: 210 KB of nested markup: interpreted, it hangs layout and eats gigabytes.
HTML_LABEL = "<b>" * 70_000


def _reach() -> tuple[dict[str, npt.NDArray[np.generic]], str]:
    with np.load(REACH, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return arrays, str(arrays.pop("__meta__"))


def write_log(
    path: Path, meta: str, arrays: dict[str, npt.NDArray[np.generic]]
) -> Path:
    """Write ``arrays`` and the ``meta`` TOML text as a skelarm log at ``path``."""
    np.savez_compressed(path, **arrays, __meta__=np.array(meta))
    return path


def _replace_once(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def markup_log(folder: Path) -> Path:
    """Put markup in ``q``'s label (210 KB), unit and columns, and the producer."""
    arrays, meta = _reach()
    meta = _replace_once(meta, 'label = "joint angle"', f'label = "{HTML_LABEL}"')
    meta = _replace_once(meta, 'unit = "rad"\n', f"unit = '{IMG}'\n")
    meta = _replace_once(
        meta,
        'columns = ["j1", "j2"]\n\n[channels.dq]',
        f"columns = ['{IMG}', \"<h1>x</h1>\"]\n\n[channels.dq]",
    )
    meta = _replace_once(meta, 'producer = "ComputedTorque"', f"producer = '{IMG}'")
    return write_log(folder / "markup.sklog.npz", meta, arrays)


def huge_link_log(folder: Path) -> Path:
    """Make the first link ``1e308`` m long, its upper limit ``1e300`` rad."""
    arrays, meta = _reach()
    meta = _replace_once(meta, "length = 1.0\nm = 1.0", "length = 1e308\nm = 1.0")
    meta = _replace_once(meta, "qmax = 3.141592653589793", "qmax = 1e300")
    return write_log(folder / "huge_link.sklog.npz", meta, arrays)


def huge_values_log(folder: Path) -> Path:
    """Set every joint angle to ``1e308``, stretch the time a billion times."""
    arrays, meta = _reach()
    arrays["q"] = np.full_like(arrays["q"], 1e308)
    arrays["time"] = arrays["time"] * 1e9
    return write_log(folder / "huge_values.sklog.npz", meta, arrays)


def wide_log(folder: Path, columns: int = 5000, *, keep_names: bool = False) -> Path:
    """Give channel ``tau`` ``columns`` columns of noise.

    The columns are unnamed, or with ``keep_names`` keep ``tau``'s two names
    (far fewer names than columns).
    """
    arrays, meta = _reach()
    rows = arrays["tau"].shape[0]
    arrays["tau"] = np.random.default_rng(0).standard_normal((rows, columns))
    if not keep_names:
        meta = _replace_once(
            meta,
            'label = "applied joint torque"\ncolumns = ["j1", "j2"]',
            'label = "applied joint torque"\ncolumns = []',
        )
    return write_log(folder / "wide.sklog.npz", meta, arrays)
