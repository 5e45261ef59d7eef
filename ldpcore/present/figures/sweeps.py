"""Curves over a swept setting (ε, n, d).

Each method's error per setting (:func:`curves`), and Choose ε's error against ε with
the target line (:func:`error_against_epsilon`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from ldpcore.experiments.metrics import LOWER_BOUND_CAVEAT
from ldpcore.present.figures.style import (
    REFERENCE,
    assemble,
    emphasis,
    method_line,
    method_style,
    muted_entry,
    on_white,
    reference_line,
    row_band,
)

if TYPE_CHECKING:
    from ldpcore.advice.epsilon_answer import EpsilonAnswer


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
    recommended: str | None = None,
    higher_is_better: bool = False,
) -> go.Figure:
    """One line per method of ``y`` against ``x`` with a band (NDSS Figs. 4–10).

    Base, the ``recommended`` method and the best others by their mean ``y`` (lowest
    first, or highest with ``higher_is_better``) keep their own look, up to
    :data:`~ldpcore.present.figures.style.DISTINCT`; the rest are thin grey lines named on
    hover, with one legend entry for them all (:func:`~ldpcore.present.figures.style.emphasis`).

    The band runs between the two ``band`` columns: by default the 10% and 90% quantiles
    over trials of the per-trial MSE (``metrics.BAND_QUANTILES``), which stay positive
    and meaningful on a log axis where a ± one-SD band would plunge to its floor (issue
    25). A frame without those columns (an older sweep file) is drawn without bands.
    ``references`` are extra labelled lines ``(name, values along x, dash)``, such as
    the lower bound; each has its own legend entry.
    """
    traces: list[dict[str, Any]] = []
    means = (
        frame.groupby("method", sort=False)[y].mean().sort_values(ascending=not higher_is_better)
    )
    strong = emphasis([str(m) for m in means.index], recommended=recommended)
    muted = 0
    for method, group in frame.groupby("method", sort=False):
        rows = group.sort_values(x)
        style = method_style(str(method))
        quiet = str(method) not in strong
        muted += quiet
        if band is not None and set(band) <= set(rows.columns) and not quiet:
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
        traces.append(
            method_line(
                str(method),
                rows[x],
                rows[y],
                hover=x + " %{x:.3g}<br>%{y:.4g}",
                muted=quiet,
                recommended=method == recommended,
            )
        )
    if muted:
        traces.append(muted_entry(muted))
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


def below_lower_bound(frame: pd.DataFrame, y: str = "mse") -> list[str]:
    """The methods whose measured ``y`` is under the sweep's ``lower_bound`` somewhere."""
    if "lower_bound" not in frame:
        return []
    under = frame[frame[y] < frame["lower_bound"]]
    return [str(m) for m in dict.fromkeys(under["method"])]


def lower_bound_note(beaten: Sequence[str] = ()) -> str:
    """What the lower-bound line does and does not promise.

    With ``beaten`` methods (measured below it), also why it is not drawn: a line above
    measured errors reads as "impossible".
    """
    text = "The lower bound is " + LOWER_BOUND_CAVEAT + "."
    if beaten:
        text += (
            " It is not drawn here: " + ", ".join(beaten) + " measured below it at some ε, "
            "since this data is one distribution, not the prior's average."
        )
    return text


def error_against_epsilon(
    frame: pd.DataFrame, *, target_pp: float, protocol: str, measure: str = "RMSE"
) -> go.Figure:
    """An error measure in percentage points against ε per method, with the target line.

    ``frame`` is :func:`ldpcore.advice.error_curve.error_curve`'s (its ``error``
    column, or the RMSE from ``mse``); ``measure`` names it on the axis (Choose ε).
    """
    error = frame["error"] if "error" in frame else frame["mse"].pow(0.5)
    frame = frame.assign(rmse_pp=100 * error)
    order = frame.groupby("method", sort=False)["rmse_pp"].mean().sort_values()
    strong = emphasis([str(m) for m in order.index])
    figure = go.Figure()
    for method, part in frame.groupby("method", sort=False):
        figure.add_trace(
            method_line(
                str(method),
                part["epsilon"].to_numpy(),
                part["rmse_pp"].to_numpy(),
                hover="ε %{x:.3g}<br>%{y:.3g} pp",
                muted=str(method) not in strong,
            )
        )
    if quiet := len(order) - len(strong):
        figure.add_trace(muted_entry(quiet))
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


def epsilon_per_protocol(
    answers: Sequence[EpsilonAnswer], *, target: str, winner: str | None = None
) -> go.Figure:
    """Every protocol's smallest ε that meets the target, on one log axis (Choose ε).

    One row per protocol, smallest ε first: Base's ε (no post-processing) with its 95%
    interval, and the recommended method's where post-processing lowers it. A protocol
    that never meets the target within the search is named at the bottom with why. The
    ``winner`` protocol's row is highlighted as the recommended method is elsewhere.
    """
    met = sorted((a for a in answers if a.epsilon is not None), key=lambda a: a.epsilon or 0)
    unmet = [a for a in answers if a.epsilon is None]
    rows = [a.protocol for a in [*met, *unmet]]
    base = method_style(REFERENCE)
    traces: list[dict[str, Any]] = []

    def dots(chosen: list[EpsilonAnswer], method: str | None) -> dict[str, Any]:
        name = "Base (no post-processing)" if method is None else "with post-processing"
        style = base if method is None else method_style(method)
        value = [a.base_epsilon if method is None else a.epsilon for a in chosen]
        low = [a.base_epsilon_low if method is None else a.epsilon_low for a in chosen]
        high = [a.base_epsilon_high if method is None else a.epsilon_high for a in chosen]
        point = np.asarray(value, dtype=float)
        plus = np.asarray([np.nan if h is None else h for h in high], dtype=float) - point
        minus = point - np.asarray([np.nan if lo is None else lo for lo in low], dtype=float)
        return {
            "type": "scatter",
            "mode": "markers",
            "y": [a.protocol for a in chosen],
            "x": point,
            "name": name,
            "marker": {
                "symbol": style["marker"],
                "color": style["color"]
                if method is None
                else [method_style(a.method)["color"] for a in chosen],
                "size": 12,
                "line": {"width": 2, "color": style["color"]},
            },
            "error_x": {
                "type": "data",
                "symmetric": False,
                "array": np.nan_to_num(plus),
                "arrayminus": np.nan_to_num(minus),
                # An exact ε has no interval: no whisker, not one of zero length.
                "visible": bool(np.nansum(plus) + np.nansum(minus) > 0),
                "color": "rgb(90,90,90)",
            },
            "customdata": [a.method for a in chosen],
            "hovertemplate": "%{y}: ε = %{x:.3g} (%{customdata})<extra>" + name + "</extra>",
        }

    with_base = [a for a in met if a.base_epsilon is not None]
    if with_base:
        traces.append(dots(with_base, None))
    helped = [a for a in met if a.post_processing_helps]
    if helped:
        traces.append(dots(helped, helped[0].method))
    annotations = [
        {
            "x": 0,
            "xref": "paper",
            "xanchor": "left",
            "y": a.protocol,
            "yref": "y",
            "text": "the target is not met within the ε searched",
            "showarrow": False,
            "font": {"size": 11, "color": "rgb(90,90,90)"},
        }
        for a in unmet
    ]
    shapes = [row_band(rows.index(winner))] if winner in rows else []
    return assemble(
        traces,
        title={
            "text": "Smallest ε that meets the target, per protocol",
            "subtitle": {"text": target},
        },
        x="ε (log scale; smaller is more private)",
        y="",
        xaxis={"type": "log"},
        yaxis={
            "categoryorder": "array",
            "categoryarray": rows,
            "autorange": "reversed",
            "tickvals": rows,
            "ticktext": [f"<b>{p} ★</b>" if p == winner else p for p in rows],
            "automargin": True,
        },
        legend={"title": {"text": ""}},
        showlegend=True,  # even for Base's dots alone: the reader must know whose they are
        margin={"l": 10},
        height=180 + 34 * len(rows),
        shapes=shapes,
        annotations=annotations,
    )
