"""The Ray engine: the same items as Ray tasks, on a local instance or a cluster.

It needs the ``ray`` extra (``pip install 'fsr-viewer[ray]'``); without it the
run stops with one line saying so. With no ``address`` it starts a local
instance with ``jobs`` CPUs and ends it afterwards; with one it joins that
cluster (``auto``, ``ray://HOST:10001``) and leaves it running. Every task
asks for ``cpus_per_task`` CPUs and runs
:func:`~app.headless.batch.work.run_item`, so the report, the progress and the
exit status are the local engine's. Workers import this package: on a
cluster, install fsr-viewer on every node.

Inputs: by default the workers read them (and write outputs) on storage they
share with the driver. With ``ship_inputs`` each file travels through the
object store, is worked on in the worker's temporary folder, and its output
comes back to be published here, atomically, by the driver.

Limits: no more tasks are in flight than the cluster has CPUs for, so a task
runs as soon as it is sent; one still running ``timeout_s`` after it was sent
is cancelled (its worker killed). With ``memory_limit`` a watchdog in the task
ends its worker process when it holds more; Ray then reports the worker dead,
and the item fails saying so. A stop (Ctrl-C, SIGTERM) cancels every task.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from app.headless.batch.engines import OnResult
from app.headless.batch.engines.memory import resident_bytes
from app.headless.batch.items import BatchOptions, WorkItem
from app.headless.batch.work import failed_result, remove_partials, run_item
from app.headless.export.atomic import atomic_output
from app.headless.signals import stop_on_signals
from fsr_core.budgets import format_amount
from fsr_core.errors import FsrError, SourceUnavailableError

__all__ = ["RAY_EXTRA", "RayEngine", "run_ray_item"]

RAY_EXTRA: Final = "pip install 'fsr-viewer[ray]'"
"""What installs Ray."""
_WAIT_S: Final = 0.2
_CANCEL_GRACE_S: Final = 5.0
_MEMORY_EXIT: Final = 75
_OUTPUT_DATA: Final = "_output_data"


def _import_ray() -> ModuleType:
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise SourceUnavailableError(
            f"--engine ray needs Ray, which is not installed: {RAY_EXTRA}"
        ) from exc


def run_ray_item(
    item: WorkItem,
    options: BatchOptions,
    memory_limit: int | None,
    shipped: bytes | None = None,
) -> dict[str, Any]:
    """Run one item inside a Ray worker (see the module docstring)."""
    if memory_limit is not None:
        _watch_memory(memory_limit)
    if shipped is None:
        return run_item(item, options)
    with tempfile.TemporaryDirectory(prefix="fsr-viewer-batch-") as folder:
        return _run_shipped(item, options, shipped, Path(folder))


_WATCHDOG_STARTED = threading.Event()


def _watch_memory(limit: int) -> None:
    """End this worker process once it holds more than ``limit`` bytes.

    One watchdog per worker process: Ray reuses a worker for many tasks.
    """
    if _WATCHDOG_STARTED.is_set():
        return
    _WATCHDOG_STARTED.set()

    def watch() -> None:
        while True:
            held = resident_bytes()
            if held is not None and held > limit:
                os._exit(_MEMORY_EXIT)
            threading.Event().wait(0.05)

    threading.Thread(target=watch, name="memory-limit", daemon=True).start()


def _run_shipped(
    item: WorkItem, options: BatchOptions, data: bytes, folder: Path
) -> dict[str, Any]:
    local_input = folder / item.input.name
    local_input.write_bytes(data)
    local_output = None
    if item.output is not None:
        (folder / "out").mkdir()
        local_output = folder / "out" / item.output.name
    expected = item.expected
    if expected is not None:  # its digest is checked on the copy
        expected = replace(expected, path=local_input)
    local = replace(
        item,
        input=local_input,
        output=local_output,
        overwrite=False,
        expected=expected,
    )
    result = run_item(local, options)
    if local_output is not None and result["status"] == "ok":
        result[_OUTPUT_DATA] = local_output.read_bytes()
    for key in ("input", "output", "error", "note"):
        if isinstance(result.get(key), str):
            result[key] = _restore_names(result[key], local, item)
    return result


def _restore_names(text: str, local: WorkItem, item: WorkItem) -> str:
    """Say the driver's paths where the worker's temporary ones were."""
    text = text.replace(str(local.input), str(item.input))
    if local.output is not None and item.output is not None:
        text = text.replace(str(local.output), str(item.output))
    return text


class RayEngine:
    """Run items as Ray tasks (see the module docstring)."""

    def __init__(
        self,
        jobs: int,
        *,
        address: str | None = None,
        cpus_per_task: float = 1.0,
        timeout_s: float | None = None,
        memory_limit: int | None = None,
        ship_inputs: bool = False,
    ) -> None:
        self.jobs = max(1, jobs)
        self.address = address
        self.cpus_per_task = cpus_per_task
        self.timeout_s = timeout_s
        self.memory_limit = memory_limit
        self.ship_inputs = ship_inputs

    def run(
        self, items: Sequence[WorkItem], options: BatchOptions, on_result: OnResult
    ) -> None:
        """Run every item once as a Ray task; call ``on_result`` as each ends."""
        ray = _import_ray()
        with self._instance(ray), stop_on_signals():
            task = ray.remote(max_retries=0, num_cpus=self.cpus_per_task)
            _Tasks(self, ray, task(run_ray_item), options, on_result).run(items)

    @contextlib.contextmanager
    def _instance(self, ray: Any) -> Iterator[None]:
        """Use the running instance, or start one and shut it down afterwards."""
        if ray.is_initialized():
            yield
            return
        settings: dict[str, Any] = {"log_to_driver": False}
        if self.address:
            settings["address"] = self.address
        else:
            settings.update(num_cpus=self.jobs, include_dashboard=False)
        try:
            ray.init(**settings)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = self.address or "a local instance"
            raise SourceUnavailableError(f"cannot start Ray on {where}: {exc}") from exc
        try:
            yield
        finally:
            ray.shutdown()


@dataclass(eq=False)
class _Tasks:
    """One run's tasks in flight: sending, waiting, timing out, cancelling."""

    engine: RayEngine
    ray: Any
    remote: Any
    options: BatchOptions
    on_result: OnResult
    _running: dict[Any, tuple[WorkItem, float]] = field(default_factory=dict)
    _capacity: int = field(init=False)

    def __post_init__(self) -> None:
        cpus = float(self.ray.cluster_resources().get("CPU", 1.0))
        self._capacity = max(1, int(cpus // self.engine.cpus_per_task))

    def run(self, items: Sequence[WorkItem]) -> None:
        pending = deque(items)
        try:
            while pending or self._running:
                while pending and len(self._running) < self._capacity:
                    self._send(pending.popleft())
                ready, _ = self.ray.wait(
                    list(self._running), num_returns=1, timeout=_WAIT_S
                )
                for ref in ready:
                    self._finish(ref)
                self._time_out()
        finally:
            for ref, (item, _) in list(self._running.items()):
                self._cancel(ref, item)

    def _send(self, item: WorkItem) -> None:
        shipped = None
        if self.engine.ship_inputs and item.input.is_file():
            try:
                shipped = self.ray.put(item.input.read_bytes())
            except OSError as exc:
                self.on_result(failed_result(item, f"{item.input}: {exc}"))
                return
        ref = self.remote.remote(item, self.options, self.engine.memory_limit, shipped)
        self._running[ref] = (item, time.monotonic())

    def _finish(self, ref: Any) -> None:
        item, sent_s = self._running.pop(ref)
        try:
            result: dict[str, Any] = self.ray.get(ref)
        except self.ray.exceptions.RayError as exc:
            remove_partials(item.output)
            result = failed_result(
                item, self._lost(item, exc), time.monotonic() - sent_s
            )
        data = result.pop(_OUTPUT_DATA, None)
        if isinstance(data, bytes) and item.output is not None:
            result = self._publish(item, result, data)
        self.on_result(result)

    def _lost(self, item: WorkItem, exc: Exception) -> str:
        if isinstance(exc, self.ray.exceptions.WorkerCrashedError):
            limit = self.engine.memory_limit
            over = ""
            if limit is not None:
                over = f", or held more than {format_amount(limit, in_bytes=True)}"
            return f"{item.input}: its Ray worker died (it crashed{over})"
        text = " ".join(str(exc).split())
        return f"{item.input}: the Ray task failed: {text}"

    def _publish(
        self, item: WorkItem, result: dict[str, Any], data: bytes
    ) -> dict[str, Any]:
        """Publish an output that came back through the object store."""
        assert item.output is not None
        try:
            with atomic_output(item.output, overwrite=item.overwrite) as handle:
                handle.write(data)
        except FsrError as exc:
            return {**result, "status": "failed", "error": str(exc)}
        return result

    def _time_out(self) -> None:
        limit = self.engine.timeout_s
        if limit is None:
            return
        now_s = time.monotonic()
        for ref, (item, sent_s) in list(self._running.items()):
            if now_s - sent_s > limit:
                self._cancel(ref, item)
                text = f"{item.input}: timed out after {limit:g} s (--timeout)"
                self.on_result(failed_result(item, text, now_s - sent_s))

    def _cancel(self, ref: Any, item: WorkItem) -> None:
        """Kill the task's worker, wait until it is gone, remove its leftovers."""
        self._running.pop(ref, None)
        with contextlib.suppress(Exception):  # it may have just finished
            self.ray.cancel(ref, force=True)
            self.ray.wait([ref], timeout=_CANCEL_GRACE_S)
        remove_partials(item.output)
