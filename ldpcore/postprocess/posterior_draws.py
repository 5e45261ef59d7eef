"""How the Bayes method draws its posterior: by pairs under a learned prior, else HMC.

The posterior ``p(π | tallies) ∝ L(π) · Π_v π_v^(α_v − 1)`` (:mod:`ldpcore.postprocess.bayes`)
is sampled two ways.

Under the learned prior (:func:`learned_posterior`) ``α`` is sampled with ``π`` by exact
pair moves and concentration moves (:mod:`ldpcore.stats.pair_gibbs`) wherever the
likelihood is separable; those handle the α far below ½ that Zipf-like data choose.

The sampler for a fixed prior (and for HR's rows and UE's full reports, which are not
separable; :func:`fixed_posterior`). Hamiltonian Monte Carlo (:mod:`ldpcore.stats.hmc`)
on ``w ∈ R^d`` with
``π = w² / |w|²``. If ``w_v² ~ Gamma(α_v, scale 2)`` independently, ``π`` is exactly
Dirichlet(α) (the Gamma representation): the prior density of ``w`` is
``Π_v |w_v|^(2α_v − 1) · exp(−|w|²/2)``. Only the direction ``ŵ`` matters to ``π``, and
the density factors into a function of ``ŵ`` times one of ``R = |w|``, so the radial
factor may be replaced by any other without changing ``π``'s posterior. We make ``R``
a normal around 1 (sd ``σ``, about one metric step): with ``m = Σ_v (2α_v − 1) + d − 1``,

    log p(w) = log L(π) + Σ_v (2α_v − 1) log|w_v| − m log R − (R − 1)² / (2σ²),
    ∂/∂w_k = (2 w_k / R²)(G_k − Σ_v π_v G_v) + (2α_k − 1)/w_k − (m/R² + (R − 1)/(σ² R)) w_k,

with ``G = ∇_π log L``. Why squares, not logs: in log coordinates (``π = softmax(u)``)
a value whose posterior reaches 0 has a long exponential tail (density ``e^(α u)``),
and chains that wander into it stall (min ESS 13 of 2,000 draws for OUE on countries);
under squares the prior near 0 is smooth (Jeffreys: flat) and the same run gives ESS 700.
Why a free radius, not a reference value fixed at 1: with ``π_r = 1/(1 + Σ w²)`` the
total of a weakly identified tail is tied to the reference (GRR, d = 1,024: ESS 69 for
the top value). Why not the Gamma's own radius: its relative sd, ``1/√(4Σα)``, is 40% at
d = 3, and a metric sized for ``π`` then fits the target only near one radius (SS,
d = 3: ESS 323 of 6,400 draws). ``π`` is unchanged by the sign of any ``w_v``, so a
chain that keeps one sign loses nothing. Chains start at the MLE pulled towards the
prior, spread by the Laplace approximation, which is also the initial metric.

Either way the chains run on until every value's (and α's) effective sample size and
split R̂ pass (:mod:`ldpcore.stats.diagnostics`), or their cap.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ldpcore.errors import InputError
from ldpcore.postprocess.base import Context, Vector
from ldpcore.postprocess.mle import maximum_likelihood
from ldpcore.postprocess.posterior import ConcentrationDraws, Posterior
from ldpcore.postprocess.prior import HYPERPRIOR_LOG_SD, hyperprior_centre
from ldpcore.protocols.base import support_from_estimate
from ldpcore.stats.diagnostics import Mixing, gated, mixing, thinned
from ldpcore.stats.hmc import sample

if TYPE_CHECKING:  # these load scipy; they are imported where they are first used
    from ldpcore.protocols.likelihoods import LikelihoodModel
    from ldpcore.stats.concentration import ConcentrationWalk
    from ldpcore.stats.separable import SeparableLikelihood


@dataclass(frozen=True)
class SamplerSettings:
    """What the samplers read of the method: see :class:`~ldpcore.postprocess.bayes.Bayes`.

    Attributes
    ----------
    chains, draws, warmup : int
        HMC's chains, kept draws per chain and warmup iterations (the pair sampler runs
        :func:`pair_chains` chains, the same draws, and its own warmup).
    min_ess, max_rhat : float
        The draws grow until every ESS reaches ``min_ess`` and R̂ is at most ``max_rhat``.
    tails : bool
        Whether the tail ESS must reach ``min_ess`` too (an interval's ends lie there).
    progress : callable, optional
        Told ``(done, total)`` iterations as the sampler runs.
    """

    chains: int
    draws: int
    warmup: int
    min_ess: float
    max_rhat: float
    tails: bool = False
    progress: Callable[[int, int], None] | None = field(default=None, compare=False)


def fixed_posterior(
    model: LikelihoodModel,
    alpha: NDArray[np.float64],
    rng: np.random.Generator,
    settings: SamplerSettings,
) -> Posterior:
    """HMC on ``model`` under Dirichlet(``alpha``), with ``settings``."""
    return sample_posterior(
        model,
        alpha,
        chains=settings.chains,
        draws=settings.draws,
        warmup=settings.warmup,
        rng=rng,
        min_ess=settings.min_ess,
        max_rhat=settings.max_rhat,
        tails=settings.tails,
        progress=settings.progress,
    )


def learned_posterior(
    model: LikelihoodModel,
    estimate: Vector,
    context: Context,
    rng: np.random.Generator,
    settings: SamplerSettings,
) -> Posterior:
    """The posterior under the learned prior: ``α`` sampled jointly with ``π``.

    A hierarchical Dirichlet (BDA3, Sec. 5.3): ``log α`` from the hyperprior,
    ``π | α`` symmetric Dirichlet, both drawn by the pair sampler with its
    concentration moves (:func:`ldpcore.stats.concentration.concentration_step`) on a
    separable likelihood: the model's own, or for HR's rows and UE's full reports the
    support counts' binomials implied by the estimate. Where the model is not
    separable HMC, which needs ``α >= ½``, then samples ``π`` at ``max(α̃, ½)`` with
    ``α̃`` the median of α over the warmup's second half (the posterior records it).
    """
    from ldpcore.stats.concentration import (  # noqa: PLC0415 (scipy)
        ConcentrationWalk,
        Hyperprior,
    )
    from ldpcore.stats.pair_gibbs import run as run_pairs  # noqa: PLC0415

    d = model.domain_size
    separable = _separable(model, estimate, context)
    chains = pair_chains(settings.chains, d)
    mle = maximum_likelihood(model)
    centre = hyperprior_centre(d)
    start = (context.n * mle + centre) / (context.n + centre * d)
    log_pi = np.tile(np.log(start), (chains, 1))
    log_pi += 0.01 * rng.standard_normal(log_pi.shape)
    log_pi -= np.log(np.exp(log_pi).sum(axis=1, keepdims=True))
    # Chains start spread over the hyperprior's middle, so that R̂ can see a chain
    # that has not found α's posterior.
    walk = ConcentrationWalk(
        math.log(centre) + _START_SPREAD * rng.standard_normal(chains),
        Hyperprior(centre, HYPERPRIOR_LOG_SD),
    )
    total = _PAIR_WARMUP + 4 * settings.draws
    _, warmup, _ = run_pairs(log_pi, walk, separable, rng, steps=_PAIR_WARMUP, keep=False)
    walk.settle()
    done = _PAIR_WARMUP
    if settings.progress is not None:
        settings.progress(done, total)
    if model.separable_counts() is None:
        # α's median over the warmup's second half: a plug-in for HMC, whose answer
        # is the posterior at that α, so the walks' last adaptations do not matter.
        assert warmup is not None
        floored = max(float(np.exp(np.median(warmup[:, _PAIR_WARMUP // 2 :]))), 0.5)
        result = fixed_posterior(
            model, np.full(d, floored), rng, settings
        )  # its own progress count
        return dataclasses.replace(result, sampled_alpha=floored)

    def report(steps: int) -> None:
        nonlocal done
        done += steps
        if settings.progress is not None:  # α's extra steps may run past the planned total
            settings.progress(min(done, total - 1), total)

    frequencies, alphas, found = _pair_draws(
        settings, log_pi=log_pi, walk=walk, separable=separable, rng=rng, report=report
    )
    if settings.progress is not None:
        settings.progress(total, total)  # done: the last chunks were not needed
    mean = frequencies.reshape(-1, d).mean(axis=0)
    return Posterior(
        mean / mean.sum(),
        frequencies,
        found.rhat[:d],
        found.bulk_ess[:d],
        None,
        True,
        mle,
        tail_ess=None if found.tail_ess is None else found.tail_ess[:d],
        concentration=ConcentrationDraws(alphas, float(found.rhat[d]), float(found.ess[d])),
    )


def _pair_draws(
    settings: SamplerSettings,
    *,
    log_pi: NDArray[np.float64],
    walk: ConcentrationWalk,
    separable: SeparableLikelihood,
    rng: np.random.Generator,
    report: Callable[[int], None],
) -> tuple[NDArray[np.float64], NDArray[np.float64], Mixing]:
    """Pair-sampler draws until every value's and α's ESS and R̂ pass.

    Passing is ESS ≥ ``min_ess`` and R̂ ≤ ``max_rhat``, ranked (:func:`gated`: the bulk
    ESS, and the tail ESS too where ``settings.tails``); at most ``4 · draws`` steps,
    or ``8 · draws`` once α alone falls short (where the reports say little about α
    its posterior spans 10⁻³ to 10¹ and its walk mixes slowest: GRR, d = 5, n = 12,
    ESS 276 after 1,600 steps; each further step there costs under a millisecond).
    Returns the draws of π and of α, and how every value mixed with α last (the ranked
    numbers are the same for ``log α`` and α). ``report(steps)`` hears of each chunk
    as it ends.
    """
    from ldpcore.stats.pair_gibbs import run as run_pairs  # noqa: PLC0415 (scipy)

    pieces: list[NDArray[np.float64]] = []
    d = log_pi.shape[1]
    floor, ceiling = settings.min_ess, settings.max_rhat
    steps, most = settings.draws, 4 * settings.draws
    # The columns (values, and α last) that fell short at the last full check.
    # Between full checks only they are re-checked (ESS and R̂ are per column): at
    # d = 1,024 a full check costs about 0.15 s, as much as 60 pair steps, and a ranked
    # one 0.5 s, so the draws can grow in small increments without paying for it each
    # time.
    watch: NDArray[np.intp] | None = None
    while True:
        draws, trace, _ = run_pairs(log_pi, walk, separable, rng, steps=steps, keep=True)
        assert draws is not None and trace is not None
        pieces.append(np.concatenate([draws, trace[:, :, None]], axis=2))
        report(steps)
        kept = sum(piece.shape[1] for piece in pieces)
        full = watch is None or kept >= most  # the last chunk is always checked in full
        if full:
            columns = np.concatenate(pieces, axis=1)
            found = gated(columns, min_ess=floor, max_rhat=ceiling, tails=settings.tails)
        else:  # only the watched columns are gathered (all of them: 65 MB at d = 1,024)
            watched = np.concatenate([p[:, :, watch] for p in pieces], axis=1)
            found = gated(watched, min_ess=floor, max_rhat=ceiling, tails=settings.tails)
            if found.passes(floor, ceiling):  # the watched columns pass: now every one, once
                full = True
                columns = np.concatenate(pieces, axis=1)
                # Ranked at once: the others passed the last full check with a margin.
                found = mixing(thinned(columns), tails=settings.tails)
        enough = found.passes(floor, ceiling)
        if full:
            failing = found.failing(floor, ceiling)
            if failing[:d].any():
                most = 4 * settings.draws
            elif kept >= most:  # only α falls short
                most = 8 * settings.draws
            watch = np.flatnonzero(failing | (found.ess < 1.5 * floor))
        if enough or kept >= most:
            break
        # Early on the worst ESS grows faster than the draws, about as their 1.5th
        # power (Zipf d = 1,024, OUE: 154 after 400 steps, 868 after 1,247, while R̂
        # fell from 1.05 to 1.01; a straight-line guess overshot to twice the ESS
        # needed), so the draws grow by the shortfall to the 2/3 power, by at most
        # half and at least an eighth of a chunk (for an R̂ that fails alone).
        short = floor / max(float(found.ess.min()), 1.0)
        wanted = math.ceil(kept * (short ** (2 / 3) - 1.0))
        steps = min(most - kept, max(settings.draws // 8, min(wanted, kept // 2)))
    if not found.ranked:  # stopped at the cap: the answer's numbers are the ranked ones
        found = mixing(thinned(columns), tails=settings.tails)
    return columns[:, :, :-1], np.exp(columns[:, :, -1]), found


#: The learned prior's warmup: pair steps in which α and π find their posterior and α's
#: walks adapt. Mean total steps to convergence with 100, 150 and 250 (n = 10⁶, ε = 1:
#: 5 collections each; d = 64: 6, and 3 at d = 1,024, ε = 0.5), after the flat-pair move
#: and the second non-centred α move: Zipf d = 1,024 GRR 1,250 / 1,075 / 1,276, SUE
#: 978 / 1,121 / 1,193; countries GRR 628 / 766 / 759, OLH 603 / 673 / 772; d = 64,
#: n = 100: OUE ε = 2 1,176 / 1,283 / 1,430, OLH ε = 2 1,171 / 1,154 / 1,472 (one
#: collection warned at each); GRR ε = 0.5, n = 10⁴ 1,024 / 899 / 1,056; Zipf d = 1,024,
#: ε = 0.5 966 / 1,121 / 1,195. 150 was below 250 in every case; 100 was not below 150
#: everywhere. Shorter chains adapt the walks less but start sampling sooner, and the
#: draws run on until α and every value pass anyway.
_PAIR_WARMUP = 150
#: Up to how many numbers (chains × values) a pair step's arrays hold before the pair
#: sampler stops adding chains (:func:`pair_chains`).
_PAIR_NUMBERS = 3_000


def pair_chains(chains: int, domain_size: int) -> int:
    """How many chains the pair sampler runs for ``chains`` requested: 2× to 3× as many.

    A pair step costs a fixed 0.7–0.8 ms (some 200 numpy calls on small arrays) plus
    about 0.15 µs per chain and value (GRR and OUE, ε = 1, n = 10⁶; per step with 8, 12
    and 16 chains: d = 64 0.78 / 0.84 / 0.90 ms, countries d = 248 0.97 / 1.11 / 1.26,
    d = 1,024 1.94 / 2.53 / 3.25). Where the fixed part dominates, a chain adds draws
    almost for nothing, so chains are added (up to 3×) while a step's arrays hold at most
    :data:`_PAIR_NUMBERS` numbers: 12 for 4 requested at d = 64 and at countries, 8 at
    d = 1,024. Countries GRR, 5 collections: 0.94 s with 8 chains, 0.70 s with 12.
    """
    return max(2 * chains, min(3 * chains, _PAIR_NUMBERS // domain_size))


#: The sd of the chains' starting ``log α`` around the hyperprior's centre.
_START_SPREAD = 0.5


def _separable(model: LikelihoodModel, estimate: Vector, context: Context) -> SeparableLikelihood:
    """The pair sampler's likelihood: the model's own if separable, else support binomials.

    The binomials' counts are those the unbiased estimate implies,
    ``c = n (q + (p − q) f)``, which is how the estimate was made from them.
    """
    from ldpcore.stats.separable import SeparableLikelihood  # noqa: PLC0415 (scipy)

    # Both separable models are in the protocol's own support terms (GRR's report cell
    # of the true value is p, of another q), so the protocol's p and q are theirs.
    p, q = context.protocol.p, context.protocol.q
    own = model.separable_counts()
    if own is None:
        hits = np.clip(support_from_estimate(estimate, context.n, p=p, q=q), 0.0, context.n)
        own = (hits, context.n - hits)
    return SeparableLikelihood(own[0], own[1], p, q, estimate)


def _frequencies(w: NDArray[np.float64]) -> NDArray[np.float64]:
    """``π = w² / |w|²`` along the last axis."""
    squares = w * w
    return squares / squares.sum(axis=-1, keepdims=True)


def _angular_variance(w: NDArray[np.float64]) -> NDArray[np.float64]:
    """The variance of ``|w_v| / |w|`` (all that ``π`` sees), at the mean radius.

    ``|w|`` is independent of ``π`` with relative sd ``1/√(4 Σα)`` (25% at d = 8), far
    wider than a well-measured ``π_v`` (0.5% at n = 10⁶). The plain variance of ``w_v``
    would size the metric for the radius and force steps 50 times too small (OLH,
    d = 8: step 0.005, 150,000 gradients); sized for the direction, the radius
    wanders slowly and nothing of ``π`` depends on it. Signs are dropped for the same
    reason: a leapfrog step can jump over ``w_v = 0``, and the two signs would add the
    distance between them to the variance (44 times too large, GRR at d = 2).
    """
    squares = np.sum(w * w, axis=1, keepdims=True)
    return np.var(np.abs(w) / np.sqrt(squares), axis=0) * float(squares.mean())


def sample_posterior(
    model: LikelihoodModel,
    alpha: NDArray[np.float64],
    *,
    chains: int = 4,
    draws: int = 400,
    warmup: int = 300,
    rng: np.random.Generator,
    min_ess: float | None = None,
    max_rhat: float = math.inf,
    tails: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Posterior:
    """Sample ``p(π | tallies) ∝ L(π) Π π^(α−1)`` (see the module docstring).

    With ``min_ess``, the chains run on (``draws`` more at a time, up to four times
    ``draws``) until every value's bulk ESS (and with ``tails`` its tail ESS) reaches it
    and the rank-normalised R̂ is at most ``max_rhat`` (:func:`gated`).
    ``converged`` in the result is left True; the method applies its thresholds.
    """
    d = model.domain_size
    if np.any(alpha < 0.5):
        raise InputError("the sampler needs every prior concentration α_v >= 1/2")
    mle = maximum_likelihood(model)
    total_alpha = float(alpha.sum())
    # The Laplace centre: the MLE pulled towards the prior, so that no value starts at 0.
    centre = (model.n * mle + alpha) / (model.n + total_alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        curvature = np.maximum(model.curvature(centre), 0.0)
    # π_v's sd from the data's curvature and the prior's (Σα pseudo-users); then w_v's
    # at the mean radius, with (π_v + sd) so that a value whose posterior reaches 0 gets
    # its width rather than a vanishing derivative.
    spread = 1.0 / np.sqrt(curvature + total_alpha / centre)
    variance = spread**2 / (4.0 * (centre + spread))  # at |w| = 1, where w_v = √π_v
    # The radius's sd: one step of the metric along the radial direction ŵ (see
    # _radial_log_density); never so wide that w nears 0, where the target is singular.
    width = float(np.clip(1.0 / math.sqrt(np.sum(centre / variance)), 0.01, 0.25))
    start = np.sqrt(centre) + rng.standard_normal((chains, d)) * np.sqrt(variance)
    power = 2.0 * alpha - 1.0
    radial_power = float(power.sum()) + d - 1.0

    def log_density(
        w: NDArray[np.float64],
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        squares = w * w
        total = squares.sum(axis=1, keepdims=True)
        radius = np.sqrt(total)
        pi = squares / total
        value, gradient = model.value_and_gradient(pi)
        centred = gradient - (pi * gradient).sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore"):
            log_w = np.log(np.abs(w))
            inverse = np.where(power != 0.0, power / w, 0.0)
        log_radius = np.log(radius[:, 0])
        prior = np.where(power != 0.0, log_w, 0.0) @ power - radial_power * log_radius
        prior -= (radius[:, 0] - 1.0) ** 2 / (2.0 * width**2)
        radial = -radial_power / total - (radius - 1.0) / (width**2 * radius)
        return value + prior, 2.0 * w / total * centred + inverse + radial * w

    floor = 0.0 if min_ess is None else float(min_ess)
    checked: list[tuple[int, Mixing]] = []

    def enough(w: NDArray[np.float64]) -> bool:
        found = gated(_frequencies(w), min_ess=floor, max_rhat=max_rhat, tails=tails)
        checked.append((w.shape[1], found))  # the last check is the final answer
        return found.passes(floor, max_rhat)

    result = sample(
        log_density,
        start,
        variance,
        draws=draws,
        warmup=warmup,
        rng=rng,
        spread=_angular_variance,
        enough=None if min_ess is None else enough,
        max_draws=4 * draws,
        progress=progress,
    )
    frequencies = _frequencies(result.draws)
    if checked and checked[-1][0] == frequencies.shape[1] and checked[-1][1].ranked:
        found = checked[-1][1]
    else:
        found = mixing(thinned(frequencies), tails=tails)
    mean = frequencies.reshape(-1, d).mean(axis=0)
    return Posterior(
        mean / mean.sum(),
        frequencies,
        found.rhat,
        found.bulk_ess,
        result,
        True,
        mle,
        tail_ess=found.tail_ess,
    )


__all__ = [
    "SamplerSettings",
    "fixed_posterior",
    "learned_posterior",
    "pair_chains",
    "sample_posterior",
]
