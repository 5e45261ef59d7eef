"""One visual grammar, checked on every chart that draws methods, for every method set.

The builders are found in the figures package, not listed by hand: a new chart that
returns a figure must be drawn here (``METHOD_CHARTS``) or say why it draws no methods
(``OTHER_CHARTS``). The method sets come from the methods' registry, so a new method is
drawn on every chart without being named.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.sweeps import sweep
from ldpcore.experiments.trials import run
from ldpcore.postprocess import default_method_names, method_names
from ldpcore.present import figures
from ldpcore.present.figures import style
from ldpcore.present.figures.text import legend_traces

#: Method sets, from the registry: every method that runs on OLH, the default "all",
#: a few, none of the featured ones, and one without Base.
METHOD_SETS = {
    "every one on OLH": tuple(method_names("OLH")),
    "the default": tuple(default_method_names()),
    "Base and two": ("Base", *method_names("OLH")[-2:]),
    "no featured": tuple(m for m in method_names("OLH") if m not in figures.FEATURED),
    "without Base": tuple(m for m in method_names("OLH") if m != "Base")[:5],
}


@functools.cache
def _run(methods: tuple[str, ...]) -> Any:
    config = ExperimentConfig(
        dataset="zipf:d=32,s=1.5", n=4000, protocol="OLH", epsilon=1.0, trials=4, methods=methods
    )
    return run(config)


@functools.cache
def _sweep(methods: tuple[str, ...]) -> pd.DataFrame:
    config = ExperimentConfig(
        dataset="zipf:d=16,s=1.5", n=2000, protocol="OLH", epsilon=1.0, trials=3, methods=methods
    )
    return sweep(config, "epsilon", [0.5, 2.0])


def _protocols(methods: tuple[str, ...]) -> pd.DataFrame:
    config = ExperimentConfig(
        dataset="zipf:d=16,s=1.5", n=2000, protocol="OLH", epsilon=1.0, trials=3, methods=methods
    )
    return sweep(config, "protocol", ["GRR", "OLH"])


def _best(methods: tuple[str, ...]) -> str | None:
    return next((m for m in methods if m != "Base"), None)


#: Every chart builder that draws methods, each from a real run of a method set.
METHOD_CHARTS: dict[str, Callable[[tuple[str, ...]], go.Figure]] = {
    "error_breakdown": lambda m: figures.error_breakdown(_run(m).summary, recommended=_best(m)),
    "mse_points": lambda m: figures.mse_points(
        _run(m).summary, base_mse=None, lower_bound=None, recommended=_best(m)
    ),
    "mse_points by protocol": lambda m: figures.mse_points(
        _protocols(m), base_mse=None, lower_bound=None, facet="protocol"
    ),
    "estimates_by_rank": lambda m: figures.estimates_by_rank(_run(m).per_item, featured=None),
    "by_rank": lambda m: figures.by_rank(
        _run(m).per_item, "variance", title="Variance by rank", log_y=True, featured=None
    ),
    "curves": lambda m: figures.curves(
        _sweep(m), "epsilon", title="MSE against ε", x_title="ε", y_title=figures.MSE_AXIS
    ),
    "error_against_epsilon": lambda m: figures.error_against_epsilon(
        _sweep(m), target_pp=1.0, protocol="OLH"
    ),
}
#: Builders that draw no methods (or one, in its own look), and what they draw instead.
OTHER_CHARTS = {
    "top_values": "an upload's histogram: data, not a method",
    "epsilon_per_protocol": "one row per protocol, Base's ε and a method's (test_viz)",
    "estimates_with_intervals": "one method's estimates with their intervals",
    "poll_estimates": "the class's poll: one method beside Base",
    "poll_reports": "the class's randomized reports per option: data, not a method",
    "range_curves": "protocol · method entries of a range run, a chart of its own",
    "attack_gains": "one bar per method, each named on its axis; the honest run in grey",
    "attack_top_k": "one bar per method, each named on its axis",
    "spending_figure": "plans of collecting again, not methods",
    "error_figure": "plans of collecting again, not methods",
    "averaging_figure": "plans of collecting again, not methods",
}


def _builders() -> set[str]:
    """Every public function of the figures package that returns a figure."""
    found = set()
    for info in pkgutil.iter_modules(figures.__path__):
        module = importlib.import_module(f"{figures.__name__}.{info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("_") or function.__module__ != module.__name__:
                continue
            if module is style:  # the grammar itself, which every builder uses
                continue
            if "Figure" in str(inspect.signature(function).return_annotation):
                found.add(name)
    return found


def test_every_chart_builder_is_checked_or_says_why_not() -> None:
    checked = {name.split()[0] for name in METHOD_CHARTS}
    assert _builders() - checked - set(OTHER_CHARTS) == set()
    assert set(OTHER_CHARTS) <= _builders(), "a chart said to exist is not there"


def _colour(trace: Any) -> str | None:
    if trace.type == "bar":
        return trace.marker.color if isinstance(trace.marker.color, str) else None
    if trace.mode == "markers":
        return trace.marker.color
    return trace.line.color


def _method_traces(figure: go.Figure) -> list[Any]:
    names = set(method_names())
    return [t for t in legend_traces(figure) if t.name in names]


def _muted(trace: Any) -> bool:
    return trace.legendgroup == style.MUTED_GROUP


CASES = [(chart, name) for chart in METHOD_CHARTS for name in METHOD_SETS]


@pytest.mark.parametrize(("chart", "methods"), CASES)
def test_each_method_keeps_its_look_and_no_two_drawn_in_colour_look_alike(
    chart: str, methods: str
) -> None:
    figure = METHOD_CHARTS[chart](METHOD_SETS[methods])
    strong = [t for t in _method_traces(figure) if not _muted(t)]
    for trace in strong:
        assert _colour(trace) == figures.method_style(trace.name)["color"], (chart, trace.name)
    colours = [_colour(t) for t in strong]
    assert len(colours) == len(set(colours)), (chart, methods, colours)
    assert len(strong) <= style.DISTINCT + 1  # Base, the recommended and the distinct
    if "Base" in [t.name for t in _method_traces(figure)]:
        assert "Base" in [t.name for t in strong], "Base is the reference, never muted"
    muted = [t for t in _method_traces(figure) if _muted(t)]
    for trace in muted:
        assert _colour(trace) == style.MUTED and trace.hovertemplate, (chart, trace.name)
    if muted:  # one legend entry names them; none scrolls
        entries = [t for t in figure.data if t.legendgroup == style.MUTED_GROUP and t.x[0] is None]
        assert len(entries) == 1 and str(len(muted)) in entries[0].name


def _value_axes(figure: go.Figure) -> list[tuple[str, Any]]:
    """The axes that carry numbers (not the categories a chart's rows or bars name)."""
    axes = []
    for name in ("xaxis", "yaxis"):
        axis = getattr(figure.layout, name)
        letter = name[0]
        values = [getattr(t, letter) for t in figure.data if getattr(t, letter) is not None]
        numeric = any(
            np.issubdtype(np.asarray(v).dtype, np.number)
            for v in values
            if len(v) and v[0] is not None
        )
        if numeric or axis.type == "log":
            axes.append((name, axis))
    return axes


@pytest.mark.parametrize("chart", list(METHOD_CHARTS))
def test_no_bar_on_a_log_axis_and_every_axis_says_its_unit(chart: str) -> None:
    """A log axis gets dots or lines; every axis of numbers is titled, and one of values
    (not ε, n or ranks) says its unit or scale in brackets."""
    figure = METHOD_CHARTS[chart](METHOD_SETS["every one on OLH"])
    for trace in figure.data:
        if trace.type == "bar":
            value_axis = figure.layout.xaxis if trace.orientation == "h" else figure.layout.yaxis
            assert value_axis.type != "log", f"{chart}: a bar on a log axis"
    for name, axis in _value_axes(figure):
        title = axis.title.text or ""
        assert title, f"{chart}: the {name} has no title"
        counts = title in {"ε", "rank of the value", "users n", "protocol"}
        assert counts or "(" in title, f"{chart}: {name} {title!r} says no unit"


def test_the_breakdown_is_linear_from_zero_and_marks_base_and_the_recommended() -> None:
    figure = METHOD_CHARTS["error_breakdown"](METHOD_SETS["every one on OLH"])
    assert figure.layout.xaxis.type in {None, "linear", "-"} and figure.layout.xaxis.range[0] == 0
    ticks = dict(zip(figure.layout.yaxis.tickvals, figure.layout.yaxis.ticktext, strict=True))
    assert ticks["Base"] == "Base (reference)"
    best = _best(METHOD_SETS["every one on OLH"])
    assert ticks[best] == f"<b>{best} ★</b>"
    band = [s for s in figure.layout.shapes if s.type == "rect"]
    assert len(band) == 1 and band[0].fillcolor == style.RECOMMENDED_FILL
    rows = list(figure.layout.yaxis.categoryarray)
    assert band[0].y0 < rows.index(best) < band[0].y1


def test_the_lower_bound_is_left_out_where_a_method_beats_it() -> None:
    """A line above measured errors reads as "impossible": drawn only under them all."""
    summary = _run(METHOD_SETS["every one on OLH"]).summary
    best = float(summary["mse"].min())
    above = figures.mse_points(summary, base_mse=None, lower_bound=2 * best)
    below = figures.mse_points(summary, base_mse=None, lower_bound=best / 2)
    texts = [[a.text for a in f.layout.annotations] for f in (above, below)]
    assert not any("lower bound" in t for t in texts[0])
    assert any("averaged over a prior" in t for t in texts[1])
