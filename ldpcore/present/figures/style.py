"""The charts' one look, which every chart module builds on.

Each method's colour, dash and marker (:func:`method_style`), Base's own look as the
reference, which methods a chart draws in their colours and which it mutes
(:func:`emphasis`), how the recommended one stands out, the white template, the figure
built in one validated construction (:func:`assemble`) and the labelled reference line:
a method keeps one look on every chart, and no two series drawn in colour look alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from ldpcore.postprocess import method_names

#: Okabe & Ito's colour-universal-design palette (2008) without its black, which the
#: truth uses, and its yellow, which a white page washes out: every pair stays apart for
#: protanopes and deuteranopes (tests/present/test_viz.py simulates both: CIELAB ΔE ≥ 15
#: for any two methods drawn with the same dash).
COLOURS = (
    "rgb(0,114,178)",  # blue
    "rgb(213,94,0)",  # vermillion
    "rgb(0,158,115)",  # bluish green
    "rgb(204,121,167)",  # reddish purple
    "rgb(230,159,0)",  # orange
    "rgb(86,180,233)",  # sky blue
)
# Five dashes beside six colours: coprime, so no (colour, dash) pair repeats within 30.
_DASHES = ("solid", "dash", "dot", "dashdot", "longdash")
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


#: The reference every method is compared with. Base has a look no other method takes
#: (a dark grey, dashed, open circles), so it reads as the yardstick on every chart.
REFERENCE = "Base"
REFERENCE_STYLE = {"color": "rgb(90,90,90)", "dash": "dash", "marker": "circle-open"}
#: Methods a chart does not single out: one light grey, thin, named on hover.
MUTED = "rgb(195,195,195)"
#: The legend group of the muted methods (the text alternative still lists them).
MUTED_GROUP = "muted"
#: The most methods a chart draws in their own colours (Base and five of the palette's
#: six): more than the eye tells apart at a glance become :data:`MUTED`.
DISTINCT = 6
#: How the recommended method stands out wherever it is drawn: a thicker line, a dot
#: outlined in black, a row on a pale yellow band, and its name in bold with a star.
RECOMMENDED_WIDTH = 4
RECOMMENDED_OUTLINE = "black"
RECOMMENDED_FILL = "rgba(240,200,60,0.22)"


def method_style(method: str) -> dict[str, str]:
    """The fixed ``colour``, ``dash`` and ``marker`` of a method, by its registry position.

    Base takes :data:`REFERENCE_STYLE`. The others cycle colour and dash together (6
    and 5 are coprime, so the pair repeats only after 30 methods); the marker then also
    shifts once per 30, so the triple stays unique for 6 · 5 · 13 = 390 methods. A
    method outside the registry takes the next free position.
    """
    if method == REFERENCE:
        return dict(REFERENCE_STYLE)
    names = [name for name in method_names() if name != REFERENCE]
    index = names.index(method) if method in names else len(names)
    cycle = len(COLOURS) * len(_DASHES)
    return {
        "color": COLOURS[index % len(COLOURS)],
        "dash": _DASHES[index % len(_DASHES)],
        "marker": _MARKERS[(index + index // cycle) % len(_MARKERS)],
    }


def emphasis(methods: Sequence[str], *, recommended: str | None = None) -> frozenset[str]:
    """The methods a chart draws in their own look; the others it mutes.

    ``methods`` come in the order the chart cares about (lowest error first, say). Base
    and the recommended method always keep their look; then each next method does while
    fewer than :data:`DISTINCT` do and its colour is not yet taken, so no two series
    drawn in colour share one (a chart of bars or dots shows no dash).

    Examples
    --------
    >>> sorted(emphasis(["Norm-Sub", "Base", "PowerNS"]))
    ['Base', 'Norm-Sub', 'PowerNS']
    """
    first = [m for m in (REFERENCE, recommended) if m is not None and m in methods]
    strong: list[str] = []
    colours: set[str] = set()
    for method in [*first, *(m for m in methods if m not in first)]:
        colour = method_style(method)["color"]
        if method in first or (len(strong) < DISTINCT and colour not in colours):
            strong.append(method)
            colours.add(colour)
    return frozenset(strong)


def method_line(
    method: str,
    x: Any,
    y: Any,
    *,
    hover: str,
    muted: bool = False,
    recommended: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """A method's line as a plain trace (validated once, when its figure is built).

    ``muted``: drawn thin in :data:`MUTED`, out of the legend, named on hover (see
    :func:`emphasis`); ``recommended``: drawn thicker.
    """
    style = method_style(method)
    colour = MUTED if muted else style["color"]
    width = 1 if muted else RECOMMENDED_WIDTH if recommended else 2
    trace = {
        "type": "scatter",
        "x": x,
        "y": y,
        "name": method,
        "legendgroup": method,
        "mode": "lines+markers" if len(x) <= 40 and not muted else "lines",
        "line": {"color": colour, "dash": "solid" if muted else style["dash"], "width": width},
        "marker": {"symbol": style["marker"], "color": colour, "size": 6},
        "hovertemplate": hover + "<extra>" + method + "</extra>",
        **extra,
    }
    if muted:
        # One legend group for the muted lines: their one entry shows or hides them all.
        trace.update(showlegend=False, legendgroup=MUTED_GROUP)
    return trace


def muted_entry(count: int) -> dict[str, Any]:
    """The one legend entry that stands for ``count`` muted methods (no data drawn)."""
    return {
        "type": "scatter",
        "x": [None],
        "y": [None],
        "name": f"{count} other methods (grey: hover to name)",
        "mode": "lines",
        "line": {"color": MUTED, "width": 1},
        "hoverinfo": "skip",
        "legendgroup": MUTED_GROUP,
    }


#: The lower bound's name on a chart: it holds only on average over a prior.
LOWER_BOUND_NAME = "lower bound (averaged over a prior)"
#: The axis of an MSE of frequencies, with its unit and scale.
MSE_AXIS = "mean squared error (frequency², log scale)"

#: Where the title and the legend start, as a share of the figure's width: one left edge.
EDGE = 0.02
#: The pixels above every chart's title.
TITLE_PAD = 14
#: The title's place on every chart: the figure's top edge.
TITLE_AT_TOP = {
    "x": EDGE,
    "xanchor": "left",
    "xref": "container",
    "y": 1,
    "yref": "container",
    "yanchor": "top",
    "pad": {"t": TITLE_PAD},
}
#: The legend's place on every chart: a row above the plot, wrapping on a phone.
LEGEND_ABOVE = {
    "orientation": "h",
    # Across the plot's width, where Plotly wraps its rows (across the figure's, the
    # rows ran past the right edge); its height is the figure's, under the title.
    "yref": "container",
    "x": 0,
    "xanchor": "left",
    "yanchor": "top",
}
#: A legend row's height in pixels, and the entries a row holds on a phone.
LEGEND_ROW, LEGEND_PER_ROW = 22, 3
#: Plotly's height of a figure that sets none, in pixels.
DEFAULT_HEIGHT = 450


def on_white(figure: go.Figure) -> go.Figure:
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


#: A subtitle's line height, and the characters a line holds on a phone's chart.
SUBTITLE_LINE, SUBTITLE_WIDTH = 14, 58


def wrapped(text: str, width: int = SUBTITLE_WIDTH) -> str:
    """``text`` broken into lines of at most ``width`` characters (Plotly wraps no text).

    Examples
    --------
    >>> wrapped("for every value's frequency, with 1,000,000 users", 30)
    "for every value's frequency,<br>with 1,000,000 users"
    """
    import textwrap  # noqa: PLC0415 (the standard library, rarely needed)

    return "<br>".join(textwrap.wrap(text, width)) or text


def assemble(
    traces: list[dict[str, Any]],
    *,
    title: str | dict[str, Any],
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
    heading: dict[str, Any] = title if isinstance(title, dict) else {"text": title}
    # The title and its subtitle at the figure's top, then the legend under them across
    # the whole figure (whatever the row labels' width), then the plot: on a phone a
    # legend as wide as the plot became a column over the title.
    under_title = 40
    if "subtitle" in heading:
        lines = wrapped(heading["subtitle"]["text"])
        heading = {**heading, "subtitle": {**heading["subtitle"], "text": lines}}
        under_title += 18 + SUBTITLE_LINE * lines.count("<br>")
    height = layout.get("height", DEFAULT_HEIGHT)
    legend = {
        **LEGEND_ABOVE,
        "y": 1 - under_title / height,
        "title": {"text": "method"},
        **layout.pop("legend", {}),
    }
    # Room for the legend's rows, counted for a phone's width (about three entries a row).
    entries = sum(1 for t in traces if t.get("showlegend", True) and t.get("name"))
    rows = max(1, math.ceil(entries / LEGEND_PER_ROW)) if layout.get("showlegend", True) else 0
    top = under_title + LEGEND_ROW * rows + 10
    margin = {"l": 60, "r": 20, "t": top, "b": 50, **layout.pop("margin", {})}
    y_axis: dict[str, Any] = {"title": {"text": y}}
    if log_y:
        y_axis.update(type="log", exponentformat="power")
    figure = go.Figure(
        data=traces,
        layout={
            "title": {**TITLE_AT_TOP, **heading},
            "xaxis": {"title": {"text": x}, **(xaxis or {})},
            "yaxis": {**y_axis, **(yaxis or {})},
            "legend": legend,
            "margin": margin,
            "hovermode": "closest",
            **layout,
        },
    )
    return on_white(figure)


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
    shape, annotation = reference_entries(y, text, log_y=log_y, dash=dash, color=color, where=where)
    figure.add_shape(shape)
    figure.add_annotation(annotation)


def reference_entries(
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


def row_band(row: int) -> dict[str, Any]:
    """The pale band behind the recommended row of a row chart (rows by position on the axis)."""
    return {
        "type": "rect",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": row - 0.5,
        "y1": row + 0.5,
        "fillcolor": RECOMMENDED_FILL,
        "line": {"width": 0},
        "layer": "below",
    }
