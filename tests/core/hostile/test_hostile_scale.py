"""Hostile case 81 (docs/robustness.md): scale limits; 82 is in test_hostile_streams.py.

A million tiny batches would take minutes to write, so the batch and record
limits are tested at N and N - 1 on the sweep recording instead: the strict
open refuses from the footer's counts alone, and salvage stops at the limit.
"""

from __future__ import annotations

from hostile_harness import expect_clean_read, expect_open_error
from hostile_surgery import FsrFile

from fsr_core.errors import LimitExceededError
from fsr_core.format.limits import ReaderLimits


def test_batch_limit_is_inclusive_and_enforced_from_the_footer(
    valid_bytes: bytes, model: FsrFile
) -> None:
    """#81: ``max_batches`` at N opens; at N - 1 strict refuses, salvage stops there."""
    batches = len(model.batches)
    under = ReaderLimits(max_batches=batches - 1)

    expect_clean_read(valid_bytes, limits=ReaderLimits(max_batches=batches))
    error = expect_open_error(valid_bytes, LimitExceededError, limits=under)
    salvage = expect_clean_read(valid_bytes, recover=True, limits=under)

    assert error.section == "footer"
    assert salvage.recovered is True
    assert salvage.directory is not None
    assert len(salvage.directory) == batches - 1
    assert salvage.reader_info["recovery"].reason == "batch limit"


def test_record_limit_is_inclusive_and_enforced_from_the_footer(
    valid_bytes: bytes, model: FsrFile
) -> None:
    """#81: ``max_records`` at N opens, at N - 1 is refused before the index is read."""
    records = len(model.entries)

    expect_clean_read(valid_bytes, limits=ReaderLimits(max_records=records))
    error = expect_open_error(
        valid_bytes, LimitExceededError, limits=ReaderLimits(max_records=records - 1)
    )

    assert error.section == "footer"
