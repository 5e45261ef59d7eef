"""Charts of one collection's frequencies.

The top values of a histogram, estimates with their intervals, and the class poll's
answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from ldpcore.formats import plain_html
from ldpcore.present.figures.style import (
    LEGEND_ABOVE,
    TITLE_AT_TOP,
    TITLE_PAD,
    method_style,
    on_white,
)

#: The most values the histogram chart draws.
TOP_VALUES = 50

#: A histogram's bars, which are data, not a method: a slate no method is drawn in.
DATA_COLOUR = "rgb(90,110,135)"


#: The histogram's plot area in pixels, the characters a tick label keeps, and the pixels
#: each character of a rotated label takes below the plot.
PLOT_HEIGHT, LABEL_CHARS, LABEL_PX = 280, 18, 6


def top_values(labels: Sequence[str], counts: Sequence[float] | NDArray[Any]) -> go.Figure:
    """The 50 most frequent values of a histogram, as bars (Your data).

    The title says how many are drawn: every value when there are 50 or fewer.
    """
    top = pd.DataFrame({"value": list(labels), "count": list(counts)})
    shown = min(TOP_VALUES, len(top))
    top = top.sort_values("count", ascending=False, kind="stable").head(shown)
    names = [str(v) for v in top["value"]]
    figure = go.Figure(
        go.Bar(
            x=names,
            y=top["count"],
            marker_color=DATA_COLOUR,
            hovertext=names,
            hovertemplate="%{hovertext}: %{y:,}<extra></extra>",
        )
    )
    on_white(figure)
    figure.update_layout(
        title=(
            f"The {shown} most frequent values"
            if shown < len(labels)
            else f"All {shown} value{'s' * (shown != 1)}, most frequent first"
        ),
        xaxis_title="value",
        yaxis_title="count",
    )
    return _labelled(figure, names)


def _labelled(figure: go.Figure, names: Sequence[str]) -> go.Figure:
    """The bars' value labels as ticks, the plot area kept whatever their length.

    A tick shows at most :data:`LABEL_CHARS` of a label (the bar's hover has it whole),
    and the figure grows by the labels' height, so long rotated labels never eat the plot.
    """
    ticks = [n if len(n) <= LABEL_CHARS else n[: LABEL_CHARS - 1] + "…" for n in names]
    longest = max((len(t) for t in ticks), default=1)
    figure.update_xaxes(type="category", tickvals=list(names), ticktext=ticks, automargin=True)
    figure.update_layout(height=PLOT_HEIGHT + LABEL_PX * longest, margin={"t": 40, "b": 40})
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
    top = table.sort_values("estimate", ascending=False, kind="stable").head(TOP_VALUES)
    names = [str(v) for v in top["value"]]
    figure = go.Figure(
        go.Bar(
            x=names,
            y=top["estimate"],
            marker_color=DATA_COLOUR,
            error_y=_interval_error_y(top),
            hovertext=names,
            hovertemplate="%{hovertext}: %{y:.2~%}<extra></extra>",
        )
    )
    on_white(figure)
    figure.update_layout(
        title=f"Consistent estimates ({len(top)} largest) with 95% intervals",
        xaxis_title="value",
        yaxis_title="frequency (%)",
        yaxis_tickformat=".2~%",
    )
    return _labelled(figure, names)


#: The wall's chart: type read from the back row, as tall as the teacher's.
WALL_FONT, WALL_HEIGHT = 22, 380


def poll_estimates(
    table: pd.DataFrame, method: str, *, base_only: bool = False, wall: bool = False
) -> go.Figure:
    """A live poll's answer shares: ``method``'s estimate with its interval, and Base.

    ``table`` is :func:`ldpcore.collection.estimates.consistent_estimates_and_caveats`'s
    (``value, base_estimate, estimate, low, high``), drawn in option order: Base as
    markers (unbiased, possibly negative), the method as bars with their intervals.
    ``base_only``: Base alone, with the 0% and 100% lines it crosses (the lesson's
    second step: the noise before the fix). ``wall``: the projector's, its text as large
    as the rest of the wall's.
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
    on_white(figure)
    figure.update_layout(
        title="The class's answers: Base, before post-processing"
        if base_only
        else f"The class's answers: {method} and Base",
        xaxis_title="option",
        yaxis_title="share of the class",
        yaxis_tickformat=".0%",
        showlegend=True,
    )
    return _poll_layout(figure, wall=wall)


def _poll_layout(figure: go.Figure, *, wall: bool, legend: bool = True) -> go.Figure:
    """The class charts' one layout.

    The title at the top, the legend under it, and on the wall type read from the back
    row (the wall's chart text as large as the rest of the wall's).
    """
    size = WALL_FONT if wall else 14
    height = WALL_HEIGHT if wall else 380
    under_title = TITLE_PAD + size + 6 + 10  # the title's pad and its line
    legend_row = (size + 12) if legend else 0
    figure.update_layout(
        title={**TITLE_AT_TOP, "font": {"size": size + 6}},
        legend={**LEGEND_ABOVE, "y": 1 - under_title / height},
        height=height,
        margin={"t": under_title + legend_row + 10, "b": 40 + size},
        font={"size": size},
    )
    return figure


def poll_reports(
    options: Sequence[str], support: Sequence[int] | NDArray[Any], *, wall: bool = False
) -> go.Figure:
    """The lesson's first step: how many randomized reports support each option.

    Counts, not estimates: a report is a randomized answer, so these bars are what the
    server holds before any estimate (under GRR a report supports one option; under OUE
    or OLH it can support several). Bars from 0 on a linear axis, in the data's colour.
    """
    shown = [plain_html(str(v)) for v in options]
    figure = go.Figure(
        go.Bar(
            x=list(options),
            y=list(support),
            name="reports supporting the option",
            marker_color=DATA_COLOUR,
            text=[f"{int(count):,}" for count in support],
            textposition="outside",
            hovertext=shown,
            hovertemplate="%{hovertext}: %{y:,} reports<extra></extra>",
        )
    )
    figure.update_xaxes(tickvals=list(options), ticktext=shown)
    figure.update_yaxes(rangemode="tozero")
    on_white(figure)
    figure.update_layout(
        title="The randomized reports: how many support each option",
        xaxis_title="option",
        yaxis_title="reports",
        showlegend=False,
    )
    return _poll_layout(figure, wall=wall, legend=False)
