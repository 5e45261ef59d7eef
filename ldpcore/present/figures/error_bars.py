"""Bar charts of each method's error.

Its MSE against Base and the lower bound (:func:`mse_bars`), and its MSE split into
bias² and variance (:func:`bias_variance_bars`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.present.figures.style import (
    assemble,
    method_style,
    reference_entries,
)


def _base_label(source: str | None) -> str:
    """The analytic Base line's label, which names where its variance comes from."""
    if source is None:
        raise ValueError("an analytic Base MSE says where its variance comes from: base_source")
    return f"analytic Base MSE ({source})"


def mse_bars(
    summary: pd.DataFrame,
    *,
    base_mse: float | None,
    lower_bound: float | None,
    relative_to_base: bool = False,
    facet: str | None = None,
    base_source: str | None = None,
) -> go.Figure:
    """MSE per method with its spread over trials, and the reference lines.

    Parameters
    ----------
    summary : DataFrame
        ``method, mse, mse_std`` (and the ``facet`` column if given); in relative mode
        the paired ``mse_ratio_to_base, ratio_low, ratio_high`` when present.
    base_mse, lower_bound : float, optional
        Drawn as labelled horizontal lines (not in relative mode).
    base_source : str, optional
        Where the exact Base MSE comes from, said in its label (the protocol's
        ``variance_source``); required with ``base_mse``, so that no chart says NDSS Eq. 3
        for a protocol whose variance is another paper's.
    relative_to_base : bool
        Plot ``mse / mse(Base)`` instead (per facet): the paired ratio with its
        interval when the summary has it, else the plain quotient with scaled spreads.
    facet : str, optional
        A column (e.g. ``protocol``) to group the bars by.
    """
    traces: list[dict[str, Any]] = []
    references: list[tuple[dict[str, Any], dict[str, Any]]] = []
    frame = summary.copy()
    paired = relative_to_base and "mse_ratio_to_base" in frame.columns
    if paired:
        # The paired ratio and its simultaneous interval (each run against its own Base).
        frame["mse"] = frame["mse_ratio_to_base"]
        frame["mse_std"] = (frame["ratio_high"] - frame["mse"]).replace(np.inf, np.nan)
        frame["minus"] = frame["mse"] - frame["ratio_low"]
    elif relative_to_base:
        keys = [facet] if facet else []
        base = frame[frame["method"] == "Base"].set_index(keys or ["method"])["mse"]
        if keys:
            reference = frame[facet].map(base)
        else:
            reference = pd.Series(float(base.iloc[0]) if len(base) else np.nan, index=frame.index)
        frame["mse_std"] = frame["mse_std"] / reference
        frame["mse"] = frame["mse"] / reference
    # numpy arrays, not pandas columns, go to Plotly: it converts a column through
    # narwhals, a third of this chart's build (which a class pays once per setting).
    for method, rows in frame.groupby("method", sort=False):
        style = method_style(str(method))
        if paired:
            error_y = {
                "type": "data",
                "symmetric": False,
                "array": rows["mse_std"].to_numpy(),
                "arrayminus": rows["minus"].to_numpy(),
                "visible": True,
            }
            hover = (
                "%{y:.4g} (%{customdata[0]:.3g}–%{customdata[1]:.3g})<extra>"
                + str(method)
                + "</extra>"
            )
            custom = np.column_stack([rows["ratio_low"].to_numpy(), rows["ratio_high"].to_numpy()])
        else:
            error_y = {"type": "data", "array": rows["mse_std"].to_numpy(), "visible": True}
            hover = "%{y:.4g} ± %{error_y.array:.2g}<extra>" + str(method) + "</extra>"
            custom = None
        traces.append(
            {
                "type": "bar",
                "x": rows[facet].to_numpy() if facet else [method],
                "y": rows["mse"].to_numpy(),
                "name": str(method),
                "marker": {"color": style["color"]},
                "error_y": error_y,
                "customdata": custom,
                "hovertemplate": hover,
            }
        )
    shown = [float(v) for v in frame["mse"] if np.isfinite(v) and v > 0]
    if not relative_to_base:
        if base_mse is not None:
            references.append(
                reference_entries(base_mse, _base_label(base_source), log_y=True, where="top left")
            )
            shown.append(float(base_mse))
        if lower_bound is not None:
            references.append(
                reference_entries(
                    lower_bound,
                    "lower bound (asymptotic, prior-averaged)",
                    log_y=True,
                    dash="dot",
                    color="firebrick",
                    where="bottom right",
                )
            )
            shown.append(float(lower_bound))
    if paired:
        references.append(reference_entries(1.0, "Base", log_y=True, where="top right"))
    title = (
        "MSE ÷ Base per method (error bars: simultaneous 95% intervals, paired trials)"
        if paired
        else "MSE per method (error bars: standard deviation over trials)"
    )
    yaxis: dict[str, Any] = {}
    if shown:
        # The axis fits what is drawn (bars and reference lines) with a third of a decade
        # each side, instead of running to 1 and squashing the bars into its bottom.
        low, high = math.log10(min(shown)), math.log10(max(shown))
        yaxis["range"] = [low - 1 / 3, high + 1 / 3]
    return assemble(
        traces,
        title=title,
        x=facet or "method",
        y="MSE relative to Base" if relative_to_base else "mean squared error",
        log_y=True,
        yaxis=yaxis,
        barmode="group",
        showlegend=facet is not None,
        shapes=[shape for shape, _ in references],
        annotations=[label for _, label in references],
    )


#: The two parts of an MSE, as the bias–variance chart colours them.
BIAS_COLOUR, VARIANCE_COLOUR = "#A3212E", "#5F8DD3"


def bias_variance_bars(summary: pd.DataFrame, *, query: str = "the query") -> go.Figure:
    """Every method's MSE split into bias² and variance, stacked (MSE = bias² + variance).

    ``summary`` has ``method, bias_sq, variance`` (the experiment's summary for the query
    asked). Bias² is the squared error every trial shares; variance the part that
    differs from trial to trial (NDSS Sec. V: post-processing trades the second for the
    first).
    """
    methods = [str(m) for m in summary["method"]]
    bias = summary["bias_sq"].to_numpy(dtype=float)
    variance = summary["variance"].to_numpy(dtype=float)
    total = bias + variance
    share = np.divide(bias, total, out=np.zeros_like(bias), where=total > 0)
    hover = "%{x}: %{y:.3g} (%{customdata:.0%} of its MSE)<extra>%{fullData.name}</extra>"
    traces = [
        {
            "type": "bar",
            "x": methods,
            "y": bias,
            "name": "bias²",
            "marker": {"color": BIAS_COLOUR},
            "customdata": share,
            "hovertemplate": hover,
        },
        {
            "type": "bar",
            "x": methods,
            "y": variance,
            "name": "variance",
            "marker": {"color": VARIANCE_COLOUR},
            "customdata": 1 - share,
            "hovertemplate": hover,
        },
    ]
    figure = assemble(
        traces,
        title=f"Bias² and variance per method, for {query} (stacked: together the MSE)",
        x="method",
        y="mean squared error",
        barmode="stack",
        legend={"title": {"text": "part of the MSE"}},
    )
    return figure
