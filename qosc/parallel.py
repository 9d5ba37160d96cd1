"""Run independent per-device work on several processes, results in input order.

Compiling a large network is a map over (target, device) pairs, each a pure
function of the policy model and one device.  `ordered_map` forks worker
processes (the model is inherited copy-on-write, never pickled), hands them
contiguous chunks of indices and yields the results in index order, so
everything downstream (diagnostics, files, their order) is byte-identical to a
single-process run.  Where fork is unavailable, or one job is asked for, or
the work is too small to pay for the fork, it runs in-process.

Exceptions raised in a worker are re-raised in the parent (with the remote
traceback chained, as multiprocessing does), exactly as a serial run would
raise them.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

R = TypeVar("R")

MIN_UNITS_PER_JOB = 32
"""Below this many work units per extra process, forking costs more than it saves."""

_TASK: Callable[[int], Any] | None = None
"""The function of the map in progress; set before the fork, so workers inherit it."""


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def resolve_jobs(jobs: int | None, units: int) -> int:
    """Processes to use: `jobs` if positive, else as many as CPUs that have enough work (auto)."""
    wanted = jobs if jobs is not None and jobs > 0 else min(cpu_count(), max(1, units // MIN_UNITS_PER_JOB))
    if wanted > 1 and not fork_available():
        return 1
    return max(1, min(wanted, units))


def portable(exc: BaseException) -> BaseException:
    """`exc` with its traceback as a note, replaced by a RuntimeError if it cannot cross a process boundary."""
    import pickle
    import traceback

    text = "".join(traceback.format_exception(exc))
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - whatever makes it unpicklable
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    if not any(text in note for note in getattr(exc, "__notes__", ())):
        exc.add_note(f"in {'worker ' + str(os.getpid()) if _TASK is not None else 'this process'}:\n{text}")
    return exc


def _run_chunk(bounds: tuple[int, int]) -> list[Any]:
    task = _TASK
    assert task is not None, "worker started without a task"
    return [task(i) for i in range(*bounds)]


def _chunks(count: int, jobs: int, chunk: int | None) -> list[tuple[int, int]]:
    """Contiguous index ranges; small enough to balance the load, large enough to amortise the IPC."""
    size = chunk or max(1, min(64, count // (jobs * 8) or 1))
    return [(start, min(count, start + size)) for start in range(0, count, size)]


def ordered_map(task: Callable[[int], R], count: int, jobs: int = 1, chunk: int | None = None) -> Iterator[R]:
    """task(0) ... task(count - 1), computed on `jobs` forked processes, yielded in index order.

    `task` and everything it reads must exist before the call (workers are
    forked from the caller).  Results must be picklable.  With jobs <= 1 it is
    a plain loop in this process.  A worker that dies (killed, out of memory)
    raises BrokenProcessPool here instead of hanging.
    """
    global _TASK
    jobs = resolve_jobs(jobs, count) if jobs != 1 else 1
    if jobs <= 1 or count <= 1 or _TASK is not None:  # _TASK set: a map inside a map stays serial
        for i in range(count):
            yield task(i)
        return
    _TASK = task
    # Objects alive now are read-only input for the workers: freezing them keeps
    # the workers' garbage collector from touching (and so copying) every page.
    frozen = gc.get_freeze_count()
    gc.freeze()
    try:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            futures = [pool.submit(_run_chunk, bounds) for bounds in _chunks(count, jobs, chunk)]
            try:
                for future in futures:
                    yield from future.result()
            finally:
                for future in futures:
                    future.cancel()
    finally:
        _TASK = None
        if not frozen:  # the caller had frozen nothing: leave it so
            gc.unfreeze()


class Background:
    """`func()` computed in a forked child while this process goes on; `result()` waits for it.

    For read-only side work (e.g. stat'ing thousands of files) that can use
    another CPU while this one validates.  Without fork, or with
    enabled=False, or if the child fails, `func()` simply runs in this process.
    """

    def __init__(self, func: Callable[[], R], enabled: bool = True) -> None:
        self._func = func
        self._pid: int | None = None
        self._done = False
        self._value: Any = None
        if not enabled or not fork_available():
            return
        import pickle

        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave without running any of the parent's cleanup
            status = 0
            try:
                os.close(read)
                data = pickle.dumps(func(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
            except BaseException:  # noqa: BLE001 - the parent recomputes
                status = 1
            os._exit(status)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> Any:
        if self._done:
            return self._value
        if self._pid is not None:
            import pickle

            with os.fdopen(self._read, "rb") as pipe:
                data = pipe.read()
            _, status = os.waitpid(self._pid, 0)
            self._pid = None
            if status == 0 and data:
                self._value, self._done = pickle.loads(data), True
                return self._value
        self._value, self._done = self._func(), True
        return self._value

