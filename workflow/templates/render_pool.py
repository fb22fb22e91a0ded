"""Rendering in worker processes with CPU-time, memory and output caps, so a template bomb fails
that one template and never stalls the bot.

The graph's pure checks that render templates (`check_template`, `preview_devices`) run in a
small pool of worker processes, started once and reused. Each worker caps its address space
(RLIMIT_AS: a bomb gets MemoryError instead of the machine's memory), runs at a lower priority
(nice 10: the bot's own process goes first on a busy machine) and, per call, caps its CPU
time (RLIMIT_CPU set to the time used so far plus the cap: SIGXCPU interrupts the render). The
renderer caps the output (workflow/templates/rendering.py). A call waits for a free worker before
it is sent (so a queue of calls is no overrun); one that then outlives twice its CPU cap in wall
time (a bomb stuck in one C call) has its pool killed and replaced, and another call killed or
cancelled with that pool is sent again, once, to the new one. Every failure is a
TemplateError of one line naming the cap and its setting. Workers ignore SIGINT (Ctrl-C at the
console reaches the terminal's whole process group), and a pool a worker died in between calls
is replaced before the next call.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from base.errors import TemplateError

__all__ = ["RenderPool", "run_capped"]

T = TypeVar("T")
_CPU_SETTING = "LABBOT_RENDER_CPU_SECONDS"
_MEMORY_SETTING = "LABBOT_RENDER_MEMORY_MB"


class _CpuTimeExceeded(BaseException):
    """Raised by SIGXCPU; a BaseException so no `except Exception` of the render swallows it."""


def _on_sigxcpu(signum: int, frame: object) -> None:
    raise _CpuTimeExceeded


def _watch_parent(bot_pid: int) -> None:
    """Exit when the bot is gone: a SIGKILLed bot must leave no worker holding its pipes."""
    while os.getppid() == bot_pid:
        time.sleep(1.0)
    os._exit(1)


def _init_worker(memory_bytes: int, bot_pid: int) -> None:
    # Ctrl-C at the console reaches the terminal's whole process group: it is the bot's to
    # handle (clear the line, or quit), never a worker's
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(bot_pid,), daemon=True).start()
    os.nice(10)  # on a busy machine the bot's own process goes first
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    signal.signal(signal.SIGXCPU, _on_sigxcpu)


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _capped_call(cpu_seconds: float, memory_mb: int, func: Callable[..., T], *args: Any) -> T:
    """Run `func(*args)` in this worker under the CPU cap; limits become TemplateErrors."""
    unlimited = resource.RLIM_INFINITY
    resource.setrlimit(resource.RLIMIT_CPU, (int(_cpu_used() + cpu_seconds) + 1, unlimited))
    try:
        return func(*args)
    except _CpuTimeExceeded:
        raise TemplateError(
            f"refused: rendering used more than {cpu_seconds:g} s of CPU time ({_CPU_SETTING})"
        ) from None
    except MemoryError:
        raise TemplateError(
            f"refused: rendering needed more than {memory_mb} MB of memory ({_MEMORY_SETTING})"
        ) from None
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (unlimited, unlimited))


class _KilledWithPool(Exception):
    """A call's pool was killed under it by `_replace` (another call's overrun): not its own
    fault, sent again to the new pool."""


class RenderPool:
    """`await pool.run(func, *args)`: `func(*args)` in a worker process, under the caps.
    `func` and its arguments must pickle (module-level functions over JSON-shaped data)."""

    def __init__(self, workers: int = 2, cpu_seconds: float = 5.0, memory_mb: int = 768) -> None:
        self.workers, self.cpu_seconds, self.memory_mb = workers, cpu_seconds, memory_mb
        self._pool = self._start()
        # the wall-time cap counts a render, not its wait for a worker: 60 labs previewing at
        # once queued calls past it, and their pool was killed under them (bench.many_labs)
        self._free_workers = asyncio.Semaphore(workers)

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers,
            # spawn, not forkserver: the workers are the bot's own children, so they see it go
            # (a forkserver outlives a SIGKILLed bot and keeps its stderr open)
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(self.memory_mb * 1024 * 1024, os.getpid()),
        )

    async def run(self, func: Callable[..., T], *args: Any) -> T:
        async with self._free_workers:
            try:
                return await self._run(func, *args)
            except _KilledWithPool:  # another render's overrun killed this one's worker
                return await self._run(func, *args)

    async def _run(self, func: Callable[..., T], *args: Any) -> T:
        pool = self._pool
        try:
            future = pool.submit(_capped_call, self.cpu_seconds, self.memory_mb, func, *args)
        except BrokenProcessPool:  # a worker died between calls (killed): not this render's
            self._replace(pool)
            pool = self._pool
            future = pool.submit(_capped_call, self.cpu_seconds, self.memory_mb, func, *args)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), 2 * self.cpu_seconds + 5)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if future.cancelled() and task is not None and not task.cancelling():
                raise _KilledWithPool from None
            raise
        except TimeoutError:
            self._replace(pool)
            raise TemplateError(
                f"refused: rendering did not finish within {2 * self.cpu_seconds + 5:g} s "
                f"({_CPU_SETTING})"
            ) from None
        except BrokenProcessPool:
            if pool is not self._pool:  # replaced by another call's overrun: not this render's
                raise _KilledWithPool from None
            self._replace(pool)
            raise TemplateError(
                f"refused: the rendering worker died (over {self.memory_mb} MB of memory? "
                f"{_MEMORY_SETTING})"
            ) from None

    def _replace(self, pool: ProcessPoolExecutor) -> None:
        """Kill a pool stuck in (or broken by) a bomb and start a fresh one for the others."""
        if pool is not self._pool:
            return  # another call replaced it already
        self._pool = self._start()
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


async def run_capped(pool: RenderPool | None, func: Callable[..., T], *args: Any) -> T:
    """`func(*args)` in `pool`, or in this process when there is none (library code, tests)."""
    if pool is None:
        return func(*args)
    return await pool.run(func, *args)
