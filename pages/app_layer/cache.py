"""Every cached computation of the app, and the Dask client long runs use.

The only module that caches. ``st.cache_data`` returns each caller its own copy;
``st.cache_resource`` (figures, the Dask client, the search threads) returns one object
shared by every browser session, so callers only read those figures (``plotly_chart``,
``to_html`` and ``to_image`` copy) and never change them in place. That is a measured
choice, not an oversight: a copy of the two figures a warm Explorer rerun draws costs
about 50 ms (deepcopy 21–27 ms each), against a warm target of 0.3 s. A test
(``test_pages_leave_the_shared_cached_figures_unchanged``) runs the pages that draw
them and checks the cached figures still equal freshly built ones.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ldpcore import viz
from ldpcore.advice import (
    Advice,
    EpsilonAnswer,
    advise_users,
    choose_epsilon,
    estimate_choose_epsilon_seconds,
)
from ldpcore.cluster import ENVIRONMENT, configured, open_client, where
from ldpcore.collected_estimates import (
    Collected,
    consistent_estimates,
    example_collected,
    guess_kind,
    read_collected,
)
from ldpcore.datasets import Dataset, load_bundled, parse_histogram
from ldpcore.errors import InputError
from ldpcore.experiment import ExperimentConfig, sweep
from ldpcore.protocols import describe_protocols
from ldpcore.tables import TableLayout, inspect_table
from pages.app_layer.simulations import simulate_tables


def config_hash() -> dict[str | type[Any], Callable[[Any], Any]]:
    """``hash_funcs`` keying an ExperimentConfig by its digest (a new dict per cache).

    Streamlit's own hasher walks explicit counts value by value: over a second per
    cached call at d = 200,000, on every rerun.
    """
    return {ExperimentConfig: lambda config: config.fingerprint}


#: Worker processes for the simulations, one per core unless this variable says how many
#: (0: simulate in the session's own thread).
WORKERS_VARIABLE = "LDPCORE_APP_WORKERS"


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
    """Whether simulations run in worker processes: some are asked for, and the system has
    a fork server to start them from (Windows has none: the sessions' threads then)."""
    return worker_count() > 0 and "forkserver" in multiprocessing.get_all_start_methods()


class Workers:
    """The simulation processes, used once the first of them has answered.

    Nothing starts until :meth:`warm`, which :func:`simulate` calls at the first
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
        pool = ProcessPoolExecutor(max_workers=self._count, mp_context=fork_server())
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


@st.cache_resource(show_spinner=False)
def simulation_processes() -> Workers | None:
    """One pool of worker processes per server for the simulations (None: in-thread).

    Why processes: a class moving sliders at once asks for many configurations, and in
    one process their Python parts take turns on one lock (the GIL), so on 2 cores the
    server used 1.3 cores and a class of 30 waited 41 s at the 95th percentile
    (benchmarks/README.md, classroom). The workers are forked from a fork server that has
    already imported numpy and ldpcore, never from the threaded server itself.
    """
    if not uses_workers():
        return None
    return Workers(worker_count())


def fork_server() -> multiprocessing.context.ForkServerContext:
    """The context the workers are forked from, its server started (once per process).

    The fork server imports numpy, pandas, scipy and ldpcore once; each worker is a fork
    of it. :meth:`Workers.warm` starts it.
    """
    context = multiprocessing.get_context("forkserver")
    # A worker also imports the main module the server ran (multiprocessing's rule): under
    # Streamlit that is app.py, whose __main__ guard keeps it to an import.
    context.set_forkserver_preload(["pages.app_layer.simulations"])
    multiprocessing.forkserver.ensure_running()
    return context


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=config_hash())
def simulate(config: ExperimentConfig, _start_workers: bool = True) -> dict[str, Any]:
    """Run (cached; one computation per configuration however many sessions ask) and
    return plain tables, and the paired ranking when Base is run.

    The run happens in a worker process (:func:`simulation_processes`) once they are
    up; the first simulation asked for starts them (``_start_workers``: the launcher's
    own computation of the default view does not, see ``launch.py``; the leading
    underscore keeps it out of the cache key). If a worker died (the system killed it),
    the pool is replaced and this run happens in this thread.
    """
    workers = simulation_processes()
    if workers is None or not workers.ready():
        if workers is not None and _start_workers:
            workers.warm()
        return simulate_tables(config)
    try:
        return workers.submit(simulate_tables, config).result()
    except BrokenProcessPool:
        simulation_processes.clear()
        return simulate_tables(config)


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=config_hash())
def simulate_summary(config: ExperimentConfig) -> dict[str, Any]:
    """Only the per-method summary, the analytic references and the ranking of ``simulate``.

    A warm rerun then unpickles 13 rows, not the per-item table (≈10 ms at d = 1024).
    """
    result = simulate(config)
    return {
        "summary": result["summary"],
        "analytic": result["analytic"],
        "ranking": result["ranking"],
    }


# cache_resource, not cache_data: a rerun gets the built figures themselves, not a
# pickled copy that Plotly would validate again (≈10 ms a figure). Callers only read
# them (plotly_chart, to_html and to_image copy), never change them. One figure per
# call, so a view builds only what it draws (a figure costs 40–60 ms to build, which
# a class moving sliders at once pays in the server's one process).
BY_RANK_VIEWS = ("estimates", "bias", "variance")


@st.cache_resource(show_spinner=False, max_entries=64, hash_funcs=config_hash())
def by_rank_figure(config: ExperimentConfig, view: str, every_method: bool) -> go.Figure:
    """One of the by-rank charts (``BY_RANK_VIEWS``), shared; do not modify it.

    It draws ``viz.FEATURED`` methods unless ``every_method``. No default: Streamlit keys a
    cached call on the arguments given, so ``(config, view)`` and ``(config, view, False)``
    would be two entries of the same figure.
    """
    per_item = simulate(config)["per_item"]
    featured = None if every_method else viz.FEATURED
    if view == "estimates":
        return viz.estimates_by_rank(per_item, featured=featured)
    if view == "bias":
        return viz.by_rank(per_item, "bias", title="Bias by rank", featured=featured)
    if view == "variance":
        return viz.by_rank(
            per_item, "variance", title="Variance by rank", log_y=True, featured=featured
        )
    raise ValueError(f"unknown by-rank view {view!r}; one of {BY_RANK_VIEWS}")


@st.cache_resource(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def mse_figure(config: ExperimentConfig, relative: bool) -> go.Figure:
    """The MSE-per-method bars (``relative``: the paired ratio to Base), shared."""
    result = simulate_summary(config)
    summary, analytic = result["summary"], result["analytic"]
    return viz.mse_bars(
        summary,
        base_mse=analytic["base_mse"],
        lower_bound=analytic["lower_bound"],
        relative_to_base=relative,
    )


@st.cache_data(show_spinner=False, max_entries=64)
def protocols_table(epsilon: float, domain_size: int, n: int) -> pd.DataFrame:
    """Every protocol's p, q, Base variance and worst-case ratio (cached: the ratio is
    computed from explicit channel matrices, millions of entries at d = 1024)."""
    return pd.DataFrame(describe_protocols(epsilon=epsilon, domain_size=domain_size, n=n))


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def simulate_sweep(
    config: ExperimentConfig, parameter: str, values: tuple[Any, ...]
) -> pd.DataFrame:
    """A cached sweep (progress is shown by the caller's spinner)."""
    return sweep(config, parameter, list(values))


@st.cache_data(show_spinner=False, max_entries=16)
def bundled_dataset(name: str) -> Dataset:
    """A bundled dataset as shipped (cached: words.csv has 10,000 rows)."""
    return load_bundled(name)


@st.cache_data(show_spinner=False, max_entries=16)
def parsed_upload(
    data: bytes,
    *,
    source: str,
    value: str | None,
    count: str | None,
    group: str | None,
    sum_duplicates: bool,
    header: bool | None = None,
) -> Dataset:
    """An uploaded histogram, parsed (cached on the bytes and the column choice)."""
    return parse_histogram(
        data,
        source=source,
        value_column=value,
        count_column=count,
        group_column=group,
        sum_duplicates=sum_duplicates,
        header=header,
    )


@st.cache_data(show_spinner=False, max_entries=16)
def inspected_upload(data: bytes, *, source: str, header: bool | None = None) -> TableLayout:
    """An upload's layout (cached: a million-row file takes seconds to scan)."""
    return inspect_table(data, source=source, header=header)


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


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def choose_epsilon_seconds(
    config: ExperimentConfig, protocols: tuple[str, ...]
) -> dict[str, float]:
    """How long a Choose ε search will take (one timed 1-trial run per protocol)."""
    return estimate_choose_epsilon_seconds(config, protocols)


@st.cache_resource(show_spinner=False)
def search_threads() -> ThreadPoolExecutor:
    """One pool of threads per server, one per core, for the Choose ε search.

    Threads rather than processes: numpy's samplers release the GIL, nothing is
    pickled, and a shared pool caps the server's search work at one thread per core
    however many sessions ask at once (they queue; identical searches hit the cache).
    Measured on 2 cores (benchmarks/README.md): words 10.1 s in one thread, 6.9 s here.
    """
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="ldpcore-search")


def search_executor() -> tuple[Executor, int, str]:
    """``(executor, workers, where)`` for Choose ε: the Dask cluster if any, else threads."""
    pool, workers, place = executor()
    if pool is not None:
        return pool, workers, place
    cores = os.cpu_count() or 1
    return search_threads(), cores, f"this machine ({cores} thread{'s' if cores > 1 else ''})"


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def epsilon_answers(
    config: ExperimentConfig, target: float, protocols: tuple[str, ...]
) -> list[EpsilonAnswer]:
    """The Choose ε search, protocols in parallel (:func:`search_executor`)."""
    return choose_epsilon(
        config, target_rmse=target, protocols=protocols, executor=search_executor()[0]
    )


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def users_needed(config: ExperimentConfig, target: float) -> list[Advice]:
    """The reverse search: users needed at the config's ε."""
    return advise_users(config, target_rmse=target)


@st.cache_data(show_spinner=False)
def collected_example() -> bytes:
    """The example collected file offered on Your data."""
    return example_collected()


@st.cache_data(show_spinner=False, max_entries=8)
def guessed_kind(data: bytes, source: str) -> str:
    """Whether an upload holds counts or estimates (scanning a large file takes seconds)."""
    return guess_kind(data, source=source)


@st.cache_data(show_spinner=False, max_entries=8)
def consistent(
    data: bytes, source: str, settings: dict[str, object], method: str, trials: int
) -> pd.DataFrame:
    """Consistent estimates with intervals for a collected file."""
    collected: Collected = read_collected(data, source=source, **settings)  # type: ignore[arg-type]
    return consistent_estimates(collected, method, trials=trials)
