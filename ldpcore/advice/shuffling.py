"""Amplification by shuffling: the central ε of n shuffled ε₀-LDP reports.

Source: V. Feldman, A. McMillan and K. Talwar, "Hiding Among the Clones: A Simple and
Nearly Optimal Analysis of Privacy Amplification by Shuffling", FOCS 2021
(arXiv 2012.12803), written FMT below.

What it covers. Each of n users sends **one** report from an ε₀-LDP randomizer (any of
this tool's protocols at ε₀: GRR, OLH, OUE, SUE, SS, HR, or any other ε₀-LDP randomizer;
users may even use different ones). A **trusted shuffler** removes who sent what and
passes on the multiset of reports. Then the analyst's view is (ε, δ)-DP in the central
sense: changing one user's value changes the distribution of the shuffled reports by at
most e^ε, except with probability δ. Nothing is gained against the shuffler itself, nor
against anyone who sees the reports before they are shuffled; there, ε₀ is what holds.

The reduction (FMT Sec. 3). Every ε₀-LDP randomizer's output on another user's value is
a mixture that, with probability e^{-ε₀}, is a "clone" of user 1's output on x⁰ or on x¹
(each with probability ½). Telling x⁰ from x¹ apart from the shuffled reports is then no
easier than telling apart the two distributions on pairs of counts

    P = (A + Δ, C − A + 1 − Δ),    Q = (A + 1 − Δ, C − A + Δ),

with C ~ Bin(n − 1, e^{-ε₀}) clones, A ~ Bin(C, ½) of them clones of x⁰, and
Δ ~ Bern(e^{ε₀} / (e^{ε₀} + 1)) (FMT Thm 3.2). The shuffled reports are (ε, δ)-DP for
every δ at least the hockey-stick divergence D_{e^ε}(P ‖ Q) (the pair is symmetric:
swapping the coordinates maps P to Q, so one direction suffices).

:func:`shuffle_delta` computes that divergence; :func:`numerical_epsilon` finds the
smallest ε whose divergence is at most δ by bisection (the numerical bound);
:func:`closed_form_epsilon` is FMT Thm 3.1's closed form, which holds only when
ε₀ ≤ ln(n / (16 ln(4/δ))).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ldpcore._validation import check_delta, check_epsilon, check_int

#: Clone counts evaluated one by one up to this many; beyond it they are taken in blocks
#: (each block at its fewest clones: an upper bound, see :func:`shuffle_delta`).
_CLONE_VALUES_MAX = 1024
#: Above this many users the bound is computed for this many: more users only lower it
#: (C grows stochastically with n, and more clones never hurt; see :func:`shuffle_delta`),
#: so the figure stays a valid bound, and the binomial tails of 10¹² users (seconds each)
#: are never evaluated.
USERS_COMPUTED_MAX = 10**9
#: Bisection stops when the bracket is this narrow, relative to its upper end.
_RELATIVE_TOLERANCE = 1e-4
#: Below this central ε the answer is reported as this bound (a numerical floor).
_EPSILON_FLOOR = 1e-9


def _check(epsilon0: float, n: int, delta: float | None = None) -> tuple[float, int]:
    """``(ε₀, n)`` checked by the project's own rules (and ``δ``, when given)."""
    if delta is not None:
        check_delta(delta)
    return check_epsilon(epsilon0), check_int(n, name="n (users, one report each)", minimum=2)


def _tail(counts: np.ndarray, at_least: np.ndarray) -> np.ndarray:
    """Pr[Bin(counts, ½) ≥ at_least], elementwise (1 below 0, 0 above counts)."""
    return np.asarray(stats.binom.sf(at_least - 1, counts, 0.5), dtype=np.float64)


def _conditional_delta(epsilon: float, epsilon0: float, clones: np.ndarray) -> np.ndarray:
    """D_{e^ε}(P_c ‖ Q_c) for each clone count c (FMT Thm 3.2, given C = c).

    Given c, only the first count K matters (the second is c + 1 − K). Its likelihood
    ratio P_c(k) / Q_c(k) increases with k (the factor k / (c − k + 1) of Bin(c, ½)'s pmf
    at k − 1 over k increases, and p > ½), so the divergence is the largest upper-tail
    sum Σ_{k ≥ t} P_c(k) − e^ε Q_c(k), reached at the first k whose ratio is at least e^ε.
    """
    p = 1.0 / (1.0 + math.exp(-epsilon0))  # Pr[Δ = 1] = e^ε₀ / (e^ε₀ + 1)
    scale = math.exp(epsilon)
    if scale * (1.0 - p) >= p:  # ε ≥ ε₀: the ratio never exceeds e^ε
        return np.zeros(clones.shape)
    # P_c(k) / Q_c(k) ≥ e^ε  ⇔  r ≥ r*, with r = k / (c − k + 1).
    r_star = (scale * p - (1.0 - p)) / (p - scale * (1.0 - p))
    first = np.ceil(r_star * (clones + 1.0) / (1.0 + r_star))
    best = np.zeros(clones.shape)
    # The neighbours of the threshold too: rounding must never lose the largest sum.
    # Four tails serve the three thresholds (each needs the tails at t − 1 and t).
    tails = [_tail(clones, first + shift) for shift in (-2.0, -1.0, 0.0, 1.0)]
    for above_before, above_at in itertools.pairwise(tails):
        # K = A + Δ under P and A + 1 − Δ under Q: Pr[K ≥ t] from A's tails.
        p_tail = p * above_before + (1.0 - p) * above_at
        q_tail = (1.0 - p) * above_before + p * above_at
        best = np.maximum(best, p_tail - scale * q_tail)
    return best


@dataclass(frozen=True)
class _Clones:
    """C's values worth evaluating, their probabilities, and the probability left out."""

    counts: np.ndarray
    weights: np.ndarray
    outside: float


def _clones(epsilon0: float, n: int, neglect: float) -> _Clones:
    """C ~ Bin(n − 1, e^{−ε₀}) on the counts :func:`shuffle_delta` evaluates.

    It depends on ε₀ and n only, so a bisection over ε builds it once.
    """
    clones = stats.binom(min(int(n), USERS_COMPUTED_MAX) - 1, math.exp(-epsilon0))
    low, high = int(clones.ppf(neglect)), int(clones.isf(neglect))
    low = max(low - 1, 0)
    outside = float(clones.cdf(low - 1) + clones.sf(high)) if low > 0 else float(clones.sf(high))
    counts = np.arange(low, high + 1, dtype=np.float64)
    weights = clones.pmf(counts)
    if counts.size > _CLONE_VALUES_MAX:
        # Blocks of consecutive counts, each at its smallest (its largest divergence).
        block = math.ceil(counts.size / _CLONE_VALUES_MAX)
        starts = np.arange(0, counts.size, block)
        weights = np.add.reduceat(weights, starts)
        counts = counts[starts]
    return _Clones(counts, weights, outside)


def _delta(epsilon: float, epsilon0: float, clones: _Clones) -> float:
    inside = float(np.dot(clones.weights, _conditional_delta(epsilon, epsilon0, clones.counts)))
    return min(1.0, inside + clones.outside)


def shuffle_delta(epsilon: float, epsilon0: float, n: int, *, neglect: float = 1e-15) -> float:
    """The δ at which n shuffled ε₀-LDP reports are (ε, δ)-DP (FMT Thm 3.2), from above.

    Parameters
    ----------
    epsilon : float
        The central ε asked about (≥ 0).
    epsilon0 : float
        Each report's local ε₀.
    n : int
        Users, one report each (≥ 2).
    neglect : float
        Clone counts this unlikely in either tail are not evaluated; their probability is
        added to δ whole (a divergence is at most 1), so the result stays an upper bound.

    Returns
    -------
    float
        D_{e^ε}(P ‖ Q), rounded up by the neglected tails (and by blocks of clone counts
        taken at their fewest clones when there are many: more clones never hurt
        privacy, since C + 1 clones are C clones and one more fair coin, a processing
        applied alike to P and Q, which cannot increase the divergence).
    """
    epsilon0, n = _check(epsilon0, n)
    return _delta(epsilon, epsilon0, _clones(epsilon0, n, neglect))


def numerical_epsilon(epsilon0: float, n: int, delta: float) -> float:
    """The smallest central ε (within 0.01%, from above) with :func:`shuffle_delta` ≤ δ.

    FMT's numerical bound, computed at no more than :data:`USERS_COMPUTED_MAX` users.
    The divergence decreases in ε and is 0 at ε₀ (shuffling never
    costs privacy), so ε₀ (or the closed form, where it holds) is halved until it fails,
    then the bracket is bisected until it is 0.01% wide. The upper end of the final
    bracket is returned: a valid bound.

    Examples
    --------
    >>> round(numerical_epsilon(4.0, 100_000, 1e-6), 3)  # FMT's companion example
    0.17
    """
    epsilon0, n = _check(epsilon0, n, delta)
    clones = _clones(epsilon0, n, 1e-15)
    # The closed form, where it holds, bounds the answer from above: start there (at
    # 10⁹ users and ε₀ = 0.1 that saves 11 of 31 divergences).
    closed = closed_form_epsilon(epsilon0, min(n, USERS_COMPUTED_MAX), delta)
    high = epsilon0 if closed is None else min(epsilon0, closed)
    low = 0.5 * high
    while _delta(low, epsilon0, clones) <= delta:
        high, low = low, 0.5 * low
        if high < _EPSILON_FLOOR:
            return high
    while high - low > _RELATIVE_TOLERANCE * high:
        middle = 0.5 * (low + high)
        if _delta(middle, epsilon0, clones) <= delta:
            high = middle
        else:
            low = middle
    return high


def closed_form_limit(n: int, delta: float) -> float:
    """The largest ε₀ for which :func:`closed_form_epsilon` holds: ln(n / (16 ln(4/δ))).

    FMT Thm 3.1 states its condition with ln(2/δ) in some versions; the companion code
    uses ln(4/δ). The stricter of the two (ln(4/δ), a smaller limit) is used here.
    """
    _check(1.0, n, delta)
    ratio = n / (16.0 * math.log(4.0 / delta))
    return math.log(ratio) if ratio > 0 else -math.inf


def closed_form_epsilon(epsilon0: float, n: int, delta: float) -> float | None:
    """FMT Thm 3.1's closed form, or None where its condition fails.

    ε ≤ ln(1 + (e^{ε₀} − 1)/(e^{ε₀} + 1) · (8 √(e^{ε₀} ln(4/δ)) / √n + 8 e^{ε₀} / n)),
    valid when ε₀ ≤ :func:`closed_form_limit`. Looser than the numerical bound.

    Examples
    --------
    >>> round(closed_form_epsilon(4.0, 100_000, 1e-6), 3)
    0.535
    >>> closed_form_epsilon(8.0, 100_000, 1e-6) is None  # ε₀ above ln(n/(16 ln(4/δ)))
    True
    """
    _check(epsilon0, n, delta)
    if epsilon0 > closed_form_limit(n, delta):
        return None
    growth = math.exp(epsilon0)
    spread = 8.0 * math.sqrt(growth * math.log(4.0 / delta) / n) + 8.0 * growth / n
    return math.log1p((growth - 1.0) / (growth + 1.0) * spread)


@dataclass(frozen=True)
class ShuffleBound:
    """The central (ε, δ) of n shuffled ε₀-LDP reports.

    Attributes
    ----------
    epsilon0, n, delta
        The local ε₀, the users (one report each) and the δ asked for.
    numerical
        The numerical bound (FMT Thm 3.2 by bisection).
    closed_form
        FMT Thm 3.1's closed form, or None where its condition fails.
    closed_form_limit
        The largest ε₀ the closed form holds for at this n and δ.
    """

    epsilon0: float
    n: int
    delta: float
    numerical: float
    closed_form: float | None
    closed_form_limit: float

    @property
    def epsilon(self) -> float:
        """The figure to quote: the smaller of the two bounds (both hold).

        The numerical bound is the smaller wherever it is computed at the real n; above
        :data:`USERS_COMPUTED_MAX` users the closed form can be.
        """
        if self.closed_form is None:
            return self.numerical
        return min(self.numerical, self.closed_form)


def shuffled_epsilon(epsilon0: float, n: int, delta: float = 1e-6) -> ShuffleBound:
    """Both of FMT's bounds for ε₀, n and δ (see the module's text for what they cover)."""
    _check(epsilon0, n, delta)
    return ShuffleBound(
        epsilon0=float(epsilon0),
        n=int(n),
        delta=float(delta),
        numerical=numerical_epsilon(epsilon0, n, delta),
        closed_form=closed_form_epsilon(epsilon0, n, delta),
        closed_form_limit=closed_form_limit(n, delta),
    )


__all__ = [
    "USERS_COMPUTED_MAX",
    "ShuffleBound",
    "closed_form_epsilon",
    "closed_form_limit",
    "numerical_epsilon",
    "shuffle_delta",
    "shuffled_epsilon",
]
