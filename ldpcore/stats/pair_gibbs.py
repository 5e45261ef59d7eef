"""Gibbs moves on pairs of values, for a Dirichlet prior and a separable likelihood.

Used by the ``Bayes`` post-processing method (:mod:`ldpcore.postprocess.bayes`) wherever
the protocol's likelihood is a sum of one term per value; nothing here knows about LDP.

The target. A distribution ``π`` on ``d`` values with density

    p(π) ∝ Π_v π_v^(α_v − 1) · exp(h_v(π_v)),
    h_v(x) = a_v log(q + g x) + b_v log(1 − q − g x),   g = p − q > 0,

which is a Dirichlet(α) prior times the likelihood of support counts
(``a = c``, ``b = n − c``: independent binomials) or of GRR's reports (``a = s``,
``b = 0``: a multinomial whose cells are ``q + g π``; MLE paper, Sec. 3 and Eq. 22).

The move. Hold every value but two fixed: ``π_i + π_j = s`` is then fixed too, and
``t = π_i / s`` has the one-dimensional conditional density (Dirichlet aggregation:
``t`` is Beta(α_i, α_j) under the prior)

    f(t) ∝ t^(α_i − 1) (1 − t)^(α_j − 1) exp(h_i(s t) + h_j(s (1 − t))).

Only two terms of the likelihood change, so disjoint pairs are conditionally
independent and one vectorised step updates ``d/2`` pairs (and every chain) at once.
Each pair's ``t`` is drawn by a Metropolis–Hastings independence proposal (Tierney 1994;
Robert & Casella 2004, Sec. 7.4) built from ``s`` and the data alone: a normal in
``logit t`` at the conditional's mode (Laplace), and two "spikes" ``t^(α−1)`` on
``(0, τ)`` and ``(1 − τ, 1)`` where the likelihood is nearly flat, each weighted by its
approximate mass. Why this and not HMC: with ``α_v < ½`` (a prior that expects most
values to be nearly absent) a value the reports barely see has a posterior that is a
spike at 0 plus a bump, which no trajectory crosses well (HMC's ESS fell to 77 of 8,000
draws at α = 0.1, benchmarks/README.md); here the proposal chooses between them. A
proposal that does not depend on the current ``t`` (the Newton search starts from the
data, never from the state) keeps the move exact whatever the search finds.

The state is ``log π``: at α = 0.05 a spike draw is ``τ U^20``, which underflows a
float in one draw of 10¹⁵ but never its logarithm, and the learned prior needs
``Σ_v log π_v`` exactly (:mod:`ldpcore.postprocess.bayes`).

Pairings alternate between random ones (every pair reachable) and neighbours in the
reference estimate's order (values of similar size trade mass quickly); both are
chosen before the step, so each step is a valid Gibbs update.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray
from scipy import special

#: The Laplace component's sd, relative to the curvature's: wider tails than the target.
_WIDEN = 1.2
#: Each component's least share of the proposal, so that none is ever left out.
_FLOOR = 0.05
#: Newton iterations for the conditional's mode (a deterministic function of s and data).
_NEWTON = 2
#: How many of the best-measured values are also redrawn against all the others. The
#: largest shares are the ones pairs move slowly; each redraw costs a pass over every
#: value. Minimum ESS per second over 600 steps (3 seeds): Zipf d = 1,024, GRR, α = 0.015:
#: 189 with 8 leaders, 210 with 4, 219 with 2, 37 with none; countries, GRR: 708, 901,
#: 1,079 and 1,267.
_LEADERS = 2
#: Above this many values seen, the block pairings alone mix the leaders well.
_FEW_SEEN = 32
#: How many of the last stages the score's line is fitted to.
_FIT = 5
#: Newton iterations against the rest: it starts from a value the reports measure well.
_REST_NEWTON = 2
#: A learning stage that moves ``log α`` by less than this is settled: the stages' own
#: noise in ``log α̂`` is 0.03–0.10 (sd over seeds, the small exact cases).
_SETTLED = 0.1
#: How steep the score's line must be (``−d score / d log α``; an sd of ``log α`` of
#: 0.25) before the stages may stop early.
_SHARP = 16.0
#: Keeps rates inside (0, 1) where floating point would round them onto the edge.
_TINY = 1e-300
_LOG_TINY = math.log(_TINY)


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
        return np.clip(self.q + self.gap * x, _TINY, 1.0 - 1e-16)

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
    def seen(self) -> int:
        """How many values the reference puts more than two likelihood sds above 0."""
        floored, weight = self.anchor
        return max(2, int(np.sum(floored * np.sqrt(weight) > 2.0)))

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
        rate = np.clip(self.q + self.gap * pis, _TINY, 1.0 - 1e-16)
        return np.log(rate) @ self.hits + np.log1p(-rate) @ self.misses


@dataclass(frozen=True)
class PairSchedule:
    """The pairings of one sweep: ``first[k]`` with ``second[k]``, per step."""

    first: list[NDArray[np.intp]]
    second: list[NDArray[np.intp]]


def schedule(order: NDArray[np.intp], seen: int, rng: np.random.Generator) -> PairSchedule:
    """Four steps: random, neighbours (even), random within blocks, neighbours (odd).

    Neighbours are adjacent in ``order`` (the values by a reference estimate, largest
    first). The blocks are the first ``seen`` values of ``order`` and the rest: when
    most values sit at 0 (a small α), a random partner of a well-measured value is
    nearly always one that cannot take its mass, and without the block step the top
    values' shares would diffuse only between neighbours (Zipf, d = 1,024, GRR: ESS 76
    of 8,000 draws for the top value). An odd value out of a step waits for the next one.
    """
    d = order.size
    firsts, seconds = [], []
    for kind in ("random", "even", "blocks", "odd"):
        if kind in ("random", "blocks"):
            if kind == "random":
                groups = [rng.permutation(d)]
            else:
                groups = [rng.permutation(order[:seen]), rng.permutation(order[seen:])]
            firsts.append(np.concatenate([g[: g.size // 2] for g in groups]))
            seconds.append(np.concatenate([g[g.size // 2 : 2 * (g.size // 2)] for g in groups]))
        else:
            start = 0 if kind == "even" else 1
            usable = order[start : start + 2 * ((d - start) // 2)]
            firsts.append(usable[0::2])
            seconds.append(usable[1::2])
    return PairSchedule(firsts, seconds)


def _softplus(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log(1 + e^x)``, exact at both ends; 4x faster than ``np.logaddexp(0, x)``."""
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def _log_sum3(
    a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``log(e^a + e^b + e^c)`` element-wise, where ``a`` is finite (scipy's is 5x slower)."""
    top = np.maximum(np.maximum(a, b), c)
    return top + np.log(np.exp(a - top) + np.exp(b - top) + np.exp(c - top))


def _pair_mode(
    s: NDArray[np.float64],
    pair: tuple[NDArray[np.intp], NDArray[np.intp]],
    a_i: NDArray[np.float64],
    a_j: NDArray[np.float64],
    likelihood: SeparableLikelihood,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The conditional's mode in ``z = logit t`` and its curvature's sd there.

    Newton from a start that uses the data alone: the two values' reference estimates,
    each weighted by its likelihood curvature, shared out along ``π_i + π_j = s``.
    """
    first, second = pair
    floored, weight = likelihood.anchor
    f_i, f_j, w_i, w_j = floored[first], floored[second], weight[first], weight[second]
    share = (f_i * w_i + (s - f_j) * w_j) / (s * (w_i + w_j))
    z = special.logit(np.clip(share, 1e-4, 1.0 - 1e-4))
    for newton in range(_NEWTON + 1):
        t, u = special.expit(z), special.expit(-z)
        di, ddi = likelihood.slopes(first, s * t)
        dj, ddj = likelihood.slopes(second, s * u)
        tu = t * u
        bend = -(a_i + a_j) * tu + s * (tu * (u - t) * (di - dj) + tu * tu * s * (ddi + ddj))
        if newton == _NEWTON:
            break  # the last pass only measures the curvature at the mode found
        slope = a_i * u - a_j * t + tu * s * (di - dj)
        step = np.where(bend < 0.0, -slope / np.where(bend < 0.0, bend, -1.0), np.sign(slope))
        z = z + np.clip(step, -3.0, 3.0)
    return z, 1.0 / np.sqrt(np.maximum(-bend, 1e-2))


@dataclass(frozen=True)
class _PairProposal:
    """The independence proposal for ``t``: a bump in ``logit t`` and two spikes.

    Built from ``s`` and the data alone (never the current ``t``). Everything is in
    logs: ``lt = log t`` and ``lu = log(1 − t)``, each exact where the other rounds.
    """

    a_i: NDArray[np.float64]
    a_j: NDArray[np.float64]
    centre: NDArray[np.float64]
    sd: NDArray[np.float64]
    log_tau_i: NDArray[np.float64]
    log_tau_j: NDArray[np.float64]
    w_bump: NDArray[np.float64]
    w_i: NDArray[np.float64]

    @classmethod
    def build(
        cls,
        s: NDArray[np.float64],
        pair: tuple[NDArray[np.intp], NDArray[np.intp]],
        a_i: NDArray[np.float64],
        a_j: NDArray[np.float64],
        likelihood: SeparableLikelihood,
    ) -> _PairProposal:
        """The proposal for the pairs ``pair`` with sums ``s``."""
        first, second = pair
        z, curvature_sd = _pair_mode(s, pair, a_i, a_j, likelihood)
        zero_value, zero_bend = likelihood.at_zero
        his, _, ddis = likelihood.terms(first, s)
        hjs, _, ddjs = likelihood.terms(second, s)
        # A spike reaches as far as neither value's likelihood changes much: half a
        # likelihood sd of the vanishing value at 0 and of the other at s. A flat
        # likelihood (no reports) makes that infinite: the whole half then.
        with np.errstate(divide="ignore", over="ignore"):
            tau_i = np.clip(0.5 / (s * np.sqrt(np.maximum(-zero_bend[first], -ddjs))), 1e-300, 0.5)
            tau_j = np.clip(0.5 / (s * np.sqrt(np.maximum(-zero_bend[second], -ddis))), 1e-300, 0.5)
        log_tau_i, log_tau_j = np.log(tau_i), np.log(tau_j)
        # Component masses (approximate), in the density of t: the bump by Laplace in
        # logit t (whose Jacobian t(1 − t) turns α − 1 into α), each spike as
        # ∫_0^τ t^(α−1) = τ^α / α times the likelihood at its end.
        log_bump = (
            -a_i * _softplus(-z)
            - a_j * _softplus(z)
            + likelihood.log_terms(first, s * special.expit(z))
            + likelihood.log_terms(second, s * special.expit(-z))
            + np.log(curvature_sd * math.sqrt(2 * math.pi))
        )
        log_spike_i = a_i * log_tau_i - np.log(a_i) + zero_value[first] + hjs
        log_spike_j = a_j * log_tau_j - np.log(a_j) + his + zero_value[second]
        total = _log_sum3(log_bump, log_spike_i, log_spike_j)
        w_bump = np.exp(log_bump - total) * (1 - 3 * _FLOOR) + _FLOOR
        w_i = np.exp(log_spike_i - total) * (1 - 3 * _FLOOR) + _FLOOR
        return cls(a_i, a_j, z, _WIDEN * curvature_sd, log_tau_i, log_tau_j, w_bump, w_i)

    def log_density(self, lt: NDArray[np.float64], lu: NDArray[np.float64]) -> NDArray[np.float64]:
        """The proposal's log density in ``t`` at ``(log t, log(1 − t))``."""
        a_i, a_j = self.a_i, self.a_j
        zz = (lt - lu - self.centre) / self.sd
        bump = np.log(self.w_bump) - 0.5 * zz * zz - np.log(self.sd * math.sqrt(2 * math.pi))
        spike_i = np.where(
            lt < self.log_tau_i,
            np.log(self.w_i) + np.log(a_i) + (a_i - 1.0) * lt - a_i * self.log_tau_i,
            -np.inf,
        )
        w_j = np.log1p(-(self.w_bump + self.w_i))
        spike_j = np.where(
            lu < self.log_tau_j,
            w_j + np.log(a_j) + (a_j - 1.0) * lu - a_j * self.log_tau_j,
            -np.inf,
        )
        return _log_sum3(bump - lt - lu, spike_i, spike_j)

    def draw(self, rng: np.random.Generator) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """One ``(log t, log(1 − t))`` per pair."""
        shape = self.centre.shape
        pick = rng.random(shape)
        component = (pick > self.w_bump).astype(np.int8) + (pick > self.w_bump + self.w_i)
        normal_z = self.centre + self.sd * rng.standard_normal(shape)
        # log of a spike draw τ U^(1/α): exact at any depth.
        depth = np.log1p(-rng.random(shape))  # U in (0, 1]: never log 0
        spike_lt = self.log_tau_i + depth / self.a_i
        spike_lu = self.log_tau_j + depth / self.a_j
        lt = np.where(
            component == 0,
            -_softplus(-normal_z),
            np.where(component == 1, spike_lt, np.log(-np.expm1(spike_lu))),
        )
        lu = np.where(
            component == 0,
            -_softplus(normal_z),
            np.where(component == 1, np.log(-np.expm1(spike_lt)), spike_lu),
        )
        return lt, lu


def pair_step(
    log_pi: NDArray[np.float64],
    pair: tuple[NDArray[np.intp], NDArray[np.intp]],
    alpha: NDArray[np.float64],
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
) -> float:
    """Update the pairs ``(first[k], second[k])`` of every chain in place; the acceptance rate.

    ``log_pi`` has shape ``(chains, d)``; ``pair`` is ``(first, second)``. See the
    module docstring for the move.
    """
    first, second = pair
    if first.size == 0:
        return 1.0
    a_i, a_j = alpha[first], alpha[second]
    lp_i, lp_j = log_pi[:, first], log_pi[:, second]
    log_s = np.logaddexp(lp_i, lp_j)
    old_lt, old_lu = lp_i - log_s, lp_j - log_s  # the current t and 1 − t, in logs
    # A pair whose sum underflows a float (a tiny α puts values at log π below −700)
    # sees a likelihood flat in t to the last bit: its conditional is the prior's
    # Beta(α_i, α_j), drawn exactly below. The proposal works on a stand-in sum.
    vanished = log_s < _LOG_TINY
    s = np.exp(np.where(vanished, 0.0, log_s))

    def log_target(lt: NDArray[np.float64], lu: NDArray[np.float64]) -> NDArray[np.float64]:
        hi = likelihood.log_terms(first, s * np.exp(lt))
        hj = likelihood.log_terms(second, s * np.exp(lu))
        return (a_i - 1.0) * lt + (a_j - 1.0) * lu + hi + hj

    proposal = _PairProposal.build(s, pair, a_i, a_j, likelihood)
    new_lt, new_lu = proposal.draw(rng)
    log_ratio = (
        log_target(new_lt, new_lu)
        - log_target(old_lt, old_lu)
        + proposal.log_density(old_lt, old_lu)
        - proposal.log_density(new_lt, new_lu)
    )
    accept = np.log(rng.random(s.shape)) < log_ratio
    lt, lu = np.where(accept, new_lt, old_lt), np.where(accept, new_lu, old_lu)
    if vanished.any():
        beta_lt, beta_lu = _log_beta(
            np.broadcast_to(a_i, s.shape), np.broadcast_to(a_j, s.shape), rng
        )
        lt, lu = np.where(vanished, beta_lt, lt), np.where(vanished, beta_lu, lu)
        accept |= vanished
    log_pi[:, first] = log_s + lt
    log_pi[:, second] = log_s + lu
    return float(accept.mean())


def _log_beta(
    a: NDArray[np.float64], b: NDArray[np.float64], rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(log t, log(1 − t))`` for ``t ~ Beta(a, b)``, exact for any small ``a``, ``b``.

    ``t = G_a / (G_a + G_b)`` with ``G ~ Gamma``; ``log G_a = log G_(a+1) + log(U) / a``
    (Marsaglia & Tsang 2000, Sec. 6), which stays finite where ``G_a`` underflows.
    """
    log_ga = np.log(rng.gamma(a + 1.0)) + np.log1p(-rng.random(a.shape)) / a
    log_gb = np.log(rng.gamma(b + 1.0)) + np.log1p(-rng.random(b.shape)) / b
    total = np.logaddexp(log_ga, log_gb)
    return log_ga - total, log_gb - total


def rest_step(
    log_pi: NDArray[np.float64],
    value: int,
    alpha: NDArray[np.float64],
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
) -> float:
    """Redraw ``x = π_value`` against all the others at once; the acceptance rate.

    The others keep their proportions ``r = π_rest / (1 − x)``. Under a Dirichlet,
    ``x`` is independent of ``r`` and Beta(α_value, Σα − α_value) (neutrality; Connor &
    Mosimann 1969), so given ``r`` its conditional is that Beta times the likelihood
    with every other value at ``(1 − x) r_j``: one-dimensional again, drawn by the same
    Laplace independence proposal in ``logit x`` (without spikes: it is used only for
    values the reports see). Why: a well-measured value's share moves only as fast
    as its partners can absorb the change, and when most values sit near 0 pairs
    alone make it diffuse (Zipf, d = 1,024, GRR, α = 0.1: ESS 185 of 8,000 draws for
    the top value).
    """
    everyone = np.arange(log_pi.shape[1])
    a_i = float(alpha[value])
    rest_alpha = float(alpha.sum()) - a_i
    old_lx = log_pi[:, value].copy()
    others = log_pi.copy()
    others[:, value] = -np.inf
    old_ly = special.logsumexp(others, axis=1)  # log(1 − x), exact even when x is near 1
    log_r = others - old_ly[:, None]  # the value's own -inf: x/(1 − x) could overflow
    r = np.exp(log_r)
    r[:, value] = 0.0
    one = np.array([value])

    def rest_value(y: NDArray[np.float64]) -> NDArray[np.float64]:
        # Σ_{j ≠ value} h_j(y r_j): the value's own term, at r = 0, is taken back out.
        whole = likelihood.log_terms(everyone, y[:, None] * r).sum(axis=1)
        return whole - float(likelihood.at_zero[0][value])

    def rest_slopes(y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        # d/dy and d²/dy² of the same sum (the value's own r is 0, so it adds nothing).
        slope, bend = likelihood.slopes(everyone, y[:, None] * r)
        return np.sum(r * slope, axis=1), np.sum(r * r * bend, axis=1)

    def log_target(lx: NDArray[np.float64], ly: NDArray[np.float64]) -> NDArray[np.float64]:
        own = likelihood.log_terms(one, np.exp(lx)[:, None])[:, 0]
        return (a_i - 1.0) * lx + (rest_alpha - 1.0) * ly + own + rest_value(np.exp(ly))

    floored = likelihood.anchor[0][value]
    z = np.full(old_lx.shape, float(special.logit(np.clip(floored, 1e-4, 1.0 - 1e-4))))
    for newton in range(_REST_NEWTON + 1):
        x, y = special.expit(z), special.expit(-z)
        di, ddi = (v[:, 0] for v in likelihood.slopes(one, x[:, None]))
        dr, ddr = rest_slopes(y)
        xy = x * y
        bend = -(a_i + rest_alpha) * xy + xy * (y - x) * (di - dr) + xy * xy * (ddi + ddr)
        if newton == _REST_NEWTON:
            break
        slope = a_i * y - rest_alpha * x + xy * (di - dr)
        step = np.where(bend < 0.0, -slope / np.where(bend < 0.0, bend, -1.0), np.sign(slope))
        z = z + np.clip(step, -3.0, 3.0)
    sd = _WIDEN / np.sqrt(np.maximum(-bend, 1e-2))

    def log_proposal(lx: NDArray[np.float64], ly: NDArray[np.float64]) -> NDArray[np.float64]:
        zz = (lx - ly - z) / sd
        return -0.5 * zz * zz - np.log(sd) - lx - ly

    new_z = z + sd * rng.standard_normal(z.shape)
    new_lx, new_ly = -_softplus(-new_z), -_softplus(new_z)
    log_ratio = (
        log_target(new_lx, new_ly)
        - log_target(old_lx, old_ly)
        + log_proposal(old_lx, old_ly)
        - log_proposal(new_lx, new_ly)
    )
    accept = np.log(rng.random(z.shape)) < log_ratio
    lx, ly = np.where(accept, new_lx, old_lx), np.where(accept, new_ly, old_ly)
    log_pi[:] = log_r + ly[:, None]
    log_pi[:, value] = lx
    return float(accept.mean())


def run(
    log_pi: NDArray[np.float64],
    alpha: NDArray[np.float64],
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
    *,
    steps: int,
    keep: bool,
) -> tuple[NDArray[np.float64] | None, NDArray[np.float64], float]:
    """Run ``steps`` pair steps from ``log_pi`` (updated in place).

    Returns the draws of ``π`` after each step (``(chains, steps, d)``) when ``keep``,
    each step's ``Σ_v log π_v`` per chain (``(chains, steps)``), and the mean acceptance.
    """
    chains, d = log_pi.shape
    draws = np.empty((chains, steps, d)) if keep else None
    sums = np.empty((chains, steps))
    accepted = 0.0
    order, seen = likelihood.order, likelihood.seen
    plan = schedule(order, seen, rng)
    # With few values seen, the block pairings give each of them few partners of like
    # size; then the best measured are also redrawn against all the rest.
    leaders = order[: min(seen, _LEADERS)] if seen <= _FEW_SEEN else order[:0]
    for step in range(steps):
        k = step % len(plan.first)
        if k == 0 and step:
            plan = schedule(order, seen, rng)
        accepted += pair_step(log_pi, (plan.first[k], plan.second[k]), alpha, likelihood, rng)
        if k == 1:
            for leader in leaders:
                rest_step(log_pi, int(leader), alpha, likelihood, rng)
        if k == 0:  # rounding drifts Σπ by ~1e-16 a step; re-centring keeps it there
            log_pi -= special.logsumexp(log_pi, axis=1, keepdims=True)
        if draws is not None:
            draws[:, step] = np.exp(log_pi)
        sums[:, step] = log_pi.sum(axis=1)
    return draws, sums, accepted / max(steps, 1)


@dataclass(frozen=True)
class LearnedConcentration:
    """The symmetric Dirichlet concentration the data chose, and how surely.

    Attributes
    ----------
    alpha : float
        ``α̂``, the maximum of ``log p(tallies | α) + log p(α)`` (with ``α`` on a log scale).
    log_sd : float
        A rough sd of ``log α``: from the slope of the score's line through the last
        stages (at least the hyperprior's). On the small exact cases of
        tests/test_bayes.py it was about half the exact curvature's (0.33–0.47 against
        0.82–0.93), since the line spans the path's steps; a diagnostic, not shown.
    path : tuple of float
        ``α`` after each stage, the first being the start.
    """

    alpha: float
    log_sd: float
    path: tuple[float, ...]


def learn_concentration(
    log_pi: NDArray[np.float64],
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
    *,
    centre: float,
    log_sd: float,
    stage: int = 40,
    settle: int = 10,
    stages: int = 8,
    least_stages: int = 4,
) -> LearnedConcentration:
    """The concentration at the maximum of the marginal likelihood times a log-normal prior.

    ``log α ~ N(log centre, log_sd²)`` and ``π | α ~ Dirichlet(α, …, α)``. The marginal
    likelihood ``m(α) = ∫ L(π) Dir(π | α) dπ`` has no closed form, but its derivatives do
    as posterior expectations (Fisher's identity; Louis 1982): with ``S = Σ_v log π_v``,

        d log m / dα = E[S | tallies, α] + d ψ(d α) − d ψ(α),
        −d² log m / dα² = d ψ'(α) − d² ψ'(d α) − Var[S | tallies, α],

    the first term of the second being the complete-data information and the variance
    the information the missing ``π`` takes away. Each stage runs the pair sampler
    ``stage`` steps at the current ``α`` (``log_pi`` in place), drops the first
    ``settle`` and estimates the score in ``log α`` from the rest. The next ``log α``
    is where the least-squares line through the last stages' scores crosses zero, at
    most 1 from the last (stochastic secant steps). Louis's
    curvature sets only the first step: when most values sit near 0 each contributes
    a variance ``1/α²`` to ``S``, and the information is then the small difference of
    two large estimated numbers (Zipf, d = 1,024, GRR: it came out negative and the
    steps oscillated), while the score itself is estimated well. After ``stages``
    stages, or sooner once ``least_stages`` have run, the last two moved ``log α`` by
    less than :data:`_SETTLED` each and the line is steep (a sharp maximum, where the
    zero's noise is small: at d = 1,024 each stage costs about 0.1 s; a flat one, as in
    the small exact cases, keeps every stage), the answer is that line's zero, kept
    within the last stages' range. Why not a fixed prior: a symmetric Dirichlet with
    ``α = ½`` puts ``d/2`` pseudo-users on the values, far too many when most are nearly
    absent (Zipf, d = 1,024, GRR: Bayes's MSE 2.3 times the MLE's;
    benchmarks/README.md). The prior on ``α`` is proper and
    vanishes at 0: as ``α → 0`` the marginal likelihood tends to a constant, not to 0,
    so a prior flat in ``log α`` would not be.
    """
    d = log_pi.shape[1]
    prior_curvature = 1.0 / log_sd**2
    points: list[tuple[float, float]] = []
    log_alpha = math.log(centre)
    path = [centre]
    moves: list[float] = []
    for _ in range(stages):
        alpha = math.exp(log_alpha)
        _, sums, _ = run(log_pi, np.full(d, alpha), likelihood, rng, steps=stage, keep=False)
        kept = sums[:, settle:]
        score = float(kept.mean()) + d * (special.digamma(d * alpha) - special.digamma(alpha))
        # In log α: d/dλ = α d/dα; then the prior's term.
        gradient = alpha * score - (log_alpha - math.log(centre)) * prior_curvature
        points.append((log_alpha, gradient))
        if len(points) == 1:  # one stage: Louis's curvature (see above), if it is sane
            information = (
                d * special.polygamma(1, alpha)
                - d * d * special.polygamma(1, d * alpha)
                - float(kept.var())
            )
            slope = alpha * score - alpha * alpha * information - prior_curvature
            target = (
                log_alpha - gradient / slope
                if slope < 0
                else log_alpha + math.copysign(1.0, gradient)
            )
        else:
            target = _root(points[-_FIT:], prior_curvature)
        step = max(-1.0, min(1.0, target - log_alpha))
        log_alpha += step
        path.append(math.exp(log_alpha))
        moves.append(abs(step))
        if len(points) >= least_stages and max(moves[-2:]) < _SETTLED:
            slope = _secant_slope(points[-_FIT:])
            if slope is not None and slope < -_SHARP:
                break
    # The answer: where the line through the last stages' scores crosses zero, kept
    # within the stages' range (a flat, noisy score must not throw it far).
    recent = points[-_FIT:]
    visited = [x for x, _ in recent]
    final = min(max(_root(recent, prior_curvature), min(visited)), max(visited))
    slope = _secant_slope(recent)
    curvature = max(-(slope if slope is not None else 0.0), prior_curvature)
    return LearnedConcentration(math.exp(final), 1.0 / math.sqrt(curvature), tuple(path))


def _root(points: list[tuple[float, float]], least_curvature: float) -> float:
    """Where the least-squares line through ``(log α, score)`` crosses zero.

    Its slope is at most ``−least_curvature`` (the prior's alone): noise cannot turn
    the score's line upwards.
    """
    x = np.array([p[0] for p in points])
    y = np.array([p[1] for p in points])
    slope = min(_secant_slope(points) or 0.0, -least_curvature)
    return float(x.mean() - y.mean() / slope)


def _secant_slope(points: list[tuple[float, float]]) -> float | None:
    """The least-squares slope of the score over the stages' ``log α`` (None: too few)."""
    if len(points) < 2:
        return None
    x = np.array([p[0] for p in points])
    y = np.array([p[1] for p in points])
    spread = x - x.mean()
    if float(spread @ spread) < 1e-12:
        return None
    return float(spread @ (y - y.mean()) / (spread @ spread))


__all__ = [
    "LearnedConcentration",
    "PairSchedule",
    "SeparableLikelihood",
    "learn_concentration",
    "pair_step",
    "rest_step",
    "run",
    "schedule",
]
