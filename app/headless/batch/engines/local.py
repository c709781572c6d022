"""The local engine: a pool of worker processes this driver watches one by one.

Each worker is its own process (started by the ``forkserver``, which has
loaded the work module, the registries and the verb's modules once
(:mod:`~app.headless.batch.engines.preload`), so a new worker is a fast fork
of a clean, warm process, never of the driver) with its own pipe, and works
on one item at a time. While an item runs the driver watches its worker:

- a worker that dies (a crash in a native library, ``os._exit``, the OOM
  killer) fails that item with its exit code or signal;
- a worker still busy ``timeout_s`` after it got its item is killed and
  the item fails as timed out;
- a worker whose resident memory (``/proc/PID/status``) goes past
  ``memory_limit`` bytes is killed and the item fails naming the limit.

A killed worker's unfinished output is removed and a fresh worker takes the
next item. When the run is stopped (Ctrl-C, SIGTERM), every busy worker gets
SIGTERM (its writers remove their staging files), then SIGKILL after
:data:`STOP_GRACE_S`, and what remains of their outputs is removed.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Final

from app.headless.batch.engines import OnResult
from app.headless.batch.engines.local_worker import serve
from app.headless.batch.engines.memory import resident_bytes
from app.headless.batch.engines.preload import preload_modules
from app.headless.batch.items import BatchOptions, WorkItem
from app.headless.batch.work import failed_result, published_result, remove_partials
from fsr_core.budgets import format_amount

__all__ = ["STOP_GRACE_S", "LocalEngine"]

STOP_GRACE_S: Final = 5.0
"""How long a stopped worker may take to clean up before it is killed."""
_POLL_S: Final = 0.05
"""How often busy workers are looked at when a limit is set."""


@dataclass
class _Worker:
    process: BaseProcess
    connection: Connection
    item: WorkItem | None = None
    started_s: float = 0.0
    started_wall_s: float = 0.0


class LocalEngine:
    """Run items in ``jobs`` worker processes on this machine."""

    def __init__(
        self,
        jobs: int,
        *,
        timeout_s: float | None = None,
        memory_limit: int | None = None,
    ) -> None:
        self.jobs = max(1, jobs)
        self.timeout_s = timeout_s
        self.memory_limit = memory_limit
        self._context = multiprocessing.get_context("forkserver")

    def run(
        self, items: Sequence[WorkItem], options: BatchOptions, on_result: OnResult
    ) -> None:
        """Run every item once; call ``on_result`` with each result as it ends."""
        pending = deque(items)
        workers: list[_Worker] = []
        self._context.set_forkserver_preload(preload_modules(options.verb))
        try:
            while pending or any(worker.item for worker in workers):
                self._hand_out(pending, workers, options)
                self._collect(workers, on_result)
        finally:
            self._stop(workers, on_result)

    # -- handing out ------------------------------------------------------

    def _hand_out(
        self, pending: deque[WorkItem], workers: list[_Worker], options: BatchOptions
    ) -> None:
        for worker in workers:
            if worker.item is None and pending:
                self._give(worker, pending.popleft(), options)
        while pending and len(workers) < self.jobs:
            worker = self._start()
            workers.append(worker)
            self._give(worker, pending.popleft(), options)

    def _start(self) -> _Worker:
        mine, theirs = self._context.Pipe(duplex=True)
        process = self._context.Process(
            target=serve,
            args=(theirs, dict(os.environ)),
            name="fsr-viewer-batch",
            daemon=True,
        )
        process.start()
        theirs.close()
        return _Worker(process, mine)

    def _give(self, worker: _Worker, item: WorkItem, options: BatchOptions) -> None:
        worker.item = item
        worker.started_s = time.monotonic()
        worker.started_wall_s = time.time()
        with contextlib.suppress(OSError):  # if it died already, collecting says so
            worker.connection.send((item, options))

    # -- collecting -------------------------------------------------------

    def _collect(self, workers: list[_Worker], on_result: OnResult) -> None:
        busy = [worker for worker in workers if worker.item is not None]
        watched: list[Connection | int] = [worker.connection for worker in busy]
        watched += [worker.process.sentinel for worker in busy]
        wait(watched, timeout=self._wait_s(busy))
        for worker in busy:
            result, lost = self._outcome(worker)
            if result is not None:
                worker.item = None
                on_result(result)
            elif lost:
                workers.remove(worker)
                on_result(self._replace(worker, lost))

    def _wait_s(self, busy: list[_Worker]) -> float | None:
        if self.memory_limit is not None:
            return _POLL_S
        if self.timeout_s is None:
            return None
        now_s = time.monotonic()
        ends = [worker.started_s + self.timeout_s - now_s for worker in busy]
        return max(0.0, min(ends, default=0.0))

    def _outcome(self, worker: _Worker) -> tuple[dict[str, Any] | None, str]:
        """Return the worker's result, or why it is lost ('' while it works)."""
        if worker.connection.poll():
            try:
                result: dict[str, Any] = worker.connection.recv()
            except (EOFError, OSError):
                return None, _death(worker.process)
            return result, ""
        if not worker.process.is_alive():
            return None, _death(worker.process)
        elapsed_s = time.monotonic() - worker.started_s
        if self.timeout_s is not None and elapsed_s > self.timeout_s:
            return None, (
                f"timed out after {self.timeout_s:g} s (--timeout); "
                "its worker was ended"
            )
        held = resident_bytes(worker.process.pid or 0)
        if self.memory_limit is not None and held and held > self.memory_limit:
            limit = format_amount(self.memory_limit, in_bytes=True)
            used = format_amount(held, in_bytes=True)
            return None, (
                f"used {used} of memory, over --memory-limit {limit}; "
                "its worker was ended"
            )
        return None, ""

    def _replace(self, worker: _Worker, reason: str) -> dict[str, Any]:
        """End a lost worker, clean up after its item, return the item's failure."""
        _kill(worker)
        item = worker.item
        assert item is not None
        remove_partials(item.output)
        seconds = time.monotonic() - worker.started_s
        return failed_result(item, f"{item.input}: {reason}", seconds)

    # -- stopping ---------------------------------------------------------

    def _stop(self, workers: list[_Worker], on_result: OnResult) -> None:
        """End every worker: idle ones are told to stop, busy ones terminated.

        A result already sent (a file finished as the stop came) is still
        reported, and so is an output a worker published but was stopped
        before reporting: the report lists every output that was published.
        """
        _drain(workers, on_result)
        for worker in workers:
            if worker.item is None:
                with contextlib.suppress(OSError):
                    worker.connection.send(None)
            elif worker.process.is_alive():
                worker.process.terminate()
        deadline_s = time.monotonic() + STOP_GRACE_S
        for worker in workers:
            worker.process.join(max(0.0, deadline_s - time.monotonic()))
        _drain(workers, on_result)
        for worker in workers:
            _kill(worker)
            if worker.item is not None:
                remove_partials(worker.item.output)
                seconds = time.monotonic() - worker.started_s
                done = published_result(worker.item, worker.started_wall_s, seconds)
                if done is not None:
                    worker.item = None
                    on_result(done)


def _drain(workers: list[_Worker], on_result: OnResult) -> None:
    """Report the results busy workers have already sent, without waiting."""
    for worker in workers:
        if worker.item is None:
            continue
        try:
            if not worker.connection.poll():
                continue
            result = worker.connection.recv()
        except (EOFError, OSError):
            continue
        worker.item = None
        on_result(result)


def _kill(worker: _Worker) -> None:
    if worker.process.is_alive():
        worker.process.kill()
    worker.process.join()
    worker.connection.close()


def _death(process: BaseProcess) -> str:
    """Say how a worker process ended, for the item it was working on."""
    process.join(1.0)
    code = process.exitcode
    if code is not None and code < 0:
        try:
            how = signal.Signals(-code).name
        except ValueError:
            how = f"signal {-code}"
        return f"its worker crashed (killed by {how}); a new worker took over"
    return f"its worker crashed (exit code {code}); a new worker took over"
