"""Fuzz every reader of outside data: FSR files, skelarm logs, scenario TOML.

Each row of :data:`TARGETS` names a reader, builds its seed corpus from real
files (written on the spot: a synthetic FSR file, a short planar-arm take, a
skelarm log converted to FSR; the skelarm logs of ``tests/data/skelarm/``; the
demo scenarios), mutates them (byte flips, large integers over length fields,
truncation, splicing; and structure-aware: the FSR metadata and footer JSON
rewritten with every length, offset and CRC fixed up, the members, arrays,
``.npy`` headers and TOML metadata of a skelarm log, the tree and text of a
scenario) and runs the calls under test on each case. A case is classified

- ``ok``: every call returned;
- ``fsr_error``: an :class:`~fsr_core.errors.FsrError` subclass (the rule);
- ``crash``: any other exception (a defect);
- ``timeout``: the per-case watchdog (``signal.setitimer``) fired (a defect);
- ``memory``: ``MemoryError`` under the case's address-space budget
  (``RLIMIT_AS``), or resident memory grown by more than the budget (a defect).

Run it for N minutes, shared between the targets (one process)::

    .venv/bin/python tools/fuzz.py --minutes 5 [--target NAME] [--seed S]

It prints cases per second and the findings of each target. The input of each
defect is saved as ``tests/data/fuzz/<target>/<sha256 prefix><suffix>`` with a
``.txt`` sidecar (outcome, exception, traceback), written atomically and never
over an existing file; a case that took the process down (a hang in C code,
past four times the watchdog, or a fatal signal) is saved by the next run as
``killed``. The exit status is 1 when a defect was found. ``tests/fuzz/`` runs
a short Hypothesis pass of every target and replays every saved case. A new
source is one more :class:`FuzzTarget` row.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import faulthandler
import hashlib
import io
import itertools
import json
import os
import random
import re
import resource
import struct
import tempfile
import time
import tomllib
import traceback
import warnings
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np

from case_watchdog import CaseTimeoutError, watchdog
from fsr_core.canonical_json import canonical_dumps
from fsr_core.errors import FsrError
from fsr_core.format.profiles import IntegrityProfile
from fsr_core.format.writer import FsrWriter
from fsr_core.simulation.registry import scenario_simulator
from fsr_core.simulation.scenario_document import read_scenario_document
from fsr_core.simulators.planar_arm.demos import DEMO_NAMES, demo_scenario
from fsr_core.simulators.planar_arm.recorder import (
    record_run,
    recording_metadata,
    recording_streams,
)
from fsr_core.simulators.planar_arm.scenario import Scenario, load_scenario
from fsr_core.sources import convert_recording, inspect_recording, open_recording
from fsr_core.synthetic import SyntheticRun, write_synthetic

__all__ = [
    "DEFECTS",
    "TARGETS",
    "FuzzTarget",
    "Outcome",
    "main",
    "make_case",
    "replay_saved",
    "run_case",
    "save_finding",
    "saved_cases",
    "target_named",
]

REPO: Final = Path(__file__).resolve().parents[1]
FINDINGS: Final = REPO / "tests" / "data" / "fuzz"
"""Where found defects are saved, one folder per target."""
SKELARM_LOGS: Final = REPO / "tests" / "data" / "skelarm"
DEFECTS: Final = ("crash", "timeout", "memory", "killed")
MEMORY_BUDGET_BYTES: Final = 1 << 30
"""Address space one case may add, and resident memory it may grow by."""
_WORK: Final = Path(tempfile.gettempdir()) / f"fsr-fuzz-{os.getuid()}"
_RUNNING: Final = "running"
_CASE_NUMBERS: Final = itertools.count()

Mutator = Callable[[random.Random, bytes, Sequence[bytes]], bytes]
"""``mutate(rng, data, seeds)``: a new case from ``data`` (seeds for splicing)."""
Step = Callable[[Path], object]


# ------------------------------------------------------------------ outcomes
@dataclass(frozen=True)
class Outcome:
    """How one case ended: ``kind`` is ok, fsr_error or one of :data:`DEFECTS`."""

    kind: str
    stage: str = ""
    error: str = ""
    message: str = ""
    trace: str = ""
    where: str = ""

    @property
    def defect(self) -> bool:
        """Say whether the case broke the rule (anything but ok or an FsrError)."""
        return self.kind in DEFECTS

    @property
    def signature(self) -> str:
        """What tells two findings apart: kind, stage, exception and its place."""
        return f"{self.kind} {self.error} at {self.stage} ({self.where})"

    def report(self) -> str:
        """Return the sidecar text: outcome, exception, message and traceback."""
        return (
            f"outcome: {self.kind}\nstage: {self.stage}\nexception: {self.error}\n"
            f"where: {self.where}\nmessage: {self.message}\n\n{self.trace}"
        )


def _address_space_bytes() -> int:
    fields = Path("/proc/self/statm").read_text().split()
    return int(fields[0]) * resource.getpagesize()


@contextlib.contextmanager
def _memory_budget(budget_bytes: int) -> Iterator[None]:
    """Let the case map at most ``budget_bytes`` more (``RLIMIT_AS``)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _address_space_bytes() + budget_bytes
    for bound in (soft, hard):
        if bound != resource.RLIM_INFINITY:
            limit = min(limit, bound)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _innermost(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    try:
        name = str(Path(last.filename).resolve().relative_to(REPO))
    except ValueError:
        name = Path(last.filename).name
    return f"{name}:{last.lineno} {last.name}"


def _classify(exc: BaseException, stage: str) -> Outcome:
    message = str(exc)[:2000]
    if isinstance(exc, FsrError):
        return Outcome("fsr_error", stage, type(exc).__name__, message)
    kind = "crash"
    if isinstance(exc, CaseTimeoutError):
        kind = "timeout"
    elif isinstance(exc, MemoryError):
        kind = "memory"
    trace = "".join(traceback.format_exception(exc))
    return Outcome(kind, stage, type(exc).__name__, message, trace, _innermost(exc))


def _max_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_case(
    target: FuzzTarget, data: bytes, folder: Path, *, hard_kill: bool = False
) -> Outcome:
    """Write ``data`` into ``folder`` and run the target's calls on it.

    With ``hard_kill``, a case still running after four times the watchdog
    (stuck in C code, where the signal cannot interrupt it) ends the process
    with a traceback on stderr.
    """
    # A new name per case: a reader kept open for a path (the FSR source's
    # reader pool) must never serve the previous case's bytes.
    path = folder / f"case-{next(_CASE_NUMBERS)}{target.suffix}"
    path.write_bytes(data)
    rss_before = _max_rss_bytes()
    stage = "start"
    if hard_kill:
        faulthandler.dump_traceback_later(4 * target.timeout_s, exit=True)
    try:
        with (
            warnings.catch_warnings(),
            _memory_budget(MEMORY_BUDGET_BYTES),
            watchdog(target.timeout_s),
        ):
            warnings.simplefilter("ignore")
            for step_stage, step in target.steps:
                stage = step_stage
                step(path)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - every escape is classified
        return _classify(exc, stage)
    finally:
        if hard_kill:
            faulthandler.cancel_dump_traceback_later()
        path.unlink()
    grown = _max_rss_bytes() - rss_before
    if grown > MEMORY_BUDGET_BYTES:
        message = f"resident memory grew by {grown >> 20} MiB"
        return Outcome("memory", stage, "", message, "", "peak resident memory")
    return Outcome("ok")


# ---------------------------------------------------------------- the calls
def _use_model(path: Path) -> None:
    """Open as the player does and touch what it draws: channels, frames, overlays."""
    model = open_recording(path)
    span = model.duration_s
    for play_time_s in (0.0, span / 2, span):
        model.timeline.locate(play_time_s)
        model.overlay_at(play_time_s)
        angles = model.joint_angles_at(play_time_s)
        if angles is not None and model.kinematics is not None:
            model.kinematics.joint_positions(angles)
        for channel in list(model.channels.values())[:64]:
            channel.value_at(play_time_s)
        if model.geometry is not None:
            model.geometry.poses_at(play_time_s)
        for camera in model.cameras:
            camera.index_at(play_time_s)
    for camera in model.cameras:
        if len(camera.times_s):
            camera.fetch(0)
            camera.fetch(len(camera.times_s) - 1)


def _inspect_json(path: Path) -> None:
    """``fsr-viewer inspect --verify --json``: the report, verified, as JSON."""
    report = inspect_recording(path, verify=True)
    json.dumps(report, indent=2, ensure_ascii=True)


def _check_scenario(path: Path) -> None:
    """Do what ``fsr-viewer simulate`` does before its first tick."""
    simulator = scenario_simulator(read_scenario_document(path))
    if simulator.name != "planar_arm":
        return  # another simulator's scenario: its own target, when it has one
    scenario = load_scenario(path)
    FsrWriter(
        path.with_name("unused.fsr"),
        recording_streams(scenario),
        metadata=recording_metadata(scenario, interactive=False),
        integrity=scenario.recording.integrity,
    )
    again = path.with_name("again.toml")
    again.write_text(scenario.to_toml(), encoding="utf-8")
    load_scenario(again)


# ----------------------------------------------------------- byte mutations
def _interesting(data: bytes) -> list[int]:
    size = len(data)
    return [
        0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
        0xFFFFFFFF, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 20,
        1 << 26, 1 << 31, size, size + 1, size - 1, size * 2,
    ]  # fmt: skip


def _pack(value: int, width: int, rng: random.Random) -> bytes:
    value %= 1 << (8 * width)
    if rng.random() < 0.8:
        return value.to_bytes(width, "little")
    return value.to_bytes(width, "big")


def _position(rng: random.Random, data: bytes) -> int:
    return rng.randrange(len(data)) if data else 0


def _flip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    at = _position(rng, data)
    return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]


def _set_int(rng: random.Random, data: bytes) -> bytes:
    width = rng.choice((1, 2, 4, 8))
    at = _position(rng, data)
    value = rng.choice(_interesting(data))
    return data[:at] + _pack(value, width, rng) + data[at + width :]


def _boost_length(rng: random.Random, data: bytes) -> bytes:
    """Find a u32 or u64 that looks like a length and make it large or off by one."""
    for _ in range(64):
        width = rng.choice((4, 8))
        if len(data) <= width:
            return data
        at = rng.randrange(len(data) - width)
        value = int.from_bytes(data[at : at + width], "little")
        if 0 < value <= 4 * len(data):
            new = rng.choice(
                (value + 1, value - 1, value * 2, 0, (1 << (8 * width)) - 1,
                 (1 << (8 * width - 1)), value + len(data), 1 << 30)
            )  # fmt: skip
            return data[:at] + _pack(new, width, rng) + data[at + width :]
    return data


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: _position(rng, data)]


def _delete(rng: random.Random, data: bytes) -> bytes:
    at = _position(rng, data)
    return data[:at] + data[at + rng.randint(1, 256) :]


def _duplicate(rng: random.Random, data: bytes) -> bytes:
    at = _position(rng, data)
    chunk = data[at : at + rng.randint(1, 4096)]
    return data[:at] + chunk * rng.randint(1, 4) + data[at:]


def _insert(rng: random.Random, data: bytes) -> bytes:
    at = _position(rng, data)
    count = rng.choice((1, 4, 16, 512))
    junk = rng.getrandbits(8 * count).to_bytes(count, "little")
    return data[:at] + junk + data[at:]


_BYTE_OPS: Final = (_flip, _flip, _set_int, _boost_length, _truncate, _delete,
                    _duplicate, _insert)  # fmt: skip


def _splice(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    other = rng.choice(seeds)
    return data[: _position(rng, data)] + other[_position(rng, other) :]


def mutate_bytes(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    """Apply one to four byte-level mutations, or splice with another seed."""
    if seeds and rng.random() < 0.1:
        return _splice(rng, data, seeds)
    for _ in range(rng.randint(1, 4)):
        data = rng.choice(_BYTE_OPS)(rng, data)
    return data


# ------------------------------------------------------------ tree mutations
def _deep(rng: random.Random, as_table: bool) -> Any:
    value: Any = 0
    for _ in range(rng.choice((40, 200, 1200, 5000))):
        value = {"a": value} if as_table else [value]
    return value


def _text_of(value: Any) -> str:
    try:
        return str(value)[:200]
    except (ValueError, RecursionError):  # huge integers, deep nesting
        return "x"


def _hostile_value(rng: random.Random, old: Any) -> Any:
    choices: list[Any] = [
        None, True, False, 0, -1, 1 << 64, -(1 << 63) - 1, 10**400, 1e308, -0.0,
        float("inf"), float("-inf"), float("nan"), "", "x" * 100_000, "\u202e\x00",
        [], {}, [0] * 10_000, _text_of(old), [old], {"kind": old}, "1e999", 2.5,
    ]  # fmt: skip
    if rng.random() < 0.1:
        return _deep(rng, rng.random() < 0.5)
    if isinstance(old, float):
        choices += [-old, old * 1e9, old + 1.0, old * 1e-12]
    elif isinstance(old, int) and not isinstance(old, bool):
        choices += [-old, old * 10**9, old + 1, old - 1]
    return rng.choice(choices)


def _pick_container(rng: random.Random, tree: Any) -> tuple[Any, Any]:
    """Walk down at random; return a container and one of its keys (or indexes)."""
    node = tree
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return node, None
        key = rng.choice(keys)
        child = node[key]
        if not isinstance(child, dict | list) or not child or rng.random() < 0.3:
            return node, key
        node = child


def _mutate_tree_once(rng: random.Random, tree: Any) -> None:
    node, key = _pick_container(rng, tree)
    action = rng.random()
    if key is None:
        if isinstance(node, dict):
            node["unknown"] = _hostile_value(rng, 0)
        else:
            node.append(_hostile_value(rng, 0))
    elif action < 0.6:
        node[key] = _hostile_value(rng, node[key])
    elif action < 0.75:
        del node[key]
    elif action < 0.85 and isinstance(node, list):
        node.extend([node[key]] * rng.choice((1, 5, 300)))
    elif isinstance(node, dict):
        node[rng.choice(("unknown", "kind", "name", "x.y", "", *node))] = node[key]
    else:
        node.insert(0, _hostile_value(rng, node[key]))


def mutate_tree(rng: random.Random, tree: Any) -> Any:
    """Apply one to three structural mutations to a parsed JSON or TOML tree."""
    if not isinstance(tree, dict | list) or not tree:
        return _hostile_value(rng, tree)
    for _ in range(rng.randint(1, 3)):
        _mutate_tree_once(rng, tree)
    return tree


# ---------------------------------------------------- FSR structure-aware
_FOOTER_HEADER: Final = 48
_TRAILER: Final = 32
_JSON_ERRORS: Final = (ValueError, RecursionError, UnicodeDecodeError)


def _u32(data: bytes | bytearray, at: int) -> int:
    value: int = struct.unpack_from("<I", data, at)[0]
    return value


def _u64(data: bytes | bytearray, at: int) -> int:
    value: int = struct.unpack_from("<Q", data, at)[0]
    return value


def _crc(data: bytes | bytearray) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def _footer_offset(data: bytes | bytearray) -> int | None:
    """Return the footer's offset when ``data`` ends with a trailer and footer."""
    if len(data) < 128 or data[-_TRAILER:][:4] != b"FSRT":
        return None
    offset = _u64(data, len(data) - _TRAILER + 8)
    if offset + _FOOTER_HEADER > len(data) or data[offset : offset + 4] != b"FSRF":
        return None
    return offset


def _seal_footer(whole: bytearray, footer: int) -> None:
    """Recompute the footer header's and the trailer's CRCs."""
    struct.pack_into("<I", whole, footer + 4, _crc(whole[footer + 8 : footer + 48]))
    trailer = len(whole) - _TRAILER
    struct.pack_into("<I", whole, trailer + 4, _crc(whole[trailer + 8 :]))


def _shift_data(whole: bytearray, delta: int) -> None:
    """Move every absolute offset after the metadata by ``delta`` bytes."""
    footer = _footer_offset(whole)
    if footer is None:
        return
    footer += delta
    trailer = len(whole) - _TRAILER
    struct.pack_into("<Q", whole, trailer + 8, footer)
    struct.pack_into("<Q", whole, footer + 40, _u64(whole, footer + 40) + delta)
    start = footer + _FOOTER_HEADER + _u32(whole, footer + 24)
    rows = min(_u64(whole, footer + 8), (trailer - start) // 32)
    for row in range(rows):
        at = start + 32 * row
        struct.pack_into("<Q", whole, at, _u64(whole, at) + delta)
    directory = whole[start : start + 32 * rows]
    struct.pack_into("<I", whole, footer + 32, _crc(directory))
    _seal_footer(whole, footer)


def _new_json(rng: random.Random, text: bytes, focus: str) -> bytes | None:
    """Mutate the JSON ``text``, mostly inside its ``focus`` member."""
    try:
        tree = json.loads(text)
    except _JSON_ERRORS:
        return None
    inner = tree.get(focus) if isinstance(tree, dict) else None
    if isinstance(inner, dict | list) and inner and rng.random() < 0.7:
        mutate_tree(rng, inner)
    else:
        tree = mutate_tree(rng, tree)
    try:
        return canonical_dumps(tree)
    except (FsrError, ValueError, RecursionError):
        try:
            encoded = json.dumps(tree, sort_keys=True, separators=(",", ":"))
        except (ValueError, RecursionError):
            return None
        return encoded.encode()


def _mutate_fsr_metadata(rng: random.Random, data: bytes) -> bytes | None:
    if len(data) < 32:
        return None
    end = 32 + _u32(data, 20)
    new = _new_json(rng, data[32:end], "metadata")
    if new is None:
        return None
    whole = bytearray(data[:32] + new + data[end:])
    struct.pack_into("<II", whole, 20, len(new), _crc(new))
    struct.pack_into("<I", whole, 28, _crc(whole[:28]))
    _shift_data(whole, len(new) - (end - 32))
    return bytes(whole)


def _mutate_fsr_footer(rng: random.Random, data: bytes) -> bytes | None:
    footer = _footer_offset(data)
    if footer is None:
        return None
    start = footer + _FOOTER_HEADER
    end = start + _u32(data, footer + 24)
    new = _new_json(rng, data[start:end], rng.choice(("calibration", "gaps")))
    if new is None:
        return None
    whole = bytearray(data[:start] + new + data[end:])
    struct.pack_into("<II", whole, footer + 24, len(new), _crc(new))
    trailer = len(whole) - _TRAILER
    struct.pack_into("<Q", whole, trailer + 16, trailer - footer)
    _seal_footer(whole, footer)
    return bytes(whole)


def mutate_fsr(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    """Rewrite the metadata or footer JSON (CRCs and offsets fixed), or bytes."""
    choice = rng.random()
    found: bytes | None = None
    if choice < 0.45:
        found = _mutate_fsr_metadata(rng, data)
    elif choice < 0.6:
        found = _mutate_fsr_footer(rng, data)
    if found is None:
        return mutate_bytes(rng, data, seeds)
    return mutate_bytes(rng, found, seeds) if rng.random() < 0.1 else found


# ------------------------------------------------------ TOML (text and tree)
_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(text, text)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if value is None:
        return '""'
    return json.dumps(str(value))  # dates and times


def _toml_pair(key: Any, value: Any) -> str:
    return f"{_toml_key(str(key))} = {_toml_value(value)}"


def _toml_table(
    name: str, table: dict[str, Any], rng: random.Random
) -> tuple[list[str], list[str]]:
    """Lines before the first ``[header]`` and lines after, in a random style."""
    style = rng.random()
    if style < 0.4:
        return [f"{name} = {_toml_value(table)}"], []
    if style < 0.6:
        return [f"{name}.{_toml_pair(k, v)}" for k, v in table.items()], []
    return [], [f"[{name}]", *(_toml_pair(k, v) for k, v in table.items())]


def toml_dumps(document: dict[str, Any], rng: random.Random) -> str:
    """Write ``document`` as TOML, tables in a random style (inline, dotted, [x])."""
    head: list[str] = []
    tail: list[str] = []
    for key, value in document.items():
        name = _toml_key(str(key))
        tables = isinstance(value, list) and value and rng.random() < 0.6
        if isinstance(value, dict) and value:
            before, after = _toml_table(name, value, rng)
            head += before
            tail += after
        elif tables and all(isinstance(item, dict) for item in value):
            for item in value:
                tail += [f"[[{name}]]", *(_toml_pair(k, v) for k, v in item.items())]
        else:
            head.append(_toml_pair(key, value))
    return "\n".join(head + tail) + "\n"


def _toml_line(rng: random.Random) -> str:
    depth = rng.choice((50, 500, 5000, 100_000))
    return rng.choice(
        (
            "x = " + "[" * depth + "]" * depth,
            "x = " + "{a=" * depth + "1" + "}" * depth,
            "duration_s = 1" + "0" * rng.choice((20, 400, 5000)),
            "dt_s = 1e" + "9" * rng.choice((3, 400)),
            "name = " + json.dumps("n" * 1_000_000),
            "arm.links = 3",
            "[arm.links.x]",
            "[[initial]]",
            "a." * rng.choice((100, 2000)) + "b = 1",
            "task.kind = 'reach'",
            "duration_s = 0x7fffffffffffffffffff",
            "dt_s = 1979-05-27T07:32:00Z",
        )
    )


def _mutate_toml_text(rng: random.Random, text: str) -> str:
    lines = text.splitlines()
    at = rng.randint(0, len(lines))
    if lines and rng.random() < 0.3:
        del lines[min(at, len(lines) - 1)]
    else:
        lines.insert(at, _toml_line(rng))
    return "\n".join(lines) + "\n"


def _mutate_toml(rng: random.Random, text: str) -> str:
    """Tree or text mutation of TOML ``text`` (the text one when it does not parse)."""
    if rng.random() < 0.65:
        try:
            tree = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError, RecursionError):
            tree = None
        if tree is not None:
            mutated = mutate_tree(rng, tree)
            with contextlib.suppress(ValueError, RecursionError):
                if isinstance(mutated, dict):
                    return toml_dumps(mutated, rng)
    return _mutate_toml_text(rng, text)


def mutate_scenario(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    """Mutate a scenario file: its tree (re-written as TOML), its lines, or bytes."""
    if rng.random() < 0.2:
        return mutate_bytes(rng, data, seeds)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return mutate_bytes(rng, data, seeds)
    return _mutate_toml(rng, text).encode("utf-8", "surrogatepass")


# ------------------------------------------------------ skelarm structure
_META_NAME: Final = "__meta__.npy"


def _members(data: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def _load_npy(raw: bytes) -> np.ndarray:
    loaded: np.ndarray = np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
    return loaded


def _mutate_array(rng: random.Random, array: np.ndarray) -> np.ndarray:
    flat = array.reshape(-1)
    options: list[Callable[[], np.ndarray]] = [
        lambda: array.astype(rng.choice(("<f4", "<i8", "|i1", "|b1", "<c16", ">f8"))),
        lambda: (
            array[: rng.randint(0, max(len(flat), 1))] if array.ndim else np.zeros(0)
        ),
        lambda: array[None],
        lambda: array.T,
        lambda: np.array(rng.choice((0.0, np.nan, -1.0))),
        lambda: array.astype(object),
        lambda: np.full_like(array, rng.choice((np.nan, np.inf, -1e308, 0))),
        lambda: flat[::-1].reshape(array.shape),
        lambda: np.array(["x"] * max(len(flat), 1)),
    ]
    if array.ndim == 2:
        options.append(lambda: array[:, : rng.randint(0, array.shape[1])])
    return rng.choice(options)()


def _mutate_meta(rng: random.Random, raw: bytes) -> bytes:
    text = str(_load_npy(raw))
    return _npy(np.array(_mutate_toml(rng, text)))


def _mutate_npy_header(rng: random.Random, raw: bytes) -> bytes:
    end = raw.find(b"\n", 8)
    header = raw[10:end].decode("latin-1")
    replacement = rng.choice(
        (
            ("'shape': (", "'shape': (1099511627776, "),
            ("'shape': (", "'shape': (-1, "),
            ("'shape': (", "'shape': (10000000000000000000000000000, "),
            ("'descr': '", "'descr': '|O"),
            ("'descr': '", "'descr': '<V8"),
            ("'descr': '", "'descr': '>"),
            ("'descr': '", "'descr': '<U999999999"),
            ("False", "True"),
            ("False", "'yes'"),
            ("{", "{'descr': '<f8', "),
            ("}", "'x': __import__('os'), }"),
        )
    )
    header = header.replace(*replacement, 1)
    version = raw[6:8]
    if rng.random() < 0.2:
        version = rng.choice((b"\x02\x00", b"\x03\x00", b"\x09\x00"))
    encoded = header.encode("latin-1")
    return raw[:6] + version + _pack(len(encoded) + 1, 2, rng) + encoded + raw[end:]


def _rezip(rng: random.Random, members: Sequence[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    method = rng.choice((zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are a mutation
        with zipfile.ZipFile(buffer, "w", compression=method) as archive:
            for name, raw in members:
                archive.writestr(name, raw)
    return buffer.getvalue()


def _mutate_member(
    rng: random.Random, name: str, raw: bytes
) -> list[tuple[str, bytes]]:
    action = rng.random()
    if action < 0.1:
        return []
    if action < 0.2:
        return [(name, raw), (name, raw)]
    if action < 0.3:
        new = rng.choice(("x.npy", "../q.npy", "time", "ü.npy", "__meta__.npy"))
        return [(new, raw)]
    if action < 0.5:
        return [(name, _mutate_npy_header(rng, raw))]
    if name == _META_NAME:
        return [(name, _mutate_meta(rng, raw))]
    return [(name, _npy(_mutate_array(rng, _load_npy(raw))))]


def mutate_skelarm(rng: random.Random, data: bytes, seeds: Sequence[bytes]) -> bytes:
    """Rewrite one member of a seed log (array, header, TOML, name), or bytes."""
    if rng.random() < 0.35:
        return mutate_bytes(rng, data, seeds)
    members = _members(rng.choice(seeds))
    at = rng.randrange(len(members))
    if rng.random() < 0.6:
        at = next(i for i, (name, _) in enumerate(members) if name == _META_NAME)
    name, raw = members[at]
    members[at : at + 1] = _mutate_member(rng, name, raw)
    if rng.random() < 0.05:
        members += [(f"extra{i}.npy", _npy(np.zeros(1))) for i in range(4100)]
    return _rezip(rng, members)


# -------------------------------------------------------------------- seeds
def _tiny_take(path: Path) -> None:
    """Record 0.1 s of planar arm: a 32x24 camera, a recalibration, a reset, a push."""
    document = demo_scenario(DEMO_NAMES[-1]).resolved()
    camera = document["cameras"][0]
    camera.update(width=32, height=24, fx=28.0, fy=28.0, rate_hz=60.0)
    camera["calibration_changes"] = [{"time_s": 0.05, "fx": 20.0, "fy": 20.0}]
    document.update(
        duration_s=0.1,
        cameras=[camera],
        resets=[{"after_s": 0.05, "q_rad": None}],
        pushes=[{"start_s": 0.01, "end_s": 0.03, "force_n": [5.0, 0.0]}],
    )
    record_run(Scenario.from_json(document), path)


def fsr_seeds(folder: Path) -> list[bytes]:
    """Synthetic files (structural, strong), a tiny take, a converted skelarm log."""
    folder.mkdir(parents=True, exist_ok=True)
    small = SyntheticRun(ticks=5, generations=2, camera_every=2, width=8, height=8)
    write_synthetic(folder / "synthetic.fsr", small)
    strong = SyntheticRun(ticks=5, generations=1, camera_every=2, width=8, height=6)
    write_synthetic(
        folder / "strong.fsr",
        dataclasses.replace(strong, integrity=IntegrityProfile.STRONG),
    )
    _tiny_take(folder / "take.fsr")
    log = SKELARM_LOGS / "multi_target_switch.sklog.npz"
    convert_recording(log, folder / "converted.fsr")
    names = ("synthetic", "strong", "take", "converted")
    return [(folder / f"{name}.fsr").read_bytes() for name in names]


def skelarm_seeds(folder: Path) -> list[bytes]:
    """Return the real skelarm logs in ``tests/data/skelarm/``."""
    return [path.read_bytes() for path in sorted(SKELARM_LOGS.glob("*.sklog.npz"))]


def scenario_seeds(folder: Path) -> list[bytes]:
    """Return the demo takes' scenario files, as ``fsr-viewer demo`` writes them."""
    return [demo_scenario(name).to_toml().encode() for name in DEMO_NAMES]


# ------------------------------------------------------------------ targets
@dataclass(frozen=True)
class FuzzTarget:
    """One reader of outside data: its seeds, its mutator and the calls under test.

    Parameters
    ----------
    name
        The target's name (``--target``, the folder of its saved cases).
    suffix
        The file name ending of its cases.
    seeds
        Writes or reads the seed corpus (given a scratch folder).
    mutate
        Makes a case from an input and the seeds.
    steps
        The calls under test, each with the stage name it reports.
    timeout_s
        The per-case watchdog.
    short_examples
        Cases of the short run in the test command.
    """

    name: str
    suffix: str
    seeds: Callable[[Path], list[bytes]]
    mutate: Mutator
    steps: tuple[tuple[str, Step], ...]
    timeout_s: float = 5.0
    short_examples: int = 100


TARGETS: Final[tuple[FuzzTarget, ...]] = (
    FuzzTarget(
        "fsr", ".fsr", fsr_seeds, mutate_fsr,
        (("open", _use_model), ("inspect", _inspect_json)), short_examples=300,
    ),
    FuzzTarget(
        "skelarm", ".sklog.npz", skelarm_seeds, mutate_skelarm,
        (("open", _use_model), ("inspect", _inspect_json)), short_examples=150,
    ),
    FuzzTarget(
        "scenario", ".toml", scenario_seeds, mutate_scenario,
        (("load", _check_scenario),), short_examples=300,
    ),
)  # fmt: skip


def target_named(name: str) -> FuzzTarget:
    """Return the target called ``name``."""
    for target in TARGETS:
        if target.name == name:
            return target
    raise KeyError(name)


# ----------------------------------------------------------------- findings
def _write_new(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` atomically unless ``path`` exists."""
    staging = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with staging.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(staging, path)
    except FileExistsError:
        return False
    finally:
        staging.unlink()
    return True


def save_finding(
    root: Path, target: FuzzTarget, data: bytes, outcome: Outcome
) -> Path | None:
    """Save a defect's input and its ``.txt`` sidecar; ``None`` if already saved."""
    folder = root / target.name
    folder.mkdir(parents=True, exist_ok=True)
    stem = hashlib.sha256(data).hexdigest()[:16]
    case = folder / f"{stem}{target.suffix}"
    if case.exists():
        return None
    _write_new(folder / f"{stem}.txt", outcome.report().encode())
    return case if _write_new(case, data) else None


def saved_cases(root: Path = FINDINGS) -> list[tuple[FuzzTarget, Path]]:
    """Every saved case under ``root`` whose folder names a target."""
    found: list[tuple[FuzzTarget, Path]] = []
    for target in TARGETS:
        folder = root / target.name
        if folder.is_dir():
            found += [
                (target, path)
                for path in sorted(folder.iterdir())
                if path.name.endswith(target.suffix) and not path.name.startswith(".")
            ]
    return found


def replay_saved(folder: Path, root: Path = FINDINGS) -> list[tuple[Path, Outcome]]:
    """Run every saved case again; return the ones that are still defects."""
    failing = []
    for target, path in saved_cases(root):
        outcome = run_case(target, path.read_bytes(), folder)
        if outcome.defect:
            failing.append((path, outcome))
    return failing


_MUTATOR_ERRORS: Final = (ValueError, RecursionError, OverflowError, zipfile.BadZipFile)


def make_case(
    target: FuzzTarget, rng: random.Random, data: bytes, seeds: Sequence[bytes]
) -> bytes:
    """Mutate ``data`` with the target's mutator (bytes only if that one fails)."""
    try:
        return target.mutate(rng, data, seeds)
    except _MUTATOR_ERRORS:
        return mutate_bytes(rng, data, seeds)


# ------------------------------------------------------------------- runner
@dataclass
class _Stats:
    cases: int = 0
    seconds: float = 0.0
    kinds: Counter[str] = field(default_factory=Counter)
    findings: Counter[str] = field(default_factory=Counter)
    saved: list[Path] = field(default_factory=list)


def _novelty(outcome: Outcome) -> str:
    message = re.sub(r"\d+", "N", outcome.message)[:80]
    return f"{outcome.kind}/{outcome.stage}/{outcome.error}/{message}"


class _Fuzzer:
    """One target's loop: seeds, a corpus grown by new outcomes, saved findings."""

    def __init__(self, target: FuzzTarget, root: Path, work: Path, per: int) -> None:
        self.target, self.root, self.work, self.per = target, root, work, per
        self.seeds = target.seeds(work / "seeds")
        self.corpus = list(self.seeds)
        self.seen: set[str] = set()
        self.stats = _Stats()

    def run(self, rng: random.Random, seconds: float) -> _Stats:
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            base = rng.choice(self.seeds if rng.random() < 0.5 else self.corpus)
            data = make_case(self.target, rng, base, self.seeds)
            self._one(rng, data)
        self.stats.seconds += time.monotonic() - started
        return self.stats

    def _one(self, rng: random.Random, data: bytes) -> None:
        outcome = run_case(self.target, data, self.work, hard_kill=True)
        self.stats.cases += 1
        self.stats.kinds[outcome.kind] += 1
        key = _novelty(outcome)
        if key not in self.seen and not outcome.defect:
            self.seen.add(key)
            if len(self.corpus) >= 400:
                self.corpus.pop(rng.randrange(len(self.seeds), len(self.corpus)))
            self.corpus.append(data)
        if outcome.defect:
            self._found(data, outcome)

    def _found(self, data: bytes, outcome: Outcome) -> None:
        self.stats.findings[outcome.signature] += 1
        if self.stats.findings[outcome.signature] > self.per:
            return
        saved = save_finding(self.root, self.target, data, outcome)
        if saved is not None:
            self.stats.saved.append(saved)
            print(f"  {self.target.name}: {outcome.signature} -> {saved}", flush=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _rescue_killed(root: Path) -> list[Path]:
    """Save the case a killed earlier run was running (its folder's ``running``)."""
    saved: list[Path] = []
    for folder in sorted(_WORK.glob("*")) if _WORK.is_dir() else []:
        marker = folder / _RUNNING
        if not folder.name.isdigit() or _pid_alive(int(folder.name)):
            continue
        if marker.exists():
            target = target_named(marker.read_text().strip())
            for case in folder.glob(f"case-*{target.suffix}"):
                outcome = Outcome(
                    "killed", "", "", "the fuzz process died during this case"
                )
                found = save_finding(root, target, case.read_bytes(), outcome)
                saved += [] if found is None else [found]
        for item in sorted(folder.rglob("*"), reverse=True):
            item.rmdir() if item.is_dir() else item.unlink()
        folder.rmdir()
    return saved


def _print_stats(name: str, stats: _Stats) -> None:
    rate = stats.cases / stats.seconds if stats.seconds else 0.0
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(stats.kinds.items()))
    print(
        f"{name}: {stats.cases} cases in {stats.seconds:.0f} s, {rate:.1f}/s ({kinds})"
    )
    for signature, count in stats.findings.most_common():
        print(f"  {count:>6} x {signature}")


def _fuzz(args: argparse.Namespace, targets: Sequence[FuzzTarget]) -> bool:
    """Run the targets in turns for the time given; return True if any defect."""
    rng = random.Random(args.seed)
    work = _WORK / str(os.getpid())
    work.mkdir(parents=True, exist_ok=True)
    share = 60.0 * args.minutes / len(targets)
    slice_s = min(share, 30.0)
    found = False
    try:
        fuzzers = [_Fuzzer(t, args.out, work, args.max_per_signature) for t in targets]
        while any(f.stats.seconds < share for f in fuzzers):
            for fuzzer in fuzzers:
                left = share - fuzzer.stats.seconds
                if left > 0:
                    (work / _RUNNING).write_text(fuzzer.target.name)
                    fuzzer.run(rng, min(slice_s, left))
                    (work / _RUNNING).unlink()
        for fuzzer in fuzzers:
            _print_stats(fuzzer.target.name, fuzzer.stats)
            found = found or bool(fuzzer.stats.findings)
    finally:
        for item in sorted(work.rglob("*"), reverse=True):
            item.rmdir() if item.is_dir() else item.unlink()
        work.rmdir()
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Fuzz the targets for the time given; exit 1 if any defect was found."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--target", action="append", choices=[t.name for t in TARGETS])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--out", type=Path, default=FINDINGS)
    parser.add_argument(
        "--max-per-signature", type=int, default=3,
        help="save at most this many cases of one signature per run",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 32)
    targets = [t for t in TARGETS if t.name in (args.target or [t.name])]
    print(f"fuzzing {', '.join(t.name for t in targets)} for {args.minutes} min, "
          f"seed {args.seed}", flush=True)  # fmt: skip
    killed = _rescue_killed(args.out)
    for path in killed:
        print(f"  saved the case a killed run was on: {path}")
    found = _fuzz(args, targets)
    return 1 if found or killed else 0


if __name__ == "__main__":
    raise SystemExit(main())
