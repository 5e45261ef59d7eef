"""Gibbs moves on pairs of values, for a Dirichlet prior and a separable likelihood.

The sampler's first half (:mod:`ldpcore.stats.pair_gibbs` runs it; the moves on α are
:mod:`ldpcore.stats.concentration`); nothing here knows about LDP.

The target. A distribution ``π`` on ``d`` values with density

    p(π) ∝ Π_v π_v^(α_v − 1) · exp(h_v(π_v)),

a Dirichlet(α) prior times a separable likelihood
(:class:`~ldpcore.stats.separable.SeparableLikelihood`).

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
data, never from the state) keeps the move exact whatever the search finds. Where the
likelihood barely changes along the pair's sum (a bound from its chord and curvature,
:meth:`_PairEnds.reach`) the prior's Beta itself is the proposal, drawn by Jöhnk's
method: a fifth of the work, and at Zipf d = 1,024 under a small α 90–99% of the pairs
(most sums sit near 0). Both proposals depend only on the sum, which the move holds.

The state is ``log π``: at α = 0.05 a spike draw is ``τ U^20``, which underflows a
float in one draw of 10¹⁵ but never its logarithm, and the learned prior needs
``Σ_v log π_v`` exactly (:mod:`ldpcore.stats.concentration`).

Pairings alternate between random ones (every pair reachable) and neighbours in the
reference estimate's order (values of similar size trade mass quickly); both are
chosen before the step, so each step is a valid Gibbs update.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ldpcore.stats.logspace import (
    LOG_TINY,
    exp_floored,
    expit_both,
    log_sum3,
    logaddexp,
    logit,
    softplus,
)
from ldpcore.stats.separable import SeparableLikelihood

#: The Laplace component's sd, relative to the curvature's: wider tails than the target.
_WIDEN = 1.2
#: Each component's least share of the proposal, so that none is ever left out.
_FLOOR = 0.05
#: Newton iterations for the conditional's mode (a deterministic function of s and data).
_NEWTON = 2
#: Pairs whose likelihood ranges over at most this much (in log) along their sum take
#: the prior as the proposal (:func:`pair_step`): accepted at least e^−1 of the time.
_FLAT = 1.0


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
    z = logit(np.clip(share, 1e-4, 1.0 - 1e-4))
    for newton in range(_NEWTON + 1):
        t, u = expit_both(z)
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
    The density's terms that do not depend on ``t`` are computed once, in :meth:`build`
    (``log_bump``, ``log_spike_i``, ``log_spike_j``): it is evaluated twice per step.
    """

    a_i: NDArray[np.float64]
    a_j: NDArray[np.float64]
    centre: NDArray[np.float64]
    sd: NDArray[np.float64]
    log_tau_i: NDArray[np.float64]
    log_tau_j: NDArray[np.float64]
    w_bump: NDArray[np.float64]
    w_i: NDArray[np.float64]
    log_bump: NDArray[np.float64]
    log_spike_i: NDArray[np.float64]
    log_spike_j: NDArray[np.float64]

    @classmethod
    def build(
        cls,
        s: NDArray[np.float64],
        pair: tuple[NDArray[np.intp], NDArray[np.intp]],
        a_i: NDArray[np.float64],
        a_j: NDArray[np.float64],
        *,
        likelihood: SeparableLikelihood,
        ends: _PairEnds,
    ) -> _PairProposal:
        """The proposal for the pairs ``pair`` with sums ``s``, whose ``ends`` are given."""
        first, second = pair
        z, curvature_sd = _pair_mode(s, pair, a_i, a_j, likelihood)
        zero_value, zero_bend = likelihood.at_zero
        his, ddis, hjs, ddjs = ends.value_i, ends.bend_i, ends.value_j, ends.bend_j
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
        t, u = expit_both(z)
        log_bump = (
            -a_i * softplus(-z)
            - a_j * softplus(z)
            + likelihood.log_terms(first, s * t)
            + likelihood.log_terms(second, s * u)
            + np.log(curvature_sd * math.sqrt(2 * math.pi))
        )
        log_spike_i = a_i * log_tau_i - np.log(a_i) + zero_value[first] + hjs
        log_spike_j = a_j * log_tau_j - np.log(a_j) + his + zero_value[second]
        total = log_sum3(log_bump, log_spike_i, log_spike_j)
        w_bump = exp_floored(log_bump - total) * (1 - 3 * _FLOOR) + _FLOOR
        w_i = exp_floored(log_spike_i - total) * (1 - 3 * _FLOOR) + _FLOOR
        sd = _WIDEN * curvature_sd
        # The density's constant parts: each component's weight over its normaliser.
        return cls(
            a_i,
            a_j,
            z,
            sd,
            log_tau_i,
            log_tau_j,
            w_bump,
            w_i,
            np.log(w_bump) - np.log(sd * math.sqrt(2 * math.pi)),
            np.log(w_i) + np.log(a_i) - a_i * log_tau_i,
            np.log1p(-(w_bump + w_i)) + np.log(a_j) - a_j * log_tau_j,
        )

    def log_density(self, lt: NDArray[np.float64], lu: NDArray[np.float64]) -> NDArray[np.float64]:
        """The proposal's log density in ``t`` at ``(log t, log(1 − t))``."""
        zz = (lt - lu - self.centre) / self.sd
        bump = self.log_bump - 0.5 * zz * zz
        spike_i = np.where(lt < self.log_tau_i, self.log_spike_i + (self.a_i - 1.0) * lt, -np.inf)
        spike_j = np.where(lu < self.log_tau_j, self.log_spike_j + (self.a_j - 1.0) * lu, -np.inf)
        return log_sum3(bump - lt - lu, spike_i, spike_j)

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
            -softplus(-normal_z),
            np.where(component == 1, spike_lt, np.log(-np.expm1(spike_lu))),
        )
        lu = np.where(
            component == 0,
            -softplus(normal_z),
            np.where(component == 1, np.log(-np.expm1(spike_lt)), spike_lu),
        )
        return lt, lu


@dataclass(frozen=True)
class _PairEnds:
    """``h_i(s)``, ``h_i''(s)``, ``h_j(s)`` and ``h_j''(s)``: each value holding the whole sum."""

    value_i: NDArray[np.float64]
    bend_i: NDArray[np.float64]
    value_j: NDArray[np.float64]
    bend_j: NDArray[np.float64]

    def reach(
        self,
        s: NDArray[np.float64],
        pair: tuple[NDArray[np.intp], NDArray[np.intp]],
        likelihood: SeparableLikelihood,
    ) -> NDArray[np.float64]:
        """A bound on how far the likelihood ``L(t) = h_i(s t) + h_j(s (1 − t))`` ranges.

        ``L`` is concave (each ``h`` is a sum of logs of affine maps), so it lies
        between its chord and the chord plus ``max |L''| / 8``. The chord ranges over
        ``|L(1) − L(0)|``, and ``|h''|``, a sum of convex functions, is largest at an end
        of ``[0, s]``: so the range is at most ``|L(1) − L(0)| + s² (max_i + max_j) / 8``.
        """
        first, second = pair
        zero_value, zero_bend = likelihood.at_zero
        chord = np.abs(self.value_i + zero_value[second] - zero_value[first] - self.value_j)
        bend = np.maximum(-zero_bend[first], -self.bend_i) + np.maximum(
            -zero_bend[second], -self.bend_j
        )
        return chord + s * s * bend / 8.0


def pair_step(
    log_pi: NDArray[np.float64],
    pair: tuple[NDArray[np.intp], NDArray[np.intp]],
    alpha: NDArray[np.float64],
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
) -> float:
    """Update the pairs ``(first[k], second[k])`` of every chain in place; the acceptance rate.

    ``log_pi`` has shape ``(chains, d)``; ``pair`` is ``(first, second)``. See the
    module docstring for the move. Pairs whose likelihood barely changes along their
    sum (:meth:`_PairEnds.reach` at most :data:`_FLAT`) and whose concentrations are at
    most 1 take the prior's Beta as the proposal instead (:func:`_flat_pairs`): exact
    as well, for the proposal may depend on the sum, which the move holds.
    """
    first, second = pair
    if first.size == 0:
        return 1.0
    lp_i, lp_j = log_pi[:, first], log_pi[:, second]
    log_s = logaddexp(lp_i, lp_j)
    lt, lu = lp_i - log_s, lp_j - log_s  # the current t and 1 − t, in logs
    alpha = np.broadcast_to(alpha, log_pi.shape)
    a_i, a_j = alpha[:, first], alpha[:, second]
    # A pair whose sum underflows a float (a tiny α puts values at log π below −700)
    # sees a likelihood flat in t to the last bit: its conditional is the prior's
    # Beta(α_i, α_j), drawn exactly below. The proposals work on a stand-in sum.
    vanished = log_s < LOG_TINY
    s = np.exp(np.where(vanished, 0.0, log_s))
    value_i, _, bend_i = likelihood.terms(first, s)
    value_j, _, bend_j = likelihood.terms(second, s)
    ends = _PairEnds(value_i, bend_i, value_j, bend_j)
    small = (a_i <= 1.0) & (a_j <= 1.0)
    flat = (ends.reach(s, pair, likelihood) <= _FLAT) & small & ~vanished
    accept = vanished.copy()
    rows, cols = np.nonzero(flat)
    if rows.size:
        where = (rows, cols)
        new, ok = _flat_pairs(
            s[where],
            (first[cols], second[cols]),
            (a_i[where], a_j[where]),
            (lt[where], lu[where]),
            likelihood=likelihood,
            rng=rng,
        )
        lt[where], lu[where] = np.where(ok, new[0], lt[where]), np.where(ok, new[1], lu[where])
        accept[where] = ok
    rows, cols = np.nonzero(~flat & ~vanished)
    if rows.size:
        where = (rows, cols)
        new, ok = _proposed_pairs(
            s[where],
            (first[cols], second[cols]),
            (a_i[where], a_j[where]),
            (lt[where], lu[where]),
            ends=_PairEnds(value_i[where], bend_i[where], value_j[where], bend_j[where]),
            likelihood=likelihood,
            rng=rng,
        )
        lt[where], lu[where] = np.where(ok, new[0], lt[where]), np.where(ok, new[1], lu[where])
        accept[where] = ok
    if vanished.any():
        # Jöhnk's method where it is quick (both α at most 1), else two Gamma draws.
        for group, draw in ((vanished & small, log_beta_small), (vanished & ~small, log_beta)):
            if group.any():
                lt[group], lu[group] = draw(a_i[group], a_j[group], rng)
    log_pi[:, first] = log_s + lt
    log_pi[:, second] = log_s + lu
    return float(accept.mean())


def _flat_pairs(
    s: NDArray[np.float64],
    pair: tuple[NDArray[np.intp], NDArray[np.intp]],
    alpha: tuple[NDArray[np.float64], NDArray[np.float64]],
    old: tuple[NDArray[np.float64], NDArray[np.float64]],
    *,
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]]:
    """Independence Metropolis with the prior as the proposal; the new ``(log t, log(1 − t))``.

    The prior cancels from the ratio, which is the likelihood's alone, and at least
    ``e^−reach`` (Robert & Casella 2004, Sec. 7.4: an independence sampler whose
    weights are bounded is uniformly ergodic). A fifth of the work of the Laplace
    proposal, and at Zipf d = 1,024 nearly every pair is this flat (a small α puts most
    sums near 0).
    """
    first, second = pair
    new = log_beta_small(*alpha, rng)
    log_ratio = (
        likelihood.log_terms(first, s * exp_floored(new[0]))
        + likelihood.log_terms(second, s * exp_floored(new[1]))
        - likelihood.log_terms(first, s * exp_floored(old[0]))
        - likelihood.log_terms(second, s * exp_floored(old[1]))
    )
    return new, np.log(rng.random(s.shape)) < log_ratio


def _proposed_pairs(
    s: NDArray[np.float64],
    pair: tuple[NDArray[np.intp], NDArray[np.intp]],
    alpha: tuple[NDArray[np.float64], NDArray[np.float64]],
    old: tuple[NDArray[np.float64], NDArray[np.float64]],
    *,
    ends: _PairEnds,
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]]:
    """Independence Metropolis with :class:`_PairProposal`; the new ``(log t, log(1 − t))``."""
    first, second = pair
    a_i, a_j = alpha

    def log_target(lt: NDArray[np.float64], lu: NDArray[np.float64]) -> NDArray[np.float64]:
        hi = likelihood.log_terms(first, s * exp_floored(lt))
        hj = likelihood.log_terms(second, s * exp_floored(lu))
        return (a_i - 1.0) * lt + (a_j - 1.0) * lu + hi + hj

    proposal = _PairProposal.build(s, pair, a_i, a_j, likelihood=likelihood, ends=ends)
    new = proposal.draw(rng)
    log_ratio = (
        log_target(*new)
        - log_target(*old)
        + proposal.log_density(*old)
        - proposal.log_density(*new)
    )
    return new, np.log(rng.random(s.shape)) < log_ratio


def log_beta_small(
    a: NDArray[np.float64], b: NDArray[np.float64], rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(log t, log(1 − t))`` for ``t ~ Beta(a, b)`` with ``a, b ≤ 1``, in logs throughout.

    Jöhnk's method (Devroye 1986, Sec. IX.3.5): ``X = U^(1/a)``, ``Y = V^(1/b)``, kept
    when ``X + Y ≤ 1``, and then ``t = X / (X + Y)``. A draw is kept with probability
    ``Γ(a + 1) Γ(b + 1) / Γ(a + b + 1)``: at least ½, and near 1 for a small α, where
    it costs a tenth of two Gamma draws.
    """
    lt, lu = np.empty(a.shape), np.empty(a.shape)
    todo = np.arange(a.size)
    while todo.size:
        lx = np.log1p(-rng.random(todo.size)) / a[todo]  # U in (0, 1]: never log 0
        ly = np.log1p(-rng.random(todo.size)) / b[todo]
        total = logaddexp(lx, ly)
        kept = total <= 0.0
        lt[todo[kept]], lu[todo[kept]] = (lx - total)[kept], (ly - total)[kept]
        todo = todo[~kept]
    return lt, lu


def log_beta(
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


__all__ = ["PairSchedule", "log_beta", "log_beta_small", "pair_step", "schedule"]
