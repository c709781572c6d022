"""Channel data to CSV: every numeric column with its unit, on one time axis.

The header is ``play_time_s,<channel>:<column> [unit],...`` (the ``[unit]``
part only when the channel has one). Channels may be sampled on different
time bases: there is one row per sample of the *primary* channel (the one
with the most samples; the first in the recording's order on a tie), and
every other channel gives its sample at or before that time (an empty cell
before its first sample), the value a viewer sees at that moment. The primary
channel's rows are its own samples, each once, even where two share a time.
A channel without numbers (a topic of text, an empty message) is left out,
and named in :attr:`ChannelExport.left_out`, as ``convert`` leaves it out. The
file appears only when complete (atomic.py).
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from app.headless.export.atomic import atomic_output, write_failed
from app.headless.export.video import check_not_source
from fsr_core.errors import StreamNotFoundError
from fsr_core.recording import TIME_EPSILON_S, Channel, RecordingModel

__all__ = ["ChannelExport", "channel_table", "export_channels"]


@dataclass(frozen=True)
class ChannelExport:
    """A published channel CSV: path, rows and columns (time included)."""

    path: Path
    rows: int
    columns: int
    primary: str
    seconds: float
    left_out: tuple[str, ...] = ()
    """The channels without numbers to export, by name."""


def _numeric(channel: Channel) -> bool:
    return (
        channel.values.dtype.kind in "fiub"
        and channel.times_s.size > 0
        and channel.width > 0
    )


def _column_names(channel: Channel) -> list[str]:
    count = channel.width
    names = list(channel.columns)
    if len(names) != count:
        names = [str(index) for index in range(count)]
    unit = f" [{channel.unit}]" if channel.unit else ""
    return [f"{channel.name}:{name}{unit}" for name in names]


def channel_table(
    model: RecordingModel,
) -> tuple[list[str], npt.NDArray[np.float64], str, list[str]]:
    """Return ``(header, table, primary, left_out)``: the CSV's columns as floats.

    ``table`` has one row per primary sample; NaN marks "no sample yet".
    ``left_out`` names the channels without numbers.

    Raises
    ------
    StreamNotFoundError
        The recording has no numeric channel.
    """
    channels = [c for c in model.channels.values() if _numeric(c)]
    left_out = [name for name, c in model.channels.items() if not _numeric(c)]
    if not channels:
        raise StreamNotFoundError("no numeric channels to export", path=model.path)
    primary = max(channels, key=lambda c: c.times_s.size)
    times = np.asarray(primary.times_s, dtype=np.float64)
    header = ["play_time_s"]
    blocks = [times[:, None]]
    for channel in channels:
        header += _column_names(channel)
        values = np.asarray(channel.values, dtype=np.float64).reshape(
            channel.times_s.size, -1
        )
        if channel is primary:
            blocks.append(values)
            continue
        index = np.searchsorted(channel.times_s, times + TIME_EPSILON_S, "right") - 1
        block = values[np.maximum(index, 0)]
        block[index < 0] = np.nan
        blocks.append(block)
    return header, np.hstack(blocks), primary.name, left_out


def export_channels(
    model: RecordingModel, output: Path, *, overwrite: bool = False
) -> ChannelExport:
    """Write every numeric channel of ``model`` to ``output`` as CSV.

    Raises
    ------
    StreamNotFoundError
        The recording has no numeric channel.
    TargetExistsError
        ``output`` exists and ``overwrite`` is false.
    WriteFailedError
        ``output`` is the input recording, or writing failed.
    """
    check_not_source(output, model, overwrite=overwrite)
    started = time.perf_counter()
    header, table, primary, left_out = channel_table(model)
    with atomic_output(output, overwrite=overwrite) as handle:
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
        try:
            writer = csv.writer(text, lineterminator="\n")
            writer.writerow(header)
            for row in table:
                writer.writerow(["" if v != v else repr(float(v)) for v in row])
            text.flush()
        except OSError as exc:
            raise write_failed(exc, output) from exc
        finally:
            text.detach()
    rows, columns = table.shape
    seconds = time.perf_counter() - started
    return ChannelExport(output, rows, columns, primary, seconds, tuple(left_out))
