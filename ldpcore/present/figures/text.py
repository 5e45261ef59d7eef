"""The charts' text alternatives, for screen readers and for readers of numbers.

A one-sentence description (:func:`describe`) and the data table behind every figure
(:func:`figure_table`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.present.figures.style import MUTED_GROUP


def _axis_title(figure: go.Figure, axis: str) -> str:
    title = getattr(figure.layout, axis).title
    return str(title.text) if title is not None and title.text else ""


def legend_traces(figure: go.Figure) -> list[Any]:
    """The traces a reader is told about: those in the legend, and the muted ones.

    Muted methods are named on hover; bands and the muted methods' one legend entry,
    which draws nothing, are left out.
    """
    return [
        trace
        for trace in figure.data
        if (trace.showlegend is not False or trace.legendgroup == MUTED_GROUP)
        and not _draws_nothing(trace)
    ]


def _draws_nothing(trace: Any) -> bool:
    return trace.x is not None and len(trace.x) == 1 and trace.x[0] is None


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
    series = legend_traces(figure)
    kinds = {"bar": "bars", "scatter": "lines"}
    kind = kinds.get(series[0].type, "marks") if series else "no data"
    if kind == "lines" and series[0].mode == "markers":
        kind = "dots"
    names = [str(trace.name) for trace in series if trace.name]
    # Quoted: a series is named as its legend says, and a name such as "with the fake
    # users" read unquoted after "bars of" is not a sentence.
    quoted = [f'"{name}"' for name in names[:6]]
    shown = ", ".join(quoted) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    lengths = [len(trace.x) for trace in series if trace.x is not None]
    # Bars and dots: every one counts; lines: the points along one line.
    points = sum(lengths) if kind in {"bars", "dots"} else max(lengths, default=0)
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
    for trace in legend_traces(figure):
        if trace.x is None or trace.y is None:
            continue
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        # A row chart (horizontal bars, dots beside them) names its rows on the y axis.
        across = trace.orientation == "h" or (
            trace.type == "scatter"
            and trace.error_x is not None
            and trace.error_x.array is not None
        )
        category, value = (trace.y, trace.x) if across else (trace.x, trace.y)
        y = np.asarray(meta.get("y", value), dtype=object)
        frame = pd.DataFrame({"series": trace.name or "", "x": list(category), "y": list(y)})
        error = (
            (trace.error_x if across else trace.error_y)
            if trace.type in {"bar", "scatter"}
            else None
        )
        if error is not None and error.array is not None:
            values = np.asarray(value, dtype=float)
            upper = np.asarray(error.array, dtype=float)
            lower = np.asarray(error.arrayminus if error.arrayminus is not None else upper, float)
            frame["low"], frame["high"] = values - lower, values + upper
        frames.append(frame)
    if not frames:
        return pd.DataFrame({"series": [], "x": [], "y": []})
    return pd.concat(frames, ignore_index=True)
