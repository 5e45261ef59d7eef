"""What a sweep supports: the best significant method at each swept value (no words)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ldpcore.formats import format_ratio


@dataclass(frozen=True)
class SweepVerdict:
    """What a sweep supports: the best method at each point.

    :func:`ldpcore.present.sentences.sweep_headline` says it in one sentence.

    Attributes
    ----------
    table : DataFrame
        One row per swept value: the value, ``best method`` (the lowest mean MSE among
        the methods significantly more accurate than Base there, or ``none``), its
        ``MSE ÷ Base`` with the simultaneous 95% interval, and ``methods better than
        Base`` (how many of the others).
    best_at : list of (value, method or None, (gain, guaranteed gain))
        Per swept value, the best significant method, its gain over Base (1/ratio) and
        the gain its interval guarantees (1/high); None where no method beats Base.
    label : str
        The swept parameter in words.
    has_base : bool
        Whether Base was among the methods (nothing is compared without it).
    """

    table: pd.DataFrame
    best_at: list[tuple[object, str | None, tuple[float, float]]]
    label: str
    has_base: bool = True

    @property
    def helps(self) -> bool:
        """Whether some method is significantly more accurate than Base at some point."""
        return any(method is not None for _, method, _ in self.best_at)


def sweep_verdicts(frame: pd.DataFrame, parameter: str, label: str | None = None) -> SweepVerdict:
    """Summarise a :func:`ldpcore.experiments.sweeps.sweep` frame's paired comparisons with Base.

    Each point's comparisons are its own (paired on that point's trials, simultaneous
    over the methods). Its headline (:func:`ldpcore.present.sentences.sweep_headline`)
    names the best significant method over runs of neighbouring points and says in
    words where no method beats Base.

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
        return SweepVerdict(pd.DataFrame(), [], label, has_base=False)
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
    return SweepVerdict(pd.DataFrame(rows), best_at, label)
