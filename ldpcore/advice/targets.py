"""Accuracy targets in the words people use, and how each is measured.

Three targets, each a number in frequency units (0.005 = 0.5 percentage points):

``each``
    Each value asked about within ±x of the truth, 95% of the time: every one of them,
    on its own, the most frequent included (the value whose estimate varies most, or is
    pulled furthest by post-processing, decides).
``all``
    All the values asked about within ±x *at once*, 95% of the time: the chance that
    any of them is off by more than x is at most 5%.
``rmse``
    The root-mean-square error of the query's answers (NDSS Sec. V's metric).

The two "within" targets are measured as a *margin*: the smallest ±w that the answers
meet with the stated probability. An answer's error is modelled as normal with the
bias and variance measured over the trials (Base's estimates are sums of n
independent reports, so the central limit theorem makes that exact as n grows, NDSS
Sec. III, Eq. 3, whose per-value variances give Base's margin with no simulation);
:func:`margin` solves for w. Two things are measured, not assumed
(``benchmarks/bench_target_coverage.py`` and its table): the coverage of the
post-processed estimates, which are not normal (clamping puts mass at zero), and the
cost of estimating "each" from few trials. Taken answer by answer, the largest of many
per-value margins is pulled up by their noise (1.2–1.7× the 2,000-trial margin at 10
trials); so each answer's bias and variance are pooled with the answers nearest it in
truth (:mod:`ldpcore.stats.pooling`), which brings the 10-trial margin to within about
15% of the 2,000-trial one on average, still on the high side (benchmarks/README.md,
"The consistent option's ε").

An earlier version read "each" as the share of answers within ±x averaged over the
values; measured, Base-Cut then met "each value within ±0.5 pp" on a Zipf domain of
1,024 values at ε = 0.066 by cutting the small values to zero, while its most frequent
value was within ±0.5 pp in 0.0% of trials. Averaged over values, a target can hide the
values people read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import special

from ldpcore.errors import InputError
from ldpcore.stats.pooling import pooled_moments

#: The target kinds, in the order the page offers them.
TARGET_KINDS = ("each", "all", "rmse")

#: Jackknife groups at most: the margin's standard error from leaving out a group of
#: trials at a time (a full leave-one-out at d = 100,000 would hold trials × d floats).
_JACKKNIFE_GROUPS = 10

#: Bisection steps when solving for the margin: 60 halvings of the bracket.
_MARGIN_STEPS = 60

Kind = Literal["each", "all", "rmse"]


@dataclass(frozen=True)
class AccuracyTarget:
    """What accuracy is asked for, and how it is measured.

    Attributes
    ----------
    kind : {"each", "all", "rmse"}
        See the module docstring.
    size : float
        The RMSE, or the ±x, in frequency units (0 < size < 1).
    level : float
        How often the "within" targets must hold (0.95 by default).
    """

    kind: Kind
    size: float
    level: float = 0.95

    def __post_init__(self) -> None:
        if self.kind not in TARGET_KINDS:
            raise InputError(
                f"unknown accuracy target {self.kind!r}: use one of {', '.join(TARGET_KINDS)}"
            )
        size = self.size
        if not (isinstance(size, int | float) and math.isfinite(size) and 0 < size < 1):
            raise InputError(
                f"the accuracy target must be in (0, 1) (frequency units; 0.005 = 0.5 "
                f"percentage points), got {size!r}"
            )
        if not 0.5 <= self.level < 1:
            raise InputError(f"the target's level must be in [0.5, 1), got {self.level!r}")

    @property
    def is_rmse(self) -> bool:
        """Whether the target is an RMSE (else a margin met with probability ``level``)."""
        return self.kind == "rmse"

    def in_words(self, answers: int | None = None) -> str:
        """The target as a sentence fragment, e.g. "each value asked about within ±0.5 pp".

        ``answers`` is the number of values asked about (for "all k at once").
        """
        pp = f"{100 * self.size:g} percentage points"
        share = f"{100 * self.level:g}% of the time"
        if self.kind == "rmse":
            return f"root-mean-square error ≤ {pp}"
        if self.kind == "each":
            return f"each value asked about within ±{pp} of the truth, {share}"
        many = "all the values asked about" if answers is None else f"all {answers:,} values"
        return f"{many} within ±{pp} of the truth at once, {share}"

    def measure_name(self) -> str:
        """What the error curves measure, for a chart's axis."""
        if self.kind == "rmse":
            return "RMSE"
        share = f"{100 * self.level:g}%"
        return (
            f"±error met {share} of the time"
            if self.kind == "each"
            else f"±error met by all at once {share} of the time"
        )

    def spec(self) -> str:
        """The text :func:`parse_target` reads back (the CLI's ``--target``)."""
        level = "" if self.level == 0.95 else f",level={self.level:g}"
        return f"{self.kind}:{self.size:g}{level}"

    def to_json_dict(self) -> dict[str, object]:
        """The ``target`` record of the JSON output."""
        return {"kind": self.kind, "size": self.size, "level": self.level, "spec": self.spec()}

    def statistic(
        self, answers: NDArray[np.float64], truth: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Per method: the measured statistic and its standard error.

        ``answers`` has shape ``(methods, trials, answers)``. For an RMSE target the
        statistic is the mean MSE (the search takes its square root), with the standard
        error over trials; for a "within" target it is the margin, with a grouped
        jackknife standard error.
        """
        errors = answers - truth
        trials = errors.shape[1]
        if self.kind == "rmse":
            per_trial = np.mean(errors**2, axis=2)
            se = (
                per_trial.std(axis=1, ddof=1) / math.sqrt(trials)
                if trials > 1
                else 0 * per_trial[:, 0]
            )
            return per_trial.mean(axis=1), se
        whole = self._margins(errors, truth)
        if trials < 3:
            return whole, np.zeros_like(whole)
        groups = np.array_split(np.arange(trials), min(trials, _JACKKNIFE_GROUPS))
        left_out = np.stack(
            [self._margins(np.delete(errors, group, axis=1), truth) for group in groups], axis=0
        )
        g = len(groups)
        se = np.sqrt((g - 1) / g * np.sum((left_out - left_out.mean(axis=0)) ** 2, axis=0))
        return whole, se

    def scale(self, statistic: float) -> float:
        """The statistic in the target's units (RMSE: the square root of the MSE)."""
        value = max(statistic, 1e-300)
        return math.sqrt(value) if self.kind == "rmse" else value

    def exact_base(self, variances: NDArray[np.float64]) -> float:
        """Base's statistic from its exact per-answer variances (unbiased; NDSS Eq. 3)."""
        if self.kind == "rmse":
            return float(np.mean(variances))
        sd = np.sqrt(np.asarray(variances, dtype=float))
        return float(margin(np.zeros_like(sd)[None], sd[None], kind=self.kind, level=self.level)[0])

    def _margins(
        self, errors: NDArray[np.float64], truth: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        # Each answer's bias and spread pooled with the answers nearest it in truth
        # (ldpcore.stats.pooling): answer by answer, the largest of many noisy margins
        # overstated the margin by 1.2-1.7x at 10 trials, and so the ε it needs.
        bias, sd = pooled_moments(errors, np.asarray(truth, dtype=float))
        return margin(bias, sd, kind=self.kind, level=self.level)


def margin(
    bias: NDArray[np.float64],
    sd: NDArray[np.float64],
    *,
    kind: str,
    level: float,
) -> NDArray[np.float64]:
    """The smallest ±w met with probability ``level``, per row, under normal errors.

    Row ``i`` holds one method's per-answer bias and standard deviation. "each": every
    answer on its own is within ±w with probability ``level`` (w is the largest of the
    answers' own margins); "all": every answer at once, the answers taken as
    independent. Solved by bisection: the chance of being within grows with w.

    Examples
    --------
    >>> float(margin(np.zeros((1, 1)), np.ones((1, 1)), kind="each", level=0.95)[0])
    ... # doctest: +ELLIPSIS
    1.9599...
    """
    bias = np.abs(np.asarray(bias, dtype=float))
    sd = np.asarray(sd, dtype=float)
    if kind == "each":
        # Each answer's own margin; the target holds for all of them at the largest.
        low = np.zeros_like(bias)
        high = bias + 12 * sd + 1e-12
        for _ in range(_MARGIN_STEPS):
            middle = (low + high) / 2
            met = _inside(bias, sd, middle) >= level
            high = np.where(met, middle, high)
            low = np.where(met, low, middle)
        return np.max(high, axis=1)
    low = np.zeros(bias.shape[0])
    high = np.max(bias + 12 * sd, axis=1) + 1e-12
    for _ in range(_MARGIN_STEPS):
        middle = (low + high) / 2
        inside = _inside(bias, sd, middle[:, None])
        met = np.exp(np.sum(np.log(np.maximum(inside, 1e-300)), axis=1)) >= level
        high = np.where(met, middle, high)
        low = np.where(met, low, middle)
    return high


def _inside(
    bias: NDArray[np.float64], sd: NDArray[np.float64], width: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Each answer's chance of being within ±width: Φ((w−b)/σ) − Φ((−w−b)/σ)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            sd > 0,
            special.ndtr((width - bias) / sd) - special.ndtr((-width - bias) / sd),
            (bias <= width).astype(float),
        )


def check_target(target: float) -> None:
    """Raise unless ``target`` is an RMSE in (0, 1) (frequency units)."""
    if not (isinstance(target, int | float) and math.isfinite(target) and 0 < target < 1):
        raise InputError(
            f"target_rmse must be in (0, 1) (frequency units; 0.005 = 0.5 percentage points), "
            f"got {target!r}"
        )


def accuracy_target(target_rmse: float | None, target: AccuracyTarget | None) -> AccuracyTarget:
    """The target asked for: ``target_rmse`` (an RMSE) or ``target``, exactly one."""
    if (target_rmse is None) == (target is None):
        raise InputError("give one accuracy target: target_rmse=… or target=AccuracyTarget(…)")
    if target_rmse is None:
        if not isinstance(target, AccuracyTarget):
            raise InputError(f"target must be an AccuracyTarget, got {target!r}")
        return target
    check_target(target_rmse)
    return AccuracyTarget("rmse", float(target_rmse))


def parse_target(text: str) -> AccuracyTarget:
    """Read ``kind:size[,level=L]``, e.g. ``each:0.005`` or ``all:0.01,level=0.9``.

    Examples
    --------
    >>> parse_target("all:0.005")
    AccuracyTarget(kind='all', size=0.005, level=0.95)
    """
    kind, colon, rest = str(text).strip().partition(":")
    parts = rest.split(",")
    if not colon or not parts[0]:
        raise InputError(
            f"read the target {text!r} as kind:size, e.g. each:0.005 (each value within "
            "±0.5 percentage points, 95% of the time), all:0.005 (all at once) or rmse:0.005"
        )
    try:
        size = float(parts[0])
        level = 0.95
        for option in parts[1:]:
            key, _, value = option.partition("=")
            if key.strip() != "level":
                raise InputError(f"the target takes one option, level=…; got {option!r}")
            level = float(value)
    except InputError:
        raise
    except ValueError:
        raise InputError(
            f"the target {text!r} needs numbers, e.g. each:0.005 or all:0.01,level=0.9"
        ) from None
    return AccuracyTarget(kind.strip().lower(), size, level)  # type: ignore[arg-type]
