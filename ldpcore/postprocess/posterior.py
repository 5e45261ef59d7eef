"""The Bayes method's posterior: its draws, mean, intervals and what the prior did.

What :mod:`ldpcore.postprocess.posterior_draws` returns and the method, the pages and
the CLI read: the posterior mean (MLE paper, Sec. 3, Theorem 3.1), the shortest
interval holding a level of the draws, how far the prior moved what the reports measure
(:attr:`Posterior.prior_pull`), and how well the chains mixed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from ldpcore.postprocess.caveats import PriorShapes
from ldpcore.stats.diagnostics import split_rhat_and_ess
from ldpcore.stats.hmc import Chains


@dataclass(frozen=True)
class ConcentrationDraws:
    """The learned prior's concentration α: its draws and how well they mixed.

    Attributes
    ----------
    draws : ndarray
        ``(chains, draws)`` draws of α.
    rhat, ess : float
        Rank-normalised split R̂ and the smaller of the bulk and (where measured) tail
        ESS of α (:mod:`ldpcore.stats.diagnostics`).
    """

    draws: NDArray[np.float64]
    rhat: float
    ess: float

    @property
    def median(self) -> float:
        """α's posterior median."""
        return float(np.median(self.draws))

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """α's equal-tailed credible interval."""
        tail = (1.0 - level) / 2.0
        low, high = np.quantile(self.draws, [tail, 1.0 - tail])
        return float(low), float(high)


@dataclass(frozen=True)
class Posterior:
    """Draws from the posterior and what they say.

    Attributes
    ----------
    mean : ndarray
        The posterior mean of every frequency (the Bayes estimate).
    draws : ndarray
        ``(chains, draws, d)`` draws of the distribution.
    rhat, ess : ndarray
        Rank-normalised split R̂ and bulk effective sample size of every frequency
        (Vehtari et al. 2021; :func:`ldpcore.stats.diagnostics.mixing`).
    chains : Chains or None
        HMC's own record (step size, acceptance, divergences); None from the pair sampler.
    converged : bool
        Whether every R̂ and ESS met the method's thresholds.
    mle : ndarray
        The maximum-likelihood estimate from the same likelihood (the reports alone).
    tail_ess : ndarray or None
        Every frequency's tail ESS (how well the draws cover its 5% and 95% quantiles),
        where the draws serve intervals; None otherwise.
    concentration : ConcentrationDraws or None
        For the learned prior, the draws of ``α`` (sampled jointly with ``π``).
    sampled_alpha : float or None
        For the learned prior on a likelihood that is not separable, the fixed ``α`` HMC
        sampled at (see
        :func:`~ldpcore.postprocess.posterior_draws.learned_posterior`).
    """

    mean: NDArray[np.float64]
    draws: NDArray[np.float64]
    rhat: NDArray[np.float64]
    ess: NDArray[np.float64]
    chains: Chains | None = field(repr=False)
    converged: bool
    mle: NDArray[np.float64]
    tail_ess: NDArray[np.float64] | None = None
    concentration: ConcentrationDraws | None = None
    sampled_alpha: float | None = None

    @property
    def learned_prior(self) -> bool:
        """Whether the prior was learned (α sampled, or its median used for HMC)."""
        return self.concentration is not None or self.sampled_alpha is not None

    @property
    def values_ess(self) -> float:
        """The values' smallest effective sample size: bulk, and tail where measured."""
        own = float(self.ess.min())
        return own if self.tail_ess is None else min(own, float(self.tail_ess.min()))

    @property
    def min_ess(self) -> float:
        """The smallest effective sample size over the values (and α, when sampled)."""
        own = self.values_ess
        return own if self.concentration is None else min(own, self.concentration.ess)

    @property
    def max_rhat(self) -> float:
        """The largest split R̂ over the values (and α, when sampled)."""
        own = float(self.rhat.max())
        return own if self.concentration is None else max(own, self.concentration.rhat)

    def standard_error(self) -> NDArray[np.float64]:
        """Monte Carlo standard error of each posterior mean: ``sd / √ESS`` (BDA3, 11.5).

        With the mean's own ESS (of the draws, not their ranks: Vehtari et al. 2021,
        Sec. 4.4), measured here on first use.
        """
        return self.spread / np.sqrt(self.mean_ess)

    @cached_property
    def mean_ess(self) -> NDArray[np.float64]:
        """Each frequency's effective sample size for its mean (classic split chains)."""
        return split_rhat_and_ess(self.draws)[1]

    @cached_property
    def spread(self) -> NDArray[np.float64]:
        """Each frequency's posterior standard deviation.

        Computed once: the draws are ``chains × draws × d``, and the prior pull, its note
        and the Monte Carlo errors all read it.
        """
        return self.draws.reshape(-1, self.draws.shape[-1]).std(axis=0)

    def interval(self, level: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The shortest interval holding ``level`` of each value's draws, within [0, 1].

        For a unimodal posterior that is the highest-density interval. Where it starts
        at the smallest draw the posterior piles up at the boundary (a value the reports
        barely support), and the interval starts at 0: an equal-tailed one would leave
        out 0 and the small values around it, which are the likeliest (with a true
        frequency of exactly 0, Zipf d = 64, n = 100, it covered 0% of rare values).
        The interval reaches out to the mean if a tiny sample left it outside.
        """
        flat = np.sort(self.draws.reshape(-1, self.draws.shape[-1]), axis=0)
        count = flat.shape[0]
        inside = min(count, max(2, math.ceil(level * count)))
        widths = flat[inside - 1 :] - flat[: count - inside + 1]
        first = np.argmin(widths, axis=0)
        columns = np.arange(flat.shape[1])
        low = np.where(first == 0, 0.0, flat[first, columns])
        high = flat[first + inside - 1, columns]
        return (
            np.clip(np.minimum(low, self.mean), 0.0, 1.0),
            np.clip(np.maximum(high, self.mean), 0.0, 1.0),
        )

    @property
    def prior_pull(self) -> float:
        """How far the prior moved what the reports measure: in posterior sds, the largest.

        ``max |mean_v − MLE_v| / sd_v`` over the values the reports see (MLE above two
        posterior sds; the others' posteriors pile at 0 and their mean always sits above
        an MLE of 0). Near 0 when the reports decide (Theorem 3.3); ``inf`` when they see
        no value. Measured (benchmarks/README.md, Coverage; Zipf d = 64, 30 regimes): a
        median of at most 0.46 where the 95% credible intervals covered 92–97% of
        frequent values, 0.66 and above where they covered 42–86%.
        :data:`PRIOR_PULL_WARNING` is the line between.
        """
        spread = np.maximum(self.spread, np.finfo(float).tiny)
        seen = self.mle > 2.0 * spread
        if not seen.any():
            return math.inf
        return float(np.max(np.abs(self.mean - self.mle)[seen] / spread[seen]))

    @property
    def seen(self) -> int:
        """How many values the reports see clearly: MLE above two posterior sds."""
        spread = np.maximum(self.spread, np.finfo(float).tiny)
        return int(np.sum(self.mle > 2.0 * spread))

    @property
    def prior_shapes_answer(self) -> bool:
        """Whether the credible intervals may cover much less than stated.

        When the reports see at most a tenth of the values clearly (:attr:`seen`), or,
        under a fixed prior, when :attr:`prior_pull` is past :data:`PRIOR_PULL_WARNING`
        (measured under Jeffreys' prior). Under the learned prior the frequent values'
        95% intervals covered 41–91% in the regimes of benchmarks/README.md ("A prior
        that learns", session 24, α sampled) where at most a tenth were seen, and
        93–97% in the others. Its pull is no guide there (0.5–0.6 in regimes that
        covered 93–95%: a small α moves what the reports measure less, but still moves
        it).
        """
        few = self.seen <= max(1, self.mean.size // 10)
        if self.learned_prior:
            return few
        return few or self.prior_pull > PRIOR_PULL_WARNING

    def prior_shapes(self) -> PriorShapes | None:
        """The facts a person needs when the prior shapes the answer (None when it does not).

        The words are :func:`ldpcore.present.run_sentences.caveat_words`.
        """
        if not self.prior_shapes_answer:
            return None
        pull = self.prior_pull
        return PriorShapes(
            seen=self.seen,
            values=self.mean.size,
            pull=pull,
            moved=0.5 * float(np.abs(self.mean - self.mle).sum()),
            pull_counts=pull > PRIOR_PULL_WARNING and not self.learned_prior,
        )


#: :attr:`Posterior.prior_pull` above which the pages and the CLI say that the prior
#: shapes the answer (see there for the measurements behind it).
PRIOR_PULL_WARNING = 0.5


__all__ = ["PRIOR_PULL_WARNING", "ConcentrationDraws", "Posterior"]
