"""``--resume``: what an earlier run's report says is done, and still is.

An input is done when the report's last line for it (same verb, same path)
says ``ok`` or ``skipped`` with its SHA-256 and, for a verb that writes a
file, when that file is still there with the size the report gives. The
worker then compares the input's digest with the recorded one: unchanged
inputs are skipped, changed ones redone (their old output replaced).
"""

from __future__ import annotations

import dataclasses
import json
import stat
from pathlib import Path
from typing import Any, Final

from app.headless.batch.items import Prior, Verb, WorkItem

__all__ = ["RESULT_KEYS", "attach_priors", "read_priors"]

RESULT_KEYS: Final = frozenset(
    {
        "verb",
        "input",
        "output",
        "status",
        "error",
        "seconds",
        "bytes",
        "input_bytes",
        "input_sha256",
        "note",
    }
)
"""The keys every result has (the rest are the verb's own, kept on a skip)."""


def read_priors(report: Path, verb: Verb) -> dict[str, Prior]:
    """Return, by input path, what the report at ``report`` says was done.

    A missing report gives nothing; a line that is not JSON (a run killed
    mid-line) is passed over.
    """
    priors: dict[str, Prior] = {}
    try:
        handle = report.open(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return priors
    with handle:
        for line in handle:
            result = _parsed(line)
            if result is None or result.get("verb") != verb.value:
                continue
            key = str(result.get("input"))
            prior = _prior(result)
            if prior is None:
                priors.pop(key, None)
            else:
                priors[key] = prior
    return priors


def attach_priors(items: list[WorkItem], priors: dict[str, Prior]) -> list[WorkItem]:
    """Give each item whose output is complete its prior result.

    An item whose earlier output is there but not complete (or whose input
    changed) is redone over it: the report says this run made it.
    """
    attached: list[WorkItem] = []
    for item in items:
        prior = priors.get(str(item.input))
        if prior is None or item.problem:
            attached.append(item)
        elif _complete(prior, item.output):
            attached.append(dataclasses.replace(item, prior=prior, overwrite=True))
        else:
            mine = prior.output is not None and prior.output == item.output
            attached.append(dataclasses.replace(item, overwrite=item.overwrite or mine))
    return attached


def _parsed(line: str) -> dict[str, Any] | None:
    try:
        result = json.loads(line)
    except ValueError:
        return None
    return result if isinstance(result, dict) else None


def _prior(result: dict[str, Any]) -> Prior | None:
    digest = result.get("input_sha256")
    if result.get("status") not in ("ok", "skipped") or not isinstance(digest, str):
        return None
    output = result.get("output")
    size = result.get("bytes")
    return Prior(
        input_sha256=digest,
        output=Path(output) if isinstance(output, str) else None,
        output_bytes=size if isinstance(size, int) else 0,
        extras={k: v for k, v in result.items() if k not in RESULT_KEYS},
    )


def _complete(prior: Prior, output: Path | None) -> bool:
    if prior.output is None:
        return True  # nothing was written (validate, index, an FSR in convert)
    if output is None or prior.output != output:
        return False
    try:
        info = output.stat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size == prior.output_bytes
