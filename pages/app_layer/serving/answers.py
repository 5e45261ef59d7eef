"""The cached answers to people's own questions: their files, Choose ε, the class.

Each computation once per input however many sessions ask (``st.cache_data`` returns
each caller its own copy). The simulations and their figures are cached in ``cache.py``;
nothing else in the app caches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from ldpcore.advice import (
    Advice,
    EpsilonAnswer,
    Recommendation,
    advise_users,
    choose_epsilon,
    error_curve,
    estimate_choose_epsilon_seconds,
    recommend,
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
from ldpcore.learn.prior_demo import PriorDemo, prior_demo
from ldpcore.live.outlook import LARGER_CLASS, LargerClass, larger_class_outlook
from ldpcore.live.poll import Poll
from ldpcore.live.reports import class_collected, with_simulated_liars
from ldpcore.postprocess import JEFFREYS, LEARNED, UNIFORM, method_class
from ldpcore.postprocess.caveats import Caveat
from pages.app_layer.serving.cache import config_hash
from pages.app_layer.serving.executors import (
    search_executor,
    search_point_threads,
)
from pages.app_layer.views.display import progress_bar


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
def larger_class(protocol: str, epsilon: float, options: int) -> LargerClass:
    """What the same noise does at a larger class's size (simulated once per setting)."""
    return larger_class_outlook(protocol, epsilon, options, size=LARGER_CLASS)


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
    config: ExperimentConfig, protocols: tuple[str, ...], methods: tuple[str, ...]
) -> dict[str, float]:
    """How long a Choose ε search will take (one timed 1-trial run per protocol, at once
    on the search's threads when the search runs on this machine)."""
    here = search_point_threads() > 1
    return estimate_choose_epsilon_seconds(
        config, protocols, search_executor()[0] if here else None, methods
    )


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def epsilon_answers(
    config: ExperimentConfig,
    target: AccuracyTarget,
    protocols: tuple[str, ...],
    methods: tuple[str, ...],
) -> list[EpsilonAnswer]:
    """The Choose ε search, protocols in parallel (:func:`search_executor`).

    A progress bar fills as each protocol finishes, as the command line's progress line
    does.
    """
    count = len(protocols)
    with progress_bar(f"Searching ε: 0 of {count} protocols done") as update:
        return choose_epsilon(
            config,
            target=target,
            protocols=protocols,
            executor=search_executor()[0],
            progress=lambda share, protocol: update(
                share, f"Searching ε: {round(share * count)} of {count} done ({protocol})"
            ),
            point_threads=search_point_threads(),
            methods=methods,
        )


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
def collected_values(data: bytes, source: str, settings: dict[str, object]) -> tuple[str, ...]:
    """The values a collected file holds, in its order."""
    return read_collected(data, source=source, **settings).labels  # type: ignore[arg-type]


@st.cache_data(show_spinner=False, max_entries=8)
def collected_recommendation(
    data: bytes, source: str, settings: dict[str, object], query: str
) -> Recommendation:
    """The methods ranked for a collected file and a query, its truth unknown."""
    collected: Collected = read_collected(data, source=source, **settings)  # type: ignore[arg-type]
    return recommend(collected.estimate, protocol=collected.protocol, n=collected.n, query=query)


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
    # Bayes samples for up to seconds: the same progress the CLI's line shows.
    with progress_bar("Sampling the posterior…") as update:

        def sampled(done: int, total: int) -> None:
            if done % 50 == 0 or done >= total:  # a message per 50 iterations, not per one
                update(done / total, f"Sampling the posterior: {done:,} of {total:,}")

        return consistent_estimates_and_caveats(collected, method, prior=chosen, progress=sampled)


@st.cache_data(show_spinner=False, max_entries=8)
def prior_demo_table(
    protocol: str, epsilon: float, values: tuple[int, ...], domain_size: int
) -> PriorDemo:
    """Learn's comparison of Bayes under three priors (about 5 s, so kept)."""
    return prior_demo(
        protocol=protocol, epsilon=epsilon, values=list(values), domain_size=domain_size
    )
