"""An interval on every estimated frequency, from the Base estimate's exact variance.

Whatever the protocol, each user's report supports value ``v`` with probability ``p``
if ``v`` is their value and ``q`` otherwise, independently of the other users. So the
support count is ``c_v ~ Bin(n f_v, p) + Bin(n (1 − f_v), q)`` and the Base estimate
``f̃_v = (c_v / n − q) / (p − q)`` is unbiased with variance (NDSS 2020, Eq. 3)

    Var f̃_v = A + B f_v,   A = q(1 − q) / (n (p − q)²),   B = (1 − p − q) / (n (p − q)).

The interval for the true ``f_v`` is the score interval: every ``f`` in [0, 1] with
``(f̃_v − f)² ≤ z² (A + B f)``, a quadratic in ``f`` solved exactly (Wilson's
construction for a binomial proportion, here for the protocol's noise). It is a
confidence interval for the *truth*, so it is valid whichever post-processing method
made the point estimate; :func:`frequency_intervals` widens it, where needed, to
contain the method's estimate (a union only adds coverage). Where it reaches zero it is
joined with Feldman and Cousins's interval for a mean bounded at zero
(:mod:`ldpcore.stats.bounded_normal`), so a value estimated far below zero is given
``[0, u]`` with ``u > 0``, never the point 0. Coverage is measured per
protocol, ε, n and value frequency in benchmarks/README.md, "Coverage".

At class sizes the normal approximation behind the score interval fails: with one GRR
report at ε = 1 and 7 options it put the reported option's share in [52%, 100%],
although the report is someone else's with probability 0.69. Up to
:data:`EXACT_MAX_N` users the interval is therefore *exact*: the true share is
``k / n`` for a whole number ``k`` of users, and ``c_v`` has exactly the distribution
of ``Bin(k, p) + Bin(n − k, q)``; the interval holds every ``k`` that a two-sided test
at the observed ``c_v`` does not reject, each tail at most ``(1 − level) / 2`` (the
Clopper–Pearson construction, for the protocol's channel). It covers at least its
level for every truth and every ``n``; measured at class sizes in benchmarks/README.md,
"Intervals for a class".

``simultaneous=True`` makes the intervals hold for all ``d`` values at once (Bonferroni:
each at ``1 − (1 − level) / d``). The Class page uses it: a class reads its options
together, and at ``n = 1`` it excludes a share only when the report has less than a
``(1 − level) / 2`` chance of being another option's, which is the chance the report
was randomized away from the truth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError
from ldpcore.postprocess.caveats import Caveat
from ldpcore.protocols import FrequencyOracle
from ldpcore.stats.bounded_normal import feldman_cousins


def check_level(level: object) -> float:
    """A confidence level in [0.5, 1), or an :class:`InputError` that says so."""
    if isinstance(level, bool) or not isinstance(level, int | float):
        raise InputError(f"the interval level must be a number in [0.5, 1), got {level!r}")
    if not (math.isfinite(level) and 0.5 <= level < 1):
        raise InputError(f"the interval level must be in [0.5, 1) (0.95 for 95%), got {level!r}")
    return float(level)


def base_variance_terms(protocol: FrequencyOracle, n: int) -> tuple[float, float]:
    """``(A, B)`` with ``Var f̃_v = A + B f_v`` for this protocol and ``n`` (NDSS Eq. 3)."""
    p, q = protocol.p, protocol.q
    gap = p - q
    return q * (1 - q) / (n * gap**2), (1 - p - q) / (n * gap)


#: Up to this many users the intervals are exact (:func:`exact_intervals`); above, the
#: score interval, whose coverage is measured there (benchmarks/README.md, "Coverage").
#: The exact one costs two ``(n + 1)²`` binomial tables and an FFT: 40 ms at this size
#: (0.23 s at 1,000, which a class page refreshing 13 methods every 3 s cannot pay).
EXACT_MAX_N = 500


def per_test_level(level: float, values: int, *, simultaneous: bool) -> float:
    """Each interval's own level: ``level``, or Bonferroni's ``1 − (1 − level) / values``.

    Examples
    --------
    >>> per_test_level(0.95, 5, simultaneous=True)
    0.99
    """
    return 1 - (1 - level) / values if simultaneous else level


def frequency_intervals(
    estimate: ArrayLike,
    *,
    protocol: FrequencyOracle,
    n: int,
    level: float = 0.95,
    point: ArrayLike | None = None,
    simultaneous: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-sided ``level`` intervals for every true frequency, within [0, 1].

    Exact (:func:`exact_intervals`) up to :data:`EXACT_MAX_N` users when the estimate
    comes from whole support counts; the score interval otherwise.

    Parameters
    ----------
    estimate : array_like
        The Base estimate ``f̃`` (NDSS Eq. 2), one value per domain value.
    protocol : FrequencyOracle
        The protocol that produced it (its ``p`` and ``q``).
    n : int
        Number of users.
    level : float
        Nominal coverage of each interval (per value, not simultaneous).
    point : array_like, optional
        A post-processed estimate; each interval is widened to contain it where it lies
        in [0, 1].
    simultaneous : bool
        Hold for all values at once (Bonferroni), not for each value on its own.

    Returns
    -------
    low, high : ndarray
        The bounds, ``0 <= low <= high <= 1``.

    Examples
    --------
    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=4)
    >>> low, high = frequency_intervals([0.5, 0.3, 0.2, -0.01], protocol=grr, n=10_000)
    >>> bool(low[0] < 0.5 < high[0]), float(low[3]), bool(high[3] > 0)
    (True, 0.0, True)
    """
    level = check_level(level)
    f = np.asarray(estimate, dtype=np.float64)
    if f.ndim != 1 or not np.all(np.isfinite(f)):
        raise InputError("the estimate must be a vector of finite numbers")
    each = per_test_level(level, f.size, simultaneous=simultaneous)
    counts = support_counts(f, protocol=protocol, n=n)
    if counts is not None:
        low, high = exact_intervals(counts, protocol=protocol, n=n, level=each)
    else:
        low, high = _score_intervals(f, protocol=protocol, n=n, level=each)
    if point is not None:
        inside = np.clip(np.asarray(point, dtype=np.float64), 0.0, 1.0)
        low, high = np.minimum(low, inside), np.maximum(high, inside)
    return low, high


def _score_intervals(
    f: NDArray[np.float64], *, protocol: FrequencyOracle, n: int, level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    a, b = base_variance_terms(protocol, n)
    # scipy is loaded when an interval is first made: the methods' registry, which the
    # command line's help reads, imports this module.
    from scipy import special  # noqa: PLC0415

    z2 = float(special.ndtri(0.5 + level / 2)) ** 2
    # f² − (2f̃ + z²B) f + (f̃² − z²A) ≤ 0: between the roots.
    half_sum = f + z2 * b / 2
    discriminant = half_sum**2 - (f**2 - z2 * a)
    root = np.sqrt(np.maximum(discriminant, 0.0))
    low = np.clip(half_sum - root, 0.0, 1.0)
    high = np.clip(half_sum + root, 0.0, 1.0)
    # No f in [0, 1] fits (an estimate far outside it): the nearest end, as a point.
    empty = (discriminant < 0) | (half_sum + root < 0) | (half_sum - root > 1)
    low = np.where(empty & (f < 0.5), 0.0, np.where(empty, 1.0, low))
    high = np.where(empty & (f < 0.5), 0.0, np.where(empty, 1.0, high))
    # Where the interval reaches zero, it may be that point or a sliver above it, which
    # reads "certainly none" of a value a few users may hold. There Feldman and
    # Cousins's interval for a mean bounded at zero, in the standard deviation of an
    # estimate whose truth is zero (√A, the truths such an interval is about), is never
    # empty and never a point; the union of two intervals that each cover their level
    # covers it too. An interval clear of zero is the score interval alone.
    _, near_high = feldman_cousins(f / math.sqrt(a), level)
    touches = low <= 0.0
    low = np.where(touches, 0.0, low)
    high = np.where(touches, np.clip(np.maximum(high, near_high * math.sqrt(a)), 0.0, 1.0), high)
    return low, high


def support_counts(
    estimate: ArrayLike, *, protocol: FrequencyOracle, n: int
) -> NDArray[np.int64] | None:
    """The whole support counts behind a Base estimate, or None (too many users, or not counts).

    Inverts ``f̃_v = (c_v / n − q) / (p − q)`` (NDSS Sec. III). An estimate that was
    typed or rounded, not computed from counts, gives counts that are not whole
    numbers: the exact interval then has nothing to stand on, and the score one is used.
    """
    if n > EXACT_MAX_N or protocol.real_valued_reports:  # SHE's sums are not counts
        return None
    f = np.asarray(estimate, dtype=np.float64)
    raw = n * (protocol.q + f * (protocol.p - protocol.q))
    counts = np.rint(raw)
    if np.any(np.abs(raw - counts) > 1e-6) or np.any(counts < 0) or np.any(counts > n):
        return None
    return counts.astype(np.int64)


def exact_intervals(
    counts: ArrayLike, *, protocol: FrequencyOracle, n: int, level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Exact two-sided intervals for each value's share ``k / n`` from its support count.

    Whatever the protocol, a user holding ``v`` supports it with probability ``p`` and
    any other user with ``q``, independently (NDSS Sec. III), so with ``k`` holders the
    support count is ``Bin(k, p) + Bin(n − k, q)`` exactly. The interval is every
    ``k / n`` at which neither tail probability of the observed count is at most
    ``(1 − level) / 2``: it covers at least ``level`` for every truth (the
    Clopper–Pearson argument; the family is stochastically increasing in ``k``
    because ``p > q``, so the kept ``k`` form a run).

    Parameters
    ----------
    counts : array_like of int
        ``c_v`` for every value, each in ``[0, n]``.
    protocol : FrequencyOracle
    n : int
    level : float
        Each interval's own coverage.

    Returns
    -------
    low, high : ndarray
        ``k_low / n`` and ``k_high / n``.

    Examples
    --------
    One GRR report at ε = 1, 7 options: the reported option may still be nobody's.

    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=7)
    >>> low, high = exact_intervals([1, 0, 0, 0, 0, 0, 0], protocol=grr, n=1, level=0.95)
    >>> low.tolist(), high.tolist()
    ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    """
    c = np.asarray(counts, dtype=np.int64)
    pmf = _count_pmf(n, protocol.p, protocol.q)
    below = np.minimum(np.cumsum(pmf, axis=1), 1.0)
    above = np.minimum(np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1], 1.0)
    tail = (1 - level) / 2
    # kept[k, v]: the count of v is not in either rejected tail when k users hold v.
    kept = (below[:, c] > tail) & (above[:, c] > tail)
    held = kept.any(axis=0)
    ks = np.arange(n + 1)[:, None]
    k_low = np.where(kept, ks, n + 1).min(axis=0)
    k_high = np.where(kept, ks, -1).max(axis=0)
    # Nothing kept, or one k alone (a count no holder count explains at this level): the
    # Feldman–Cousins belt of the same channel, ordered by likelihood ratio, is never
    # empty; joined with the equal-tailed one, it only adds coverage.
    narrow = ~held | (k_low == k_high)
    if narrow.any():
        ordered = _likelihood_ratio_belt(pmf, level)[:, c]
        fc_low = np.where(ordered, ks, n + 1).min(axis=0)
        fc_high = np.where(ordered, ks, -1).max(axis=0)
        k_low = np.where(narrow, np.minimum(np.where(held, k_low, n + 1), fc_low), k_low)
        k_high = np.where(narrow, np.maximum(np.where(held, k_high, -1), fc_high), k_high)
    return k_low / n, k_high / n


def _likelihood_ratio_belt(pmf: NDArray[np.float64], level: float) -> NDArray[np.bool_]:
    """``kept[k, c]``: count ``c`` is in ``k``'s acceptance region (Feldman–Cousins).

    The region holds the counts of largest ``P(c | k) / max_k' P(c | k')`` until their
    probability reaches ``level`` (Feldman and Cousins 1998, Sec. IV.B, for a discrete
    channel).
    """
    best = pmf.max(axis=0, keepdims=True)
    ratio = np.divide(pmf, best, out=np.zeros_like(pmf), where=best > 0)
    order = np.argsort(-ratio, axis=1, kind="stable")
    mass = np.cumsum(np.take_along_axis(pmf, order, axis=1), axis=1)
    # Each row keeps its counts up to and including the one that reaches the level.
    reached = np.concatenate([np.zeros((pmf.shape[0], 1)), mass[:, :-1]], axis=1) < level
    kept = np.zeros_like(pmf, dtype=bool)
    np.put_along_axis(kept, order, reached, axis=1)
    return kept


def _count_pmf(n: int, p: float, q: float) -> NDArray[np.float64]:
    """``P(C = c)`` for ``C ~ Bin(k, p) + Bin(n − k, q)``, rows ``k``, columns ``c``.

    Each row's distribution is the convolution of two binomial pmfs, done for all
    ``k`` at once by FFT. Its rounding error (about 1e-15) is far below any tail a
    level compares against.
    """
    from scipy import stats  # noqa: PLC0415 (loaded when an interval is first made)

    ks = np.arange(n + 1)
    values = np.arange(n + 1)[None, :]
    holders = stats.binom.pmf(values, ks[:, None], p)  # row k: Bin(k, p)
    others = stats.binom.pmf(values, (n - ks)[:, None], q)  # row k: Bin(n − k, q)
    size = 1 << int(2 * n + 1).bit_length()
    pmf = np.fft.irfft(
        np.fft.rfft(holders, size, axis=1) * np.fft.rfft(others, size, axis=1), size, axis=1
    )[:, : n + 1]
    pmf = np.clip(pmf, 0.0, None)
    return pmf / pmf.sum(axis=1, keepdims=True)


def reports_for_half_width(
    protocol: FrequencyOracle,
    half_width: float,
    *,
    level: float = 0.95,
    share: float,
    simultaneous: bool = False,
) -> float:
    """Users for a ``level`` interval of about ``± half_width`` around a true ``share``.

    NDSS Eq. 3 inverted: ``Var f̃ = (A₁ + B₁ f) / n``, so ``n = z² (A₁ + B₁ f) / h²``,
    the normal approximation that is good at the answer's size (hundreds of users and
    more). It is the analytic Base path of
    :func:`ldpcore.advice.bisection.advise_users` with the target stated as an
    interval's half-width rather than an RMSE.

    Examples
    --------
    GRR, ε = 1, 7 options: ``p = 0.3118``, ``q = 0.1147``, so ``A₁ = 2.614``,
    ``B₁ = 2.910`` and ``n = 1.96² (2.614 + 2.910 / 7) / 0.1² ≈ 1,164``.

    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=7)
    >>> round(reports_for_half_width(grr, 0.1, share=1 / 7))
    1164
    """
    from scipy import special  # noqa: PLC0415

    each = per_test_level(check_level(level), protocol.domain_size, simultaneous=simultaneous)
    z = float(special.ndtri(0.5 + each / 2))
    a, b = base_variance_terms(protocol, 1)
    return z**2 * (a + b * share) / half_width**2


#: The highest level of a credible interval: its tails need ``40 / tail`` draws (8,000
#: at 99%), and beyond that the sampler would take a minute where it takes a second.
CREDIBLE_LEVEL_MAX = 0.99


@dataclass(frozen=True)
class IntervalEstimates:
    """A method's estimate of every frequency with an interval for each.

    Attributes
    ----------
    point, low, high : ndarray
        The estimate and the bounds, ``0 <= low <= point <= high <= 1`` where the
        estimate lies in [0, 1].
    kind : {"credible", "confidence"}
        Bayes gives posterior (credible) intervals; every other method the score
        confidence interval of :func:`frequency_intervals`.
    caveats : tuple of Caveat
        What a person must know before relying on the intervals (Bayes: its sampler
        stopped early, the prior shapes the answer, or the intervals were widened);
        :func:`ldpcore.present.run_sentences.caveat_words` says each.
    """

    point: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    kind: Literal["credible", "confidence"]
    caveats: tuple[Caveat, ...] = ()


__all__ = [
    "CREDIBLE_LEVEL_MAX",
    "EXACT_MAX_N",
    "IntervalEstimates",
    "base_variance_terms",
    "check_level",
    "exact_intervals",
    "frequency_intervals",
    "per_test_level",
    "reports_for_half_width",
    "support_counts",
]
