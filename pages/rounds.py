"""Collecting again: the same users asked every day, week or month."""

from __future__ import annotations

import streamlit as st

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.present.commands import simulate_command
from ldpcore.present.figures.rounds import averaging_figure, error_figure, spending_figure
from ldpcore.present.rounds_sentences import (
    averaging_words,
    chains_words,
    no_attack_words,
    plans_frame,
    plans_words,
    rounds_table,
)
from ldpcore.present.sentences import settings_line
from ldpcore.protocols import PROTOCOLS
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.controls.widgets import require_config
from pages.app_layer.features.rounds import (
    CHECK_METHODS,
    averaging_rows,
    chains_at,
    plan_config,
    rounds_check,
    rounds_controls,
    rounds_plans,
)
from pages.app_layer.views.display import run_or_explain, show_chart
from pages.app_layer.views.exports import downloads

ensure_app(__file__)
st.title("Collecting again")
config: ExperimentConfig = require_config()
rounds, period, lifetime = rounds_controls(config)
plans = run_or_explain(lambda: rounds_plans(config, rounds, lifetime), "Working out the plans…")
if plans is None:
    st.stop()
data = config.dataset.build(config.n)  # the query is not needed: no build()
# The answer first: what each plan spends and how far off it is, then the words.
chains = run_or_explain(lambda: chains_at(config, rounds, lifetime), "Comparing the chains…")
if chains:
    st.info(chains_words(chains, period=period), icon=":material/event_repeat:")
left, right = st.columns(2)
spend = spending_figure(plans, period=period)
show_chart(spend, key="chart-rounds-spend", where=left)
error = error_figure(plans, data.frequencies(), data.n, period=period)
show_chart(error, key="chart-rounds-error", where=right)
table = plans_frame(plans)
st.table(table, hide_index=True)
st.caption(
    "Telemetry is collected again and again from the same people. Each report spends ε, "
    "and without memoization the reports add up. A memoized protocol (RAPPOR's chain, "
    "L-GRR, L-OSUE) draws each user's answer once, permanently, and sends a fresh "
    "randomization of it each round, so no number of reports spends more than ε∞. The "
    "sidebar's ε is one report's."
)
words = plans_words(plans, n=config.n, period=period)
st.markdown(words[0])
for sentence in words[1:]:
    st.markdown(f"- {sentence}")
st.caption(
    f"{settings_line(config)}. Exact figures: one round's error is NDSS 2020 Eq. 3 with "
    "the protocol's p and q, the average's keeps the permanent round's variance, and ε "
    "after t reports is the worst sequence of t reports' ratio."
)
downloads(
    "collecting-again",
    table,
    error,
    simulate_command(plan_config(config, plans[0], config.methods), rounds=rounds, period=period),
)

st.header("What averaging a user's reports reveals")
attack = run_or_explain(
    lambda: averaging_rows(config, rounds, lifetime), "Simulating the aggregator…"
)
if attack:
    st.markdown(averaging_words(attack, period=period))
    show_chart(averaging_figure(attack, plans, period=period), key="chart-rounds-averaging")
elif attack is not None:
    st.info(no_attack_words(plans))

st.header("Checked by simulation")
st.caption(
    "The same users report every round, their values fixed; each method post-processes "
    "every round, and the rounds are averaged two ways: each method's answers, or Base's "
    "first and the method once on that average. Each is compared with averaging Base's, "
    "on the same trials."
)
# A plan's protocol must be registered to be simulated as a configuration (dBitFlip
# afresh, dBitFlipPM's one-shot form, is not).
runnable = [plan for plan in plans if plan.protocol.name in PROTOCOLS]
if len(runnable) < len(plans):
    st.caption(
        "Not offered: "
        + ", ".join(plan.label for plan in plans if plan not in runnable)
        + " (its protocol is not one of the registered ones; its figures above are exact)."
    )
chosen = st.pills(
    "Plan to simulate",
    [plan.label for plan in runnable],
    default=runnable[0].label,
    required=True,
    key="rounds-plan",
)
methods = st.multiselect(
    "Methods", list(config.methods), default=[m for m in CHECK_METHODS if m in config.methods]
)
plan = next(p for p in runnable if p.label == chosen)
check_config = plan_config(config, plan, tuple(methods) or ("Base",))
result = run_or_explain(lambda: rounds_check(check_config, rounds), "Simulating the rounds…")
if result is not None:
    st.markdown(result["words"].replace("\n", "\n\n"))
    st.dataframe(rounds_table(result["summary"]), hide_index=True)
    st.caption(settings_line(check_config))
