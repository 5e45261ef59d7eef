"""Claims judged with the uncertainty of what was measured.

A paper's claim is checked as a statistic of our runs (a ratio of MSEs, a share of
points where a method wins, ...) against the region the claim allows (``≤ 0.05``,
``between 5 and 20``). The statistic's 95% interval comes from the trials already run:
every trial of a run is resampled together (a paired, percentile bootstrap over trial
indices, Efron & Tibshirani 1993, Ch. 13), and the statistic is recomputed on each
resample. The verdict is then one of three:

* **holds** — the whole interval lies in the region;
* **does not hold** — the whole interval lies outside it;
* **cannot tell** — the interval straddles a bound. Intervals shrink like ``1/√T``, so
  about ``T · (reach / distance)²`` trials would settle it (``reach``: from the estimate
  to the interval's end beyond the bound; ``distance``: from the estimate to the bound),
  if the estimate stays where it is; the report says so. A statistic sitting on the
  bound cannot be settled that way, and then no number is given.

The statistic is computed from frames whose ``mse`` column is resampled from the
per-trial errors kept in ``trial_mse`` (:func:`ldpcore.experiments.sweeps.sweep` with
``keep_trials=True``) or, for per-draw recipes (the MLE paper's), from the rows of the
resampled draws (:func:`resample_draws`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Bootstrap resamples per claim (the percentile interval's 2.5% tails have 5 each).
RESAMPLES = 200
#: The verdicts.
HOLDS, FAILS, UNSURE = "holds", "does not hold", "cannot tell"


@dataclass(frozen=True)
class Claim:
    """One statement a paper makes, checked against our measurement.

    Attributes
    ----------
    text : str
        What the paper says (paraphrased, with its section).
    measured : str
        What we measured, in words and numbers, with its interval.
    holds : bool
        ``status == "holds"``.
    status : {"holds", "does not hold", "cannot tell"}
        The verdict, from the interval (see the module docstring).
    estimate, low, high : float, optional
        The statistic and its 95% interval (``None`` for a claim judged by a test of
        its own, such as a z-test on every value's bias).
    trials : int, optional
        Trials (or draws) behind the interval.
    trials_to_settle : int, optional
        For "cannot tell": about how many trials would settle it.
    """

    text: str
    measured: str
    holds: bool
    status: str = ""
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    trials: int | None = None
    trials_to_settle: int | None = None

    def __post_init__(self) -> None:
        if not self.status:
            object.__setattr__(self, "status", HOLDS if self.holds else FAILS)


def resample_trials(frame: pd.DataFrame, index: np.ndarray) -> pd.DataFrame:
    """``frame`` with ``mse`` (and what scales with it) recomputed on trials ``index``."""
    mse = np.array([float(np.mean(errors[index])) for errors in frame["trial_mse"]])
    out = frame.assign(mse=mse)
    if "equivalent_users" in frame.columns:
        # n' is inversely proportional to the MSE (NDSS Sec. V-C).
        with np.errstate(divide="ignore", invalid="ignore"):
            out["equivalent_users"] = frame["equivalent_users"] * frame["mse"] / mse
    return out


def resample_draws(frame: pd.DataFrame, index: np.ndarray) -> pd.DataFrame:
    """The rows of a per-draw frame (column ``draw``, 0-based) for the draws ``index``.

    A draw drawn twice contributes its rows twice; statistics average over the rows.
    """
    draws = frame["draw"].to_numpy()
    order = np.argsort(draws, kind="stable")
    starts = np.searchsorted(draws[order], np.arange(int(draws.max()) + 2))
    rows = np.concatenate([order[starts[i] : starts[i + 1]] for i in index])
    return frame.iloc[rows]


def judge(
    text: str,
    statistic: Callable[[pd.DataFrame], float],
    frame: pd.DataFrame,
    *,
    describe: Callable[[float], str],
    low: float | None = None,
    high: float | None = None,
    resample: Callable[[pd.DataFrame, np.ndarray], pd.DataFrame] = resample_trials,
    trials: int | None = None,
    seed: int = 0,
    show: Callable[[float], str] | None = None,
) -> Claim:
    """Check ``low <= statistic(frame) <= high`` with the statistic's bootstrap interval.

    Parameters
    ----------
    text : str
        The claim, in words.
    statistic : callable
        Frame in, number out (a boolean counts as 0 or 1).
    frame : DataFrame
        The measurement, with ``trial_mse`` (or ``draw`` rows, with ``resample``).
    describe : callable
        The statistic's value in words, e.g. ``lambda v: f"Base-Pos / Base = {v:.2f}"``.
    low, high : float, optional
        The region the claim allows.
    resample : callable
        ``(frame, index) -> frame`` for one bootstrap resample of trial indices.
    trials : int, optional
        How many trials (or draws) there are (default: the length of ``trial_mse``).
    seed : int
        Seeds the resampling, so reports are reproducible.
    show : callable, optional
        How the interval's ends are written (default three significant digits; e.g.
        ``percent`` for shares).
    """
    estimate = float(statistic(frame))
    count = trials if trials is not None else len(frame["trial_mse"].iloc[0])
    generator = np.random.default_rng(seed)
    values = np.array(
        [
            float(statistic(resample(frame, generator.integers(0, count, count))))
            for _ in range(RESAMPLES)
        ]
    )
    finite = values[np.isfinite(values)]
    lower, upper = (
        (float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5)))
        if finite.size
        else (estimate, estimate)
    )
    inside = (low is None or lower >= low) and (high is None or upper <= high)
    outside = (low is not None and upper < low) or (high is not None and lower > high)
    status = HOLDS if inside else FAILS if outside else UNSURE
    settle = None
    if status == UNSURE:
        # The bound inside the interval, and the interval's reach towards it from the
        # estimate: shrinking that reach below the distance settles the claim.
        crossed = [b for b in (low, high) if b is not None and lower <= b <= upper]
        if crossed:
            bound = min(crossed, key=lambda b: abs(estimate - b))
            reach = upper - estimate if bound >= estimate else estimate - lower
            distance = abs(estimate - bound)
            if distance > 0 and reach > 0:
                settle = max(count + 1, math.ceil(count * (reach / distance) ** 2))
    write = show or _short
    interval = f"95% interval {write(lower)} to {write(upper)}, {count} trials"
    measured = f"{describe(estimate)} ({interval})"
    return Claim(text, measured, status == HOLDS, status, estimate, lower, upper, count, settle)


def _short(value: float) -> str:
    return f"{value:.3g}"


def percent(value: float) -> str:
    """A share as a whole percentage, for claims about shares of points."""
    return f"{value:.0%}"


def lookup(frame: pd.DataFrame, method: str, **where: Any) -> float:
    """The ``mse`` of ``method`` at the point ``where`` (floats matched to 1e-9)."""
    rows = frame["method"] == method
    for column, value in where.items():
        rows &= (
            np.isclose(frame[column], value) if isinstance(value, float) else frame[column] == value
        )
    matched = frame.loc[rows, "mse"]
    if matched.empty:
        raise KeyError(f"no row for {method} with {where}")
    return float(matched.iloc[0])
