"""Choose ε: the smallest privacy budget that meets an accuracy target, and what it risks."""

from __future__ import annotations

import dataclasses

import streamlit as st

from ldpcore.advice import parallel_seconds, winning_answer
from ldpcore.data.datasets import Dataset
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.scope import scope_for
from ldpcore.formats import round_up
from ldpcore.postprocess import method_names
from ldpcore.present import figures
from ldpcore.present.epsilon_sentences import (
    LONG_COLUMNS,
    answers_in_full,
    answers_table,
    epsilon_headline,
    epsilon_sentence,
    interval_note,
    users_needed_sentence,
)
from ldpcore.present.glossary import glossary_markdown, terms_help, terms_in
from ldpcore.present.sentences import query_in_words
from ldpcore.protocols import protocol_class
from ldpcore.serving.settings import EPSILONS, USERS
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.controls.uploads import histogram_picker
from pages.app_layer.controls.widgets import accuracy_target_picker, query_picker
from pages.app_layer.features.epsilon_meaning import downloads, meaning_section
from pages.app_layer.features.robustness import fake_users_section
from pages.app_layer.serving.answers import (
    choose_epsilon_seconds,
    epsilon_answers,
    epsilon_curve,
    users_needed,
)
from pages.app_layer.serving.executors import search_executor
from pages.app_layer.views.display import run_or_explain, show_chart

#: Protocols compared by default (BLH is OLH with g = 2, never better; left as an option).
DEFAULT_PROTOCOLS = ("GRR", "OLH", "OUE", "SS", "HR")
#: Methods searched by default: the fast ones that enforce consistency, plus Base.
DEFAULT_METHODS = ("Base", "Base-Cut", "Norm", "Norm-Sub", "MLE-Apx", "PowerNS")
#: Searches expected to take longer than this wait for a click.
LONG_SEARCH_SECONDS = 60

ensure_app(__file__)
st.title("Choose ε")
answer_slot = st.container()  # the answer and its chart first, once the search has run
st.header("Your question", divider="gray")
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
offered = run_or_explain(lambda: scope_for(dataset, query), "Checking what applies…")
if offered is None:
    st.stop()
with st.expander("Protocols and methods searched"):
    # Only what applies to this data and question is offered; a choice kept from other
    # data that no longer applies is dropped, and said below.
    kept = st.session_state.get("choose-protocols", DEFAULT_PROTOCOLS)
    st.session_state["choose-protocols"] = [p for p in kept if p in offered.protocols]
    protocols = st.multiselect("Protocols", offered.protocols, key="choose-protocols")
    methods = st.multiselect(
        "Methods", method_names(), default=list(DEFAULT_METHODS), key="choose-methods"
    )
    if offered.left_out:
        st.caption("Not offered for this data and question: " + "; ".join(offered.left_out) + ".")
if not protocols or not methods:
    st.error("Pick at least one protocol and one method.")
    st.stop()
scope = run_or_explain(
    lambda: scope_for(dataset, query, protocols=protocols, methods=methods),
    "Checking what applies…",
)
if scope is None:
    st.stop()
if scope.left_out:
    st.caption("Left out: " + "; ".join(scope.left_out) + ".")
target_pp = 100 * wanted.size


config = run_or_explain(
    lambda: ExperimentConfig.from_dataset(
        dataset,
        n=int(n),
        protocol=protocols[0],
        epsilon=1.0,
        query=query,
        methods=scope.methods_for(protocols[0]),
        trials=int(trials),
    ),
    "Checking the settings…",
)
if config is None:
    st.stop()
estimate = run_or_explain(
    lambda: choose_epsilon_seconds(config, tuple(protocols), scope.methods),
    "Timing the search…",
)
seconds = parallel_seconds(estimate, search_executor()[1]) if estimate else 0.0
search_id = repr((config, wanted, tuple(protocols), scope.methods))
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
    lambda: epsilon_answers(config, wanted, tuple(protocols), scope.methods),
    f"Searching ε for {len(protocols)} protocols × {len(methods)} methods "
    f"(about {seconds:.0f} s the first time)…",
)
if not answers:
    st.stop()
st.caption(f"Searched on {search_executor()[2]}, protocols in parallel.")

winner = winning_answer(answers)
# The answer's ε as printed everywhere (rounded up): the page's section and the
# decision record describe this one.
answer_epsilon = None if winner.epsilon is None else round_up(winner.epsilon)
target_words = f"{wanted.in_words()}, for {query_in_words(query)}, with {int(n):,} users"
with answer_slot:
    st.success(epsilon_headline(winner, target_words))
    every = figures.epsilon_per_protocol(answers, target=target_words, winner=winner.protocol)
    show_chart(every, key="chart-every-protocol")
st.header("Why", divider="gray")
st.write(epsilon_sentence(winner, int(n)))
caveat = interval_note(winner, config.query)
if caveat:
    st.warning(caveat)
table = answers_table(answers)
# The long cells (why, the consistent option) get wide columns, and the reasons are
# also given in full below: a table cell cuts a sentence off where it runs out.
# Every column's header explains the terms its cells use, where they are read.
st.dataframe(
    table,
    hide_index=True,
    key="choose-table",
    column_config={
        column: st.column_config.TextColumn(
            width="large" if column in LONG_COLUMNS else None,
            help=terms_help(" ".join([column, *map(str, table[column])])) or None,
        )
        for column in table.columns
    },
)
with st.expander("Why, for each protocol, in full"):
    st.markdown(answers_in_full(table))
# Every term the answer uses, in plain words, where it is read.
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
            f"Base's curve is exact ({protocol_class(winner.protocol).variance_source}), as its "
            "ε above is; the other methods' "
            f"are simulated, {trials} trials per ε."
        )


# The record and the notebook, made when asked for; drawn in this place once the
# fake-user question further down is answered, as the record files it too.
record_slot = st.container()

st.header("The reverse question: how many users at a given ε?")
fixed = st.select_slider("ε", EPSILONS, value=1.0, key="choose-fixed-epsilon")


reverse_config = dataclasses.replace(
    config, protocol=winner.protocol, epsilon=float(fixed), methods=shown
)
users = run_or_explain(lambda: users_needed(reverse_config, wanted), "Searching n…")
if users:
    for advice in users:
        exact = advice.value is not None and advice.low == advice.value == advice.high
        between = None if exact else (advice.low, advice.high)
        st.write(
            users_needed_sentence(winner.protocol, advice.method, fixed, advice.value, between)
        )


fakes = fake_users_section(dataset, int(n), answer_epsilon, winner.protocol)
with record_slot:
    downloads(
        config=config,
        target=wanted,
        protocols=protocols,
        answers=answers,
        figure=figure,
        frequencies=dataset.frequencies(),
        answer_epsilon=answer_epsilon,
        query_words=query_in_words(query),
        protocol=winner.protocol,
        fakes=fakes,
        methods=scope.methods,
    )
meaning_section(answer_epsilon, int(n), dataset.frequencies(), protocols, winner.protocol)
