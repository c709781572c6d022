"""The short fuzz run of every reader of outside data, and the saved cases.

The harness is ``tools/fuzz.py`` (targets, seeds, mutators, classification);
here each target runs a derandomized Hypothesis pass of a bounded number of
cases, and every case saved under ``tests/data/fuzz/`` by a longer run
(``tools/fuzz.py --minutes N``) is replayed: each must now open or raise an
``FsrError`` subclass (docs/robustness.md, Fuzzing).
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from tool_scripts import load_tool

fuzz: Any = load_tool("fuzz", "fuzz_tool")

TARGET_NAMES = [target.name for target in fuzz.TARGETS]


@pytest.fixture(scope="session")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[bytes]]:
    folder = tmp_path_factory.mktemp("fuzz-seeds")
    return {target.name: target.seeds(folder / target.name) for target in fuzz.TARGETS}


@pytest.fixture(scope="session")
def case_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-cases")


@pytest.mark.parametrize("name", TARGET_NAMES)
def test_every_seed_opens_cleanly(
    name: str, corpora: dict[str, list[bytes]], case_folder: Path
) -> None:
    target = fuzz.target_named(name)

    outcomes = [fuzz.run_case(target, seed, case_folder) for seed in corpora[name]]

    assert [outcome.kind for outcome in outcomes] == ["ok"] * len(outcomes), [
        outcome.report() for outcome in outcomes if outcome.kind != "ok"
    ]


@pytest.mark.parametrize("name", TARGET_NAMES)
def test_a_short_fuzz_run_gives_only_results_or_fsr_errors(
    name: str, corpora: dict[str, list[bytes]], case_folder: Path
) -> None:
    target = fuzz.target_named(name)
    seeds = corpora[name]

    @settings(
        max_examples=target.short_examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(rng=st.randoms(use_true_random=False), index=st.integers(0, len(seeds) - 1))
    def case(rng: random.Random, index: int) -> None:
        data = fuzz.make_case(target, rng, seeds[index], seeds)
        outcome = fuzz.run_case(target, data, case_folder)
        if outcome.defect:
            kept = case_folder / (hashlib.sha256(data).hexdigest()[:16] + target.suffix)
            kept.write_bytes(data)
            pytest.fail(
                f"{outcome.signature}; input kept as {kept}\n{outcome.report()}"
            )

    case()


def test_every_saved_case_now_opens_or_raises_an_fsr_error(case_folder: Path) -> None:
    failing = fuzz.replay_saved(case_folder)

    assert not failing, "\n".join(
        f"{path}: {outcome.signature}: {outcome.message}" for path, outcome in failing
    )


def test_saved_cases_have_their_sidecar_and_a_known_target() -> None:
    root = fuzz.FINDINGS
    cases = fuzz.saved_cases(root)
    folders = (
        {path.name for path in root.iterdir() if path.is_dir()}
        if root.is_dir()
        else set()
    )

    assert folders <= set(TARGET_NAMES)
    for _target, path in cases:
        stem = path.name.split(".", 1)[0]
        assert (path.parent / f"{stem}.txt").is_file(), path
        assert hashlib.sha256(path.read_bytes()).hexdigest().startswith(stem), path
