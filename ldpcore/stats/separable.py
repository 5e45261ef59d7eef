"""The separable likelihood the pair sampler targets: one term per value.

The pair and concentration moves (:mod:`ldpcore.stats.pair_moves`,
:mod:`ldpcore.stats.concentration`) need a likelihood that is a sum of one term per
value,

    h_v(x) = a_v log(q + g x) + b_v log(1 − q − g x),   g = p − q > 0,

which is the likelihood of support counts (``a = c``, ``b = n − c``: independent
binomials) or of GRR's reports (``a = s``, ``b = 0``: a multinomial whose cells are
``q + g π``; MLE paper, Sec. 3 and Eq. 22). Nothing here knows about LDP: ``p`` and
``q`` are two rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray
from scipy import special

from ldpcore.stats.logspace import TINY


@dataclass(frozen=True)
class SeparableLikelihood:
    """``Σ_v a_v log(q + g π_v) + b_v log(1 − q − g π_v)`` with ``g = p − q > 0``.

    Attributes
    ----------
    hits, misses : ndarray
        ``a`` and ``b``: the support counts and ``n`` minus them (binomials), or GRR's
        report counts and zeros (the multinomial).
    p, q : float
        The probability that a user's report supports their own value, and another.
    reference : ndarray
        An unbiased estimate of ``π`` (may be negative): where the Newton search starts
        and how the values are ordered for neighbour pairings.
    """

    hits: NDArray[np.float64]
    misses: NDArray[np.float64]
    p: float
    q: float
    reference: NDArray[np.float64]

    @property
    def gap(self) -> float:
        """``g = p − q``."""
        return self.p - self.q

    @cached_property
    def multinomial(self) -> bool:
        """Whether every ``b_v`` is 0 (GRR's reports): their logarithms are then skipped."""
        return not bool(np.any(self.misses))

    def _rate(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.clip(self.q + self.gap * x, TINY, 1.0 - 1e-16)

    def terms(
        self, index: NDArray[np.intp], x: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """``h_v(x)``, ``h_v'(x)`` and ``h_v''(x)`` for the values ``index`` at ``x``."""
        rate = self._rate(x)
        return (self._log_terms(index, rate), *self._derivatives(index, rate))

    def _log_terms(self, index: NDArray[np.intp], rate: NDArray[np.float64]) -> NDArray[np.float64]:
        value = self.hits[index] * np.log(rate)
        if not self.multinomial:
            value += self.misses[index] * np.log1p(-rate)
        return value

    def _derivatives(
        self, index: NDArray[np.intp], rate: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        g = self.gap
        over_hit = self.hits[index] / rate
        if self.multinomial:
            return g * over_hit, -(g * g) * over_hit / rate
        over_miss = self.misses[index] / (1.0 - rate)
        return g * (over_hit - over_miss), -(g * g) * (over_hit / rate + over_miss / (1.0 - rate))

    def log_terms(self, index: NDArray[np.intp], x: NDArray[np.float64]) -> NDArray[np.float64]:
        """``h_v(x)`` alone."""
        return self._log_terms(index, self._rate(x))

    def slopes(
        self, index: NDArray[np.intp], x: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``h_v'(x)`` and ``h_v''(x)``."""
        return self._derivatives(index, self._rate(x))

    @cached_property
    def at_zero(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Every value's ``h_v(0)`` and ``h_v''(0)`` (the spikes' heights and widths)."""
        everyone = np.arange(self.hits.size)
        value, _, bend = self.terms(everyone, np.zeros(self.hits.size))
        return value, bend

    @cached_property
    def order(self) -> NDArray[np.intp]:
        """The values by the reference estimate, largest first (neighbour pairings)."""
        return np.argsort(-self.reference, kind="stable")

    @cached_property
    def seen_mask(self) -> NDArray[np.bool_]:
        """True for the values whose reports rule out 0 and fix their share: ``A``.

        ``A`` is the concentration moves' centred group. A one-sided likelihood-ratio
        test of "``π_v = 0``" on the value's own report count, a binomial whatever the
        protocol (GRR's cells are multinomial, each one binomial), at the universal
        threshold ``√(2 ln d)`` (Donoho & Johnstone 1994, Sec. 1: the largest of ``d``
        independent standard normals stays below it with probability tending to 1), and
        at least 2. Why a threshold that grows with ``d``: at 2 sds, a 2.3% tail, Zipf
        d = 1,024 under GRR had 28 values "seen", about 24 of them noise; their shares
        are ones the reports barely fix, and in the moves' centred part they pinned α
        (α's ESS 173 in 8,000 draws, 390 at the universal threshold with 3 seen). Why
        the reports' count and not the estimate's z-score: at n = 100 an estimate can
        be far above 1, with a curvature that says nothing (GRR, ε = 0.5, d = 64: 6
        values "seen" from 4 reports each). The share condition is below.
        """
        d = self.hits.size
        trials = self.hits + self.misses if not self.multinomial else np.full(d, self.hits.sum())
        rate = np.clip(self.hits / np.maximum(trials, 1.0), self.q, 1.0)  # q <= rate: no log 0
        ratio = special.xlogy(self.hits, rate / self.q) + special.xlogy(
            trials - self.hits, (1.0 - rate) / (1.0 - self.q)
        )
        threshold = max(2.0, math.sqrt(2.0 * math.log(d)))
        # ... and the reports must fix the share to within a fraction of itself: the
        # estimate (at most 1) over the likelihood's sd there. At small n a count can
        # rule out 0 while the share stays anywhere in (0, 1) (GRR, ε = 2, n = 100: 7
        # reports, estimate 0.61 ± 0.29), and a centred value that wide mixed slowly.
        share = np.clip(self.reference, 0.0, 1.0)
        _, bend = self.slopes(np.arange(d), share)
        pinned = share * np.sqrt(np.maximum(-bend, 0.0)) > threshold
        return np.asarray((2.0 * ratio > threshold * threshold) & pinned)

    @cached_property
    def clear(self) -> int:
        """How many values :attr:`seen_mask` marks (possibly none)."""
        return int(self.seen_mask.sum())

    @cached_property
    def seen(self) -> int:
        """:attr:`clear`, but at least 2 (a block for the pairings)."""
        return max(2, self.clear)

    @cached_property
    def unseen(self) -> NDArray[np.intp]:
        """The values :attr:`seen_mask` leaves out (``B``), ascending."""
        return np.flatnonzero(~self.seen_mask)

    @cached_property
    def anchor(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The reference estimate floored at 0, and the likelihood's curvature there."""
        everyone = np.arange(self.hits.size)
        floored = np.maximum(self.reference, 0.0)
        # At least 1 (an sd of 1 in π: no information), so that a value without reports
        # (GRR, a count of 0: a flat term) still has a weight.
        return floored, np.maximum(-self.terms(everyone, floored)[2], 1.0)

    def value(self, pis: NDArray[np.float64]) -> NDArray[np.float64]:
        """The log-likelihood (up to a constant) of every row of ``pis``."""
        rate = np.clip(self.q + self.gap * pis, TINY, 1.0 - 1e-16)
        value = np.log(rate) @ self.hits
        return value if self.multinomial else value + np.log1p(-rate) @ self.misses


__all__ = ["SeparableLikelihood"]
