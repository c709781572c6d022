"""Generated hostile families: every truncation and single-bit flips (G1, G3, G5, G6).

Both sweeps run on the sweep recording (``conftest.SWEEP_RUN``, about 19 KB,
14 batches, every stream kind) in two worker processes, and every case goes
through :func:`hostile_harness.full_read`: open, ``verify()``, every camera
frame, the calibration epochs, under a 2 s watchdog.

Truncation: every prefix length ``0..N`` of the structural recording.

Bit flips: one flip per byte, bit ``offset % 8``. To keep the whole hostile
suite under a minute on two cores, the default run samples deterministically:
every byte of the ``structural`` recording, and every 3rd byte of ``fast``
(offsets 1, 4, 7, ...) and of ``strong`` (offsets 2, 5, 8, ...); 3 and 8 are
coprime, so the sampled bytes still see every bit position. The truncation
sweep and the structural flips dominate the run time. ``FSR_HOSTILE_FULL=1``
flips every byte of all three profiles (about 20 s longer on two cores).
"""

from __future__ import annotations

import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import pytest
from hostile_harness import PrefixFacts, chunked, flip_chunk, prefix_chunk
from hostile_surgery import FsrFile, batch_ends

from fsr_core.format.records import HEADER_SIZE

FULL = os.environ.get("FSR_HOSTILE_FULL") == "1"
# profile -> (stride, first offset) of the flipped bytes
FLIP_SAMPLING = {
    "structural": (1, 0),
    "fast": (1, 0) if FULL else (3, 1),
    "strong": (1, 0) if FULL else (3, 2),
}
_CHUNK = 250
_RESULT_TIMEOUT_S = 600
_DETECTED = ("detected_open", "detected_read")
_TRUNCATED = "fsr_error(TruncatedFileError)@open"
# batch ends, cumulative record counts, directory rows of the intact file
Oracle = tuple[list[int], list[int], list[tuple[int, ...]]]


def _run_flips(
    pool: ProcessPoolExecutor, name: str, offsets: list[int]
) -> list[tuple[int, str, str]]:
    chunks = chunked(offsets, _CHUNK)
    futures = [pool.submit(flip_chunk, name, chunk) for chunk in chunks]
    results: list[tuple[int, str, str]] = []
    for chunk, future in zip(chunks, futures, strict=True):
        try:
            results.extend(future.result(timeout=_RESULT_TIMEOUT_S))
        except BrokenProcessPool:
            results.extend((offset, "killed", "worker died") for offset in chunk)
    return results


def _region(model: FsrFile, offset: int) -> str:
    if offset < model.data_start:
        return "header+metadata"
    if offset < model.data_start + sum(len(b) for b in model.batches):
        return "batches"
    return "footer+trailer"


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["structural", "fast", "strong"])
def test_single_bit_flips_are_all_detected_none_silent(
    profile: str,
    sweep_pool: ProcessPoolExecutor,
    sweep_fixtures: dict[str, bytes],
    sweep_report: list[str],
) -> None:
    """Every flip is an FsrError at open, or exactly one FsrError at its record.

    ``silent`` (opened, read without error, a value differs) must never
    happen; nor ``crash``, ``hang`` or ``killed``. Every byte of an FSR file
    is covered by some CRC, so ``identical`` (undetected but harmless) must
    not happen either, in any profile.
    """
    data = sweep_fixtures[profile]
    stride, first = FLIP_SAMPLING[profile]
    offsets = list(range(first, len(data), stride))

    results = _run_flips(sweep_pool, profile, offsets)

    counts = Counter(category for _, category, _ in results)
    model = FsrFile.parse(data)
    regions = Counter(
        (_region(model, offset), category) for offset, category, _ in results
    )
    sweep_report.append(
        f"bit flips, {profile}: {len(offsets)} of {len(data)} bytes flipped: "
        + ", ".join(f"{key} {value}" for key, value in sorted(counts.items()))
    )
    sweep_report.append(
        "    by region: "
        + ", ".join(f"{r}/{c} {n}" for (r, c), n in sorted(regions.items()))
    )
    assert len(results) == len(offsets)
    failures = [r for r in results if r[1] not in _DETECTED]
    assert counts["silent"] == 0, failures[:20]
    assert not failures, failures[:20]


def _expected_recovery(data: bytes) -> Oracle:
    """Batch ends, cumulative record counts and directory rows of the intact file."""
    model = FsrFile.parse(data)
    rows = [tuple(int(v) for v in row) for row in model.directory().tolist()]
    cumulative = [0]
    for row in rows:
        cumulative.append(cumulative[-1] + row[4])
    return batch_ends(data), cumulative, rows


def _strict_section(cut: int, data_start: int) -> str:
    if cut < HEADER_SIZE:
        return "header"
    return "metadata" if cut < data_start else "trailer"


def _strict_problems(facts: PrefixFacts, data: bytes, data_start: int) -> list[str]:
    """List what is wrong with the strict open of one prefix."""
    if facts.cut == len(data):
        ok = (facts.strict, facts.recover, facts.recovered) == ("ok", "ok", False)
        return [] if ok else [f"intact file: {facts}"]
    problems = []
    section = _strict_section(facts.cut, data_start)
    if facts.strict != _TRUNCATED or facts.strict_section != section:
        problems.append(f"strict {facts.strict} in {facts.strict_section}")
    if facts.cut == 0 and facts.strict_reason != "empty file":
        problems.append(f"empty file reason {facts.strict_reason!r}")
    return problems


def _salvage_problems(facts: PrefixFacts, data_start: int, oracle: Oracle) -> list[str]:
    """List what is wrong with the recovering open of one proper prefix."""
    ends, cumulative, rows = oracle
    complete = sum(1 for end in ends if end <= facts.cut)
    if facts.cut < data_start or (complete == 0 and facts.recover == _TRUNCATED):
        ok = facts.recover == _TRUNCATED
        return [] if ok else [f"recover {facts.recover} before any complete batch"]
    problems = []
    if facts.recover != "ok" or facts.recovered is not True:
        problems.append(f"recover {facts.recover}, recovered={facts.recovered}")
    elif facts.directory != tuple(rows[:complete]):
        problems.append(f"recovered {facts.batches} batches, expected {complete}")
    elif facts.records != cumulative[complete]:
        expected = cumulative[complete]
        problems.append(f"recovered {facts.records} records, expected {expected}")
    if facts.subset_differences:
        problems.append(f"recovered records differ: {facts.subset_differences[:3]}")
    return problems


def _prefix_problems(
    facts: PrefixFacts, data: bytes, data_start: int, oracle: Oracle
) -> list[str]:
    problems = _strict_problems(facts, data, data_start)
    if facts.cut < len(data):
        problems += _salvage_problems(facts, data_start, oracle)
    return problems


@pytest.mark.slow
def test_every_prefix_is_truncated_strictly_and_recovers_exactly_its_complete_batches(
    sweep_pool: ProcessPoolExecutor,
    sweep_fixtures: dict[str, bytes],
    sweep_report: list[str],
) -> None:
    """Hostile case 21 and goal G5 for every prefix length 0..N of the recording.

    Strict: ``TruncatedFileError`` (``'empty file'`` for 0 bytes) in section
    ``header``, ``metadata`` or ``trailer`` by where the cut falls. With
    ``recover=True``: ``TruncatedFileError`` while no batch is complete (or an
    empty recovered file), else ``recovered`` with exactly the batches whose
    last byte is before the cut: same directory rows, same record count. At
    each batch end and one byte before it the recovered file is also read in
    full and every record and frame must equal the intact file's.
    """
    data = sweep_fixtures["structural"]
    data_start = FsrFile.parse(data).data_start
    oracle = _expected_recovery(data)
    deep = frozenset(oracle[0]) | frozenset(end - 1 for end in oracle[0]) | {len(data)}
    cuts = list(range(len(data) + 1))

    chunks = chunked(cuts, _CHUNK)
    futures = [sweep_pool.submit(prefix_chunk, "structural", c, deep) for c in chunks]
    facts = [f for future in futures for f in future.result(timeout=_RESULT_TIMEOUT_S)]

    failures = {}
    for fact in facts:
        problems = _prefix_problems(fact, data, data_start, oracle)
        if problems:
            failures[fact.cut] = problems
    recovered = Counter(fact.batches for fact in facts if fact.recovered)
    sweep_report.append(
        f"truncation: {len(cuts)} prefixes, strict "
        + ", ".join(
            f"{k} {v}" for k, v in sorted(Counter(f.strict for f in facts).items())
        )
        + f"; recovered {sum(recovered.values())} (by batches kept: "
        + ", ".join(f"{k}:{v}" for k, v in sorted(recovered.items()))
        + f"); deep reads {len(deep)}"
    )
    assert [f.cut for f in facts] == cuts
    assert not failures, dict(list(failures.items())[:20])
