"""Choose ε's lower half: what the answer's ε means for one person, and its downloads.

Drawn by ``pages/choose_epsilon.py`` once the answer is known. The section and the
decision record describe the same ε (the answer's, rounded up as printed) with the same
δ, cadence and distinct values, read from the same widgets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from numpy.typing import NDArray

from ldpcore.advice import EpsilonAnswer, privacy_risk
from ldpcore.advice.deployments import UNCHECKED_NOTE, context_sentence, deployment_rows
from ldpcore.advice.epsilon_context import CADENCES, EpsilonContext, cadence_plans
from ldpcore.advice.longitudinal import CollectionPlan
from ldpcore.advice.targets import AccuracyTarget
from ldpcore.attacks.reach import TopKQuestion
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.formats import format_delta
from ldpcore.present.commands import choose_epsilon_command
from ldpcore.present.context_sentences import (
    SHUFFLE_TERMS,
    odds_sentence,
    repeated_sentence,
    shuffle_sentence,
)
from ldpcore.present.notebooks import choose_epsilon_notebook
from ldpcore.present.records import decision_record
from ldpcore.present.rounds_sentences import plans_frame, plans_words
from ldpcore.present.tables import risk_table
from pages.app_layer.controls.widgets import epsilon_to_inspect
from pages.app_layer.serving.answers import epsilon_in_context
from pages.app_layer.views.display import run_or_explain
from pages.app_layer.views.exports import show_command

#: The δ offered for the central ε after shuffling, and the default (FMT's example's).
DELTAS = (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)
DEFAULT_DELTA = 1e-6


def cadence() -> tuple[int, int, str]:
    """The cadence picked under "What ε means for one person" (its default before that)."""
    return CADENCES[st.session_state.get("choose-cadence", next(iter(CADENCES)))]


def delta() -> float:
    """The δ picked for the central ε after shuffling (its default before that)."""
    return float(st.session_state.get("choose-delta", DEFAULT_DELTA))


def distinct() -> int:
    """The distinct values one user holds over the cadence's time (1 before it is set)."""
    return int(st.session_state.get("choose-distinct", 1))


def context_at(epsilon: float, n: int) -> EpsilonContext:
    """``epsilon`` shuffled among ``n`` users and collected at the page's cadence."""
    per_period, periods, period = cadence()
    return epsilon_in_context(
        epsilon,
        n,
        delta=delta(),
        reports_per_period=per_period,
        periods=periods,
        period=period,
        distinct_values=distinct(),
    )


def repeated_plans(
    protocol: str, epsilon: float, frequencies: NDArray[np.float64], n: int
) -> tuple[tuple[CollectionPlan, ...], str] | None:
    """The plans for the page's cadence at ``epsilon`` (None when it collects once)."""
    return cadence_plans(protocol, epsilon, frequencies, n, cadence())


def downloads(
    *,
    config: ExperimentConfig,
    target: AccuracyTarget,
    protocols: Sequence[str],
    answers: Sequence[EpsilonAnswer],
    figure: go.Figure | None,
    frequencies: NDArray[np.float64],
    answer_epsilon: float | None,
    query_words: str,
    protocol: str,
    fakes: TopKQuestion | None = None,
    methods: Sequence[str] | None = None,
) -> None:
    """The decision record and the notebook, each made only when its button is pressed.

    ``protocol`` is the answer's: the record's plans for collecting again use it.
    """

    def record() -> bytes:
        # It inlines Plotly (about 4.7 MB): made when asked for, never on a rerun.
        at = answer_epsilon
        risk = (
            None
            if at is None
            else pd.DataFrame(privacy_risk(frequencies, epsilon=at, protocols=protocols))
        )
        return decision_record(
            config=config,
            query_words=query_words,
            target=target,
            protocols=protocols,
            answers=answers,
            figure=figure,
            risk=risk,
            risk_epsilon=at,
            context=None if at is None else context_at(at, config.n),
            plans=None if at is None else repeated_plans(protocol, at, frequencies, config.n),
            fakes=fakes,
            methods=methods,
        ).encode()

    record_column, notebook_column = st.columns(2)
    record_column.download_button(
        "Decision record (HTML)",
        data=record,
        file_name="choose-epsilon-decision.html",
        mime="text/html",
        key="choose-record",
        on_click="ignore",
        help="One page to file: what was asked, the answer with its interval, every "
        "protocol, the chart, what the chosen ε risks for one person, and the command "
        "that reproduces it.",
    )
    notebook_column.download_button(
        "Notebook (.ipynb)",
        key="choose-notebook",
        on_click="ignore",
        data=lambda: choose_epsilon_notebook(
            config,
            target=target,
            protocols=protocols,
            cadence=cadence(),
            delta=delta(),
            distinct_values=distinct(),
        ),
        file_name="choose-epsilon.ipynb",
        mime="application/x-ipynb+json",
    )
    # The record's command, in view too: what is copied asks what was searched.
    show_command(
        choose_epsilon_command(config, target=target, protocols=protocols, methods=methods)
    )


def meaning_section(
    answer_epsilon: float | None,
    n: int,
    frequencies: NDArray[np.float64],
    protocols: Sequence[str],
    protocol: str,
) -> None:
    """What ε means for one person: the odds, shuffling, repetition, deployments, risk.

    ``protocol`` is the answer's: the plans for collecting again at the cadence use it.
    """
    st.header("What ε means for one person")
    inspect = epsilon_to_inspect(answer_epsilon)
    st.markdown(odds_sentence(float(inspect)))
    shuffle_column, cadence_column, distinct_column = st.columns(3)
    shuffle_column.select_slider(
        "δ of the central ε after shuffling",
        DELTAS,
        value=DEFAULT_DELTA,
        format_func=format_delta,
        key="choose-delta",
        help="The central guarantee after shuffling is (ε, δ): δ is the chance it may "
        "fail. Keep it well below 1/n.",
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
    context = run_or_explain(lambda: context_at(float(inspect), n), "Computing the central ε…")
    if context is not None:
        st.markdown(shuffle_sentence(context.shuffled))
        st.caption(SHUFFLE_TERMS)
        st.markdown(repeated_sentence(context.repeated, context.period))
    found = run_or_explain(
        lambda: repeated_plans(protocol, float(inspect), frequencies, n), "Working out…"
    )
    if found is not None:
        plans, word = found
        words = plans_words(plans, n=n, period=word)
        st.markdown(words[0])
        for sentence in words[1:]:
            st.markdown(f"- {sentence}")
        st.table(plans_frame(plans), hide_index=True)
        st.page_link(
            "pages/rounds.py",
            label="Collecting again: every plan with its charts, and checked by simulation",
            icon=":material/event_repeat:",
        )
    st.markdown(context_sentence(float(inspect)))
    st.dataframe(
        pd.DataFrame(
            deployment_rows(float(inspect), None if context is None else context.shuffled)
        ),
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
            privacy_risk(frequencies, epsilon=float(inspect), protocols=protocols)
        ),
        "Computing…",
    )
    if risk is not None:
        # The record's table, cell for cell.
        st.dataframe(risk_table(risk.to_dict("records")), hide_index=True, key="risk-table")
        st.caption(
            "The best possible attacker knows this dataset's distribution and the protocol "
            "and guesses the most likely value given one report (Bayes-optimal; computed "
            "exactly from the protocol's channel; OLH assumes an ideal hash). No attack "
            "does better on average."
        )
