"""Results shaped for people: the method table, and errors shown as messages."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ldpcore.advice import Recommendation, SweepVerdict
from ldpcore.errors import InputError
from ldpcore.present import figures, sentences
from ldpcore.present.sentences import (
    not_converged_sentence,
    recommendation_words,
    sweep_headline,
)
from ldpcore.present.tables import METHOD_TABLE_ANCHOR, METHOD_TABLE_NOTE, method_table

#: Said under every paired comparison shown.
# The sentence lives in ldpcore.present.sentences; re-exported for the pages that import it here.
PAIRED_NOTE = sentences.PAIRED_NOTE


@contextlib.contextmanager
def progress_bar(text: str) -> Iterator[Callable[[float, str], None]]:
    """A progress bar, and ``update(share, text)``; emptied when the work is done.

    Made inside the cached call it reports on: Streamlit replays what a cached call
    drew, and an element drawn on a block made outside could not be replayed.
    """
    bar = st.progress(0.0, text=text)

    def update(share: float, said: str) -> None:
        bar.progress(min(1.0, share), text=said)

    try:
        yield update
    finally:
        bar.empty()


def run_or_explain(action: Callable[[], Any], what: str) -> Any:
    """Run ``action`` with a status line; show bad input as a message, a bug as one too.

    Never a traceback on the page: input a person can fix (:class:`InputError`) is shown
    as it is; anything else is said to be a bug, with what it was.
    """
    try:
        with st.spinner(what):
            return action()
    except InputError as exc:
        st.error(f"{exc}")
    except Exception as exc:  # a bug, not the person's input: say so plainly
        st.error(
            f"Something went wrong inside the app ({type(exc).__name__}: {exc}). This is "
            "a bug; please report it with the page's link."
        )
    return None


def verdict_banner(
    ranking: Recommendation | None, *, explain: bool = False, users: int | None = None
) -> None:
    """The recommendation of a paired comparison, at the top of a page, in words.

    Green only when post-processing measurably helps; otherwise a neutral note that
    says so (:func:`ldpcore.present.sentences.recommendation_words`). Without Base among
    the methods there is nothing to compare with.
    """
    if ranking is None:
        st.info(sentences.ADD_BASE)
        return
    found = ranking.verdict
    _banner(recommendation_words(found, explain=explain, users=users), helps=found.helps)


def _banner(text: str, *, helps: bool) -> None:
    # An explicit icon: without one Streamlit scans the text for a leading emoji with a
    # regular expression it compiles on first use (0.17 s of a fresh server's first chart).
    if helps:
        st.success(text, icon=":material/check_circle:")
    else:
        st.info(text, icon=":material/info:")


def sweep_banner(found: SweepVerdict) -> None:
    """A sweep's headline, above its chart."""
    _banner(sweep_headline(found), helps=found.helps)


def sweep_details(found: SweepVerdict, label: str) -> None:
    """Per point, the best method with its interval (folded, below the chart)."""
    if not found.table.empty:
        with st.expander(f"Best method at each {label}, with its interval"):
            st.dataframe(found.table, hide_index=True)
            st.caption(PAIRED_NOTE + f" Each {label} is compared on its own trials.")


def convergence_warning(summary: pd.DataFrame) -> None:
    """Say so when an iterative method (MLE, IBU) stopped at its cap in some trials."""
    stuck = summary[summary["converged"] < 1]
    for record in stuck.to_dict("records"):
        st.warning(not_converged_sentence(record["method"], 1 - record["converged"]))


def show_method_table(summary: pd.DataFrame) -> None:
    """The method table under its heading, with what its columns mean.

    A static table (``st.table``), not the interactive grid: its thirteen rows are all in
    view without scrolling (and in a screenshot), and a cell can carry a tooltip (the
    "—" of an undefined number says why). Measured, it costs a first visit about what
    the grid does.
    """
    st.header("Every method against Base", anchor=METHOD_TABLE_ANCHOR)
    st.table(method_table(summary), hide_index=True)
    st.caption(METHOD_TABLE_NOTE)


def frequency_columns(table: pd.DataFrame) -> dict[str, Any]:
    """Show a table's numeric columns of frequencies in percent (12.5%, not 0.125)."""
    return {
        str(name): st.column_config.NumberColumn(str(name), format="percent")
        for name in table.columns
        if pd.api.types.is_float_dtype(table[name])
    }


def show_chart(figure: go.Figure, *, key: str, where: Any = None, wall: bool = False) -> None:
    """A chart with its text alternative (WCAG 1.1.1).

    Below it, one sentence says what it shows (:func:`ldpcore.present.figures.describe`), and
    a toggle opens the data behind it as a table a screen reader can read. ``where`` is a column or
    container (the page by default). ``wall``: the projector's, which holds no control
    (the sentence stays: it is the chart's text alternative), and no chart toolbar.
    """
    place = st if where is None else where
    place.plotly_chart(
        figure, key=key, theme=None, config={"displayModeBar": False} if wall else None
    )
    place.caption(figures.describe(figure))
    if wall:
        return
    if place.toggle("Show the data as a table", key=f"{key}-data"):
        place.dataframe(figures.figure_table(figure), hide_index=True, key=f"{key}-table")
