"""Charts of collecting again and again: what each plan spends and how far off.

Both are exact (:mod:`ldpcore.advice.longitudinal`): ε after ``t`` reports of one value
(the worst report sequence's, :func:`ldpcore.protocols.repeated.epsilon_after`) and the typical
error of the average of ``t`` rounds' Base estimates, for ``t`` up to the plan's rounds.
Built as every chart is (:func:`ldpcore.present.figures.assemble`); each plan keeps one
colour and dash across both charts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from ldpcore.advice.longitudinal import typical_error
from ldpcore.present.figures.style import assemble
from ldpcore.protocols.repeated import epsilon_after

if TYPE_CHECKING:
    from ldpcore.advice.longitudinal import AveragingRow, CollectionPlan

#: Each plan kind's line: the memoized chain solid, the one-shot forms dashed and dotted.
STYLES: dict[str, dict[str, str]] = {
    "memoized": {"color": "rgb(31,119,180)", "dash": "solid"},
    "fresh": {"color": "rgb(214,39,40)", "dash": "dash"},
    "split": {"color": "rgb(127,127,127)", "dash": "dot"},
}
#: Points drawn per curve at most (every round up to this many, log-spaced beyond).
POINTS = 120


def round_grid(rounds: int) -> NDArray[np.int64]:
    """The rounds ``t`` a curve is drawn at: every one up to :data:`POINTS`, else log-spaced.

    Examples
    --------
    >>> round_grid(3).tolist()
    [1, 2, 3]
    >>> grid = round_grid(1000); int(grid[0]), int(grid[-1]), len(grid) <= 120
    (1, 1000, True)
    """
    if rounds <= POINTS:
        return np.arange(1, rounds + 1, dtype=np.int64)
    return np.unique(np.geomspace(1, rounds, POINTS).round().astype(np.int64))


def _line(plan: CollectionPlan, x: NDArray[np.int64], y: Sequence[float]) -> dict[str, Any]:
    style = STYLES[plan.kind]
    return {
        "type": "scatter",
        "mode": "lines",
        "x": x,
        "y": np.asarray(y, dtype=np.float64),
        "name": plan.label,
        "line": {"color": style["color"], "dash": style["dash"], "width": 2},
        "hovertemplate": "%{x}: %{y:.4g}<extra>" + plan.label + "</extra>",
    }


def _over_rounds(
    plans: Sequence[CollectionPlan],
    value: Callable[[CollectionPlan, int], float],
    *,
    title: str,
    y: str,
    period: str,
) -> go.Figure:
    """One line per plan of ``value(plan, t)`` at the rounds of :func:`round_grid` (log y)."""
    x = round_grid(plans[0].rounds)
    traces = [_line(plan, x, [value(plan, int(t)) for t in x]) for plan in plans]
    return assemble(
        traces,
        title=title,
        x=f"{period}s collected",
        y=y,
        log_y=True,
        legend={"title": {"text": "plan"}},
    )


def spending_figure(plans: Sequence[CollectionPlan], *, period: str = "round") -> go.Figure:
    """ε spent by one value's reports after ``t`` of them, per plan (log scale)."""
    return _over_rounds(
        plans,
        lambda plan, t: epsilon_after(plan.protocol, t),
        title="What each user spends as the collection goes on",
        y="ε spent (after t reports of one value)",
        period=period,
    )


def error_figure(
    plans: Sequence[CollectionPlan], frequencies: ArrayLike, n: int, *, period: str = "round"
) -> go.Figure:
    """The typical error (±, per value) of the average of ``t`` rounds, per plan."""
    return _over_rounds(
        plans,
        lambda plan, t: typical_error(plan.protocol, frequencies, n, t),
        title="How far off the average of the rounds so far is",
        y="typical error of the average (±, per value)",
        period=period,
    )


def averaging_figure(
    rows: Sequence[AveragingRow], plans: Sequence[CollectionPlan], *, period: str = "round"
) -> go.Figure:
    """The averaging aggregator's share of right guesses against the reports it has seen.

    Each plan's line with its 95% interval as error bars, and its bound (the most any
    aggregator reaches from that many reports) dotted in the same colour.
    """
    traces: list[dict[str, Any]] = []
    for plan in plans:
        mine = [row for row in rows if row.plan == plan.label]
        if not mine:
            continue
        style = STYLES[plan.kind]
        x = np.array([row.rounds for row in mine])
        y = np.array([row.right for row in mine])
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "x": x,
                "y": y,
                "name": plan.label,
                "line": {"color": style["color"], "dash": style["dash"], "width": 2},
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": np.array([row.high for row in mine]) - y,
                    "arrayminus": y - np.array([row.low for row in mine]),
                },
                "hovertemplate": "%{x}: %{y:.1%}<extra>" + plan.label + "</extra>",
            }
        )
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": x,
                "y": np.array([row.bound for row in mine]),
                "name": f"{plan.label}: the most any guess reaches",
                "line": {"color": style["color"], "dash": "dot", "width": 1},
                "hovertemplate": "%{x}: %{y:.1%}<extra>bound</extra>",
            }
        )
    return assemble(
        traces,
        title="How often averaging a user's reports guesses their value",
        x=f"{period}s collected (reports per user)",
        y="users guessed right",
        xaxis={"type": "log"},
        yaxis={"tickformat": ".0%", "range": [0, 1.02]},
        legend={"title": {"text": "plan"}},
    )


__all__ = [
    "POINTS",
    "STYLES",
    "averaging_figure",
    "error_figure",
    "round_grid",
    "spending_figure",
]
