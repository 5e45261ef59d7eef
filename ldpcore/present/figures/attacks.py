"""Charts of fake users' effect: each method's gain and top-k, its honest run beside.

Both read :attr:`ldpcore.experiments.poisoning.AttackResult.summary` (plain columns, so
the page's cache keeps a table, not the result), and are built as every chart is
(:func:`ldpcore.present.figures.assemble`): a method keeps its colour, the honest run is
grey, the intervals are the means' 95% t-intervals over the same trials.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.formats import format_number
from ldpcore.present.figures.style import assemble, method_style, reference_line

#: The honest run's bars: one grey for every method, so the eye reads "with / without".
HONEST_COLOUR = "rgb(170,170,170)"


def _bars(
    frame: pd.DataFrame, column: str, name: str, *, honest: bool, interval: bool
) -> dict[str, Any]:
    """One bar per method; error bars from ``column``'s ``_low`` / ``_high`` columns."""
    values = frame[column].to_numpy()
    colours = (
        [HONEST_COLOUR] * len(frame)
        if honest
        else [method_style(str(m))["color"] for m in frame["method"]]
    )
    trace: dict[str, Any] = {
        "type": "bar",
        "x": frame["method"].to_numpy(),
        "y": values,
        "name": name,
        "marker": {"color": colours},
        "hovertemplate": "%{x}: %{y:.4g}<extra>" + name + "</extra>",
    }
    if interval:
        trace["error_y"] = {
            "type": "data",
            "symmetric": False,
            "array": frame[f"{column}_high"].to_numpy() - values,
            "arrayminus": values - frame[f"{column}_low"].to_numpy(),
            "visible": True,
        }
    return trace


def attack_gains(summary: pd.DataFrame, expected: float) -> go.Figure:
    """Each method's gain (Cao et al.'s: after minus before), its own bias beside it.

    Parameters
    ----------
    summary : DataFrame
        ``AttackResult.summary``: ``method``, ``gain`` and ``honest_bias`` with their
        ``_low`` / ``_high`` interval columns.
    expected : float
        Base's expected gain in closed form (Cao, Jia and Gong 2021), a labelled line.
    """
    traces = [
        _bars(
            summary, "gain", "gain: with minus without the fake users", honest=False, interval=True
        ),
        _bars(
            summary, "honest_bias", "own bias, honest run (no attack)", honest=True, interval=True
        ),
    ]
    figure = assemble(
        traces,
        title="How far the fake users push their targets' estimated share, per method",
        x="method",
        y="change in the targets' total estimated frequency",
        barmode="group",
        legend={"title": {"text": ""}},
    )
    reference_line(
        figure,
        expected,
        f"Base, closed form: {format_number(expected)}",
        log_y=False,
        where="top right",
    )
    return figure


def attack_top_k(summary: pd.DataFrame, top_k: int, targets: int) -> go.Figure:
    """How many targets each method ranks among its ``top_k`` largest, with and without."""
    traces = [
        _bars(summary, "in_top_k", "with the fake users", honest=False, interval=False),
        _bars(summary, "honest_in_top_k", "honest run", honest=True, interval=False),
    ]
    return assemble(
        traces,
        title=f"Targets among each method's top {top_k} (mean over trials, of {targets})",
        x="method",
        y=f"targets in the top {top_k}",
        barmode="group",
        legend={"title": {"text": ""}},
        yaxis={"range": [0, max(targets, float(np.nanmax(summary["in_top_k"])) or 1) * 1.05]},
    )


__all__ = ["HONEST_COLOUR", "attack_gains", "attack_top_k"]
