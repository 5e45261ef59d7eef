"""Paired comparisons of methods on common random numbers: which one is really better.

Every method of an experiment post-processes the *same* Base estimate in each trial
(common random numbers), so two methods' errors are compared trial by trial. For a
method ``j`` against a reference ``r`` (Base, or the best method) with per-trial mean
squared errors ``X_t`` and ``Y_t`` over ``T`` trials, the estimated MSE ratio is

    R = X̄ / Ȳ.

Its interval is a paired, studentized (bootstrap-t) interval on the log scale (Efron &
Tibshirani 1993, Ch. 12; Davison & Hinkley 1997, Sec. 5.2): ``log R`` with the
delta-method standard error of ``X_t/X̄ − Y_t/Ȳ``, and its critical value the bootstrap
quantile of ``|t*|`` for that method, resampling the trials. Per-trial MSEs are skewed
and, for methods that change few trials (Base-Pos on a frequent-valued dataset), mostly
equal to the reference's; the bootstrap learns each method's own tail where the
t-based Fieller interval assumed Student's. Measured on two configurations
(200 blocks of 30 trials, benchmarks/README.md "Coverage"): joint coverage 98.0% and
98.0% where Fieller gave 97.5% and 94.0%, and Base-Pos's own 99.0% where Fieller's
was 94.5% (claimed 99.6%).

Multiple comparisons: with ``K`` methods compared to one reference, each interval is a
two-sided ``1 − α/K`` interval (Bonferroni), so that all ``K`` hold together with
probability at least ``1 − α``. (A max-t critical value shared by all methods was
tried: 96.5% and 94.5% jointly, since one zero-inflated method's tail then sets every
method's width while its own interval stays too narrow.)

A method is *better* only when its whole interval lies below 1, *worse* only when it
lies above 1. A significant difference whose whole interval lies within the practical
margin (``1/(1 + m)`` to ``1 + m``, m = 5% by default) is *about the same*: real, but too
small to act on.

A method that is a no-op for the protocol (Norm for GRR or SS; the registry says so
through ``PostProcessor.is_no_op``), or whose outputs equal the reference's in every
trial, is never credited with a difference, whatever rounding leaves.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

# scipy.special, not scipy.stats: the same t quantile (stats.t.ppf calls stdtrit), and
# importing stats costs a fresh app server about 0.35 s before its first chart.
from scipy import special

from ldpcore.errors import InputError

#: The family-wise error rate of a set of comparisons (two-sided).
ALPHA = 0.05
#: Practical margin: a significant ratio within [1/(1 + m), 1 + m] reads "about the same".
MARGIN = 0.05
#: Bootstrap resamples of the paired trials: at 12 methods the Bonferroni quantile is
#: the 99.6th percentile of |t*|, which 10,000 resamples put about 40 draws beyond.
BOOTSTRAP_RESAMPLES = 10_000
#: The bootstrap's own seed: the same errors always give the same intervals.
_BOOTSTRAP_SEED = 0x1D9C0
#: Relative difference under which two per-trial errors count as the same number
#: (floating-point rounding of a no-op, e.g. Norm's shift of 1e-16).
SAME = 1e-9


#: What a comparison concludes: the one verdict rule's four answers.
JUDGEMENTS = ("lower", "higher", "about the same", "no significant difference")


def judge(low: float, high: float, *, margin: float = MARGIN) -> str:
    """The one verdict rule, on a ratio's interval (a method over its reference).

    An interval wholly within the practical margin ``[1/(1 + m), 1 + m]`` and excluding
    1 is "about the same" (real, too small to act on); wholly below 1 "lower", above
    "higher"; one that holds 1 is "no significant difference". Every verdict of the tool
    (MSE ratios, fake users' gains, the record, the CLI) reads its interval through
    this, with one margin, so the same effect gets the same word everywhere.

    Examples
    --------
    >>> judge(0.5, 0.8), judge(0.97, 0.99), judge(0.9, 1.1), judge(1.2, 1.6)
    ('lower', 'about the same', 'no significant difference', 'higher')
    """
    if not (isinstance(margin, int | float) and 0 <= margin < 1):
        raise InputError(f"margin must be in [0, 1), got {margin!r}")
    significant = high < 1 or low > 1
    if significant and 1 / (1 + margin) <= low and high <= 1 + margin:
        return "about the same"
    if high < 1:
        return "lower"
    if low > 1:
        return "higher"
    return "no significant difference"


def judge_difference(low: float, high: float, reference: float, *, margin: float = MARGIN) -> str:
    """:func:`judge` of a paired difference's interval, on its reference's scale.

    ``low``–``high`` bounds a method's value minus the reference's (fake users' gain minus
    Base's); as a ratio it is ``1 + difference/|reference|``. With no reference to scale
    by (a gain of 0), a significant difference is lower or higher.

    Examples
    --------
    >>> judge_difference(-0.0006, -0.0004, 0.1), judge_difference(-0.02, -0.01, 0.1)
    ('about the same', 'lower')
    """
    if reference == 0 or not math.isfinite(reference):
        return "lower" if high < 0 else "higher" if low > 0 else "no significant difference"
    scale = abs(reference)
    return judge(1 + low / scale, 1 + high / scale, margin=margin)


@dataclass(frozen=True)
class Comparison:
    """One method's MSE against a reference's, on the same trials.

    Attributes
    ----------
    method, reference : str
    ratio : float
        Mean MSE of ``method`` over mean MSE of ``reference`` (below 1: lower error);
        over truths drawn from a posterior, the median of each truth's ratio.
    low, high : float
        The simultaneous interval for the ratio (see the module docstring), or what
        ``interval`` says it is.
    better, worse : bool
        Whether the whole interval lies below (above) 1 and outside the practical
        margin: a significant difference worth acting on.
    no_op : bool
        The method returns the reference's answers (by declaration or measured);
        then ``ratio = low = high = 1`` and it is neither better nor worse.
    trials : int
        The number of paired trials, or of drawn truths.
    negligible : bool
        The interval excludes 1 but lies within the practical margin: "about the same".
    interval : str
        What the interval is, as a sentence names it: a paired 95% interval by default;
        over truths drawn from a posterior, where the truth is unknown
        (:mod:`ldpcore.advice.unknown_truth`).
    """

    method: str
    reference: str
    ratio: float
    low: float
    high: float
    better: bool
    worse: bool
    no_op: bool
    trials: int
    negligible: bool = False
    interval: str = "paired 95% interval"

    @property
    def outcome(self) -> str:
        """The MSE against the reference in a phrase for tables.

        ``lower``, ``higher``, ``about the same``, ``no significant difference`` or
        ``same answers``.
        """
        if self.no_op:
            return "same answers"
        if self.better:
            return "lower"
        if self.worse:
            return "higher"
        return "about the same" if self.negligible else "no significant difference"

    @property
    def gain(self) -> float:
        """How many times lower the method's MSE is (``1 / ratio``)."""
        return 1.0 / self.ratio if self.ratio > 0 else math.inf


def trial_mse(answers: NDArray[np.float64], truth: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per-trial MSE of each method: ``answers`` (methods, trials, items) → (methods, trials)."""
    return np.mean((np.asarray(answers) - np.asarray(truth)) ** 2, axis=-1)


def compare(
    errors: NDArray[np.float64],
    names: Sequence[str],
    *,
    reference: str,
    no_ops: Sequence[str] = (),
    alpha: float = ALPHA,
    margin: float = MARGIN,
    interval: str = "bootstrap",
) -> list[Comparison]:
    """Compare every method with ``reference`` on paired per-trial errors.

    Parameters
    ----------
    errors : ndarray, shape (methods, trials)
        Per-trial MSE of each method (e.g. :func:`trial_mse`), the same trials in
        every row.
    names : sequence of str
        The method of each row.
    reference : str
        The method the others are compared with (one of ``names``).
    no_ops : sequence of str
        Methods declared to return the reference's output unchanged.
    alpha : float
        Family-wise error rate, shared by the comparisons.
    margin : float
        Practical margin: a significant ratio within ``[1/(1+margin), 1+margin]`` is
        "about the same" (0 turns it off).
    interval : {"bootstrap", "fieller"}
        The simultaneous studentized bootstrap (default; see the module docstring), or
        Bonferroni-corrected Fieller intervals (kept for the coverage benchmark).

    Returns
    -------
    list of Comparison
        One per method other than the reference, in the order of ``names``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = rng.gamma(20, 1e-4, size=30)
    >>> errors = np.vstack([base, base / 3 * rng.uniform(0.95, 1.05, 30)])
    >>> [c.better for c in compare(errors, ["Base", "Norm-Sub"], reference="Base")]
    [True]
    """
    errors = np.asarray(errors, dtype=np.float64)
    names = list(names)
    if errors.ndim != 2 or errors.shape[0] != len(names):
        raise InputError(
            f"errors must have one row per method ({len(names)}), got shape {errors.shape}"
        )
    if reference not in names:
        raise InputError(f"the reference {reference!r} is not among the methods {names}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha!r}")
    if not (isinstance(margin, int | float) and 0 <= margin < 1):
        raise InputError(f"margin must be in [0, 1), got {margin!r}")
    if interval not in {"bootstrap", "fieller"}:
        raise InputError(f"interval must be 'bootstrap' or 'fieller', got {interval!r}")
    trials = errors.shape[1]
    y = errors[names.index(reference)]
    others = [i for i, name in enumerate(names) if name != reference]
    measured_same = {i for i in others if _same(errors[i], y)}
    tested = [i for i in others if names[i] not in no_ops and i not in measured_same]
    if interval == "bootstrap":
        bounds = _bootstrap(errors[tested], y, alpha)
    else:
        # Bonferroni over the comparisons actually tested; two-sided.
        level = alpha / max(1, len(tested))
        quantile = float(special.stdtrit(max(1, trials - 1), 1 - level / 2))
        bounds = [_fieller(errors[i], y, quantile) for i in tested]
    found = dict(zip(tested, bounds, strict=True))
    results = []
    for i in others:
        if i not in found:
            results.append(
                Comparison(names[i], reference, 1.0, 1.0, 1.0, False, False, True, trials)
            )
            continue
        ratio, low, high = found[i]
        said = judge(low, high, margin=margin)
        results.append(
            Comparison(
                names[i],
                reference,
                ratio,
                low,
                high,
                said == "lower",
                said == "higher",
                False,
                trials,
                said == "about the same",
            )
        )
    return results


def _same(x: NDArray[np.float64], y: NDArray[np.float64]) -> bool:
    scale = max(float(np.max(np.abs(y))), float(np.finfo(np.float64).tiny))
    return bool(np.max(np.abs(x - y)) <= SAME * scale)


def _bootstrap(
    x: NDArray[np.float64], y: NDArray[np.float64], alpha: float
) -> list[tuple[float, float, float]]:
    """``R_i = x̄_i / ȳ`` with Bonferroni studentized-bootstrap intervals on the log scale.

    ``x`` is (methods, trials), ``y`` the reference's (trials,). For each method,
    ``θ = log R`` has the delta-method standard error ``se = sd(x_t/x̄ − y_t/ȳ)/√T``;
    every resample draws trials with replacement and gives ``t* = (θ* − θ)/se*``; the
    critical value ``c_i`` is the ``1 − α/K`` quantile of that method's ``|t*|`` and the
    interval ``exp(θ ± c_i·se)``. A resample whose ``se*`` is 0 while ``θ*`` moved (all
    its trials left a zero-inflated difference at zero) counts as an infinite ``|t*|``:
    with few trials that widens the interval, which is the honest answer.
    """
    methods, trials = x.shape
    if methods == 0:
        return []
    x_mean, y_mean = x.mean(axis=1), float(y.mean())
    unbounded = [(_plain_ratio(float(m), y_mean), 0.0, math.inf) for m in x_mean]
    if trials < 2 or y_mean <= 0:
        return unbounded
    rows = np.flatnonzero(x_mean > 0)  # a method exact in every trial has no log ratio
    theta = np.log(x_mean[rows] / y_mean)
    spread = x[rows] / x_mean[rows, None] - y / y_mean
    se = spread.std(axis=1, ddof=1) / math.sqrt(trials)
    weights = _resample_weights(trials)
    xs = weights @ x[rows].T / trials  # (resamples, methods)
    ys = weights @ y / trials  # (resamples,)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta_star = np.log(xs / ys[:, None])
        # Σ_t w_t (x_t/x̄* − y_t/ȳ*)²: the centred spread of the resample (its mean is 0).
        sxx = weights @ (x[rows] ** 2).T
        sxy = weights @ (x[rows] * y).T
        syy = weights @ (y**2)
        variance = (sxx / xs**2 - 2 * sxy / (xs * ys[:, None]) + (syy / ys**2)[:, None]) / (
            trials * (trials - 1)
        )
        se_star = np.sqrt(np.maximum(variance, 0.0))
        t_star = np.abs(theta_star - theta) / se_star
    moved = ~np.isclose(theta_star, theta, rtol=0.0, atol=1e-12)
    t_star = np.where(se_star > 0, t_star, np.where(moved, np.inf, 0.0))
    t_star = np.where(np.isnan(t_star), np.inf, t_star)
    # Bonferroni over the methods compared; "higher": never below the sample quantile
    # (numpy's quantile(method="higher"), by one partition: a third of its time here).
    rank = math.ceil((BOOTSTRAP_RESAMPLES - 1) * (1 - alpha / methods))
    critical = np.partition(t_star, rank, axis=0)[rank]
    found = list(unbounded)
    for k, row in enumerate(rows):
        ratio = float(x_mean[row] / y_mean)
        # An infinite critical value leaves the ratio unbounded, even where the sample's
        # own spread is 0 (a method exact on every trial of a whole-domain range).
        width = math.inf if math.isinf(critical[k]) else float(critical[k] * se[k])
        if not math.isfinite(width) or width > 700:  # exp would overflow: no bound
            found[row] = (ratio, 0.0, math.inf)
            continue
        found[row] = (ratio, math.exp(theta[k] - width), math.exp(theta[k] + width))
    return found


@lru_cache(maxsize=4)
def _resample_weights(trials: int) -> NDArray[np.float64]:
    """How often each trial is drawn in each resample, ``(resamples, trials)``, read-only.

    So every resampled sum is one matrix product (counted with one bincount: three times
    faster than ``rng.multinomial``). The resamples have a fixed seed, so they depend on
    the number of trials alone: made once per size, not once per comparison (two per
    new configuration of the Explorer). The cache is of a pure function.
    """
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(_BOOTSTRAP_SEED)))
    drawn = rng.integers(0, trials, size=(BOOTSTRAP_RESAMPLES, trials))
    drawn += trials * np.arange(BOOTSTRAP_RESAMPLES)[:, None]
    counts = np.bincount(drawn.ravel(), minlength=BOOTSTRAP_RESAMPLES * trials)
    weights = counts.reshape(BOOTSTRAP_RESAMPLES, trials).astype(np.float64)
    weights.flags.writeable = False
    return weights


def _plain_ratio(x_mean: float, y_mean: float) -> float:
    if x_mean == y_mean:
        return 1.0
    return math.inf if y_mean <= 0 else x_mean / y_mean


def _fieller(
    x: NDArray[np.float64], y: NDArray[np.float64], quantile: float
) -> tuple[float, float, float]:
    """``R = x̄ / ȳ`` and Fieller's interval for it from paired samples.

    The interval holds every ρ for which the paired t statistic of ``x − ρ·y`` is within
    ``±quantile``: ``(x̄ − ρȳ)² ≤ q² (s_xx − 2ρ s_xy + ρ² s_yy) / T``, a quadratic in ρ.
    So 1 lies outside it exactly when a paired t-test of ``x − y`` rejects: the decision
    needs no normal approximation of the ratio (the delta method on ``log R`` called
    identical methods different in 7% of 300 seeds at 10 trials, Fieller in 5%).
    """
    x_mean, y_mean = float(x.mean()), float(y.mean())
    if y_mean <= 0 or x.size < 2:
        # An exact answer in every trial (zero error), or a single trial: no difference
        # can be claimed, so the interval is left unbounded.
        return _plain_ratio(x_mean, y_mean), 0.0, math.inf
    ratio = x_mean / y_mean
    covariance = np.cov(x, y, ddof=1) / x.size  # variances and covariance of the means
    q2 = quantile**2
    a = y_mean**2 - q2 * covariance[1, 1]
    b = -2 * (x_mean * y_mean - q2 * covariance[0, 1])
    c = x_mean**2 - q2 * covariance[0, 0]
    disc = b * b - 4 * a * c
    if a <= 0 or disc < 0:  # the reference's mean is not clearly above zero: unbounded
        return ratio, 0.0, math.inf
    root = math.sqrt(disc)
    low, high = (-b - root) / (2 * a), (-b + root) / (2 * a)
    return ratio, max(low, 0.0), high


__all__ = [
    "ALPHA",
    "Comparison",
    "compare",
    "trial_mse",
]
