"""Choose ε: the smallest privacy budget that meets an accuracy target, and what it risks."""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from ldpcore.advice import parallel_seconds, privacy_risk, winning_answer
from ldpcore.advice.deployments import UNCHECKED_NOTE, context_sentence, deployment_rows
from ldpcore.advice.epsilon_context import CADENCES, EpsilonContext
from ldpcore.data.datasets import Dataset
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.formats import format_delta, round_up
from ldpcore.postprocess import method_names
from ldpcore.present import figures
from ldpcore.present.glossary import glossary_markdown, terms_help, terms_in
from ldpcore.present.notebooks import choose_epsilon_notebook
from ldpcore.present.records import decision_record
from ldpcore.present.sentences import (
    SHUFFLE_TERMS,
    answers_table,
    epsilon_reason,
    epsilon_sentence,
    interval_note,
    odds_sentence,
    query_in_words,
    repeated_sentence,
    shuffle_sentence,
    users_needed_sentence,
)
from ldpcore.protocols import protocol_names
from pages.app_layer.cache import (
    choose_epsilon_seconds,
    epsilon_answers,
    epsilon_curve,
    epsilon_in_context,
    users_needed,
)
from pages.app_layer.display import run_or_explain, show_chart
from pages.app_layer.executors import search_executor
from pages.app_layer.navigation import ensure_app
from pages.app_layer.uploads import histogram_picker
from pages.app_layer.widgets import (
    EPSILONS,
    USERS,
    accuracy_target_picker,
    epsilon_to_inspect,
    query_picker,
)

#: Protocols compared by default (BLH is OLH with g = 2, never better; left as an option).
DEFAULT_PROTOCOLS = ("GRR", "OLH", "OUE", "SS", "HR")
#: Methods searched by default: the fast ones that enforce consistency, plus Base.
DEFAULT_METHODS = ("Base", "Base-Cut", "Norm", "Norm-Sub", "MLE-Apx", "PowerNS")
#: The δ offered for the central ε after shuffling, and the default (FMT's example's).
DELTAS = (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)
DEFAULT_DELTA = 1e-6
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

wanted = accuracy_target_picker("choose")
row = st.columns(2)
n = row[0].select_slider(
    "Users n",
    USERS,
    value=10**6,
    key="choose-n",
    help=f"How many people you will collect from. The data holds {dataset.n:,}; its "
    "shape is what matters here, and 1,000,000 is the size of a large survey.",
)
trials = row[1].slider(
    "Trials per point",
    5,
    50,
    10,
    key="choose-trials",
    help="More trials: a narrower band, a slower answer.",
)
query = query_picker("choose", dataset)
with st.expander("Protocols and methods searched"):
    protocols = st.multiselect(
        "Protocols", protocol_names(), default=list(DEFAULT_PROTOCOLS), key="choose-protocols"
    )
    methods = st.multiselect(
        "Methods", method_names(), default=list(DEFAULT_METHODS), key="choose-methods"
    )
if not protocols or not methods:
    st.error("Pick at least one protocol and one method.")
    st.stop()
target_pp = 100 * wanted.size


config = run_or_explain(
    lambda: ExperimentConfig.from_dataset(
        dataset,
        n=int(n),
        protocol=protocols[0],
        epsilon=1.0,
        query=query,
        methods=tuple(methods),
        trials=int(trials),
    ),
    "Checking the settings…",
)
if config is None:
    st.stop()
estimate = run_or_explain(
    lambda: choose_epsilon_seconds(config, tuple(protocols)), "Timing the search…"
)
seconds = parallel_seconds(estimate, search_executor()[1]) if estimate else 0.0
search_id = repr((config, wanted, tuple(protocols)))
approved: set[str] = st.session_state.setdefault("choose-approved", set())
if st.session_state.get("choose-go"):
    approved.add(search_id)  # remembered, so later reruns (the risk slider) keep the answer
if seconds > LONG_SEARCH_SECONDS and search_id not in approved:
    slowest = max(estimate, key=lambda p: estimate[p]) if estimate else ""
    st.warning(
        f"This search would take about {seconds:.0f} s on {search_executor()[2]} "
        f"({slowest}: {estimate.get(slowest, 0):.0f} s). Fewer trials, fewer protocols "
        "(under 'Protocols and methods searched') or a smaller domain make it faster."
    )
    st.button(f"Search anyway (about {seconds:.0f} s)", key="choose-go")
    st.stop()
answers = run_or_explain(
    lambda: epsilon_answers(config, wanted, tuple(protocols)),
    f"Searching ε for {len(protocols)} protocols × {len(methods)} methods "
    f"(about {seconds:.0f} s the first time)…",
)
if not answers:
    st.stop()
st.caption(f"Searched on {search_executor()[2]}, protocols in parallel.")

winner = winning_answer(answers)
# The answer's ε as printed everywhere (rounded up): the page's section and the
# decision record describe this one (issue 54).
answer_epsilon = None if winner.epsilon is None else round_up(winner.epsilon)
st.success(epsilon_sentence(winner, int(n)))
caveat = interval_note(winner, config.query)
if caveat:
    st.warning(caveat)
table = answers_table(answers)
# The long cells (why, the consistent option) get wide columns, and the reasons are
# also given in full below: a table cell cuts a sentence off where it runs out (issue 25).
# Every column's header explains the terms its cells use, where they are read (issue 54).
wide = {"why", "a proper distribution at this ε"}
st.dataframe(
    table,
    hide_index=True,
    key="choose-table",
    column_config={
        column: st.column_config.TextColumn(
            width="large" if column in wide else None,
            help=terms_help(" ".join([column, *map(str, table[column])])) or None,
        )
        for column in table.columns
    },
)
with st.expander("Why, for each protocol, in full"):
    st.markdown("\n".join(f"- **{a.protocol}**: {epsilon_reason(a)}" for a in answers))
# Every term the answer uses, in plain words, where it is read (issue 54).
said = " ".join([epsilon_sentence(winner, int(n)), caveat, table.to_string()])
with st.expander("What these words mean", icon=":material/menu_book:"):
    st.markdown(glossary_markdown(terms_in(said)))
st.caption(
    "Each ε with its 95% interval: where the simulated error curve's band (mean ± t·SE over "
    f"{trials} trials) crosses the target. Base and every method are simulated on the same "
    "trials; a method is credited only when it is significantly more accurate than Base "
    "(paired, over all methods searched) and its interval lies below Base's."
)

# The error-vs-ε curve of the winning protocol, with the target line.
grid = tuple(e for e in EPSILONS if 0.1 <= e <= 10)
shown = tuple(dict.fromkeys(("Base", winner.method)))
curve_config = dataclasses.replace(config, protocol=winner.protocol, methods=shown)
frame = run_or_explain(lambda: epsilon_curve(curve_config, grid, wanted), "Drawing the curve…")
figure = None
if frame is not None:
    figure = figures.error_against_epsilon(
        frame, target_pp=target_pp, protocol=winner.protocol, measure=wanted.measure_name()
    )
    show_chart(figure, key="chart-choose")
    if frame["exact"].any():
        st.caption(
            "Base's curve is exact (NDSS Eq. 3), as its ε above is; the other methods' "
            f"are simulated, {trials} trials per ε."
        )


def _cadence() -> tuple[int, int, str]:
    """The cadence picked under "What ε means for one person" (its default before that)."""
    return CADENCES[st.session_state.get("choose-cadence", next(iter(CADENCES)))]


def _delta() -> float:
    return float(st.session_state.get("choose-delta", DEFAULT_DELTA))


def _distinct() -> int:
    return int(st.session_state.get("choose-distinct", 1))


def _context(epsilon: float) -> EpsilonContext:
    """``epsilon`` shuffled among the page's n users and collected at the page's cadence."""
    per_period, periods, period = _cadence()
    return epsilon_in_context(
        epsilon,
        int(n),
        delta=_delta(),
        reports_per_period=per_period,
        periods=periods,
        period=period,
        distinct_values=_distinct(),
    )


def _record() -> bytes:
    """The decision record, made when asked for (it inlines Plotly: about 4.7 MB)."""
    # The answer's ε as printed (rounded up), as the page's section shows it.
    at = answer_epsilon
    risk_rows = (
        None
        if at is None
        else pd.DataFrame(privacy_risk(dataset.frequencies(), epsilon=at, protocols=protocols))
    )
    return decision_record(
        config=config,
        query_words=query_in_words(query),
        target=wanted,
        protocols=protocols,
        answers=answers,
        figure=figure,
        risk=risk_rows,
        risk_epsilon=at,
        context=None if at is None else _context(at),
    ).encode()


record_column, notebook_column = st.columns(2)
record_column.download_button(
    "Decision record (HTML)",
    data=_record,
    file_name="choose-epsilon-decision.html",
    mime="text/html",
    key="choose-record",
    on_click="ignore",
    help="One page to file: what was asked, the answer with its interval, every protocol, "
    "the chart, what the chosen ε risks for one person, and the command that reproduces it.",
)
notebook_column.download_button(
    "Notebook (.ipynb)",
    key="choose-notebook",
    on_click="ignore",
    data=lambda: choose_epsilon_notebook(
        config,
        target=wanted,
        protocols=protocols,
        cadence=_cadence(),
        delta=_delta(),
        distinct_values=_distinct(),
    ),
    file_name="choose-epsilon.ipynb",
    mime="application/x-ipynb+json",
)

st.subheader("The reverse question: how many users at a given ε?")
fixed = st.select_slider("ε", EPSILONS, value=1.0, key="choose-fixed-epsilon")


reverse_config = dataclasses.replace(
    config, protocol=winner.protocol, epsilon=float(fixed), methods=shown
)
users = run_or_explain(lambda: users_needed(reverse_config, wanted), "Searching n…")
if users:
    for advice in users:
        st.write(users_needed_sentence(winner.protocol, advice.method, fixed, advice.value))


st.subheader("What ε means for one person")
inspect = epsilon_to_inspect(answer_epsilon)
st.markdown(odds_sentence(float(inspect)))
shuffle_column, cadence_column, distinct_column = st.columns(3)
shuffle_column.select_slider(
    "δ of the central ε after shuffling",
    DELTAS,
    value=DEFAULT_DELTA,
    format_func=format_delta,
    key="choose-delta",
    help="The central guarantee after shuffling is (ε, δ): δ is the chance it may fail. "
    "Keep it well below 1/n.",
)
cadence_column.selectbox("How often each user reports", list(CADENCES), key="choose-cadence")
distinct_column.number_input(
    "Distinct values one user holds over that time",
    min_value=1,
    max_value=10_000,
    value=1,
    step=1,
    key="choose-distinct",
    help="With a memoized (permanent) response each distinct value costs ε once.",
)
context = run_or_explain(lambda: _context(float(inspect)), "Computing the central ε…")
if context is not None:
    st.markdown(shuffle_sentence(context.shuffled))
    st.caption(SHUFFLE_TERMS)
    st.markdown(repeated_sentence(context.repeated, context.period))
st.markdown(context_sentence(float(inspect)))
st.dataframe(
    pd.DataFrame(deployment_rows(float(inspect), None if context is None else context.shuffled)),
    hide_index=True,
    key="deployments-table",
    column_config={
        "ε": st.column_config.NumberColumn(format="%g"),
        "link": st.column_config.LinkColumn(display_text="open the source"),
        "compared with yours": st.column_config.TextColumn(width="large"),
    },
)
st.caption(UNCHECKED_NOTE)
risk = run_or_explain(
    lambda: pd.DataFrame(
        privacy_risk(dataset.frequencies(), epsilon=float(inspect), protocols=protocols)
    ),
    "Computing…",
)
if risk is not None:
    st.dataframe(
        risk,
        hide_index=True,
        key="risk-table",
        column_config={
            c: st.column_config.NumberColumn(format="percent")
            for c in ("attacker guesses right", "guessing without the report")
        },
    )
    st.caption(
        "The best possible attacker knows this dataset's distribution and the protocol and "
        "guesses the most likely value given one report (Bayes-optimal; computed exactly from "
        "the protocol's channel; OLH assumes an ideal hash). No attack does better on average."
    )
