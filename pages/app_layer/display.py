"""Results shaped for people: the method table, and errors shown as messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from ldpcore.advice import Recommendation, SweepVerdict, in_users
from ldpcore.compare import format_ratio
from ldpcore.errors import InputError
from ldpcore.postprocess import method_class

#: Said under every paired comparison shown.
PAIRED_NOTE = (
    "Every method is compared with Base on the same trials (paired). Intervals are 95% "
    "intervals for the MSE ratio, simultaneous over the methods; a method is called "
    "better only when its whole interval lies below 1, and a method that returns Base's "
    "answers unchanged is never credited."
)


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
        st.error(f"Something went wrong inside the app ({type(exc).__name__}: {exc}). This is "
                 "a bug; please report it with the page's link.")  # fmt: skip
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
        st.info("Add Base to the methods (sidebar) to compare the others with it.")
        return
    found = ranking.verdict
    text = f"Recommended: **{found.recommended}**. {found.headline}"
    chosen = next((c for c in found.against_base if c.method == found.recommended), None)
    if users and found.helps and chosen is not None:
        text += " " + in_users(users, chosen)
    if explain:
        text += f" {method_class(found.recommended).explanation}"
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
    _banner(found.headline, helps=found.helps)


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
        st.warning(
            f"{record['method']} stopped at its iteration cap without converging in "
            f"{1 - record['converged']:.0%} of the trials; its numbers are those of its last "
            "iterate, not of the method."
        )


def method_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Measured numbers, the paired comparison with Base, and what each method enforces."""
    rows = []
    for record in summary.to_dict("records"):
        meta = method_class(record["method"])
        rows.append(
            {
                "method": record["method"],
                "MSE": record["mse"],
                "MSE ÷ Base (95%)": format_ratio(
                    record["mse_ratio_to_base"], record["ratio_low"], record["ratio_high"]
                ),
                "vs Base": record["mse_vs_base"],
                "non-negative": meta.nonnegative,
                "sums to one": meta.sums_to_one,
                "complexity": meta.complexity,
                "bias²": record["bias_sq"],
                "variance": record["variance"],
                "equivalent users n'": record["equivalent_users"],
            }
        )
    table = pd.DataFrame(rows)
    # Whole users where defined (full-domain queries), an empty cell elsewhere.
    users = table["equivalent users n'"]
    table["equivalent users n'"] = users.where(users.notna() & users.abs().lt(1e18)).round(
    ).astype("Int64")  # fmt: skip
    return table


def frequency_columns(table: pd.DataFrame) -> dict[str, Any]:
    """Show a table's numeric columns of frequencies in percent (12.5%, not 0.125)."""
    return {
        str(name): st.column_config.NumberColumn(str(name), format="percent")
        for name in table.columns
        if pd.api.types.is_float_dtype(table[name])
    }


def method_table_columns() -> dict[str, Any]:
    """One number format for the method table: errors to three significant digits,
    equivalent users as whole numbers with thousands separators."""
    errors = {
        name: st.column_config.NumberColumn(name, format="%.3g", help=text)
        for name, text in (
            ("MSE", "Mean squared error of the query's answers (frequency units squared)."),
            ("bias²", "Squared bias, averaged over the answers."),
            ("variance", "Variance over the trials, averaged over the answers."),
        )
    }
    users = st.column_config.NumberColumn(
        "equivalent users n'", format="localized",
        help="How many users Base would need for this MSE (NDSS Sec. V-C). Empty where the "
        "query is not every value's frequency.",
    )  # fmt: skip
    return {**errors, "equivalent users n'": users}
