"""Accuracy measures over trials, and the analytic references (NDSS 2020, Section V).

Conventions: errors are in frequency units; "MSE" is the *mean* over the query's
answers of the squared error (NDSS convention; the MLE paper sums instead, reading
note 3), averaged over trials. Bias and variance are per answer over trials, with
the population variance (ddof = 0), so ``MSE = bias² + variance`` holds exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ldpcore._validation import check_epsilon, check_n_users
from ldpcore.protocols.base import FrequencyOracle

#: What to say wherever the lower bound is drawn (reading note 8).
LOWER_BOUND_CAVEAT = (
    "asymptotic in n, and a bound on the error averaged over a prior over distributions: "
    "on one fixed distribution a method that assumes its shape can go below it"
)


#: The quantiles over trials of the per-trial MSE drawn as a chart's band (the middle 80%).
BAND_QUANTILES = (0.1, 0.9)


@dataclass(frozen=True)
class ErrorSummary:
    """Accuracy of one method's answers over trials.

    Attributes
    ----------
    mse : float
        Mean over trials of the mean squared error over answers.
    mse_std : float
        Standard deviation over trials of that per-trial MSE.
    mse_low, mse_high : float
        The 10% and 90% quantiles over trials of that per-trial MSE: the band the charts
        draw. A ± one-SD band leaves the positive axis where the SD exceeds the mean (a
        skewed per-trial MSE, common for small sets), and on a log axis it plunges to the
        axis floor; quantiles stay inside the values trials actually took.
    bias_sq : float
        Mean over answers of the squared bias (mean error over trials).
    variance : float
        Mean over answers of the variance over trials (ddof = 0).
    mae : float
        Mean absolute error over answers and trials.
    max_error : float
        Mean over trials of the largest absolute error among the answers.
    """

    mse: float
    mse_std: float
    mse_low: float
    mse_high: float
    bias_sq: float
    variance: float
    mae: float
    max_error: float


def summarize_errors(answers: NDArray[np.float64], truth: NDArray[np.float64]) -> ErrorSummary:
    """Summarize ``answers`` (trials × questions) against the true answers.

    Examples
    --------
    >>> s = summarize_errors(np.array([[1.0, 0.0], [3.0, 0.0]]), np.array([1.0, 1.0]))
    >>> (s.mse, s.bias_sq, s.variance)
    (1.5, 1.0, 0.5)
    """
    a = np.atleast_2d(np.asarray(answers, dtype=np.float64))
    errors = a - np.asarray(truth, dtype=np.float64)
    per_trial = (errors**2).mean(axis=1)
    bias = errors.mean(axis=0)
    return ErrorSummary(
        mse=float(per_trial.mean()),
        mse_std=float(per_trial.std(ddof=1)) if a.shape[0] > 1 else 0.0,
        mse_low=float(np.quantile(per_trial, BAND_QUANTILES[0])),
        mse_high=float(np.quantile(per_trial, BAND_QUANTILES[1])),
        bias_sq=float((bias**2).mean()),
        variance=float(a.var(axis=0).mean()),
        mae=float(np.abs(errors).mean()),
        max_error=float(np.abs(errors).max(axis=1).mean()),
    )


def per_answer(
    answers: NDArray[np.float64], truth: NDArray[np.float64], *, axis: int = 0
) -> dict[str, NDArray[np.float64]]:
    """Per-answer ``mean``, ``bias``, ``variance`` and ``mse`` over trials.

    ``answers`` is (trials, answers), or (methods, trials, answers) with ``axis=1``.
    """
    a = np.atleast_2d(np.asarray(answers, dtype=np.float64))
    errors = a - truth
    return {
        "mean": a.mean(axis=axis),
        "bias": errors.mean(axis=axis),
        "variance": a.var(axis=axis),
        "mse": (errors**2).mean(axis=axis),
    }


def total_variation(estimate: NDArray[np.float64], truth: NDArray[np.float64]) -> float:
    """``½ Σ |f'_v − f_v|`` (for vectors that need not be distributions)."""
    return float(total_variation_rows(np.asarray(estimate)[np.newaxis], truth)[0])


def total_variation_rows(
    estimates: NDArray[np.float64], truth: NDArray[np.float64]
) -> NDArray[np.float64]:
    """:func:`total_variation` of every row of ``estimates`` (shape ``(k, d)``) at once."""
    return 0.5 * np.abs(np.asarray(estimates) - np.asarray(truth)).sum(axis=-1)


def kl_divergence(truth: NDArray[np.float64], estimate: NDArray[np.float64]) -> float:
    """``KL(f ‖ f') = Σ f_v log(f_v / f'_v)``, or NaN where it is not defined.

    Defined only when ``f'`` is a distribution (non-negative, sums to one within
    1e-9) that is positive wherever ``f`` is; otherwise NaN (or inf, if ``f'`` is a
    distribution that misses part of the support).

    Examples
    --------
    >>> kl_divergence(np.array([0.5, 0.5]), np.array([0.5, 0.5]))
    0.0
    """
    return float(kl_divergence_rows(truth, np.asarray(estimate)[np.newaxis])[0])


def kl_divergence_rows(
    truth: NDArray[np.float64], estimates: NDArray[np.float64]
) -> NDArray[np.float64]:
    """:func:`kl_divergence` of every row of ``estimates`` (shape ``(k, d)``) at once.

    One computation for a whole chunk of trials: called per trial and method, the checks
    around a d-element sum cost more than the sum.
    """
    f = np.asarray(truth, dtype=np.float64)
    g = np.asarray(estimates, dtype=np.float64)
    support = f > 0
    distribution = (g.min(axis=-1) >= 0) & (np.abs(g.sum(axis=-1) - 1.0) <= 1e-9)
    missed = np.any(g[:, support] == 0, axis=-1)
    divergence = np.where(distribution, math.inf, math.nan)
    defined = distribution & ~missed
    if np.any(defined):
        # Logs only for the rows where KL is defined: Base and Norm are never
        # distributions, and a log per value and trial is most of the cost.
        # Contiguous rows: a masked column selection is laid out column-major, and a sum
        # along strided rows is not the pairwise sum one row gets (its last bits differ).
        on_support = np.ascontiguousarray(g[defined][:, support])
        # log f − log g, not log(f/g): an estimate can be subnormal (≈ 1e-320), and f/g
        # would overflow where the difference of logs stays finite.
        terms = f[support] * (np.log(f[support]) - np.log(on_support))
        divergence[defined] = terms.sum(axis=-1)
    return divergence


def analytic_base_mse(
    protocol: FrequencyOracle,
    true_frequencies: NDArray[np.float64],
    n: int,
    *,
    values: NDArray[np.int64] | None = None,
) -> float:
    """Mean of the Base variances of Eq. (3), over all values or the given ones (exact)."""
    variances = protocol.variance(true_frequencies, n)
    return float(np.mean(variances if values is None else variances[values]))


def equivalent_users(protocol: FrequencyOracle, mse: float) -> float:
    """Users of Base that would give this mean MSE (NDSS Sec. V-C; reading note 9).

    ``n' = [q(1−q)/(p−q)² + (1−p−q)/(d(p−q))] / m``.
    """
    p, q, d = protocol.p, protocol.q, protocol.domain_size
    if not mse > 0:
        return math.inf
    return (q * (1 - q) / (p - q) ** 2 + (1 - p - q) / (d * (p - q))) / mse


def lower_bound(epsilon: float, n: int) -> float:
    """Per-value mean MSE bound ``1/(n (e^ε − 1)²)`` (MLE paper, Theorem 4.5, Eq. 59).

    See :data:`LOWER_BOUND_CAVEAT` for what it does and does not promise.
    """
    return 1.0 / (check_n_users(n) * math.expm1(check_epsilon(epsilon)) ** 2)


def t_interval(values: NDArray[np.float64], level: float = 0.95) -> tuple[float, float]:
    """The mean's Student-t interval over trials (nan for fewer than two values)."""
    from scipy import stats  # noqa: PLC0415 (scipy loads where it is used)

    count = values.size
    if count < 2:
        return math.nan, math.nan
    mean = float(values.mean())
    half = float(stats.t.ppf(0.5 + level / 2, count - 1) * values.std(ddof=1) / math.sqrt(count))
    return mean - half, mean + half
