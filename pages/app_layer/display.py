"""Results shaped for people: the method table, and errors shown as messages."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ldpcore.advice import Recommendation, SweepVerdict
from ldpcore.errors import InputError
from ldpcore.formats import format_count, format_error, format_ratio
from ldpcore.postprocess import method_class
from ldpcore.present import figures, sentences
from ldpcore.present.sentences import (
    in_users,
    method_caveat,
    not_converged_sentence,
    sweep_headline,
    verdict_headline,
)

#: Said under every paired comparison shown.
# The sentence lives in ldpcore.present.sentences; re-exported for the pages that import it here.
PAIRED_NOTE = sentences.PAIRED_NOTE


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
    says so. Without Base among the methods there is nothing to compare with. With
    ``users`` (full-domain queries, where Base's MSE falls as 1/n) a gain is also said
    in users: as accurate as Base with n / ratio of them, with the interval.
    """
    if ranking is None:
        st.info(
            "Add Base to the methods (sidebar, *Methods, trials and seed*) to compare the "
            "others with it."
        )
        return
    found = ranking.verdict
    text = f"Recommended: **{found.recommended}**. {verdict_headline(found)}"
    chosen = next((c for c in found.against_base if c.method == found.recommended), None)
    if users and found.helps and chosen is not None:
        text += " " + in_users(users, chosen)
    if explain:
        text += f" {method_class(found.recommended).explanation}"
    if caveat := method_caveat(found.recommended):
        text += f" **{caveat}**"
    _banner(text, helps=found.helps)


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


#: Where an undefined cell of the method table links to (its section's anchor).
METHOD_TABLE_ANCHOR = "every-method"

#: What the method table's columns mean, said under it.
METHOD_TABLE_NOTE = (
    "MSE, bias² and variance: of the query's answers, in frequency units squared, to three "
    "significant digits. Equivalent users n': how many users Base would need for this MSE "
    "(NDSS Sec. V-C), to three significant digits; — where it is not defined (the query is "
    "not every value's frequency, or the method has no error at all)."
)

_NO_USERS = (
    "Not defined here: equivalent users compare with Base over every value's frequency, "
    "and need an error above zero"
)


#: How the method table says what a method enforces (``PostProcessor.nonnegative`` and
#: ``sums_to_one``).
ENFORCEMENT_WORDS = {"yes": "yes", "no": "no", "almost": "at most 1"}


def method_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Measured numbers, the paired comparison with Base, and what each method enforces.

    Every cell is display text in the app's one number format (``ldpcore.stats.compare``):
    errors to three significant digits, ratios with their interval, equivalent users as
    whole numbers, and "—" (with a tooltip) where a number is not defined.
    """
    rows = []
    for record in summary.to_dict("records"):
        meta = method_class(record["method"])
        users = record["equivalent_users"]
        rows.append(
            {
                "method": record["method"],
                "MSE ÷ Base (95%)": format_ratio(
                    record["mse_ratio_to_base"], record["ratio_low"], record["ratio_high"]
                ),
                "vs Base": record["mse_vs_base"] or "—",
                "MSE": format_error(record["mse"]),
                "equivalent users n'": (
                    format_count(users)
                    if pd.notna(users) and math.isfinite(users) and abs(users) < 1e18
                    else f'[—](#{METHOD_TABLE_ANCHOR} "{_NO_USERS}")'
                ),
                "bias²": format_error(record["bias_sq"]),
                "variance": format_error(record["variance"]),
                # The registry's own word ("yes", "no", "almost"): a string is always
                # true, so testing it as a flag had called every method "yes".
                "non-negative": ENFORCEMENT_WORDS[meta.nonnegative],
                "sums to one": ENFORCEMENT_WORDS[meta.sums_to_one],
                "complexity": meta.complexity,
            }
        )
    return pd.DataFrame(rows)


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


def show_chart(figure: go.Figure, *, key: str, where: Any = None) -> None:
    """A chart with its text alternative (WCAG 1.1.1; issue 25).

    Below it, one sentence says what it shows (:func:`ldpcore.present.figures.describe`), and
    a toggle opens the data behind it as a table a screen reader can read. ``where`` is a column or
    container (the page by default).
    """
    place = st if where is None else where
    place.plotly_chart(figure, key=key, theme=None)
    place.caption(figures.describe(figure))
    if place.toggle("Show the data as a table", key=f"{key}-data"):
        place.dataframe(figures.figure_table(figure), hide_index=True, key=f"{key}-table")
