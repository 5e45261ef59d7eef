"""Per-answer moments pooled across answers of similar truth, by a sliding linear fit.

A "within ±x" target is decided by the worst of many answers' margins, each from the
bias and spread measured over a few trials. Taken answer by answer, the largest of
those margins is pulled up by the noise of the many estimates it is the largest of:
with 10 trials over 248 values, Base's "each" margin came out 1.3–1.7× its value
from 2,000 trials (``benchmarks/bench_option_epsilon.py`` and benchmarks/README.md,
"The consistent option's ε"). The
answers of an LDP query are not unrelated, though: under a symmetric frequency oracle
a value's Base estimate has a variance that is linear in its true frequency (NDSS 2020
Eq. 3), and post-processing biases and spreads values of similar frequency alike. So
each answer's bias and variance are read from a straight line fitted to the answers
nearest to it in truth (enough of them that the pooled variance has about
:data:`POOLED_DEGREES` degrees of freedom), which follows a trend in frequency
without averaging the largest values with the smallest.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

#: Degrees of freedom the pooled variance aims at: each answer's window holds
#: ⌈POOLED_DEGREES / (trials − 1)⌉ answers (23 at 10 trials).
POOLED_DEGREES = 200


def window_size(trials: int, answers: int) -> int:
    """How many answers each answer's line is fitted to (at least 1, at most all).

    Examples
    --------
    >>> window_size(10, 248), window_size(10, 10), window_size(1000, 248)
    (23, 10, 1)
    """
    wanted = math.ceil(POOLED_DEGREES / max(trials - 1, 1))
    return max(1, min(answers, wanted))


def local_linear(
    values: NDArray[np.float64], truth: NDArray[np.float64], width: int
) -> NDArray[np.float64]:
    """Each row of ``values`` smoothed along ``truth`` by a sliding straight line.

    At each answer: the least-squares line through the ``width`` answers nearest in
    truth (by rank), evaluated there. O(answers) per row, from running sums. A window
    whose truths are all equal gives its mean (no slope to fit).

    Parameters
    ----------
    values : ndarray, shape (rows, answers)
    truth : ndarray, shape (answers,)
    width : int

    Examples
    --------
    >>> x = np.array([0.1, 0.4, 0.2, 0.3])
    >>> local_linear((2 * x + 1)[None], x, 3).round(12).tolist()  # a line is kept
    [[1.2, 1.8, 1.4, 1.6]]
    >>> local_linear(np.array([[1.0, 3.0, 2.0]]), np.array([0.0, 0.0, 0.0]), 3).tolist()
    [[2.0, 2.0, 2.0]]
    """
    values = np.atleast_2d(np.asarray(values, dtype=float))
    truth = np.asarray(truth, dtype=float)
    count = truth.size
    width = max(1, min(int(width), count))
    order = np.argsort(truth, kind="stable")
    x, y = truth[order], values[:, order]
    # Centred on the mean truth, so the running sums of squares lose no digits.
    x = x - x.mean()
    low = np.clip(np.arange(count) - width // 2, 0, count - width)
    high = low + width

    def window(series: NDArray[np.float64]) -> NDArray[np.float64]:
        running = np.cumsum(series, axis=-1)
        zero = np.zeros((*series.shape[:-1], 1))
        running = np.concatenate([zero, running], axis=-1)
        return (running[..., high] - running[..., low]) / width

    mean_x, mean_xx = window(x), window(x * x)
    mean_y, mean_xy = window(y), window(x * y)
    spread = mean_xx - mean_x**2
    covariance = mean_xy - mean_x * mean_y
    flat = spread <= 1e-12 * max(float(np.max(mean_xx)), 1e-300)
    slope = np.where(flat, 0.0, covariance / np.where(flat, 1.0, spread))
    fitted = mean_y + slope * (x - mean_x)
    result = np.empty_like(fitted)
    result[:, order] = fitted
    return result


def pooled_moments(
    errors: NDArray[np.float64], truth: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each answer's bias and standard deviation, pooled across answers of similar truth.

    ``errors`` has shape ``(rows, trials, answers)``. The variance's line is kept at or
    above the smallest variance measured in its row, so that a line falling steeply at
    the edge of the answers is not read as no noise at all.
    """
    trials, answers = errors.shape[1], errors.shape[2]
    bias = errors.mean(axis=1)
    if trials < 2:
        return bias, np.zeros_like(bias)
    variance = errors.var(axis=1, ddof=1)
    width = window_size(trials, answers)
    if width == 1:
        return bias, np.sqrt(variance)
    fitted = local_linear(variance, truth, width)
    floor = variance.min(axis=1, keepdims=True)
    return local_linear(bias, truth, width), np.sqrt(np.maximum(fitted, floor))


__all__ = ["POOLED_DEGREES", "local_linear", "pooled_moments", "window_size"]
