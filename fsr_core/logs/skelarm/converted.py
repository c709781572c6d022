"""Read back the skelarm log an FSR file converted from one holds.

:mod:`fsr_core.logs.skelarm.convert` keeps the log's ``__meta__`` TOML
verbatim in the metadata and each channel in a ``skelarm.<name>`` stream; this
module reads them back into a :class:`~fsr_core.logs.skelarm.log.CheckedLog`,
so the skelarm simulator opens such a file as the log opens (its recording
profile) and re-runs it as it re-runs the log.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from fsr_core.errors import SchemaError
from fsr_core.format.memory import check_numeric_memory
from fsr_core.format.reader import FsrReader
from fsr_core.format.streams import StreamKind
from fsr_core.logs.skelarm.convert import CHANNEL_PREFIX, SIMULATOR_NAME
from fsr_core.logs.skelarm.log import CheckedLog, check_arrays
from fsr_core.logs.skelarm.meta import parse_meta_text

__all__ = ["is_converted_log", "read_converted"]


def is_converted_log(metadata: Mapping[str, Any]) -> bool:
    """Whether FSR ``metadata`` is that of a converted skelarm log."""
    contract = metadata.get("simulation_contract")
    holder = metadata.get("skelarm")
    return (
        isinstance(contract, dict)
        and contract.get("simulator") == SIMULATOR_NAME
        and isinstance(holder, dict)
        and isinstance(holder.get("meta_toml"), str)
    )


def _arrays(reader: FsrReader) -> tuple[dict[str, Any], Any]:
    arrays: dict[str, Any] = {}
    times = None
    chosen = [
        info for info in reader.streams.values() if info.name.startswith(CHANNEL_PREFIX)
    ]
    for info in chosen:
        if info.spec.kind is not StreamKind.NUMERIC:
            raise SchemaError(
                f"stream {info.name!r} is {info.spec.kind.value}, expected numeric",
                path=reader.path,
            )
    check_numeric_memory(chosen, reader.path, "skelarm channels")
    for info in chosen:
        _, sim_times, values = reader.read_series(info.name)
        times = sim_times if times is None else times
        if info.spec.attributes.get("scalar") is True:
            values = values[:, 0]
        arrays[info.name[len(CHANNEL_PREFIX) :]] = np.asarray(values, np.float64)
    return arrays, times


def read_converted(reader: FsrReader, path: Path) -> CheckedLog:
    """Return the log a converted FSR file holds: its TOML and channels, checked.

    Raises
    ------
    SchemaError
        The kept TOML or the channel streams are not a valid skelarm log.
    """
    name = str(path)
    text = reader.metadata["skelarm"]["meta_toml"]
    meta = parse_meta_text(text, name)
    arrays, times = _arrays(reader)
    if times is None:
        raise SchemaError("no skelarm.<channel> streams", path=name)
    arrays["time"] = times
    return check_arrays(arrays, meta, text, name)
