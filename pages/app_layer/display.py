"""Results shaped for people: the method table, and errors shown as messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from ldpcore.errors import InputError
from ldpcore.postprocess import METHODS


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


def method_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Measured numbers next to what each method enforces (from the registry metadata)."""
    rows = []
    for record in summary.to_dict("records"):
        meta = METHODS[record["method"]]
        rows.append(
            {
                "method": record["method"],
                "non-negative": meta.nonnegative,
                "sums to one": meta.sums_to_one,
                "complexity": meta.complexity,
                "MSE": record["mse"],
                "bias²": record["bias_sq"],
                "variance": record["variance"],
                "equivalent users n'": record["equivalent_users"],
            }
        )
    return pd.DataFrame(rows)
