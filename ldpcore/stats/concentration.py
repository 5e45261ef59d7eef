"""The learned prior's concentration α: its hyperprior and the moves that sample it.

The sampler's second half (:mod:`ldpcore.stats.pair_gibbs` runs it after each pair
step of :mod:`ldpcore.stats.pair_moves`); nothing here knows about LDP. A hierarchical
Dirichlet: ``log α ~ N(·)`` and ``π | α ~ Dirichlet(α, …, α)``, with ``π`` held as
``log π`` (see :func:`concentration_step`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import special

from ldpcore.stats.logspace import exp_floored, log_sum_rows, softplus
from ldpcore.stats.separable import SeparableLikelihood


@dataclass(frozen=True)
class Hyperprior:
    """``log α ~ N(log centre, log_sd²)``: the prior on a symmetric Dirichlet's concentration.

    Proper and vanishing at 0, which the posterior needs: as ``α → 0`` the marginal
    likelihood tends to a constant, not to 0, so under a prior flat in ``log α`` the
    posterior would not be proper.
    """

    centre: float
    log_sd: float

    def log_density(self, log_alpha: NDArray[np.float64]) -> NDArray[np.float64]:
        """The log density in ``log α`` (up to a constant)."""
        z = (log_alpha - math.log(self.centre)) / self.log_sd
        return -0.5 * z * z


@dataclass
class ConcentrationWalk:
    """Each chain's ``log α`` and the state of the moves that update it.

    See :func:`concentration_step`.

    Mutable on purpose: one walk belongs to one sampler run, which advances it.

    Attributes
    ----------
    log_alpha : ndarray
        One ``log α`` per chain.
    hyperprior : Hyperprior
        The prior on ``α``.
    widths : list of float
        The random walks' sds: the centred move's and the non-centred one's in ``log α``,
        the split move's in ``logit s_B``, and the refresh move's in ``log α`` (in that
        order, as are ``accepted``).
    adapt : bool
        Whether the widths still adapt (warmup only: a fixed kernel afterwards keeps
        the chain exact).
    accepted : list of float
        Each move's acceptance rate summed since the widths last adapted.
    refresh : bool
        Whether the refresh move runs (it stops at :meth:`settle` where it failed).
    refreshed : list of float
        The refresh move's acceptance rate in each adaptation window so far.
    """

    log_alpha: NDArray[np.float64]
    hyperprior: Hyperprior
    widths: list[float] = field(default_factory=lambda: [0.5, 0.5, 0.5, 1.0])
    adapt: bool = True
    accepted: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0, 0.0])
    refresh: bool = True
    refreshed: list[float] = field(default_factory=list)

    def alpha(self, d: int) -> NDArray[np.float64]:
        """Every chain's concentration for each of ``d`` values, ``(chains, d)`` (a view)."""
        return np.broadcast_to(np.exp(self.log_alpha)[:, None], (self.log_alpha.size, d))

    def tune(self, steps: int) -> None:
        """Move each width towards an acceptance of :data:`_WALK_ACCEPT` (warmup)."""
        self.refreshed.append(self.accepted[3] / steps)
        for k in range(len(self.widths)):
            rate = self.accepted[k] / (steps * _MOVES_PER_STEP[k])
            self.widths[k] = float(
                np.clip(self.widths[k] * math.exp(rate - _WALK_ACCEPT), 0.01, 5.0)
            )
        self.accepted = [0.0] * len(self.widths)

    def settle(self) -> None:
        """End the warmup: fix the widths, and drop the refresh move where it failed.

        The refresh move (see :func:`concentration_step`) draws all of ``B`` afresh; where
        the reports see ``B`` at all, nearly every draw is refused (Zipf d = 1,024, GRR,
        n = 10⁶: none in 3,200), and it would only cost time. Decided once, from the
        warmup's last :data:`_SETTLE_WINDOWS` adaptation windows, so the kernel after
        warmup is fixed.
        """
        self.adapt = False
        recent = self.refreshed[-_SETTLE_WINDOWS:]
        if recent and float(np.mean(recent)) < _REFRESH_FLOOR:
            self.refresh = False


#: The acceptance the walks on ``log α`` adapt towards during warmup (a one-dimensional
#: random walk's best is about 0.44; Roberts & Rosenthal 2001, Sec. 3).
_WALK_ACCEPT = 0.4
#: Warmup steps between adaptations of the walks' widths.
TUNE_EVERY = 20
#: How often each α move runs per pair step (centred, non-centred, split, refresh). The
#: non-centred move twice: α's ESS per second, 1,500 steps after warmup, once against
#: twice (seeds 0–1 or 0–2, ε = 1, n = 10⁶): countries GRR 480–613 against 698–785,
#: OLH 531–671 against 739–776; Zipf d = 1,024 GRR 203–216 against 242–278, SUE 164–168
#: against 220–255. A third would leave the values' ESS the slower at d = 1,024.
_MOVES_PER_STEP = (1, 2, 1, 1)
#: The refresh move stays after warmup only if it was accepted this often at its end.
_REFRESH_FLOOR = 0.02
#: How many of the warmup's last adaptation windows decide that.
_SETTLE_WINDOWS = 5


def concentration_step(
    log_pi: NDArray[np.float64],
    walk: ConcentrationWalk,
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
) -> None:
    """Update every chain's ``α`` and ``log_pi`` (in place) by four Metropolis moves.

    A hierarchical Dirichlet: ``log α ~ N(·)`` and ``π | α ~ Dirichlet(α, …, α)`` (BDA3,
    Sec. 5.3, with α sampled rather than fixed at a maximum). Moves 1 and 3 are two
    parametrisations interwoven (Yu & Meng 2011, "ASIS"), because neither mixes alone;
    move 2 frees the total that move 3 holds, and move 4 jumps where the reports say
    little:

    1. Centred: ``π`` held fixed, ``α`` drawn against ``p(α) Dir(π | α)``. The values
       the reports barely see sit at ``log π ≈ log U / α``, so ``Σ log π`` pins ``α``
       to its current value (a funnel: an ESS of 4–5 in 8,000 draws).
    2. Split (:func:`_split_step`): the values whose reports rule out 0 (``A``,
       :attr:`SeparableLikelihood.seen_mask`, possibly none) and the rest (``B``) trade
       their totals, the proportions within each held.
    3. Non-centred on ``B`` (:func:`_moment_matched`), the values the reports barely see. By
       Dirichlet aggregation ``(π_A, s_B = Σ_B π)`` is Dirichlet(α, …, α, |B|α) and
       independent of ``B``'s proportions ``r``, which are Dirichlet(α). ``r`` is written
       as ``G / ΣG`` with ``G_v ~ Gamma(α)`` and each ``G_v = G1_v U_v^(1/α)``,
       ``G1 ~ Gamma(α + 1)``, ``U ~ U(0, 1)`` (Marsaglia & Tsang 2000, Sec. 6): given
       ``G``, ``G1 = G + Exp(1)`` exactly. The move holds ``(π_A, s_B)`` and every
       ``U_v`` fixed, maps each ``log G1`` to match the mean and sd of ``log Gamma(α' + 1)``
       (``ψ`` and ``√ψ'``; its Jacobian is in the ratio), and proposes ``α'``: the
       nearly-absent values then move with ``α`` instead of holding it. It runs twice
       per step (:data:`_MOVES_PER_STEP`), each with fresh ``G``.
    4. Refresh (:func:`_afresh`): ``α'`` by a random walk and all of ``B``'s proportions
       drawn afresh from their prior, Dirichlet(α'), ``(π_A, s_B)`` held. The prior
       draw cancels from the ratio, which is the hyperprior's, the aggregate's and the
       likelihood's. Where the reports barely see ``B`` (small n) it is a nearly
       independent draw; the moment-matched map of move 3 holds α there (GRR, ε = 0.5,
       d = 64, n = 100: α's ESS 1,814 of 16,000 draws without it, 4,971 with it).
       Where they see it, it is refused and :meth:`ConcentrationWalk.settle` drops it.

    Measured against the exact posterior of ``log α`` (quadrature over α of the closed
    form; tests/postprocess/test_bayes.py) and by simulation-based calibration over the hyperprior.
    """
    chains, d = log_pi.shape
    hyper = walk.hyperprior
    lam = walk.log_alpha
    # 1. Centred.
    total = log_pi.sum(axis=1)

    def centred(log_alpha: NDArray[np.float64]) -> NDArray[np.float64]:
        a = np.exp(log_alpha)
        dirichlet = special.gammaln(d * a) - d * special.gammaln(a) + (a - 1.0) * total
        return hyper.log_density(log_alpha) + dirichlet

    proposed = lam + walk.widths[0] * rng.standard_normal(chains)
    accept = np.log(rng.random(chains)) < centred(proposed) - centred(lam)
    lam = np.where(accept, proposed, lam)
    walk.accepted[0] += float(accept.mean())
    # 2. Non-centred on the unseen values.
    unseen = likelihood.unseen
    if unseen.size >= 2:
        current = likelihood.value(exp_floored(log_pi))
        log_s = log_sum_rows(log_pi[:, unseen])  # log s_B
        if unseen.size < d:  # both groups hold values: their totals can trade
            current, log_s = _split_step(
                log_pi, current, log_s, alpha=np.exp(lam), walk=walk, likelihood=likelihood, rng=rng
            )
        # Σ_A log π: neither move below changes A's values (they hold π_A and s_B).
        seen_total = log_pi[:, likelihood.seen_mask].sum(axis=1)
        held = _Held(log_pi, log_s, seen_total, likelihood)
        for _ in range(_MOVES_PER_STEP[1]):
            proposal = _moment_matched(held, lam=lam, walk=walk, rng=rng)
            lam, current = _redraw_unseen(held, current, proposal, lam=lam, walk=walk, rng=rng)
        if walk.refresh:
            proposal = _afresh(held, lam=lam, walk=walk, rng=rng)
            lam, current = _redraw_unseen(held, current, proposal, lam=lam, walk=walk, rng=rng)
    walk.log_alpha = lam


def _metropolis(
    log_pi: NDArray[np.float64],
    moved: NDArray[np.float64],
    log_ratio: NDArray[np.float64],
    *,
    walk: ConcentrationWalk,
    move: int,
    rng: np.random.Generator,
) -> NDArray[np.bool_]:
    """Accept each chain's ``moved`` row with probability ``min(1, e^log_ratio)``.

    Updates ``log_pi`` in place and the walk's count for ``move``; returns which chains
    moved.
    """
    accept = np.log(rng.random(log_ratio.shape)) < log_ratio
    log_pi[accept] = moved[accept]
    walk.accepted[move] += float(accept.mean())
    return accept


def _split_step(
    log_pi: NDArray[np.float64],
    current: NDArray[np.float64],
    log_s: NDArray[np.float64],
    *,
    alpha: NDArray[np.float64],
    walk: ConcentrationWalk,
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Move the unseen values' total ``s_B`` against the seen ones', proportions held.

    ``current`` is the likelihood's value at ``log_pi`` and ``log_s`` is ``log s_B``;
    returns both after the move.

    By Dirichlet aggregation ``s_B ~ Beta(|B| α, |A| α)``, independent of the
    proportions within ``A`` and within ``B``; a random walk in ``logit s_B`` (whose
    Jacobian turns the exponents ``α − 1`` into ``α``). Why: pairs move mass between
    the two groups one value at a time, and ``s_B`` was the slowest quantity of all
    (Zipf, d = 1,024, GRR, ε = 1: ESS 23 in 9,600 draws) and the one ``α`` follows.
    """
    chains, d = log_pi.shape
    unseen, seen_mask = likelihood.unseen, likelihood.seen_mask
    n_b, n_a = unseen.size, d - unseen.size
    log_rest = log_sum_rows(log_pi[:, seen_mask])
    logit = log_s - log_rest
    proposed = logit + walk.widths[2] * rng.standard_normal(chains)
    new_s, new_rest = -softplus(-proposed), -softplus(proposed)  # log s_B', log(1 − s_B')
    moved = log_pi + np.where(seen_mask, (new_rest - log_rest)[:, None], (new_s - log_s)[:, None])
    value = likelihood.value(exp_floored(moved))
    log_ratio = (
        n_b * alpha * (new_s - log_s) + n_a * alpha * (new_rest - log_rest) + value - current
    )
    accept = _metropolis(log_pi, moved, log_ratio, walk=walk, move=2, rng=rng)
    return np.where(accept, value, current), np.where(accept, new_s, log_s)


@dataclass(frozen=True)
class _Held:
    """What moves 3 and 4 hold: ``π_A`` (``log_pi``'s seen values) and ``s_B``.

    ``log_pi`` is the live state (a move that is accepted writes ``B``'s values into it);
    ``log_s`` is ``log s_B`` and ``seen_total`` ``Σ_A log π``, per chain.
    """

    log_pi: NDArray[np.float64]
    log_s: NDArray[np.float64]
    seen_total: NDArray[np.float64]
    likelihood: SeparableLikelihood


@dataclass(frozen=True)
class _UnseenProposal:
    """A proposed ``log α'`` with ``B``'s new proportions, as ``log G`` (any scale).

    ``log_jacobian`` is what the proposal adds to the ratio besides the target's terms
    (0 where the proposal's own density cancels, as in move 4); ``move`` is its index in
    the walk's widths and counts.
    """

    log_alpha: NDArray[np.float64]
    log_g: NDArray[np.float64]
    log_jacobian: NDArray[np.float64] | float
    move: int


def _moment_matched(
    held: _Held, *, lam: NDArray[np.float64], walk: ConcentrationWalk, rng: np.random.Generator
) -> _UnseenProposal:
    """Move 3 of :func:`concentration_step`: ``B``'s Gamma variables mapped to ``α'``."""
    chains = held.log_pi.shape[0]
    n_b = held.likelihood.unseen.size
    a = np.exp(lam)
    lp_b = held.log_pi[:, held.likelihood.unseen]
    # B's Gamma variables: G = R r with R ~ Gamma(|B| α) (independent of r), drawn in
    # logs as Gamma(|B| α + 1) · U^(1/(|B| α)) so that a tiny α cannot underflow it.
    shape_b = n_b * a
    log_r = np.log(rng.gamma(shape_b + 1.0)) + np.log1p(-rng.random(chains)) / shape_b
    log_g = lp_b - held.log_s[:, None] + log_r[:, None]
    # G1 = G + Exp(1); a G below e^−700 adds nothing to the exponential in a float.
    g1 = exp_floored(log_g) + rng.standard_exponential(log_g.shape)
    log_g1 = np.log(g1)
    log_u = a[:, None] * (log_g - log_g1)  # ≤ 0
    proposed = lam + walk.widths[1] * rng.standard_normal(chains)
    a2 = np.exp(proposed)
    k, k2 = a + 1.0, a2 + 1.0
    psi, psi2 = special.digamma(k), special.digamma(k2)
    ratio = np.sqrt(special.zeta(2.0, k2) / special.zeta(2.0, k))  # √(ψ′(k2) / ψ′(k))
    offset = log_g1 - psi[:, None]
    log_g1_new = psi2[:, None] + ratio[:, None] * offset
    # Σ log G1 and Σ log G1' from one sum, for the map is affine.
    spread = offset.sum(axis=1)
    sum_old, sum_new = n_b * psi + spread, n_b * psi2 + ratio * spread
    # log Gamma(G1'; α' + 1) − log Gamma(G1; α + 1) + log |dG1'/dG1|, where
    # log |dG1'/dG1| = Σ (log G1' − log G1) + |B| log(ratio).
    gammas = (
        k2 * sum_new
        - exp_floored(log_g1_new).sum(axis=1)
        - k * sum_old
        + g1.sum(axis=1)
        - n_b * (special.gammaln(k2) - special.gammaln(k))
        + n_b * np.log(ratio)
    )
    return _UnseenProposal(proposed, log_g1_new + log_u / a2[:, None], gammas, move=1)


def _afresh(
    held: _Held, *, lam: NDArray[np.float64], walk: ConcentrationWalk, rng: np.random.Generator
) -> _UnseenProposal:
    """Move 4 of :func:`concentration_step`: ``α'`` by a walk and ``B`` from Dirichlet(α').

    The target, in ``(α, π_A, s_B, r)`` with ``r`` B's proportions, is
    ``p(α) Dir(π_A, s_B | α, …, α, |B| α) Dir(r | α) L(π)`` (aggregation and neutrality;
    the change of variables does not involve α, and ``s_B`` is held). The proposal is
    a symmetric walk on ``log α`` times ``Dir(r' | α')``, so ``Dir(r | α)`` cancels
    against the reverse proposal and the ratio is the hyperprior's, the aggregate's and
    the likelihood's. ``log G`` is drawn as ``log Gamma(α' + 1) + log U / α'`` so that
    a tiny ``α'`` cannot underflow it (Marsaglia & Tsang 2000, Sec. 6).
    """
    chains = held.log_pi.shape[0]
    n_b = held.likelihood.unseen.size
    proposed = lam + walk.widths[3] * rng.standard_normal(chains)
    a2 = np.exp(proposed)[:, None]
    log_g = (
        np.log(rng.gamma(a2 + 1.0, size=(chains, n_b))) + np.log1p(-rng.random((chains, n_b))) / a2
    )
    return _UnseenProposal(proposed, log_g, 0.0, move=3)


def _redraw_unseen(
    held: _Held,
    current: NDArray[np.float64],
    proposal: _UnseenProposal,
    *,
    lam: NDArray[np.float64],
    walk: ConcentrationWalk,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Accept or refuse ``proposal`` (moves 3 and 4); the new ``log α`` and likelihood.

    Both hold ``(π_A, s_B)`` and propose ``α'`` with new proportions within ``B``, so
    their ratios share every term but the proposal's own: the hyperprior's, the
    aggregate's (:func:`_aggregate`) and the likelihood's, at ``current`` before.
    """
    d = held.log_pi.shape[1]
    unseen = held.likelihood.unseen
    n_b = unseen.size
    log_g = proposal.log_g
    moved = held.log_pi.copy()
    moved[:, unseen] = log_g + (held.log_s - log_sum_rows(log_g))[:, None]
    value = held.likelihood.value(exp_floored(moved))
    proposed = proposal.log_alpha
    log_ratio = (
        walk.hyperprior.log_density(proposed)
        - walk.hyperprior.log_density(lam)
        + _aggregate(np.exp(proposed), d, n_b, held.seen_total, held.log_s)
        - _aggregate(np.exp(lam), d, n_b, held.seen_total, held.log_s)
        + proposal.log_jacobian
        + value
        - current
    )
    accept = _metropolis(held.log_pi, moved, log_ratio, walk=walk, move=proposal.move, rng=rng)
    return np.where(accept, proposed, lam), np.where(accept, value, current)


def _aggregate(
    alpha: NDArray[np.float64],
    d: int,
    n_b: int,
    seen_total: NDArray[np.float64],
    log_s: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``log Dirichlet(π_A, s_B | α, …, α, |B| α)`` up to what does not depend on α.

    ``seen_total`` is ``Σ_A log π`` and ``log_s`` is ``log s_B``, per chain.
    """
    return (
        special.gammaln(d * alpha)
        - (d - n_b) * special.gammaln(alpha)
        - special.gammaln(n_b * alpha)
        + (alpha - 1.0) * seen_total
        + (n_b * alpha - 1.0) * log_s
    )


__all__ = ["TUNE_EVERY", "ConcentrationWalk", "Hyperprior", "concentration_step"]
