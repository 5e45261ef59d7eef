"""Plotly figure builders: data in, ``go.Figure`` out. No streamlit here.

Every method keeps one colour (Plotly's colour-blind-safe ``Safe`` palette, 11
colours, then a 12th and 13th from ``Dark2``) and one dash and marker on every chart;
the triple is different for every method however many are registered (see
:func:`method_style`).

Over 500 lines on purpose: every chart shares the method styles, the axis helpers and
the log-axis label placement here, and a chart is one function; splitting by chart
would spread those helpers over several modules that all import each other's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from ldpcore.experiments.metrics import LOWER_BOUND_CAVEAT
from ldpcore.formats import plain_html
from ldpcore.postprocess import method_names

#: Okabe & Ito's colour-universal-design palette (2008) without its black, which the
#: truth and the reference lines use: every pair stays apart for protanopes and
#: deuteranopes (tests/test_viz.py simulates both: CIELAB ΔE ≥ 15 for any two methods
#: drawn with the same dash; the former Plotly "Safe" + Dark2 mix had a pair at 6.8).
_COLOURS = (
    "rgb(0,114,178)",  # blue
    "rgb(213,94,0)",  # vermillion
    "rgb(0,158,115)",  # bluish green
    "rgb(204,121,167)",  # reddish purple
    "rgb(230,159,0)",  # orange
    "rgb(86,180,233)",  # sky blue
    "rgb(240,228,66)",  # yellow
)
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
_MARKERS = (
    "circle",
    "square",
    "diamond",
    "cross",
    "x",
    "triangle-up",
    "triangle-down",
    "star",
    "hexagon",
    "pentagon",
    "hourglass",
    "bowtie",
    "triangle-left",
)


def method_style(method: str) -> dict[str, str]:
    """The fixed ``colour``, ``dash`` and ``marker`` of a method, by its registry position.

    Colour and dash cycle together (7 and 6 are coprime, so the pair repeats only
    after 42 methods); the marker then also shifts once per 42, so the triple stays
    unique for 7 · 6 · 13 = 546 methods. A method outside the registry takes the
    next free position.
    """
    names = method_names()
    index = names.index(method) if method in names else len(names)
    cycle = len(_COLOURS) * len(_DASHES)
    return {
        "color": _COLOURS[index % len(_COLOURS)],
        "dash": _DASHES[index % len(_DASHES)],
        "marker": _MARKERS[(index + index // cycle) % len(_MARKERS)],
    }


def _line(method: str, x: Any, y: Any, *, hover: str, **extra: Any) -> dict[str, Any]:
    """A method's line as a plain trace (validated once, when its figure is built)."""
    style = method_style(method)
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "name": method,
        "legendgroup": method,
        "mode": "lines+markers" if len(x) <= 40 else "lines",
        "line": {"color": style["color"], "dash": style["dash"]},
        "marker": {"symbol": style["marker"], "color": style["color"], "size": 6},
        "hovertemplate": hover + "<extra>" + method + "</extra>",
        **extra,
    }


def _white(figure: go.Figure) -> go.Figure:
    """Give ``figure`` Plotly's ``plotly_white`` template, without validating it again.

    ``update_layout(template="plotly_white")`` validates the whole template, 15–19 ms a
    figure: a third of a chart's build, paid by every session of a class moving a slider.
    The template is Plotly's own, so Plotly itself assigns its default template with
    validation off (``BaseFigure._initialize_layout_template``); so does this. The JSON
    sent to the browser is the same (a test compares them).
    """
    import plotly.io as pio  # noqa: PLC0415 (with plotly.graph_objects, already loaded)

    layout = figure.layout
    layout._validate = False
    try:
        layout.template = pio.templates["plotly_white"]
    finally:
        layout._validate = True
    return figure


def assemble(
    traces: list[dict[str, Any]],
    *,
    title: str,
    x: str,
    y: str,
    log_y: bool = False,
    xaxis: dict[str, Any] | None = None,
    yaxis: dict[str, Any] | None = None,
    **layout: Any,
) -> go.Figure:
    """The charts' figure, built in one validated construction from plain traces.

    Titles, legend, margins and hover of every method chart, a log y axis if asked, and
    ``xaxis``/``yaxis``/``layout`` entries on top. Every ``add_trace``, ``update_layout``
    and ``update_yaxes`` validates what it is given again (and a ``go.Scatter`` is
    validated once made and again when added): the Explorer's two charts cost 34 ms
    built that way and 12 ms built here, paid once per new setting by a class moving
    sliders.
    """
    y_axis: dict[str, Any] = {"title": {"text": y}}
    if log_y:
        y_axis.update(type="log", exponentformat="power")
    figure = go.Figure(
        data=traces,
        layout={
            "title": {"text": title},
            "xaxis": {"title": {"text": x}, **(xaxis or {})},
            "yaxis": {**y_axis, **(yaxis or {})},
            "legend": {"title": {"text": "method"}},
            "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
            "hovermode": "closest",
            **layout,
        },
    )
    return _white(figure)


def reference_line(
    figure: go.Figure,
    y: float,
    text: str,
    *,
    log_y: bool,
    dash: str = "dash",
    color: str = "black",
    where: str = "top left",
) -> None:
    """A horizontal line across the plot, labelled on the line.

    Not ``add_hline(annotation_text=...)``: on a log axis Plotly places an annotation at
    ``10**y`` (annotations take the axis's log10 units), so the label of a line at
    3e-4 sat at 1.0007, off the chart. ``where`` is ``"top left"``, ``"bottom right"``,
    etc.: which side of the line, and which end.
    """
    shape, annotation = _reference(y, text, log_y=log_y, dash=dash, color=color, where=where)
    figure.add_shape(shape)
    figure.add_annotation(annotation)


def _reference(
    y: float, text: str, *, log_y: bool, dash: str = "dash", color: str = "black", where: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`reference_line`'s shape and label, as plain layout entries."""
    # The shape add_hline would make, added directly: add_hline's subplot bookkeeping
    # cost 5 ms a line, on every chart a class redraws (no chart here has subplots).
    shape = {
        "type": "line",
        "xref": "x domain",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": y,
        "y1": y,
        "line": {"dash": dash, "color": color},
    }
    vertical, horizontal = where.split()
    annotation = {
        "x": 0 if horizontal == "left" else 1,
        "xref": "paper",
        "xanchor": horizontal,
        "y": math.log10(y) if log_y else y,
        "yref": "y",
        "yanchor": "bottom" if vertical == "top" else "top",
        "text": text,
        "showarrow": False,
        "font": {"color": color, "size": 11},
    }
    return shape, annotation


#: Ranks drawn per trace: every rank of the head, an evenly spread sample of the tail.
MAX_RANKS_DRAWN = 400


def rank_sample(d: int, limit: int = MAX_RANKS_DRAWN) -> NDArray[np.int64]:
    """0-based rank positions to draw: all of the first ``limit/2``, a spread of the rest.

    Thirteen traces of thousands of points make a browser redraw slowly, and a tail of
    noise is no easier to read at full density.

    Examples
    --------
    >>> rank_sample(5).tolist()
    [0, 1, 2, 3, 4]
    >>> len(rank_sample(100_000))
    400
    """
    if d <= limit:
        return np.arange(d)
    head = limit // 2
    tail = np.unique(np.round(np.linspace(head, d - 1, limit - head)).astype(np.int64))
    return np.concatenate([np.arange(head), tail])


#: Methods the by-rank charts draw when there are many: the baseline and the paper's
#: recommendations (Base-Cut for full-domain, PowerNS for sets, Norm-Sub as the
#: all-round choice, NDSS Sec. V). Thirteen overlapping lines are unreadable, and every
#: trace, even a hidden legend-only one, costs the browser time on each update
#: (tests/test_browser.py; benchmarks/README.md). Pages offer to draw them all.
FEATURED = ("Base", "Norm-Sub", "Base-Cut", "PowerNS")
#: Up to this many methods, every one is drawn.
DRAW_ALL_UP_TO = 6


#: Up to this many methods drawn, each estimate line carries its 95% band.
BANDS_UP_TO = 4


def _band(method: str, x: Any, low: Any, high: Any) -> dict[str, Any]:
    """A translucent band from ``low`` to ``high`` in the method's colour (no legend entry)."""
    colour = method_style(method)["color"]
    red, green, blue = _rgb(colour)
    return {
        "type": "scatter",
        "x": np.concatenate([np.asarray(x), np.asarray(x)[::-1]]),
        "y": np.concatenate([np.asarray(high), np.asarray(low)[::-1]]),
        "fill": "toself",
        "fillcolor": f"rgba({red},{green},{blue},0.15)",
        "line": {"width": 0},
        "name": f"{method}: 95% of single estimates",
        "legendgroup": method,
        "showlegend": False,
        "hoverinfo": "skip",
    }


def _rgb(colour: str) -> tuple[int, int, int]:
    """``rgb(r,g,b)`` or ``#rrggbb`` as three integers."""
    if colour.startswith("#"):
        return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
    parts = colour[colour.index("(") + 1 : colour.index(")")].split(",")
    return int(parts[0]), int(parts[1]), int(parts[2])


def _by_rank_prelude(
    per_item: pd.DataFrame, featured: Sequence[str] | None
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], Any, list[str]]:
    """What a by-rank chart draws: the values at the sampled ranks, by true frequency.

    The true frequencies, the items' order (most frequent first) at
    :func:`rank_sample`'s ranks, those ranks (1-based), the per-method groups of
    ``per_item`` and the methods drawn.
    """
    truth = per_item.drop_duplicates("item")["truth"].to_numpy()
    shown = rank_sample(truth.size)
    order = np.argsort(-truth, kind="stable")[shown]
    groups = per_item.groupby("method", sort=False)
    return truth, order, shown + 1, groups, _drawn([str(m) for m in groups.groups], featured)


def _drawn(methods: Sequence[str], featured: Sequence[str] | None) -> list[str]:
    if featured is None or len(methods) <= DRAW_ALL_UP_TO:
        return list(methods)
    return [m for m in methods if m in featured] or list(methods)


def estimates_by_rank(
    per_item: pd.DataFrame, *, log_y: bool = True, featured: Sequence[str] | None = FEATURED
) -> go.Figure:
    """Mean estimate of each value against the truth, values by true rank (NDSS Fig. 1).

    Large domains are drawn at the ranks of :func:`rank_sample`. With more than
    :data:`DRAW_ALL_UP_TO` methods only the ``featured`` ones are drawn (``None``: all;
    if none of them is present, all).

    With ``log_y`` the axis is a symmetric log (:func:`symlog`): logarithmic above a
    small threshold, linear through zero, and mirrored below it, so the negative
    estimates of Base's tail (what post-processing is about) are drawn, not dropped.
    Ticks and hover show the real frequencies.

    Up to :data:`BANDS_UP_TO` methods drawn, each carries a band: mean ± 1.96 standard
    deviations of its single-trial estimates, where about 95% of one collection's
    estimates fall (it hides with its method in the legend).
    """
    truth, order, ranks, groups, drawn = _by_rank_prelude(per_item, featured)
    means = {str(m): rows["mean"].to_numpy()[order] for m, rows in groups if m in drawn}
    spreads = {
        str(m): 1.96 * np.sqrt(rows["variance"].to_numpy()[order])
        for m, rows in groups
        if m in drawn
    }
    positive = truth[truth > 0]
    threshold = float(positive.min()) / 10 if positive.size else 1e-9

    def scaled(values: NDArray[np.float64]) -> NDArray[np.float64]:
        return symlog(values, threshold) if log_y else values

    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": ranks,
            "y": scaled(truth[order]),
            "customdata": 100 * truth[order],
            "meta": {"y": truth[order].tolist()},  # the real values (y is symlog-scaled)
            "name": "truth",
            "mode": "lines",
            "line": {"color": "black", "width": 2},
            "hovertemplate": "rank %{x}<br>true %{customdata:.3g}%<extra>truth</extra>",
        }
    ]
    for method, mean in means.items():
        if len(means) <= BANDS_UP_TO:
            low, high = mean - spreads[method], mean + spreads[method]
            traces.append(_band(method, ranks, scaled(low), scaled(high)))
        traces.append(
            _line(
                method,
                ranks,
                scaled(mean),
                customdata=100 * mean,
                meta={"y": mean.tolist()},
                hover="rank %{x}<br>estimate %{customdata:.3g}%",
            )
        )
    # Frequencies in percent, as people read them (errors stay in frequency units).
    axis = "frequency (%; symmetric log: negatives below 0)" if log_y else "frequency"
    if log_y:
        every = np.concatenate([truth, *means.values()]) if means else truth
        tickvals, ticktext = symlog_ticks(every, threshold)
        yaxis: dict[str, Any] = {"tickvals": tickvals, "ticktext": ticktext}
    else:
        yaxis = {"tickformat": ".2~%"}
    return assemble(
        traces,
        title="Estimates vs truth, by true rank",
        x="rank of the value",
        y=axis,
        xaxis=rank_axis(ranks),
        yaxis=yaxis,
    )


def rank_axis(ranks: NDArray[Any] | Sequence[int]) -> dict[str, Any]:
    """A rank axis ticked at whole ranks only (Plotly ticked 1.5 on a few values).

    Examples
    --------
    >>> rank_axis([1, 2, 3]), rank_axis(range(1, 200))
    ({'tick0': 1, 'dtick': 1}, {'tickformat': 'd'})
    """
    return {"tick0": 1, "dtick": 1} if len(ranks) and max(ranks) <= 15 else {"tickformat": "d"}


def symlog(values: NDArray[np.float64], threshold: float) -> NDArray[np.float64]:
    """``sign(y) · log10(1 + |y| / threshold)``: log for large ``|y|``, linear near 0.

    Examples
    --------
    >>> symlog(np.array([-0.1, 0.0, 0.1]), 0.001).round(3).tolist()
    [-2.004, 0.0, 2.004]
    """
    values = np.asarray(values, dtype=np.float64)
    return np.sign(values) * np.log10(1.0 + np.abs(values) / threshold)


def symlog_ticks(values: NDArray[np.float64], threshold: float) -> tuple[list[float], list[str]]:
    """Tick positions and labels (real values, powers of ten) for a :func:`symlog` axis."""
    finite = np.asarray(values, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    top = float(np.max(np.abs(finite), initial=threshold))
    lowest = math.floor(math.log10(threshold)) + 1
    highest = math.ceil(math.log10(max(top, threshold * 10)))
    powers = [10.0**k for k in range(lowest, highest + 1)]
    ticks = [0.0, *powers]
    if finite.size and finite.min() < 0:
        depth = math.ceil(math.log10(max(-float(finite.min()), threshold * 10)))
        ticks = [-(10.0**k) for k in range(depth, lowest - 1, -1)] + ticks
    positions = symlog(np.array(ticks), threshold).tolist()
    return positions, [percent_label(t) for t in ticks]


def percent_label(frequency: float) -> str:
    """A frequency in percent, with as many decimals as it needs and a true minus sign.

    Examples
    --------
    >>> [percent_label(f) for f in (0.0, 0.1, -0.001, 1e-7)]
    ['0%', '10%', '−0.1%', '0.00001%']
    """
    if frequency == 0:
        return "0%"
    text = np.format_float_positional(100 * abs(frequency), precision=6, trim="-")
    return f"{'−' if frequency < 0 else ''}{text}%"


def by_rank(
    per_item: pd.DataFrame,
    column: str,
    *,
    title: str,
    log_y: bool = False,
    featured: Sequence[str] | None = FEATURED,
) -> go.Figure:
    """``bias`` or ``variance`` of each value by true rank (NDSS Figs. 2, 3; ranks sampled).

    Which methods are drawn: as in :func:`estimates_by_rank`.
    """
    _, order, ranks, groups, drawn = _by_rank_prelude(per_item, featured)
    traces = [
        _line(
            str(method),
            ranks,
            rows[column].to_numpy()[order],
            hover="rank %{x}<br>" + column + " %{y:.3g}",
        )
        for method, rows in groups
        if method in drawn
    ]
    # The line at 0 that add_hline would make (see _reference).
    zero = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": 0, "y1": 0}
    return assemble(
        traces,
        title=title,
        x="rank of the value",
        y=column,
        log_y=log_y,
        xaxis=rank_axis(ranks),
        shapes=[{**zero, "line": {"color": "grey", "width": 1}}] if column == "bias" else [],
    )


def mse_bars(
    summary: pd.DataFrame,
    *,
    base_mse: float | None,
    lower_bound: float | None,
    relative_to_base: bool = False,
    facet: str | None = None,
) -> go.Figure:
    """MSE per method with its spread over trials, and the reference lines.

    Parameters
    ----------
    summary : DataFrame
        ``method, mse, mse_std`` (and the ``facet`` column if given); in relative mode
        the paired ``mse_ratio_to_base, ratio_low, ratio_high`` when present.
    base_mse, lower_bound : float, optional
        Drawn as labelled horizontal lines (not in relative mode).
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
                _reference(base_mse, "analytic Base MSE (Eq. 3)", log_y=True, where="top left")
            )
            shown.append(float(base_mse))
        if lower_bound is not None:
            references.append(
                _reference(
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
        references.append(_reference(1.0, "Base", log_y=True, where="top right"))
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
        traces.append(_line(str(method), rows[x], rows[y], hover=x + " %{x:.3g}<br>%{y:.4g}"))
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


#: The most values the histogram chart draws.
TOP_VALUES = 50


def top_values(labels: Sequence[str], counts: Sequence[float] | NDArray[Any]) -> go.Figure:
    """The 50 most frequent values of a histogram, as bars (Your data).

    The title says how many are drawn: every value when there are 50 or fewer.
    """
    top = pd.DataFrame({"value": list(labels), "count": list(counts)})
    shown = min(TOP_VALUES, len(top))
    top = top.sort_values("count", ascending=False, kind="stable").head(shown)
    figure = go.Figure(go.Bar(x=top["value"], y=top["count"], marker_color=_COLOURS[0]))
    _white(figure)
    figure.update_layout(
        title=(
            f"The {shown} most frequent values"
            if shown < len(labels)
            else f"All {shown} value{'s' * (shown != 1)}, most frequent first"
        ),
        xaxis_title="value",
        yaxis_title="count",
        height=320,
        margin={"t": 40, "b": 40},
    )
    return figure


def _interval_error_y(table: pd.DataFrame) -> dict[str, Any]:
    """Error bars from each ``estimate`` down to ``low`` and up to ``high``."""
    return {
        "type": "data",
        "symmetric": False,
        "array": table["high"] - table["estimate"],
        "arrayminus": table["estimate"] - table["low"],
    }


def estimates_with_intervals(table: pd.DataFrame) -> go.Figure:
    """The 50 largest ``estimate`` values with their ``low``–``high`` intervals (Your data)."""
    top = table.sort_values("estimate", ascending=False, kind="stable").head(50)
    figure = go.Figure(
        go.Bar(
            x=top["value"],
            y=top["estimate"],
            marker_color=_COLOURS[6],
            error_y=_interval_error_y(top),
        )
    )
    _white(figure)
    figure.update_layout(
        title="Consistent estimates (50 largest) with 95% intervals",
        xaxis_title="value",
        yaxis_title="frequency",
        yaxis_tickformat=".2~%",
        height=360,
    )
    return figure


def poll_estimates(table: pd.DataFrame, method: str, *, base_only: bool = False) -> go.Figure:
    """A live poll's answer shares: ``method``'s estimate with its interval, and Base.

    ``table`` is :func:`ldpcore.collection.estimates.consistent_estimates_and_caveats`'s
    (``value, base_estimate, estimate, low, high``), drawn in option order: Base as
    markers (unbiased, possibly negative), the method as bars with their intervals.
    ``base_only``: Base alone, with the 0% and 100% lines it crosses (the lesson's
    second step: the noise before the fix).
    """
    style = method_style(method)
    base = method_style("Base")
    figure = go.Figure()
    # The options are the teacher's words, shown as typed: Plotly reads tags such as
    # <b> in labels and hover text, so those are given escaped (Plotly shows entities
    # as their characters) while the data keeps the text itself.
    shown = [plain_html(str(v)) for v in table["value"]]
    hover = "%{hovertext}: %{y:.0%}<extra>%{fullData.name}</extra>"
    if not base_only:
        figure.add_bar(
            x=table["value"],
            y=table["estimate"],
            name=f"{method} (with its 95% interval)",
            marker_color=style["color"],
            error_y=_interval_error_y(table),
            hovertext=shown,
            hovertemplate=hover,
        )
    figure.add_scatter(
        x=table["value"],
        y=table["base_estimate"],
        name="Base (unbiased; can be negative)",
        mode="markers",
        marker={"color": base["color"], "symbol": "diamond", "size": 11},
        hovertext=shown,
        hovertemplate=hover,
    )
    figure.update_xaxes(tickvals=list(table["value"]), ticktext=shown)
    if base_only:
        for edge in (0.0, 1.0):
            figure.add_hline(y=edge, line={"color": "#5F6B7A", "dash": "dot", "width": 1})
    _white(figure)
    figure.update_layout(
        title="The class's answers: Base, before post-processing"
        if base_only
        else f"The class's answers: {method} and Base",
        xaxis_title="option",
        yaxis_title="share of the class",
        yaxis_tickformat=".0%",
        height=380,
        legend={"orientation": "h", "y": -0.2},
        showlegend=True,
    )
    return figure


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
    _white(figure)
    figure.update_layout(
        title=f"{protocol}: error against ε",
        xaxis_title="ε",
        yaxis_title=f"{measure} (percentage points)",
        xaxis_type="log",
        yaxis_type="log",
        height=380,
    )
    return figure


def _axis_title(figure: go.Figure, axis: str) -> str:
    title = getattr(figure.layout, axis).title
    return str(title.text) if title is not None and title.text else ""


def _series(figure: go.Figure) -> list[Any]:
    """The traces a reader is told about: those in the legend (bands are left out)."""
    return [trace for trace in figure.data if trace.showlegend is not False]


def describe(figure: go.Figure) -> str:
    """A one-sentence text alternative for a chart: its title, what is drawn, its axes.

    Examples
    --------
    >>> figure = go.Figure(go.Bar(x=["a", "b"], y=[1, 2], name="count"))
    >>> _ = figure.update_layout(title="Counts", xaxis_title="value", yaxis_title="users")
    >>> describe(figure)
    'Chart "Counts": bars of "count" (2 points), users against value.'
    """
    title = figure.layout.title.text if figure.layout.title.text else "untitled"
    series = _series(figure)
    kinds = {"bar": "bars", "scatter": "lines"}
    kind = kinds.get(series[0].type, "marks") if series else "no data"
    names = [str(trace.name) for trace in series if trace.name]
    # Quoted: a series is named as its legend says, and a name such as "with the fake
    # users" read unquoted after "bars of" is not a sentence.
    quoted = [f'"{name}"' for name in names[:6]]
    shown = ", ".join(quoted) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    lengths = [len(trace.x) for trace in series if trace.x is not None]
    # Bars: every bar counts; lines: the points along one line.
    points = sum(lengths) if kind == "bars" else max(lengths, default=0)
    x, y = _axis_title(figure, "xaxis"), _axis_title(figure, "yaxis")
    what = f"{kind} of {shown}" if shown else kind
    axes = f", {y} against {x}" if x and y else ""
    unit = "point" if points == 1 else "points"
    return f'Chart "{title}": {what} ({points:,} {unit}){axes}.'


def figure_table(figure: go.Figure) -> pd.DataFrame:
    """The data behind a chart, one row per drawn point: ``series, x, y``.

    Real values where the chart draws transformed ones (a symmetric-log axis keeps them
    in the trace's ``meta``); error bars as ``low`` and ``high`` where drawn.
    """
    frames = []
    for trace in _series(figure):
        if trace.x is None or trace.y is None:
            continue
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        y = np.asarray(meta.get("y", trace.y), dtype=object)
        frame = pd.DataFrame({"series": trace.name or "", "x": list(trace.x), "y": list(y)})
        error = trace.error_y if trace.type in {"bar", "scatter"} else None
        if error is not None and error.array is not None:
            values = np.asarray(trace.y, dtype=float)
            upper = np.asarray(error.array, dtype=float)
            lower = np.asarray(error.arrayminus if error.arrayminus is not None else upper, float)
            frame["low"], frame["high"] = values - lower, values + upper
        frames.append(frame)
    if not frames:
        return pd.DataFrame({"series": [], "x": [], "y": []})
    return pd.concat(frames, ignore_index=True)
