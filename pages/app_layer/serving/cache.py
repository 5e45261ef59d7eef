"""Every cached computation of the app.

The only module that caches computations (the executors they run on are in
``executors.py``). ``st.cache_data`` returns each caller its own copy;
``st.cache_resource`` (figures, the Dask client, the search threads) returns one object
shared by every browser session, so callers only read those figures (``plotly_chart``,
``to_html`` and ``to_image`` copy) and never change them in place. That is a measured
choice, not an oversight: a copy of the two figures a warm Explorer rerun draws costs
about 50 ms (deepcopy 21–27 ms each), against a warm target of 0.3 s. A test
(``test_pages_leave_the_shared_cached_figures_unchanged``) runs the pages that draw
them and checks the cached figures still equal freshly built ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import domain_size_of, run_seconds, sweep_seconds
from ldpcore.experiments.ranges import RangeRun, run_ranges
from ldpcore.experiments.sweeps import sweep
from ldpcore.present import figures
from ldpcore.present.sentences import query_in_words
from ldpcore.protocols import describe_protocols
from ldpcore.serving.tables import simulate_tables
from ldpcore.serving.workers import Workers
from pages.app_layer.serving.executors import (
    simulation_processes,
)
from pages.app_layer.views.display import progress_bar


def config_hash() -> dict[str | type[Any], Callable[[Any], Any]]:
    """``hash_funcs`` keying an ExperimentConfig by its digest (a new dict per cache).

    Streamlit's own hasher walks explicit counts value by value: over a second per
    cached call at d = 200,000, on every rerun.
    """
    return {ExperimentConfig: lambda config: config.fingerprint}


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=config_hash())
def simulate(
    config: ExperimentConfig, _start_workers: bool = True, _stoppable: bool = False
) -> dict[str, Any]:
    """Run (cached; one computation per configuration however many sessions ask) and
    return plain tables, and the paired ranking when Base is run.

    The run happens in a worker process (:func:`simulation_processes`) once they are
    up; the first simulation asked for starts them (``_start_workers``: the launcher's
    own computation of the default view does not, see ``launch.py``; the leading
    underscore keeps it out of the cache key). If a worker died (the system killed it),
    the pool is replaced and this run happens in this thread.

    ``_stoppable`` (a run above the server's budget, :mod:`pages.app_layer.serving.budget`):
    the trials go to the workers in chunks, at most all workers but one at a time, with
    a progress bar; the visitor's Stop (any rerun) interrupts the page at the bar's next
    update and no further chunk is sent. Each trial has its own seed, so the numbers
    are the same as one run's.
    """
    workers = simulation_processes()
    if _stoppable:
        return _simulate_in_chunks(config, workers)
    if workers is None or not workers.ready():
        if workers is not None and _start_workers:
            workers.warm()
        return simulate_tables(config)
    try:
        return workers.submit(simulate_tables, config).result()
    except BrokenProcessPool:
        simulation_processes.clear()
        return simulate_tables(config)


def _simulate_in_chunks(config: ExperimentConfig, workers: Workers | None) -> dict[str, Any]:
    return _in_chunks(
        "Simulating",
        workers,
        lambda executor, progress: simulate_tables(config, executor=executor, progress=progress),
    )


def _in_chunks(
    label: str,
    workers: Workers | None,
    work: Callable[[Executor | None, Callable[[int, int], None]], Any],
) -> Any:
    """``work(executor, progress)`` on all workers but one, with a progress bar.

    The bar's updates are where Streamlit interrupts the page when the visitor presses Stop.
    """
    with progress_bar(f"{label}: starting") as update:
        if workers is not None:
            workers.warm()
            deadline = time.monotonic() + 30
            while not workers.ready() and time.monotonic() < deadline:
                time.sleep(0.1)
        executor = workers.share() if workers is not None and workers.ready() else None

        def done(finished: int, total: int) -> None:
            update(finished / total, f"{label}: {finished} of {total} trials done")

        try:
            return work(executor, done)
        except BrokenProcessPool:
            simulation_processes.clear()
            return work(None, done)


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

    It draws ``figures.FEATURED`` methods unless ``every_method``. No default: Streamlit keys a
    cached call on the arguments given, so ``(config, view)`` and ``(config, view, False)``
    would be two entries of the same figure.
    """
    per_item = simulate(config)["per_item"]
    featured = None if every_method else figures.FEATURED
    # A page never hides the method it recommends.
    ranking = simulate_summary(config)["ranking"]
    chosen: str | None = None if ranking is None else ranking.verdict.recommended
    if view == "estimates":
        return figures.estimates_by_rank(per_item, featured=featured, recommended=chosen)
    if view in ("bias", "variance"):
        title, log_y = ("Bias by rank", False) if view == "bias" else ("Variance by rank", True)
        return figures.by_rank(
            per_item, view, title=title, log_y=log_y, featured=featured, recommended=chosen
        )
    raise ValueError(f"unknown by-rank view {view!r}; one of {BY_RANK_VIEWS}")


@st.cache_resource(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def comparison_figure(config: ExperimentConfig) -> go.Figure:
    """The comparison a results page opens on: every method's MSE against Base, split
    into bias² and variance, the measurable winner highlighted (shared)."""
    result = simulate_summary(config)
    return comparison_of(result, query_in_words(config.query))


def comparison_of(result: dict[str, Any], query: str) -> go.Figure:
    """:func:`comparison_figure` of a run's tables already at hand (not cached)."""
    ranking = result["ranking"]
    return figures.error_breakdown(
        result["summary"],
        recommended=ranking.verdict.winner if ranking is not None else None,
        query=query,
    )


@st.cache_data(show_spinner=False, max_entries=64)
def protocols_table(epsilon: float, domain_size: int, n: int) -> pd.DataFrame:
    """Every protocol's p, q, Base variance and worst-case ratio (cached: the ratio is
    computed from explicit channel matrices, millions of entries at d = 1024)."""
    return pd.DataFrame(describe_protocols(epsilon=epsilon, domain_size=domain_size, n=n))


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def simulate_sweep(
    config: ExperimentConfig,
    parameter: str,
    values: tuple[Any, ...],
    _stoppable: bool = False,
) -> pd.DataFrame:
    """A cached sweep (progress is shown by the caller's spinner).

    ``_stoppable``: above the server's budget, in chunks on all workers but one, with a
    progress bar and the visitor's Stop (as :func:`simulate`).
    """
    if not _stoppable:
        return sweep(config, parameter, list(values))
    workers = simulation_processes()
    return _in_chunks(
        "Simulating every point",
        workers,
        lambda executor, progress: sweep(
            config, parameter, list(values), executor=executor, progress=progress
        ),
    )


@st.cache_data(show_spinner=False, max_entries=256, hash_funcs=config_hash())
def run_estimate(
    config: ExperimentConfig, parameter: str | None, values: tuple[Any, ...]
) -> tuple[float, int]:
    """A run's (or sweep's) estimated seconds and its domain size, computed once per
    configuration: the budget asks on every rerun, and building a bundled dataset to
    learn its size is not free."""
    domain_size = domain_size_of(config)
    seconds = run_seconds(config) if parameter is None else sweep_seconds(config, parameter, values)
    return seconds, domain_size


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def simulate_ranges(config: ExperimentConfig) -> RangeRun:
    """Ranges of growing length, flat and hierarchical protocols on the same trials."""
    return run_ranges(config)
