"""Charts by rank: a method's estimate, bias or error per value, by the value's rank.

Values are sorted by their true frequency; the axis helpers the charts share (rank
sampling, the symmetric log scale, percent labels) live here too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from ldpcore.present.figures.style import (
    assemble,
    emphasis,
    method_line,
    method_style,
    muted_entry,
)

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
#: (tests/app/test_browser.py; benchmarks/README.md). Pages offer to draw them all.
FEATURED = ("Base", "Norm-Sub", "Base-Cut", "PowerNS")
#: Up to this many methods, every one is drawn.
DRAW_ALL_UP_TO = 6


#: Up to this many methods drawn, each estimate line carries its 95% band: the featured
#: four and a recommended method beside them.
BANDS_UP_TO = 5


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
    per_item: pd.DataFrame, featured: Sequence[str] | None, recommended: str | None = None
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
    # A chart never hides the method its page recommends.
    if featured is not None and recommended is not None:
        featured = tuple(dict.fromkeys((*featured, recommended)))
    return truth, order, shown + 1, groups, _drawn([str(m) for m in groups.groups], featured)


def _drawn(methods: Sequence[str], featured: Sequence[str] | None) -> list[str]:
    if featured is None or len(methods) <= DRAW_ALL_UP_TO:
        return list(methods)
    return [m for m in methods if m in featured] or list(methods)


#: A by-rank chart's value axis, with its unit (the scale closes it).
BY_RANK_AXES = {"bias": "bias (frequency", "variance": "variance (frequency²"}


def _emphasised(groups: Any, drawn: Sequence[str], recommended: str | None) -> frozenset[str]:
    """The drawn methods kept in their own look (:func:`emphasis`), lowest error first.

    The recommended one always keeps its look.
    """
    error = {
        str(m): float(np.mean(rows["bias"].to_numpy() ** 2 + rows["variance"].to_numpy()))
        for m, rows in groups
        if m in drawn
    }
    return emphasis(sorted(error, key=error.__getitem__), recommended=recommended)


def _muted_legend(drawn: Any, strong: frozenset[str]) -> list[dict[str, Any]]:
    """The one legend entry of the muted lines, if any."""
    muted = [m for m in drawn if m not in strong]
    return [muted_entry(len(muted))] if muted else []


def estimates_by_rank(
    per_item: pd.DataFrame,
    *,
    log_y: bool = True,
    featured: Sequence[str] | None = FEATURED,
    recommended: str | None = None,
) -> go.Figure:
    """Mean estimate of each value against the truth, values by true rank (NDSS Fig. 1).

    Large domains are drawn at the ranks of :func:`rank_sample`. With more than
    :data:`DRAW_ALL_UP_TO` methods only the ``featured`` ones are drawn (``None``: all;
    if none of them is present, all); ``recommended`` is drawn too, in its own look.

    With ``log_y`` the axis is a symmetric log (:func:`symlog`): logarithmic above a
    small threshold, linear through zero, and mirrored below it, so the negative
    estimates of Base's tail (what post-processing is about) are drawn, not dropped.
    Ticks and hover show the real frequencies.

    Up to :data:`BANDS_UP_TO` methods drawn, each carries a band: mean ± 1.96 standard
    deviations of its single-trial estimates, where about 95% of one collection's
    estimates fall (it hides with its method in the legend).
    """
    truth, order, ranks, groups, drawn = _by_rank_prelude(per_item, featured, recommended)
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
    strong = _emphasised(groups, drawn, recommended)
    for method, mean in means.items():
        if len(means) <= BANDS_UP_TO:
            low, high = mean - spreads[method], mean + spreads[method]
            traces.append(_band(method, ranks, scaled(low), scaled(high)))
        traces.append(
            method_line(
                method,
                ranks,
                scaled(mean),
                customdata=100 * mean,
                meta={"y": mean.tolist()},
                hover="rank %{x}<br>estimate %{customdata:.3g}%",
                muted=method not in strong,
            )
        )
    traces.extend(_muted_legend(means, strong))
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
    recommended: str | None = None,
) -> go.Figure:
    """``bias`` or ``variance`` of each value by true rank (NDSS Figs. 2, 3; ranks sampled).

    Which methods are drawn: as in :func:`estimates_by_rank`.
    """
    _, order, ranks, groups, drawn = _by_rank_prelude(per_item, featured, recommended)
    strong = _emphasised(groups, drawn, recommended)
    traces = [
        method_line(
            str(method),
            ranks,
            rows[column].to_numpy()[order],
            hover="rank %{x}<br>" + column + " %{y:.3g}",
            muted=method not in strong,
        )
        for method, rows in groups
        if method in drawn
    ]
    traces.extend(_muted_legend(drawn, strong))
    # The line at 0 that add_hline would make (see reference_entries).
    zero = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": 0, "y1": 0}
    return assemble(
        traces,
        title=title,
        x="rank of the value",
        y=BY_RANK_AXES.get(column, column) + (", log scale)" if log_y else ")"),
        log_y=log_y,
        xaxis=rank_axis(ranks),
        shapes=[{**zero, "line": {"color": "grey", "width": 1}}] if column == "bias" else [],
    )
