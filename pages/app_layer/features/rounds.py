"""The Collecting again page's controls and its cached plans and runs.

Streamlit-free work is :mod:`ldpcore.advice.longitudinal` (exact) and
:func:`ldpcore.experiments.rounds.run_rounds` (simulated); this keeps one cached answer per
question, so every session of a class asking the same one shares it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from ldpcore import bounds
from ldpcore.advice.longitudinal import (
    AveragingRow,
    CollectionPlan,
    averaging_attack,
    collection_plans,
    memoized_chains,
    memoized_counterpart,
)
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.present.rounds_sentences import PERIODS, attack_rounds
from ldpcore.protocols import Memoized
from pages.app_layer.serving.cache import config_hash

#: The rounds a person picks from: a week, a month, a quarter, a year of days; a year
#: and two of weeks; five years of months; the most the core takes.
ROUNDS = (1, 7, 12, 30, 52, 60, 90, 104, 365, 730, bounds.ROUNDS_MAX)
#: The simulation's own settings: its trials, and the methods it starts with.
CHECK_TRIALS = 10
CHECK_METHODS = ("Base", "Norm-Sub")


def rounds_controls(config: ExperimentConfig) -> tuple[int, str, float | None]:
    """How many rounds, what a round is called, and ε∞ where a memoized chain applies.

    Every control is bound to the URL, so a link shows the same plans.
    """
    rounds_column, period_column, lifetime_column = st.columns(3)
    rounds = rounds_column.select_slider(
        "Rounds T (how often the same users report)",
        ROUNDS,
        value=365,
        key="rounds",
        bind="query-params",
    )
    period = period_column.selectbox("One round is a", PERIODS, key="period", bind="query-params")
    protocol = config.oracle()
    if memoized_counterpart(protocol) is None:
        lifetime_column.caption(
            f"{config.protocol} has no memoized chain here: its plans are fresh reports."
        )
        return int(rounds), str(period), None
    default = (
        protocol.epsilon_inf
        if isinstance(protocol, Memoized)
        else min(2 * config.epsilon, bounds.EPSILON_MAX)
    )
    lifetime = lifetime_column.number_input(
        "Lifetime ε∞ of the memoized chains (L-GRR, L-OSUE, …)",
        min_value=float(config.epsilon),
        max_value=bounds.EPSILON_MAX,
        value=float(default),
        step=0.1,
        format="%.2f",
        key="epsilon_inf",
        bind="query-params",
        help="No number of reports spends more than this about one value. At least the "
        "ε per report (the sidebar's ε). dBitFlipPM has none to set: its one report is "
        "memoized, so its lifetime ε is that report's.",
    )
    return int(rounds), str(period), float(lifetime)


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=config_hash())
def rounds_plans(
    config: ExperimentConfig, rounds: int, epsilon_inf: float | None
) -> tuple[CollectionPlan, ...]:
    """The plans for these settings (exact; cached per question)."""
    data, protocol = config.dataset.build(config.n), config.oracle()
    return collection_plans(protocol, data.frequencies(), data.n, rounds, epsilon_inf=epsilon_inf)


def plan_config(
    config: ExperimentConfig, plan: CollectionPlan, methods: tuple[str, ...]
) -> ExperimentConfig:
    """The sidebar's settings with the plan's protocol, the check's methods and trials."""
    checked = config.with_oracle(plan.protocol)
    return dataclasses.replace(checked, methods=methods, trials=min(config.trials, CHECK_TRIALS))


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def rounds_check(config: ExperimentConfig, rounds: int) -> dict[str, Any]:
    """A simulated run of the plan (cached): its summary and words."""
    from ldpcore.experiments.rounds import run_rounds  # noqa: PLC0415 (pandas, scipy)
    from ldpcore.present.rounds_sentences import rounds_run_words  # noqa: PLC0415

    result = run_rounds(config, rounds)
    return {"summary": result.summary, "words": rounds_run_words(result)}


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=config_hash())
def averaging_rows(
    config: ExperimentConfig, rounds: int, epsilon_inf: float | None
) -> list[AveragingRow]:
    """The averaging aggregator on every plan with a chain (simulated; cached)."""
    plans = rounds_plans(config, rounds, epsilon_inf)
    return averaging_attack(plans, attack_rounds(rounds), seed=config.seed)


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=config_hash())
def chains_at(
    config: ExperimentConfig, rounds: int, epsilon_inf: float | None
) -> tuple[CollectionPlan, ...]:
    """Every memoized chain at the sidebar's ε and this ε∞, least error first (exact)."""
    data = config.dataset.build(config.n)
    return memoized_chains(
        data.frequencies(), data.n, rounds, epsilon=config.epsilon, epsilon_inf=epsilon_inf
    )
