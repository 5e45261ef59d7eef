"""Bayes: the posterior mean under a Dirichlet prior, from the protocol's own likelihood.

MLE paper (Lopuhaä-Zwakenberg et al.), Section 3, Theorem 3.1: under a prior on the
distribution, the estimator with the least expected squared error is the posterior
mean. The posterior is

    p(π | tallies) ∝ L(π) · Π_v π_v^(α_v − 1),

with ``L`` the likelihood the protocol declares (:meth:`FrequencyOracle.likelihood_model`:
GRR's reports, HR's rows, OUE/SUE full reports up to d = 12, support counts otherwise)
and a Dirichlet(α) prior. No closed form exists, so we sample it. The method's rooms:

* :mod:`~ldpcore.postprocess.prior` — the priors, and the learned prior's hyperprior;
* :mod:`~ldpcore.postprocess.posterior_draws` — how the posterior is drawn (pairs under
  the learned prior, HMC otherwise) and for how long;
* :mod:`~ldpcore.postprocess.posterior` — what the draws say: the mean, the intervals,
  how far the prior moved the answer;
* this module — the method itself: its settings, its intervals and its warnings.

Convergence is checked, never assumed: split R̂ and the effective sample size of every
``π_v`` (:mod:`ldpcore.stats.diagnostics`). Below ``min_ess`` or above ``max_rhat`` the
method warns :class:`~ldpcore.postprocess.ibu.NotConverged`, as MLE/IBU do when they
stop at their cap, and experiments count it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike

from ldpcore._validation import check_int, check_n_users
from ldpcore.errors import InputError
from ldpcore.postprocess.base import Context, PostProcessor, Vector, check_estimate
from ldpcore.postprocess.caveats import Caveat, Unsettled, Widened
from ldpcore.postprocess.ibu import NotConverged, said_not_converged
from ldpcore.postprocess.intervals import (
    CREDIBLE_LEVEL_MAX,
    EXACT_MAX_N,
    IntervalEstimates,
    frequency_intervals,
    per_test_level,
)
from ldpcore.postprocess.mle import context_model
from ldpcore.postprocess.posterior import Posterior
from ldpcore.postprocess.posterior_draws import (
    SamplerSettings,
    fixed_posterior,
    learned_posterior,
    pair_chains,
)
from ldpcore.postprocess.prior import LEARNED, DirichletPrior
from ldpcore.protocols.base import FrequencyOracle

#: How far (a share) the exact interval must widen a credible one before the note says so.
WIDENED_NOTE = 0.01


@dataclass(frozen=True, kw_only=True)
class Bayes(PostProcessor):
    """The posterior mean under a Dirichlet prior (MLE paper, Sec. 3, Theorem 3.1).

    Parameters
    ----------
    prior : DirichletPrior
        :data:`LEARNED` by default: a symmetric Dirichlet whose concentration is
        sampled with the distribution (a hierarchical prior; measured against Jeffreys'
        in benchmarks/README.md, "Bayes with the learned prior"). :data:`JEFFREYS`, :data:`UNIFORM`,
        or :func:`informed_prior` from a histogram.
    chains, draws, warmup : int
        HMC chains (at least 2, for R̂), kept draws per chain, adaptation iterations.
        The learned prior's pair sampler runs two to three times the chains
        (:func:`pair_chains`), the same draws, and its own warmup (150 steps, in which
        α's moves adapt).
    seed : int
        Mixed with a hash of the input, so one input always gives one output.
    min_ess, max_rhat : float
        Below this effective sample size, or above this split R̂, it warns.
    progress : callable, optional
        Told ``(done, total)`` iterations as the sampler runs.
    """

    name: ClassVar[str] = "Bayes"
    reads: ClassVar = "support"
    description: ClassVar[str] = "Posterior mean under a Dirichlet prior the reports tune"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d) per leapfrog step; about 10⁴ steps per estimate"
    reference: ClassVar[str] = "Lopuhaä-Zwakenberg et al., Sec. 3, Theorem 3.1"
    bias: ClassVar[str] = (
        "Shrinks towards the prior; least mean squared error when the prior is right"
    )
    formula: ClassVar[str] = (
        r"\hat\pi = \mathbb{E}[\pi \mid \text{tallies}],\quad"
        r" p(\pi \mid \text{tallies}) \propto P(\text{tallies} \mid \pi)"
        r"\,\prod_v \pi_v^{\alpha_v - 1}"
    )
    explanation: ClassVar[str] = (
        "Weigh every possible distribution by how well it explains the reports and by how "
        "plausible it was beforehand (the prior), and average them. With a weak prior it is "
        "close to the MLE but never exactly zero; a good prior helps, a wrong one hurts."
    )
    by_default: ClassVar[bool] = False
    stochastic: ClassVar[bool] = True
    #: About 10 s at this size under a fixed prior (3 s at d = 1,024; benchmarks/README.md,
    #: "Bayes"); the learned prior's pair sampler is linear in d, 4–8 s at d = 1,024.
    max_domain: ClassVar[int | None] = 4096
    interval_kind: ClassVar[Literal["confidence", "credible"]] = "credible"
    takes_prior: ClassVar[bool] = True

    prior: DirichletPrior = LEARNED
    chains: int = 4
    draws: int = 400
    warmup: int = 300
    seed: int = 0
    min_ess: float = 400.0
    max_rhat: float = 1.05
    #: Whether the draws serve intervals, whose ends lie in the tails: the tail ESS must
    #: then reach ``min_ess`` too (Vehtari et al. 2021, Sec. 4.3). Set by
    #: :meth:`with_intervals`.
    for_intervals: bool = False
    #: ``progress(done, total)`` over the sampler's iterations (the CLI's progress line).
    progress: Callable[[int, int], None] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.prior, DirichletPrior):
            raise InputError("prior must be JEFFREYS, UNIFORM or informed_prior(histogram)")
        check_int(self.chains, name="chains", minimum=2, maximum=64)
        check_int(self.draws, name="draws", minimum=20)
        check_int(self.warmup, name="warmup", minimum=20)
        check_int(self.seed, name="seed", minimum=0)
        for label, value, low in (("min_ess", self.min_ess, 0.0), ("max_rhat", self.max_rhat, 1.0)):
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= low):
                raise InputError(f"{label} must be a finite number >= {low:g}, got {value!r}")

    def configured(
        self,
        *,
        prior: object | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> Bayes:
        """The sampler with ``prior`` (kept when None) and ``progress`` (kept when None)."""
        if prior is not None and not isinstance(prior, DirichletPrior):
            raise InputError("prior must be JEFFREYS, UNIFORM or informed_prior(histogram)")
        return dataclasses.replace(
            self,
            prior=self.prior if prior is None else prior,
            progress=self.progress if progress is None else progress,
        )

    def with_intervals(
        self,
        estimate: ArrayLike,
        *,
        protocol: FrequencyOracle,
        n: int,
        level: float,
        tallies: ArrayLike | None = None,
        simultaneous: bool = False,
    ) -> IntervalEstimates:
        """The posterior mean with ``level`` credible intervals, widened at small ``n``.

        With at least ``40 / tail`` draws in all (1,600 at 95%), over every chain the
        sampler runs, so that each tail quantile rests on about 40 draws.

        Up to :data:`~ldpcore.postprocess.intervals.EXACT_MAX_N` users each interval is
        widened to hold the exact confidence interval for the true share
        (:func:`~ldpcore.postprocess.intervals.frequency_intervals`). There the prior
        decides: with 5 GRR reports at ε = 1, 7 options and 4 students on one option,
        the 95% credible interval under Jeffreys' prior held that option's share in 0 of
        60 classes, and no symmetric Dirichlet the sampler takes (α ≥ ½)
        pulls less. The union covers at least the exact interval's level whatever the
        prior; the note says when it widened anything.
        """
        if level > CREDIBLE_LEVEL_MAX:
            raise InputError(
                f"Bayes's credible intervals go up to {CREDIBLE_LEVEL_MAX:.0%}; got {level:g} "
                "(beyond that its tails need minutes of sampling)"
            )
        each = per_test_level(level, protocol.domain_size, simultaneous=simultaneous)
        f = check_estimate(estimate, protocol.domain_size)
        context = Context(protocol=protocol, n=check_n_users(n), tallies=tallies)
        chains = self._drawing_chains(f, context)
        wanted = math.ceil(40 / ((1 - each) / 2) / chains)
        sampler = dataclasses.replace(self, draws=max(self.draws, wanted), for_intervals=True)
        # The pages say these, not Python warnings: a sampler that had not settled is
        # a caveat of the intervals it affects.
        posterior, said = said_not_converged(
            lambda: sampler.posterior(estimate, protocol=protocol, n=n, tallies=tallies)
        )
        low, high = posterior.interval(each)
        caveats: list[Caveat] = [w.fact for w in said if isinstance(w.fact, Unsettled)]
        if (shaped := posterior.prior_shapes()) is not None:
            caveats.append(shaped)
        if n <= EXACT_MAX_N:
            exact_low, exact_high = frequency_intervals(
                estimate, protocol=protocol, n=n, level=level, simultaneous=simultaneous
            )
            widened = np.maximum(low - exact_low, exact_high - high).max()
            low, high = np.minimum(low, exact_low), np.maximum(high, exact_high)
            if widened > WIDENED_NOTE:
                caveats.insert(0, Widened(n, level))
        return IntervalEstimates(posterior.mean, low, high, "credible", tuple(caveats))

    @property
    def settings(self) -> SamplerSettings:
        """What the samplers read of this method."""
        return SamplerSettings(
            self.chains,
            self.draws,
            self.warmup,
            self.min_ess,
            self.max_rhat,
            tails=self.for_intervals,
            progress=self.progress,
        )

    def posterior(
        self,
        estimate: ArrayLike,
        *,
        protocol: FrequencyOracle,
        n: int,
        tallies: ArrayLike | None = None,
    ) -> Posterior:
        """Sample the posterior; the estimate and tallies are as for the method itself."""
        f = check_estimate(estimate, protocol.domain_size)
        self.check_domain(protocol.domain_size)
        return self._posterior(f, Context(protocol=protocol, n=check_n_users(n), tallies=tallies))

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return self._posterior(estimate, context).mean

    def _drawing_chains(self, estimate: Vector, context: Context) -> int:
        """How many chains the posterior's draws will come from.

        The pair sampler's (:func:`pair_chains`) under the learned prior where the
        likelihood is separable, else HMC's :attr:`chains`: the draws an interval's tails
        need are shared among them.
        """
        model = context_model(estimate, context)
        if self.prior.kind == "learned" and model.separable_counts() is not None:
            return pair_chains(self.chains, context.protocol.domain_size)
        return self.chains

    def _posterior(self, estimate: Vector, context: Context) -> Posterior:
        model = context_model(estimate, context)
        alpha = self.prior.concentration(model.domain_size)
        rng = np.random.default_rng([self.seed, _fingerprint(estimate, context)])
        if self.prior.kind == "learned":
            result = learned_posterior(model, estimate, context, rng, self.settings)
        else:
            result = fixed_posterior(model, alpha, rng, self.settings)
        converged = result.min_ess >= self.min_ess and result.max_rhat <= self.max_rhat
        if not converged:
            smallest = result.values_ess  # the values' (α's is apart)
            fact = Unsettled(
                values_ess=smallest,
                alpha_ess=None if result.concentration is None else result.concentration.ess,
                max_rhat=result.max_rhat,
                wanted_ess=self.min_ess,
                wanted_rhat=self.max_rhat,
                draws=self.draws,
                values_settled=(
                    smallest >= self.min_ess and float(result.rhat.max()) <= self.max_rhat
                ),
            )
            # The words are present.run_sentences.caveat_words(fact); this is the log's line.
            warnings.warn(
                NotConverged(
                    f"Bayes's sampler had not settled: effective sample size {smallest:,.0f} "
                    f"(α's {fact.alpha_ess or math.nan:,.0f}; {self.min_ess:,.0f} wanted), "
                    f"R̂ {result.max_rhat:.3f} ({self.max_rhat:g} wanted)",
                    fact=fact,
                ),
                stacklevel=3,
            )
        return dataclasses.replace(result, converged=converged)


def _fingerprint(estimate: Vector, context: Context) -> int:
    """A 63-bit digest of the input, so the sampler's stream depends on nothing else."""
    digest = hashlib.blake2b(estimate.tobytes(), digest_size=8)
    digest.update(f"{context.n}|{context.protocol!r}".encode())
    if context.tallies is not None:
        digest.update(np.asarray(context.tallies, dtype=np.float64).tobytes())
    return int.from_bytes(digest.digest(), "little") >> 1


__all__ = ["WIDENED_NOTE", "Bayes"]
