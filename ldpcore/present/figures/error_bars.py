"""Each method's error, compared across methods.

The comparison every results page opens on (:func:`error_breakdown`): one row per
method, sorted, its MSE as a ratio to Base split into bias² and variance on a linear
axis, with the paired interval, Base and the recommended method marked. And each
method's MSE as dots on a log axis (:func:`mse_points`), where the values span orders
of magnitude (every protocol side by side).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.present.figures.style import (
    LOWER_BOUND_NAME,
    MSE_AXIS,
    MUTED,
    MUTED_GROUP,
    RECOMMENDED_OUTLINE,
    REFERENCE,
    assemble,
    emphasis,
    method_style,
    muted_entry,
    reference_entries,
    row_band,
)

#: The two parts of an MSE, as the breakdown colours them (no method uses either).
BIAS_COLOUR, VARIANCE_COLOUR = "#A3212E", "#8FB3E3"
#: A method whose MSE is more than this many times the reference's is cut at the axis's
#: edge with its value written there: one method far off does not flatten the rest.
CUT_AT = 2.5
#: One percentage point squared, the unit of an MSE of shares when there is no Base.
PP_SQUARED = 1e-4
#: Each row's height in the breakdown, in pixels, and the room above and below them.
ROW_HEIGHT, FRAME_HEIGHT = 26, 150


def _base_label(source: str | None) -> str:
    """The analytic Base line's label, which names where its variance comes from."""
    if source is None:
        raise ValueError("an analytic Base MSE says where its variance comes from: base_source")
    return f"analytic Base MSE ({source})"


def axis_end(values: np.ndarray, reference: float, *, cut_at: float = CUT_AT) -> float:
    """Where a linear axis of ``values`` ends, with a tenth to spare.

    Past the reference and every value within ``cut_at`` times it; a value beyond is cut.

    Examples
    --------
    >>> axis_end(np.array([0.1, 0.5, 1.0, 8.6]), 1.0)
    1.1
    """
    shown = [float(v) for v in values if np.isfinite(v) and v <= cut_at * reference]
    return 1.1 * max([reference, *shown])


def error_breakdown(
    summary: pd.DataFrame,
    *,
    recommended: str | None = None,
    query: str = "the query",
    cut_at: float = CUT_AT,
) -> go.Figure:
    """Every method's MSE, lowest first, split into bias² and variance (MSE = bias² + variance).

    With Base among the methods each row is a ratio to Base's MSE (Base = 1), drawn on a
    linear axis from zero so a bar's length is its error, with the paired simultaneous
    95% interval of the ratio (``ratio_low``, ``ratio_high``) as a whisker; without
    Base, the MSE in percentage points squared. A method more than ``cut_at`` times
    the reference is cut at the axis's edge with its ratio written there. Base's row is
    named the reference; the ``recommended`` method's bars are outlined and its name is
    bold. Bias² is the squared error every trial shares, variance the part that differs
    from trial to trial (NDSS Sec. V: post-processing trades the second for the first).

    Parameters
    ----------
    summary : DataFrame
        ``method, mse, bias_sq, variance`` and, with Base, the paired
        ``ratio_low, ratio_high`` (an experiment's summary for the query asked).
    """
    frame = summary.sort_values("mse", kind="stable").reset_index(drop=True)
    methods = [str(m) for m in frame["method"]]
    has_base = REFERENCE in methods
    scale = float(frame.loc[methods.index(REFERENCE), "mse"]) if has_base else PP_SQUARED
    if not (np.isfinite(scale) and scale > 0):
        scale = PP_SQUARED
        has_base = False
    bias = frame["bias_sq"].to_numpy(dtype=float) / scale
    variance = frame["variance"].to_numpy(dtype=float) / scale
    total = frame["mse"].to_numpy(dtype=float) / scale
    reference = 1.0 if has_base else float(np.median(total))
    end = axis_end(total, reference, cut_at=cut_at)
    # A cut row's two parts keep their proportions up to the edge.
    factor = np.where(total > end, end / np.where(total > 0, total, 1.0), 1.0)
    share = np.divide(bias, total, out=np.zeros_like(bias), where=total > 0)
    typical_pp = 100 * np.sqrt(frame["mse"].to_numpy(dtype=float))
    unit = "× Base" if has_base else " pp²"
    # Each row's method in full on hover, where a reader first meets its short name.
    described = [_description(m) for m in methods]
    custom = np.column_stack([total, share, typical_pp, np.asarray(described, dtype=object)])
    hover = (
        "<b>%{y}</b>: %{customdata[3]}<br>MSE %{customdata[0]:.3g}" + unit + "; bias² "
        "%{customdata[1]:.0%} of it; typical error ±%{customdata[2]:.2g} pp per value"
        "<extra>%{fullData.name}</extra>"
    )
    traces: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "y": methods,
            "x": bias * factor,
            "meta": {"y": bias.tolist()},  # the real values, where a cut row's are shortened
            "name": "bias²",
            "marker": {"color": BIAS_COLOUR},
            "customdata": custom,
            "hovertemplate": hover,
        },
        {
            "type": "bar",
            "orientation": "h",
            "y": methods,
            "x": variance * factor,
            "meta": {"y": variance.tolist()},
            "name": "variance",
            "marker": {"color": VARIANCE_COLOUR},
            "customdata": custom,
            "hovertemplate": hover,
        },
    ]
    if has_base and {"ratio_low", "ratio_high"} <= set(frame.columns):
        inside = total <= end
        low = frame["ratio_low"].to_numpy(dtype=float)
        high = np.minimum(frame["ratio_high"].to_numpy(dtype=float), end)
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "y": [m for m, keep in zip(methods, inside, strict=True) if keep],
                "x": total[inside],
                "name": "95% interval",
                "marker": {"symbol": "line-ns", "size": 12, "color": "black", "line": {"width": 2}},
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": (high - total)[inside].clip(min=0),
                    "arrayminus": (total - low)[inside].clip(min=0),
                    "color": "black",
                    "thickness": 1.5,
                    "width": 4,
                    "visible": True,
                },
                "hovertemplate": "%{y}: %{x:.3g}× Base (%{customdata[0]:.3g}–%{customdata[1]:.3g})"
                "<extra>paired 95% interval</extra>",
                "customdata": np.column_stack([low, frame["ratio_high"].to_numpy(dtype=float)])[
                    inside
                ],
            }
        )
    annotations = [
        {
            "x": end,
            "y": method,
            "xref": "x",
            "yref": "y",
            "xanchor": "right",
            "text": f"{value:.3g}{'×' if has_base else ' pp²'} ▸",
            "showarrow": False,
            "font": {"color": "white", "size": 11},
        }
        for method, value in zip(methods, total, strict=True)
        if value > end
    ]
    shapes = [row_band(methods.index(recommended))] if recommended in methods else []
    if has_base:
        shapes.append(
            {
                "type": "line",
                "x0": 1,
                "x1": 1,
                "xref": "x",
                "y0": 0,
                "y1": 1,
                "yref": "paper",
                "line": {"color": method_style(REFERENCE)["color"], "dash": "dash", "width": 1},
            }
        )
    labels = [_row_label(m, recommended) for m in methods]
    height = FRAME_HEIGHT + ROW_HEIGHT * len(methods)
    return assemble(
        traces,
        title={"text": "Error per method, lowest first", "subtitle": {"text": f"for {query}"}},
        x=("MSE ÷ Base's MSE (Base = 1)" if has_base else "MSE (percentage points²)"),
        y="",  # the rows name their methods
        barmode="stack",
        xaxis={"range": [0, end], "rangemode": "tozero", "zeroline": True},
        yaxis={
            "categoryorder": "array",
            "categoryarray": methods,
            "autorange": "reversed",
            "tickvals": methods,
            "ticktext": labels,
            "automargin": True,
        },
        legend={"title": {"text": ""}, "traceorder": "normal"},
        margin={"l": 10},
        height=height,
        bargap=0.25,
        shapes=shapes,
        annotations=annotations,
    )


def _description(method: str) -> str:
    """A method's one line from its registry entry (empty for a name outside it)."""
    from ldpcore.postprocess import METHODS  # noqa: PLC0415 (the registry, at call time)

    found = METHODS.get(method)
    return str(found.description) if found is not None else ""


def _row_label(method: str, recommended: str | None) -> str:
    """A method's name on its row: Base says it is the reference, the recommended is bold."""
    if method == recommended:
        return f"<b>{method} ★</b>"
    return f"{method} (reference)" if method == REFERENCE else method


def mse_points(
    summary: pd.DataFrame,
    *,
    base_mse: float | None,
    lower_bound: float | None,
    relative_to_base: bool = False,
    facet: str | None = None,
    base_source: str | None = None,
    recommended: str | None = None,
) -> go.Figure:
    """MSE per method as dots with their intervals on a log axis, and the reference lines.

    Dots, not bars: on a log axis a bar's length depends on where the axis starts, so it
    means nothing. For values that span orders of magnitude (every protocol at one
    setting); one protocol's methods are compared by :func:`error_breakdown`.

    Parameters
    ----------
    summary : DataFrame
        ``method, mse, mse_std`` (and the ``facet`` column if given); in relative mode
        the paired ``mse_ratio_to_base, ratio_low, ratio_high`` when present.
    base_mse, lower_bound : float, optional
        Drawn as labelled horizontal lines (not in relative mode). The lower bound holds
        only on average over a prior (Lopuhaä-Zwakenberg et al.), so it is left out when
        some method is below it: a line above measured errors reads as "impossible".
    base_source : str, optional
        Where the exact Base MSE comes from, said in its label (the protocol's
        ``variance_source``); required with ``base_mse``.
    relative_to_base : bool
        Plot ``mse / mse(Base)`` instead (per facet): the paired ratio with its
        interval when the summary has it, else the plain quotient with scaled spreads.
    facet : str, optional
        A column (e.g. ``protocol``) along the x axis; the methods are then series.
    recommended : str, optional
        Drawn larger, outlined in black.
    """
    paired = relative_to_base and "mse_ratio_to_base" in summary.columns
    frame = _points(summary, relative_to_base=relative_to_base, facet=facet)
    order = list(frame.groupby("method", sort=False)["mse"].mean().sort_values().index)
    strong = emphasis([str(m) for m in order], recommended=recommended)
    traces: list[dict[str, Any]] = []
    for method, rows in frame.groupby("method", sort=False):
        name = str(method)
        style = method_style(name)
        muted = name not in strong
        colour = MUTED if muted else style["color"]
        hover = (
            "%{y:.4g} (%{customdata[0]:.3g}–%{customdata[1]:.3g})"
            if paired
            else "%{y:.4g} ± %{error_y.array:.2g}"
        )
        custom = np.column_stack(
            [(rows["mse"] - rows["minus"]).to_numpy(), (rows["mse"] + rows["plus"]).to_numpy()]
        )
        trace: dict[str, Any] = {
            "type": "scatter",
            "mode": "markers",
            "x": rows[facet].to_numpy() if facet else [name],
            "y": rows["mse"].to_numpy(),
            "name": name,
            "legendgroup": name,
            "marker": {
                "color": colour,
                "symbol": style["marker"],
                "size": 13 if name == recommended else 9,
                "line": {"color": RECOMMENDED_OUTLINE, "width": 2 if name == recommended else 0},
            },
            "error_y": {
                "type": "data",
                "symmetric": False,
                "array": rows["plus"].to_numpy(),
                "arrayminus": rows["minus"].to_numpy(),
                "color": colour,
                "visible": True,
            },
            "customdata": custom,
            "hovertemplate": hover + "<extra>" + name + "</extra>",
        }
        if muted:
            trace.update(showlegend=False, legendgroup=MUTED_GROUP)
        traces.append(trace)
    muted_count = sum(1 for t in traces if t.get("legendgroup") == MUTED_GROUP)
    if muted_count:
        traces.append(muted_entry(muted_count))
    references: list[tuple[dict[str, Any], dict[str, Any]]] = []
    shown = [float(v) for v in frame["mse"] if np.isfinite(v) and v > 0]
    if not relative_to_base:
        if base_mse is not None:
            references.append(
                reference_entries(base_mse, _base_label(base_source), log_y=True, where="top left")
            )
            shown.append(float(base_mse))
        if lower_bound is not None and shown and lower_bound <= min(shown):
            references.append(
                reference_entries(
                    lower_bound,
                    LOWER_BOUND_NAME,
                    log_y=True,
                    dash="dot",
                    color="firebrick",
                    where="bottom right",
                )
            )
            shown.append(float(lower_bound))
    else:
        references.append(reference_entries(1.0, "Base", log_y=True, where="top right"))
    title = (
        "MSE ÷ Base per method (whiskers: simultaneous 95% intervals, paired trials)"
        if paired
        else "MSE per method (whiskers: standard deviation over trials)"
    )
    yaxis: dict[str, Any] = {}
    if shown:
        # The axis fits what is drawn with a third of a decade each side.
        low, high = math.log10(min(shown)), math.log10(max(shown))
        yaxis["range"] = [low - 1 / 3, high + 1 / 3]
    return assemble(
        traces,
        title=title,
        x=facet or "method",
        y=("MSE relative to Base (log scale)" if relative_to_base else MSE_AXIS),
        log_y=True,
        yaxis=yaxis,
        showlegend=facet is not None,
        shapes=[shape for shape, _ in references],
        annotations=[label for _, label in references],
    )


def _points(summary: pd.DataFrame, *, relative_to_base: bool, facet: str | None) -> pd.DataFrame:
    """Each dot's value and its whisker's two arms (``mse``, ``plus``, ``minus``).

    In relative mode, the paired ratio and its simultaneous interval when the summary has
    them, else the plain quotient with scaled spreads.
    """
    frame = summary.copy()
    paired = relative_to_base and "mse_ratio_to_base" in frame.columns
    if paired:
        frame["mse"] = frame["mse_ratio_to_base"]
        frame["plus"] = (frame["ratio_high"] - frame["mse"]).replace(np.inf, np.nan)
        frame["minus"] = frame["mse"] - frame["ratio_low"]
    else:
        if relative_to_base:
            keys = [facet] if facet else ["method"]
            base = frame[frame["method"] == REFERENCE].set_index(keys)["mse"]
            if facet:
                denominator = frame[facet].map(base)
            else:
                denominator = pd.Series(
                    float(base.iloc[0]) if len(base) else np.nan, index=frame.index
                )
            frame["mse_std"] = frame["mse_std"] / denominator
            frame["mse"] = frame["mse"] / denominator
        frame["plus"] = frame["mse_std"]
        # A dot's spread on a log axis stops short of zero, where the axis has no place.
        frame["minus"] = np.minimum(frame["mse_std"], 0.9 * frame["mse"])
    return frame
