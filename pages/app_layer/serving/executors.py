"""Where the app's work runs: simulation processes, search threads and the Dask client.

Each is one per server process (``st.cache_resource``), started on first use, and
shared by every browser session; ``cache.py`` decides what is computed, this module
where. No executor is built at import.
"""

from __future__ import annotations

import os
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

import streamlit as st

from ldpcore.experiments.cluster import ENVIRONMENT, configured, open_client, where
from ldpcore.serving.workers import Workers, uses_workers, worker_count


@st.cache_resource(show_spinner=False)
def simulation_processes() -> Workers | None:
    """One pool of worker processes per server for the simulations (None: in-thread);
    why processes, :mod:`ldpcore.serving.workers`."""
    if not uses_workers():
        return None
    return Workers(worker_count())


@st.cache_resource(show_spinner=False)
def cluster() -> tuple[Any, int, str]:
    """The Dask client long runs use (``$LDPCORE_DASK``), its worker count, and where that is.

    One per server process, opened on first use; without the variable, work runs in
    the app's own process.
    """
    spec = configured()
    if spec is None:
        return (
            None,
            1,
            (
                "this machine (start the app with LDPCORE_DASK=local:N or "
                "tcp://HOST:PORT to use a Dask cluster)"
            ),
        )
    try:
        client = open_client(spec)
    except ValueError as exc:
        return None, 1, f"this machine, because {ENVIRONMENT}={spec} failed: {exc}"
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    return client, workers, where(client)


def executor() -> tuple[Any, int, str]:
    """``(executor or None, workers, where)`` for long runs."""
    client, workers, place = cluster()
    return (None if client is None else client.get_executor()), workers, place


@st.cache_resource(show_spinner=False)
def search_threads() -> ThreadPoolExecutor:
    """One pool of threads per server, one per core, for the Choose ε search.

    Threads rather than processes: numpy's samplers release the GIL, nothing is
    pickled, and a shared pool caps the server's search work at one thread per core
    however many sessions ask at once (they queue; identical searches hit the cache).
    Measured on 2 cores (benchmarks/README.md): words 10.1 s in one thread, 6.9 s here.
    """
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="ldpcore-search")


def search_point_threads() -> int:
    """Threads for each Choose ε search's own points and timing probes: this machine's
    cores when the search runs here, 1 on a Dask cluster (its workers already share the
    protocols out)."""
    return (os.cpu_count() or 1) if executor()[0] is None else 1


def search_executor() -> tuple[Executor, int, str]:
    """``(executor, workers, where)`` for Choose ε: the Dask cluster if any, else threads."""
    pool, workers, place = executor()
    if pool is not None:
        return pool, workers, place
    cores = os.cpu_count() or 1
    return search_threads(), cores, f"this machine ({cores} thread{'s' if cores > 1 else ''})"
