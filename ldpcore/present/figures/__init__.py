"""Plotly figures: data in, ``go.Figure`` out, one chart family per module.

* :mod:`~ldpcore.present.figures.style` — each method's colour, dash and marker, the
  white template, :func:`assemble` (one validated construction) and the labelled
  reference line; every other module builds on it;
* :mod:`~ldpcore.present.figures.ranks` — estimates, bias or error per value, by the
  value's true rank, and the rank and symmetric-log axes;
* :mod:`~ldpcore.present.figures.error_bars` — the comparison every results page opens
  on (each method's MSE against Base, split into bias² and variance), and MSE as dots on
  a log axis;
* :mod:`~ldpcore.present.figures.sweeps` — curves over a swept setting, and Choose ε's
  error against ε;
* :mod:`~ldpcore.present.figures.histograms` — one collection's frequencies: the top
  values, estimates with intervals, the class poll;
* :mod:`~ldpcore.present.figures.attacks` — fake users' gain and top-k, honest beside;
* :mod:`~ldpcore.present.figures.rounds` — collecting again: ε spent and error by round;
* :mod:`~ldpcore.present.figures.ranges` — ranges of growing length, flat and hierarchical;
* :mod:`~ldpcore.present.figures.text` — every chart's text alternative and data table.

The names most pages use are re-exported here (``figures.error_breakdown``).
"""

from __future__ import annotations

from ldpcore.present.figures.error_bars import (
    BIAS_COLOUR,
    VARIANCE_COLOUR,
    error_breakdown,
    mse_points,
)
from ldpcore.present.figures.histograms import (
    TOP_VALUES,
    estimates_with_intervals,
    poll_estimates,
    poll_reports,
    top_values,
)
from ldpcore.present.figures.ranges import range_curves
from ldpcore.present.figures.ranks import (
    BANDS_UP_TO,
    DRAW_ALL_UP_TO,
    FEATURED,
    MAX_RANKS_DRAWN,
    by_rank,
    estimates_by_rank,
    percent_label,
    rank_axis,
    rank_sample,
    symlog,
    symlog_ticks,
)
from ldpcore.present.figures.style import (
    LOWER_BOUND_NAME,
    MSE_AXIS,
    assemble,
    emphasis,
    method_style,
    reference_line,
)
from ldpcore.present.figures.sweeps import (
    below_lower_bound,
    curves,
    epsilon_per_protocol,
    error_against_epsilon,
    lower_bound_note,
)
from ldpcore.present.figures.text import describe, figure_table

__all__ = [
    "BANDS_UP_TO",
    "BIAS_COLOUR",
    "DRAW_ALL_UP_TO",
    "FEATURED",
    "LOWER_BOUND_NAME",
    "MAX_RANKS_DRAWN",
    "MSE_AXIS",
    "TOP_VALUES",
    "VARIANCE_COLOUR",
    "assemble",
    "below_lower_bound",
    "by_rank",
    "curves",
    "describe",
    "emphasis",
    "epsilon_per_protocol",
    "error_against_epsilon",
    "error_breakdown",
    "estimates_by_rank",
    "estimates_with_intervals",
    "figure_table",
    "lower_bound_note",
    "method_style",
    "mse_points",
    "percent_label",
    "poll_estimates",
    "poll_reports",
    "range_curves",
    "rank_axis",
    "rank_sample",
    "reference_line",
    "symlog",
    "symlog_ticks",
    "top_values",
]
