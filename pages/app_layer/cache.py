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
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ldpcore.advice import (
    Advice,
    EpsilonAnswer,
    advise_users,
    choose_epsilon,
    error_curve,
    estimate_choose_epsilon_seconds,
)
from ldpcore.advice.epsilon_context import epsilon_context
from ldpcore.advice.targets import AccuracyTarget
from ldpcore.collection.estimates import (
    Collected,
    consistent_estimates_and_caveats,
    example_collected,
    guess_kind,
    prior_for,
    read_collected,
)
from ldpcore.data.datasets import Dataset, load_bundled, parse_histogram
from ldpcore.data.tables import TableLayout, inspect_table
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import domain_size_of, run_seconds, sweep_seconds
from ldpcore.experiments.sweeps import sweep
from ldpcore.learn.prior_demo import PriorDemo, prior_demo
from ldpcore.live.poll import Poll
from ldpcore.live.reports import class_collected, with_simulated_liars
from ldpcore.postprocess import JEFFREYS, LEARNED, UNIFORM, method_class
from ldpcore.postprocess.caveats import Caveat
from ldpcore.present import figures
from ldpcore.present.sentences import query_in_words
from ldpcore.protocols import describe_protocols
from pages.app_layer.executors import (
    Workers,
    search_executor,
    search_point_threads,
    simulation_processes,
)
from pages.app_layer.simulations import simulate_tables


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

    ``_stoppable`` (a run above the server's budget, :mod:`pages.app_layer.budget`):
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

    The bar is made and emptied in here (a cached call replays the elements it drew);
    its updates are where Streamlit interrupts the page when the visitor presses Stop.
    """
    bar = st.progress(0.0, text=f"{label}: starting")

    def done(finished: int, total: int) -> None:
        bar.progress(finished / total, text=f"{label}: {finished} of {total} trials done")

    if workers is not None:
        workers.warm()
        deadline = time.monotonic() + 30
        while not workers.ready() and time.monotonic() < deadline:
            time.sleep(0.1)
    executor = workers.share() if workers is not None and workers.ready() else None
    try:
        found = work(executor, done)
    except BrokenProcessPool:
        simulation_processes.clear()
        found = work(None, done)
    bar.empty()
    return found


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
    if view == "estimates":
        return figures.estimates_by_rank(per_item, featured=featured)
    if view == "bias":
        return figures.by_rank(per_item, "bias", title="Bias by rank", featured=featured)
    if view == "variance":
        return figures.by_rank(
            per_item, "variance", title="Variance by rank", log_y=True, featured=featured
        )
    raise ValueError(f"unknown by-rank view {view!r}; one of {BY_RANK_VIEWS}")


@st.cache_resource(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def mse_figure(config: ExperimentConfig, relative: bool) -> go.Figure:
    """The MSE-per-method bars (``relative``: the paired ratio to Base), shared."""
    result = simulate_summary(config)
    summary, analytic = result["summary"], result["analytic"]
    return figures.mse_bars(
        summary,
        base_mse=analytic["base_mse"],
        lower_bound=analytic["lower_bound"],
        relative_to_base=relative,
    )


@st.cache_resource(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def bias_variance_figure(config: ExperimentConfig) -> go.Figure:
    """Every method's MSE split into bias² and variance for the query asked, shared."""
    return figures.bias_variance_bars(
        simulate_summary(config)["summary"], query=query_in_words(config.query)
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


@st.cache_data(show_spinner=False, max_entries=32)
def class_tables(
    poll: Poll, fingerprint: str, methods: tuple[str, ...], _rows: Sequence[Mapping[str, Any]]
) -> dict[str, pd.DataFrame]:
    """A live poll's table per method (simultaneous intervals) for its reports ``_rows``.

    ``fingerprint`` (a hash of the reports) names them: the Class page, refreshing every
    few seconds, computes again only when they change (a report arrives, or the teacher
    removes an address's).
    """
    collected = class_collected(poll, _rows)
    return {
        method: consistent_estimates_and_caveats(collected, method, simultaneous=True)[0]
        for method in methods
    }


@st.cache_data(show_spinner=False, max_entries=8)
def class_tables_with_liars(
    poll: Poll,
    fingerprint: str,
    methods: tuple[str, ...],
    liars: tuple[int, int],
    _rows: Sequence[Mapping[str, Any]],
) -> dict[str, pd.DataFrame]:
    """:func:`class_tables` with ``liars = (option, number)`` simulated lying students.

    Never stored: :func:`ldpcore.live.reports.with_simulated_liars` adds them in memory.
    """
    target, number = liars
    collected = with_simulated_liars(poll, _rows, target=target, liars=number)
    return {
        method: consistent_estimates_and_caveats(collected, method, simultaneous=True)[0]
        for method in methods
    }


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
    total: str = "ask",
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
        total=total,
    )


@st.cache_data(show_spinner=False, max_entries=16)
def inspected_upload(data: bytes, *, source: str, header: bool | None = None) -> TableLayout:
    """An upload's layout (cached: a million-row file takes seconds to scan)."""
    return inspect_table(data, source=source, header=header)


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def choose_epsilon_seconds(
    config: ExperimentConfig, protocols: tuple[str, ...]
) -> dict[str, float]:
    """How long a Choose ε search will take (one timed 1-trial run per protocol, at once
    on the search's threads when the search runs on this machine)."""
    here = search_point_threads() > 1
    return estimate_choose_epsilon_seconds(
        config, protocols, search_executor()[0] if here else None
    )


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def epsilon_answers(
    config: ExperimentConfig, target: AccuracyTarget, protocols: tuple[str, ...]
) -> list[EpsilonAnswer]:
    """The Choose ε search, protocols in parallel (:func:`search_executor`).

    A progress bar fills as each protocol finishes, as the command line's progress line
    does. It is made and removed in here: a cached call replays the elements it drew,
    and an element drawn on a block made outside could not be replayed.
    """
    bar = st.progress(0.0, text=f"Searching ε: 0 of {len(protocols)} protocols done")

    def searched(share: float, protocol: str) -> None:
        done = round(share * len(protocols))
        bar.progress(share, text=f"Searching ε: {done} of {len(protocols)} done ({protocol})")

    answers = choose_epsilon(
        config,
        target=target,
        protocols=protocols,
        executor=search_executor()[0],
        progress=searched,
        point_threads=search_point_threads(),
    )
    bar.empty()
    return answers


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def epsilon_curve(
    config: ExperimentConfig, epsilons: tuple[float, ...], target: AccuracyTarget
) -> pd.DataFrame:
    """Choose ε's error-against-ε curve (:func:`ldpcore.advice.error_curve`)."""
    return error_curve(config, epsilons, target)


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def users_needed(config: ExperimentConfig, target: AccuracyTarget) -> list[Advice]:
    """The reverse search: users needed at the config's ε."""
    return advise_users(config, target=target)


#: An ε's central ε after shuffling and its cost over repeated collection, cached: the
#: shuffling bound bisects over binomial tails (0.01–1.2 s, more users cost more;
#: benchmarks/README.md), and the page reruns on every widget.
epsilon_in_context = st.cache_data(show_spinner=False, max_entries=64)(epsilon_context)


@st.cache_data(show_spinner=False)
def collected_example() -> bytes:
    """The example collected file offered on Your data."""
    return example_collected()


@st.cache_data(show_spinner=False, max_entries=8)
def guessed_kind(data: bytes, source: str) -> str:
    """Whether an upload holds counts or estimates (scanning a large file takes seconds)."""
    return guess_kind(data, source=source)


@st.cache_data(show_spinner=False, max_entries=8)
def collected_notes(data: bytes, source: str, settings: dict[str, object]) -> tuple[str, ...]:
    """What a collected file looks like where its settings could not have made it."""
    return read_collected(data, source=source, **settings).notes  # type: ignore[arg-type]


@st.cache_data(show_spinner=False, max_entries=8)
def consistent(
    data: bytes,
    source: str,
    settings: dict[str, object],
    method: str,
    prior: tuple[str, Dataset | None, float | None] = ("Learned from the reports", None, None),
) -> tuple[pd.DataFrame, tuple[Caveat, ...]]:
    """Consistent estimates with an interval for each true frequency, for a collected file.

    ``prior`` is Bayes's (the page's choice): a kind, and for an informed prior the
    histogram and its weight in users. Also what to know before relying on them
    (``present.run_sentences.caveats_note`` says it).
    """
    collected: Collected = read_collected(data, source=source, **settings)  # type: ignore[arg-type]
    kind, histogram, weight = prior
    chosen = {"Uniform": UNIFORM, "Jeffreys (weak)": JEFFREYS}.get(kind, LEARNED)
    if histogram is not None:
        chosen = prior_for(collected, histogram, weight=weight)
    if method_class(method).interval_kind != "credible":
        return consistent_estimates_and_caveats(collected, method)
    # Bayes samples for up to seconds: the same progress the CLI's line shows, as a bar
    # made and emptied in here (a cached call replays what it drew).
    bar = st.progress(0.0, text="Sampling the posterior…")

    def sampled(done: int, total: int) -> None:
        if done % 50 == 0 or done >= total:  # a message per 50 iterations, not per one
            share = min(1.0, done / total)
            bar.progress(share, text=f"Sampling the posterior: {done:,} of {total:,}")

    found = consistent_estimates_and_caveats(collected, method, prior=chosen, progress=sampled)
    bar.empty()
    return found


@st.cache_data(show_spinner=False, max_entries=8)
def prior_demo_table(
    protocol: str, epsilon: float, values: tuple[int, ...], domain_size: int
) -> PriorDemo:
    """Learn's comparison of Bayes under three priors (about 5 s, so kept)."""
    return prior_demo(
        protocol=protocol, epsilon=epsilon, values=list(values), domain_size=domain_size
    )
