"""What a sweep supports saying: the best significant method at each swept value."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ldpcore.present.sentences import format_ratio, sweep_headline


@dataclass(frozen=True)
class SweepVerdict:
    """What a sweep supports saying: the best method at each point, and a headline.

    Attributes
    ----------
    table : DataFrame
        One row per swept value: the value, ``best method`` (the lowest mean MSE among
        the methods significantly more accurate than Base there, or ``none``), its
        ``MSE ÷ Base`` with the simultaneous 95% interval, and ``methods better than
        Base`` (how many of the others).
    headline : str
        One sentence for people.
    helps : bool
        Whether some method is significantly more accurate than Base at some point.
    """

    table: pd.DataFrame
    headline: str
    helps: bool = False


def sweep_verdicts(frame: pd.DataFrame, parameter: str, label: str | None = None) -> SweepVerdict:
    """Summarise a :func:`ldpcore.experiments.trials.sweep` frame's paired comparisons with Base.

    Each point's comparisons are its own (paired on that point's trials, simultaneous
    over the methods); the headline names the best significant method over runs of
    neighbouring points and says in words where no method beats Base.

    Parameters
    ----------
    frame : DataFrame
        A sweep's frame (``parameter``, ``method``, ``mse``, ``mse_ratio_to_base``,
        ``ratio_low``, ``ratio_high``, ``mse_vs_base``).
    parameter : str
        The swept column.
    label : str, optional
        The parameter in words (``ρ``, ``k``); ``parameter`` when omitted.
    """
    label = label or parameter
    if "Base" not in set(frame["method"]):
        return SweepVerdict(pd.DataFrame(), "Add Base to the methods to compare them with it.")
    rows: list[dict[str, object]] = []
    # Per point: the best significant method, its gain (1/ratio) and the gain its
    # interval guarantees (1/high).
    best_at: list[tuple[object, str | None, tuple[float, float]]] = []
    for value, part in frame.groupby(parameter, sort=False):
        lower = part[part["mse_vs_base"] == "lower"]
        if lower.empty:
            rows.append(
                {
                    label: value,
                    "best method": "none (no method beats Base here)",
                    "MSE ÷ Base (95%)": "—",
                    "methods better than Base": 0,
                }
            )
            best_at.append((value, None, (math.nan, math.nan)))
            continue
        top = lower.loc[lower["mse"].idxmin()]
        rows.append(
            {
                label: value,
                "best method": str(top["method"]),
                "MSE ÷ Base (95%)": format_ratio(
                    top["mse_ratio_to_base"], top["ratio_low"], top["ratio_high"]
                ),
                "methods better than Base": len(lower),
            }
        )
        gains = (1.0 / float(top["mse_ratio_to_base"]), 1.0 / float(top["ratio_high"]))
        best_at.append((value, str(top["method"]), gains))
    helps = any(method is not None for _, method, _ in best_at)
    return SweepVerdict(pd.DataFrame(rows), sweep_headline(best_at, label), helps)
