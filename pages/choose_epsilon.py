"""Choose ε: the smallest privacy budget that meets an accuracy target, and what it risks."""

from __future__ import annotations

import dataclasses
import math

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
from ldpcore.datasets import Dataset
from ldpcore.experiment import ExperimentConfig
from ldpcore.postprocess import method_names
from ldpcore.protocols import get_protocol, protocol_names
from pages.common import (
    EPSILONS,
    USERS,
    config_hash,
    counts_config,
    ensure_app,
    executor,
    histogram_picker,
    query_picker,
    run_or_explain,
    simulate_sweep,
)

#: Protocols compared by default (BLH is OLH with g = 2, never better; left as an option).
DEFAULT_PROTOCOLS = ("GRR", "OLH", "OUE", "SS", "HR")
#: Methods searched by default: the fast ones that enforce consistency, plus Base.
DEFAULT_METHODS = ("Base", "Base-Cut", "Norm", "Norm-Sub", "MLE-Apx", "PowerNS")
#: Searches expected to take longer than this wait for a click.
LONG_SEARCH_SECONDS = 60

ensure_app()
st.title("Choose ε")
st.caption(
    "For a dataset like yours, a number of users and the query that matters: the smallest "
    "ε that meets an accuracy target, per protocol with its best post-processing, and what "
    "that ε means for one person."
)
picked = histogram_picker("choose")
if picked is None:
    st.stop()
dataset: Dataset = picked  # narrowed once, for the closures below

row = st.columns(3)
n = row[0].select_slider("Users n", USERS, value=10**6, key="choose-n")
target_pp = row[1].number_input(
    "Accuracy target: root-mean-square error, in percentage points", 0.001, 50.0, 0.5,
    step=0.1, format="%.3f", key="choose-target",
    help="0.5 means each answer is typically within ±0.5 percentage points of the truth.",
)  # fmt: skip
trials = row[2].slider("Trials per point", 5, 50, 10, key="choose-trials",
                       help="More trials: a narrower band, a slower answer.")  # fmt: skip
query = query_picker("choose", dataset)
with st.expander("Protocols and methods searched"):
    protocols = st.multiselect("Protocols", protocol_names(), default=list(DEFAULT_PROTOCOLS),
                               key="choose-protocols")  # fmt: skip
    methods = st.multiselect("Methods", method_names(), default=list(DEFAULT_METHODS),
                             key="choose-methods")  # fmt: skip
if not protocols or not methods:
    st.error("Pick at least one protocol and one method.")
    st.stop()
target = float(target_pp) / 100


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def _estimate(config: ExperimentConfig, protocols: tuple[str, ...]) -> dict[str, float]:
    return estimate_choose_epsilon_seconds(config, protocols)


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def _answers(
    config: ExperimentConfig, target: float, protocols: tuple[str, ...]
) -> list[EpsilonAnswer]:
    return choose_epsilon(config, target_rmse=target, protocols=protocols,
                          executor=executor()[0])  # fmt: skip


def _epsilon_text(value: float | None) -> str:
    return "not reachable for ε ≤ 10" if value is None else f"ε ≈ {value:.2g}"


def _band(advice: Advice) -> str:
    if advice.value is None:
        return "–"
    low = advice.low if advice.low is not None else advice.value
    high = advice.high if advice.high is not None else "above 10"
    return f"{low:.2g} – {high:.2g}" if isinstance(high, float) else f"{low:.2g} – {high}"


def _sentence(best: EpsilonAnswer, n_users: int) -> str:
    if best.best.value is None:
        return (f"With {n_users:,} users no protocol meets the target for ε up to 10; "
                "relax the target or collect from more users.")  # fmt: skip
    head = (f"With {n_users:,} users, {best.protocol} + {best.method} meets your target "
            f"from ε ≈ {best.best.value:.2g} (somewhere in {_band(best.best)})")  # fmt: skip
    base = best.base.value
    if best.method == "Base" or (base is not None and base <= best.best.value):
        return head + "; post-processing does not lower it for this query."
    return head + f"; without post-processing you would need {_epsilon_text(base)}."


config = run_or_explain(
    lambda: counts_config(dataset, n=int(n), protocol=protocols[0], epsilon=1.0, query=query,
                          methods=tuple(methods), trials=int(trials)),
    "Checking the settings…",
)  # fmt: skip
if config is None:
    st.stop()
estimate = run_or_explain(lambda: _estimate(config, tuple(protocols)), "Timing the search…")
seconds = sum(estimate.values()) if estimate else 0.0
search_id = repr((config, target, tuple(protocols)))
approved: set[str] = st.session_state.setdefault("choose-approved", set())
if st.session_state.get("choose-go"):
    approved.add(search_id)  # remembered, so later reruns (the risk slider) keep the answer
if seconds > LONG_SEARCH_SECONDS and search_id not in approved:
    slowest = max(estimate, key=lambda p: estimate[p]) if estimate else ""
    st.warning(
        f"This search would take about {seconds:.0f} s on {executor()[2].split(' (')[0]} "
        f"({slowest}: {estimate.get(slowest, 0):.0f} s). Fewer trials, fewer protocols "
        "(under 'Protocols and methods searched') or a smaller domain make it faster."
    )
    st.button(f"Search anyway (about {seconds:.0f} s)", key="choose-go")
    st.stop()
answers = run_or_explain(
    lambda: _answers(config, target, tuple(protocols)),
    f"Searching ε for {len(protocols)} protocols × {len(methods)} methods "
    f"(about {seconds:.0f} s the first time)…",
)
if not answers:
    st.stop()
st.caption(f"Searched on {executor()[2]}.")

reachable = [a for a in answers if a.best.value is not None]
winner = min(reachable, key=lambda a: a.best.value) if reachable else answers[0]
st.success(_sentence(winner, int(n)))
table = pd.DataFrame(
    {
        "protocol": [a.protocol for a in answers],
        "best method": [a.method for a in answers],
        "smallest ε": [a.best.value for a in answers],
        "uncertain between": [_band(a.best) for a in answers],
        "ε without post-processing": [a.base.value for a in answers],
    }
)
st.dataframe(table, hide_index=True, key="choose-table",
             column_config={c: st.column_config.NumberColumn(format="%.3g")
                            for c in ("smallest ε", "ε without post-processing")})  # fmt: skip
st.caption(
    "Uncertain between: where the simulated curve ± 2 standard errors crosses the target. "
    f"{trials} trials per point; Base is exact (Eq. 3) for single-value queries."
)

# The error-vs-ε curve of the winning protocol, with the target line.
grid = tuple(e for e in EPSILONS if 0.1 <= e <= 10)
shown = tuple(dict.fromkeys(("Base", winner.method)))
curve_config = dataclasses.replace(config, protocol=winner.protocol, methods=shown)
frame = run_or_explain(lambda: simulate_sweep(curve_config, "epsilon", grid), "Drawing the curve…")
if frame is not None:
    frame = frame.assign(rmse_pp=100 * frame["mse"].pow(0.5))
    figure = go.Figure()
    for method, part in frame.groupby("method", sort=False):
        style = viz.method_style(str(method))
        figure.add_scatter(x=part["epsilon"], y=part["rmse_pp"], name=str(method),
                           mode="lines+markers",
                           line={"color": style["color"], "dash": style["dash"]})  # fmt: skip
    figure.add_hline(y=float(target_pp), line_dash="dash",
                     annotation_text=f"target {float(target_pp):g} pp")  # fmt: skip
    figure.update_layout(title=f"{winner.protocol}: error against ε", xaxis_title="ε",
                         yaxis_title="RMSE (percentage points)", xaxis_type="log",
                         yaxis_type="log", height=380, template="plotly_white")  # fmt: skip
    st.plotly_chart(figure, key="chart-choose", theme=None)

st.subheader("The reverse question: how many users at a given ε?")
fixed = st.select_slider("ε", EPSILONS, value=1.0, key="choose-fixed-epsilon")


@st.cache_data(show_spinner=False, max_entries=16, hash_funcs=config_hash())
def _users(config: ExperimentConfig, target: float) -> list[Advice]:
    return advise_users(config, target_rmse=target)


reverse_config = dataclasses.replace(config, protocol=winner.protocol, epsilon=float(fixed),
                                     methods=shown)  # fmt: skip
users = run_or_explain(lambda: _users(reverse_config, target), "Searching n…")
if users:
    for advice in users:
        needed = "more than 10⁹" if advice.value is None else f"{math.ceil(advice.value):,}"
        st.write(f"{winner.protocol} + {advice.method} at ε = {fixed:g}: **{needed} users**.")


def _risk_table(dataset: Dataset, epsilon: float, protocols: list[str]) -> pd.DataFrame:
    prior = dataset.frequencies()
    rows = []
    for name in protocols:
        oracle = get_protocol(name, epsilon=epsilon, domain_size=dataset.domain_size)
        rows.append({"protocol": name,
                     "attacker guesses right": oracle.bayes_guess_rate(prior),
                     "guessing without the report": float(prior.max())})  # fmt: skip
    return pd.DataFrame(rows)


st.subheader("What ε means for one person")
inspect = st.select_slider(
    "ε to inspect", EPSILONS,
    value=min(EPSILONS, key=lambda e: abs(e - (winner.best.value or 1.0))),
    key="choose-risk-epsilon",
)  # fmt: skip
st.markdown(
    f"Whatever anyone knew before, one person's report can change their odds about that "
    f"person's value by at most a factor **e^ε = {math.exp(float(inspect)):,.2f}** "
    "(the definition of ε-LDP)."
)
risk = run_or_explain(lambda: _risk_table(dataset, float(inspect), protocols), "Computing…")
if risk is not None:
    st.dataframe(risk, hide_index=True, key="risk-table",
                 column_config={c: st.column_config.NumberColumn(format="percent")
                                for c in ("attacker guesses right",
                                          "guessing without the report")})  # fmt: skip
    st.caption(
        "The best possible attacker knows this dataset's distribution and the protocol and "
        "guesses the most likely value given one report (Bayes-optimal; computed exactly from "
        "the protocol's channel; OLH assumes an ideal hash). No attack does better on average."
    )
