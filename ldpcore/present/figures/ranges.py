"""Ranges of growing length: each protocol's methods against the range's length.

One line per protocol and method (:func:`ldpcore.experiments.ranges.run_ranges`): the
colour is the method's everywhere in the tool, the dash the protocol's (solid for the
flat one), with the band of the middle 80% of trials.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ldpcore.present.figures.style import assemble, method_style

#: The dash of each protocol in order of appearance (the flat reference first).
_PROTOCOL_DASHES = ("solid", "dash", "dot", "dashdot", "longdash")


def range_curves(frame: pd.DataFrame, *, title: str) -> go.Figure:
    """MSE against the range's length, log on both axes, one line per protocol · method."""
    dashes = {p: _PROTOCOL_DASHES[i % 5] for i, p in enumerate(dict.fromkeys(frame["protocol"]))}
    traces: list[dict[str, Any]] = []
    for entry, group in frame.groupby("entry", sort=False):
        rows = group.sort_values("length")
        colour = method_style(str(rows["method"].iloc[0]))["color"]
        dash = dashes[rows["protocol"].iloc[0]]
        traces.append(
            {
                "type": "scatter",
                "x": np.concatenate([rows["length"], rows["length"][::-1]]),
                "y": np.concatenate([rows["mse_high"], rows["mse_low"][::-1]]),
                "fill": "toself",
                "fillcolor": colour,
                "opacity": 0.12,
                "line": {"width": 0},
                "hoverinfo": "skip",
                "showlegend": False,
                "legendgroup": str(entry),
            }
        )
        traces.append(
            {
                "type": "scatter",
                "x": rows["length"],
                "y": rows["mse"],
                "name": str(entry),
                "legendgroup": str(entry),
                "mode": "lines+markers",
                "line": {"color": colour, "dash": dash},
                "marker": {"color": colour, "size": 6},
                "hovertemplate": "length %{x}<br>MSE %{y:.3g}<extra>" + str(entry) + "</extra>",
            }
        )
    return assemble(
        traces,
        title=title,
        x="range length (values)",
        y="MSE of a range's frequency (frequency², log scale)",
        log_y=True,
        xaxis={"type": "log"},
        legend={"title": {"text": "protocol · method"}},
    )


__all__ = ["range_curves"]
