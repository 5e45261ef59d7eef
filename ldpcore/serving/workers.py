"""The simulation processes of a server: how many, where they fork from, how they end.

A class moving sliders at once asks for many configurations; in one process their
Python parts take turns on one lock (the GIL), so on 2 cores the server used 1.3 cores
and a class of 30 waited 41 s at the 95th percentile (benchmarks/README.md,
classroom). The workers are forked from a fork server that has already imported numpy
and ldpcore, never from the threaded server itself. The app layer keeps one
:class:`Workers` per server (``pages/app_layer/serving/executors.py``).
"""

from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

from ldpcore.errors import InputError
from ldpcore.serving import BLAS_THREAD_VARIABLES

#: Worker processes for the simulations, one per core unless this variable says how many
#: (0: simulate in the session's own thread).
WORKERS_VARIABLE = "LDPCORE_APP_WORKERS"


#: What a simulation loads lazily (Power's root finder, the likelihoods' linear algebra,
#: pandas' Arrow bridge), imported once by the fork server rather than by each worker at
#: its first simulation: that one took 0.44 s instead of 0.16 s.
WORKER_PRELOAD = (
    "scipy.optimize",
    "scipy.linalg",
    "scipy.special",
    "pyarrow.pandas_compat",
    "pyarrow.vendored.version",
)


def worker_count() -> int:
    """How many simulation processes the server runs (``$LDPCORE_APP_WORKERS``, else cores)."""
    value = os.environ.get(WORKERS_VARIABLE, "").strip()
    if value:
        try:
            return max(0, int(value))
        except ValueError:
            raise InputError(
                f"{WORKERS_VARIABLE}={value!r}: give a whole number of worker "
                "processes (0 simulates in the app's own threads)"
            ) from None
    return os.cpu_count() or 1


def uses_workers() -> bool:
    """Whether simulations run in worker processes.

    Some are asked for, and the system has a fork server to start them from (Windows
    has none: the sessions' threads then).
    """
    return worker_count() > 0 and "forkserver" in multiprocessing.get_all_start_methods()


class Workers:
    """The simulation processes, used once the first of them has answered.

    Nothing starts until :meth:`warm`, which the app calls at the first
    simulation a visitor asks for: on a fresh server the fork server's imports (a core
    for about a second) would otherwise compete with the first visitor's browser. Until
    a worker answers, simulations run in the session's own thread.
    """

    def __init__(self, count: int) -> None:
        self._count = count
        self._lock = threading.Lock()
        self._started = False
        self._pool: ProcessPoolExecutor | None = None
        self._ready: Future[int] | None = None

    def warm(self) -> None:
        """Start the fork server and a first worker, without waiting (once).

        In a thread of its own: the first ``submit`` blocks until the fork server has
        imported its modules (0.8 s), which would hold the page's run open.
        """
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._first_task, name="ldpcore-warm", daemon=True).start()

    def _first_task(self) -> None:
        # Each worker ends with this server, however it ends (end_with).
        pool = ProcessPoolExecutor(
            max_workers=self._count,
            mp_context=fork_server(),
            initializer=end_with,
            initargs=(os.getpid(),),
        )
        self._ready = pool.submit(int)
        self._pool = pool

    def ready(self) -> bool:
        """Whether the first worker has answered (a simulation then need not wait)."""
        return self._pool is not None and self._ready is not None and self._ready.done()

    def submit(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``function(*args)`` in a worker process (once :meth:`ready`)."""
        if self._pool is None:
            raise RuntimeError("the simulation processes are not started yet; see ready()")
        return self._pool.submit(function, *args)

    @property
    def count(self) -> int:
        """How many worker processes there are."""
        return self._count

    def share(self) -> Executor:
        """A view of the pool for one run: at most ``count − 1`` of its chunks at a time.

        So no one visitor's run occupies every worker: another visitor's run finds a
        free worker (with one worker, the runs' chunks take turns in the queue). And a
        run whose visitor stops it sends no further chunk.
        """
        return Bounded(self, max(1, self._count - 1))


class Bounded(Executor):
    """An executor that keeps at most ``width`` of its own tasks in ``workers`` at once.

    ``map`` submits lazily: the next chunk goes when one is done. Closing its results
    early (a visitor stopped the run: Streamlit interrupts the page at its next
    progress update) cancels the chunks not yet running; the one running finishes.
    """

    def __init__(self, workers: Workers, width: int) -> None:
        self._workers = workers
        self._width = width

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run ``fn(*args)`` in a worker (no keyword arguments: they are not sent)."""
        if kwargs:
            raise TypeError("Bounded.submit takes positional arguments only")
        return self._workers.submit(fn, *args)

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any], **_: Any) -> Iterator[Any]:
        """``fn`` over the arguments' rows, at most the width at a time, in order."""
        calls = iter(list(zip(*iterables, strict=True)))
        pending: deque[Future[Any]] = deque()
        try:
            for call in itertools.islice(calls, self._width):
                pending.append(self.submit(fn, *call))
            while pending:
                result = pending.popleft().result()
                # The next chunk goes before this one's result is handed on: the workers
                # keep busy while the page draws its progress.
                following = next(calls, None)
                if following is not None:
                    pending.append(self.submit(fn, *following))
                yield result
        finally:
            for future in pending:
                future.cancel()


def fork_server() -> multiprocessing.context.ForkServerContext:
    """The context the workers are forked from, its server started (once per process).

    The fork server imports numpy, pandas, scipy and ldpcore once; each worker is a fork
    of it. :meth:`Workers.warm` starts it.
    """
    context = multiprocessing.get_context("forkserver")
    # A worker also imports the main module the server ran (multiprocessing's rule): under
    # Streamlit that is app.py, whose __main__ guard keeps it to an import.
    context.set_forkserver_preload(["ldpcore.serving.tables", *WORKER_PRELOAD])
    # One BLAS thread per worker: there is already a worker per core, and OpenBLAS's
    # threads spin while they wait, so the bootstrap's small matrix products made each
    # simulation cost 1.6–2.0 CPU s per second of work (0.9–1.5 with one thread). The
    # variables are read when the fork server imports numpy, so they are set only while
    # it starts; the server's own environment is left as it was.
    saved = {name: os.environ.get(name) for name in BLAS_THREAD_VARIABLES}
    os.environ.update(dict.fromkeys(BLAS_THREAD_VARIABLES, "1"))
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return context


def end_with(server: int) -> None:
    """A worker's initializer: end this process when the server process ``server`` ends.

    The workers are forked from a fork server, not from the server, and each holds both
    ends of its task queue, so a server killed outright (SIGKILL, out of memory) left
    them waiting for tasks forever (measured: a forkserver, two workers and the resource
    tracker, about 790 MB, a minute after). A thread here waits on the server's process
    (a pidfd where the system has one; else a check each half second) and exits.
    """
    threading.Thread(target=_wait_for, args=(server,), name="ldpcore-end-with", daemon=True).start()


def _wait_for(server: int) -> None:
    try:
        handle = os.pidfd_open(server)
    except (AttributeError, OSError):
        handle = -1
    if handle >= 0:
        # Readable once the process has ended (Linux 5.3 and later).
        select.select([handle], [], [])
    else:
        while True:
            try:
                os.kill(server, 0)
            except ProcessLookupError:
                break
            except PermissionError:  # someone else's process now holds the number
                break
            time.sleep(0.5)
    os._exit(0)
