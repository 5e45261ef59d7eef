"""Curves over a swept setting (ε, n, d).

Each method's error per setting (:func:`curves`), and Choose ε's error against ε with
the target line (:func:`error_against_epsilon`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from ldpcore.experiments.metrics import LOWER_BOUND_CAVEAT
from ldpcore.present.figures.style import (
    assemble,
    method_line,
    method_style,
    on_white,
    reference_line,
)


def curves(
    frame: pd.DataFrame,
    x: str,
    *,
    y: str = "mse",
    band: tuple[str, str] | None = ("mse_low", "mse_high"),
    title: str,
    x_title: str,
    y_title: str,
    log_x: bool = False,
    log_y: bool = True,
    references: Sequence[tuple[str, NDArray[np.float64] | pd.Series, str]] = (),
) -> go.Figure:
    """One line per method of ``y`` against ``x`` with a band (NDSS Figs. 4–10).

    The band runs between the two ``band`` columns: by default the 10% and 90% quantiles
    over trials of the per-trial MSE (``metrics.BAND_QUANTILES``), which stay positive
    and meaningful on a log axis where a ± one-SD band would plunge to its floor (issue
    25). A frame without those columns (an older sweep file) is drawn without bands.
    ``references`` are extra labelled lines ``(name, values along x, dash)``, such as
    the lower bound; each has its own legend entry.
    """
    traces: list[dict[str, Any]] = []
    for method, group in frame.groupby("method", sort=False):
        rows = group.sort_values(x)
        style = method_style(str(method))
        if band is not None and set(band) <= set(rows.columns):
            lower, upper = rows[band[0]], rows[band[1]]
            traces.append(
                {
                    "type": "scatter",
                    "x": np.concatenate([rows[x], rows[x][::-1]]),
                    "y": np.concatenate([upper, lower[::-1]]),
                    "fill": "toself",
                    "fillcolor": style["color"],
                    "opacity": 0.15,
                    "line": {"width": 0},
                    "hoverinfo": "skip",
                    "showlegend": False,
                    "legendgroup": str(method),
                }
            )
        traces.append(method_line(str(method), rows[x], rows[y], hover=x + " %{x:.3g}<br>%{y:.4g}"))
    xs = np.sort(frame[x].unique())
    for name, values, dash in references:
        traces.append(
            {
                "type": "scatter",
                "x": xs,
                "y": values,
                "name": name,
                "mode": "lines",
                "line": {"color": "black", "dash": dash, "width": 1.5},
                "hovertemplate": name + ": %{y:.3g}<extra></extra>",
            }
        )
    return assemble(
        traces,
        title=title,
        x=x_title,
        y=y_title,
        log_y=log_y,
        xaxis={"type": "log"} if log_x else None,
    )


def lower_bound_note() -> str:
    """What the lower-bound line does and does not promise (reading note 8)."""
    return "The lower bound is " + LOWER_BOUND_CAVEAT + "."


def error_against_epsilon(
    frame: pd.DataFrame, *, target_pp: float, protocol: str, measure: str = "RMSE"
) -> go.Figure:
    """An error measure in percentage points against ε per method, with the target line.

    ``frame`` is :func:`ldpcore.advice.error_curve.error_curve`'s (its ``error``
    column, or the RMSE from ``mse``); ``measure`` names it on the axis (Choose ε).
    """
    error = frame["error"] if "error" in frame else frame["mse"].pow(0.5)
    frame = frame.assign(rmse_pp=100 * error)
    figure = go.Figure()
    for method, part in frame.groupby("method", sort=False):
        style = method_style(str(method))
        figure.add_scatter(
            x=part["epsilon"],
            y=part["rmse_pp"],
            name=str(method),
            mode="lines+markers",
            line={"color": style["color"], "dash": style["dash"]},
        )
    reference_line(figure, target_pp, f"target {target_pp:g} pp", log_y=True, where="top right")
    # A legend even for one line: the reader must know whose error it is.
    figure.update_layout(showlegend=True, legend_title_text="method")
    on_white(figure)
    figure.update_layout(
        title=f"{protocol}: error against ε",
        xaxis_title="ε",
        yaxis_title=f"{measure} (percentage points)",
        xaxis_type="log",
        yaxis_type="log",
        height=380,
    )
    return figure
