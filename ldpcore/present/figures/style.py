"""The charts' one look, which every chart module builds on.

Each method's colour, dash and marker (:func:`method_style`), the white template, the
figure built in one validated construction (:func:`assemble`) and the labelled
reference line: a method keeps one style on every chart.
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from ldpcore.postprocess import method_names

#: Okabe & Ito's colour-universal-design palette (2008) without its black, which the
#: truth and the reference lines use: every pair stays apart for protanopes and
#: deuteranopes (tests/present/test_viz.py simulates both: CIELAB ΔE ≥ 15 for any two methods
#: drawn with the same dash; the former Plotly "Safe" + Dark2 mix had a pair at 6.8).
COLOURS = (
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
    cycle = len(COLOURS) * len(_DASHES)
    return {
        "color": COLOURS[index % len(COLOURS)],
        "dash": _DASHES[index % len(_DASHES)],
        "marker": _MARKERS[(index + index // cycle) % len(_MARKERS)],
    }


def method_line(method: str, x: Any, y: Any, *, hover: str, **extra: Any) -> dict[str, Any]:
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
