"""Bayes: the posterior mean under a Dirichlet prior, from the protocol's own likelihood.

MLE paper (Lopuhaä-Zwakenberg et al.), Section 3, Theorem 3.1: under a prior on the
distribution, the estimator with the least expected squared error is the posterior
mean. The posterior is

    p(π | tallies) ∝ L(π) · Π_v π_v^(α_v − 1),

with ``L`` the likelihood the protocol declares (:meth:`FrequencyOracle.likelihood_model`:
GRR's reports, HR's rows, OUE/SUE full reports up to d = 12, support counts otherwise)
and a Dirichlet(α) prior. No closed form exists, so we sample it.

The default prior is learned: a symmetric Dirichlet whose concentration α has a
log-normal hyperprior and is sampled jointly with the distribution (a hierarchical
model; :meth:`Bayes._learned`), so the posterior mean averages over every α the reports
allow. Both are drawn by exact pair moves and concentration moves
(:mod:`ldpcore.stats.pair_gibbs`) wherever the likelihood is separable; those handle the
α far below ½ that Zipf-like data choose, where the sampler below stalls.

The sampler for a fixed prior (and for HR's rows and UE's full reports, which are not
separable). Hamiltonian Monte Carlo (:mod:`ldpcore.stats.mcmc`) on ``w ∈ R^d`` with
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

Convergence is checked, never assumed: split R̂ and the effective sample size of every
``π_v`` (:func:`ldpcore.stats.mcmc.split_rhat_and_ess`). Below ``min_ess`` or above
``max_rhat`` the method warns :class:`~ldpcore.postprocess.ibu.NotConverged`, as MLE/IBU
do when they stop at their cap, and experiments count it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_int, check_n_users
from ldpcore.errors import InputError
from ldpcore.postprocess.base import Context, PostProcessor, Vector, check_estimate
from ldpcore.postprocess.ibu import NotConverged, said_not_converged
from ldpcore.postprocess.intervals import (
    CREDIBLE_LEVEL_MAX,
    EXACT_MAX_N,
    IntervalEstimates,
    frequency_intervals,
    per_test_level,
)
from ldpcore.postprocess.mle import context_model, maximum_likelihood
from ldpcore.protocols.base import FrequencyOracle, support_from_estimate
from ldpcore.stats.mcmc import Chains, sample, split_rhat_and_ess

if TYPE_CHECKING:  # these load scipy; they are imported where they are first used
    from ldpcore.protocols.likelihoods import LikelihoodModel
    from ldpcore.stats.pair_gibbs import ConcentrationWalk, SeparableLikelihood

#: The kinds of prior.
PriorKind = Literal["learned", "Jeffreys", "uniform", "informed"]

#: The learned prior's hyperprior: ``log α ~ N(−½ log d, 2.5²)``. Its centre ``1/√d``
#: is the geometric mean of two classical objective choices: Perks's ``α = 1/d`` (a
#: prior worth one user whatever d; Perks 1947) and Bayes–Laplace's ``α = 1`` (worth d).
#: Both lie within ±0.8σ of it at d = 64 and ±1.4σ at d = 1,024; Jeffreys' ½ within
#: 0.6σ and 1.1σ. So where the reports say little about ``α`` it stays between them,
#: and where they say much they move it freely. Why not centred on Jeffreys' ½ (sd 1, as
#: first built): at n = 100 that outweighed the reports, whose marginal likelihood
#: peaks near α = 0.05 on Zipf data, and Bayes's MSE was 1.2–1.6 times the MLE's. Why not
#: on Perks's 1/d: there GRR at ε = 2, n = 100 (reports that say almost nothing) settled
#: at α̂ ≈ 0.02, below that peak, and was no better than the MLE (benchmarks/README.md,
#: "A prior that learns"). Proper and vanishing at 0, which the posterior needs
#: (:class:`ldpcore.stats.pair_gibbs.Hyperprior`).
HYPERPRIOR_LOG_SD = 2.5


def hyperprior_centre(domain_size: int) -> float:
    """The learned prior's hyperprior centre for ``domain_size`` values: ``1/√d``."""
    return float(domain_size) ** -0.5


@dataclass(frozen=True)
class DirichletPrior:
    """A Dirichlet prior on the distribution.

    Use :data:`LEARNED`, :data:`JEFFREYS`, :data:`UNIFORM` or :func:`informed_prior`.

    Attributes
    ----------
    kind : str
        ``"learned"`` (the same α for every value, α sampled with the distribution),
        ``"Jeffreys"`` (α = ½), ``"uniform"`` (α = 1) or ``"informed"``.
    shape : tuple of float
        For an informed prior, the prior guess of the distribution (sums to one).
    weight : float
        For an informed prior, how many users' *true* values it adds to Jeffreys'.
    """

    kind: PriorKind
    shape: tuple[float, ...] = ()
    weight: float = 0.0

    def concentration(self, domain_size: int) -> NDArray[np.float64]:
        """``α`` for ``domain_size`` values (an :class:`InputError` if it does not fit).

        For the learned prior, its hyperprior's centre (where the chains start).
        """
        if self.kind == "learned":
            return np.full(domain_size, hyperprior_centre(domain_size))
        if self.kind == "Jeffreys":
            return np.full(domain_size, 0.5)
        if self.kind == "uniform":
            return np.ones(domain_size)
        if len(self.shape) != domain_size:
            raise InputError(
                f"the prior histogram has {len(self.shape)} values but the domain has "
                f"{domain_size}; give one count per value"
            )
        return 0.5 + self.weight * np.asarray(self.shape, dtype=np.float64)

    def in_words(self, domain_size: int) -> str:
        """The prior and what it is worth, e.g. "an informed prior worth 5,000 users"."""
        if self.kind == "informed":
            return f"an informed prior worth {self.weight:,.0f} users (on Jeffreys' prior)"
        if self.kind == "learned":
            return "a learned prior (a symmetric Dirichlet whose α is sampled with the data)"
        total = float(self.concentration(domain_size).sum())
        return f"the {self.kind} prior (Dirichlet, worth {total:,.4g} users)"


#: A symmetric Dirichlet(α) with α sampled from its posterior (hierarchical; see Bayes).
LEARNED: DirichletPrior = DirichletPrior("learned")
#: Dirichlet(½, …, ½): Jeffreys' prior for a multinomial; weak and invariant.
JEFFREYS: DirichletPrior = DirichletPrior("Jeffreys")
#: Dirichlet(1, …, 1): every distribution equally likely.
UNIFORM: DirichletPrior = DirichletPrior("uniform")


def informed_prior(histogram: ArrayLike, weight: float | None = None) -> DirichletPrior:
    """A prior centred on a histogram the user has, worth ``weight`` users.

    ``α_v = ½ + weight · h_v / Σ h``: Jeffreys' prior plus ``weight`` users' true
    values spread like the histogram. The Jeffreys half keeps every value possible (a
    value the histogram never saw can still be found by the data) and keeps the
    sampler's target smooth (it needs ``α_v >= ½``).

    Parameters
    ----------
    histogram : array_like
        Non-negative counts or frequencies, one per value (an earlier survey, a census).
    weight : float, optional
        How many users' true values the histogram counts as: its own total by default.
        A census of millions deserves a smaller weight if the population has moved on.

    Examples
    --------
    >>> informed_prior([30, 10, 0], weight=100).concentration(3).tolist()
    [75.5, 25.5, 0.5]
    """
    counts = np.asarray(histogram, dtype=np.float64)
    if counts.ndim != 1 or counts.size < 2:
        raise InputError("the prior histogram needs one count per value, at least two values")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0) or counts.sum() <= 0:
        raise InputError("the prior histogram must hold non-negative numbers, not all zero")
    total = float(counts.sum()) if weight is None else weight
    if isinstance(total, bool) or not (
        isinstance(total, int | float) and math.isfinite(total) and total > 0
    ):
        raise InputError(f"the prior's weight must be a number of users > 0, got {weight!r}")
    shape = counts / counts.sum()
    return DirichletPrior("informed", tuple(float(x) for x in shape), float(total))


@dataclass(frozen=True)
class ConcentrationDraws:
    """The learned prior's concentration α: its draws and how well they mixed.

    Attributes
    ----------
    draws : ndarray
        ``(chains, draws)`` draws of α.
    rhat, ess : float
        Split R̂ and effective sample size of ``log α``.
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
        Split R̂ and effective sample size of every frequency.
    chains : Chains or None
        HMC's own record (step size, acceptance, divergences); None from the pair sampler.
    converged : bool
        Whether every R̂ and ESS met the method's thresholds.
    mle : ndarray
        The maximum-likelihood estimate from the same likelihood (the reports alone).
    concentration : ConcentrationDraws or None
        For the learned prior, the draws of ``α`` (sampled jointly with ``π``).
    sampled_alpha : float or None
        For the learned prior on a likelihood that is not separable, the fixed ``α`` HMC
        sampled at (see :meth:`Bayes._learned`).
    """

    mean: NDArray[np.float64]
    draws: NDArray[np.float64]
    rhat: NDArray[np.float64]
    ess: NDArray[np.float64]
    chains: Chains | None = field(repr=False)
    converged: bool
    mle: NDArray[np.float64]
    concentration: ConcentrationDraws | None = None
    sampled_alpha: float | None = None

    @property
    def learned_prior(self) -> bool:
        """Whether the prior was learned (α sampled, or its median used for HMC)."""
        return self.concentration is not None or self.sampled_alpha is not None

    @property
    def min_ess(self) -> float:
        """The smallest effective sample size over the values (and α, when sampled)."""
        own = float(self.ess.min())
        return own if self.concentration is None else min(own, self.concentration.ess)

    @property
    def max_rhat(self) -> float:
        """The largest split R̂ over the values (and α, when sampled)."""
        own = float(self.rhat.max())
        return own if self.concentration is None else max(own, self.concentration.rhat)

    def standard_error(self) -> NDArray[np.float64]:
        """Monte Carlo standard error of each posterior mean: ``sd / √ESS``."""
        return self.spread / np.sqrt(self.ess)

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
        frequent values, 0.66 and above where they covered 42–85%.
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

    def prior_note(self) -> str:
        """What to tell a person when the prior shapes the answer (empty when it does not)."""
        if not self.prior_shapes_answer:
            return ""
        moved = 0.5 * float(np.abs(self.mean - self.mle).sum())
        pull = self.prior_pull
        if math.isinf(pull):
            how_far = "the reports alone place no value clearly above 0"
        elif pull > PRIOR_PULL_WARNING and not self.learned_prior:
            how_far = f"it moved values the reports measure well by up to {pull:.1f} posterior sds"
        else:
            how_far = (
                f"the reports see only {self.seen} of the {self.mean.size} values clearly "
                "(above two posterior sds), and the rest are mostly the prior's"
            )
        return (
            f"The prior shapes these numbers: {how_far}, and {moved:.0%} of the mass sits "
            "elsewhere than the reports alone put it. The credible intervals then describe "
            "the prior as much as the reports and can cover the truth much less often than "
            "stated (41–91% for frequent values at 95% in such cases, benchmarks/README.md). "
            "With this little information per value, prefer MLE or Norm-Sub with confidence "
            "intervals, or a prior from data you trust."
        )


#: How far (a share) the exact interval must widen a credible one before the note says so.
WIDENED_NOTE = 0.01

#: :attr:`Posterior.prior_pull` above which the pages and the CLI say that the prior
#: shapes the answer (see there for the measurements behind it).
PRIOR_PULL_WARNING = 0.5


@dataclass(frozen=True, kw_only=True)
class Bayes(PostProcessor):
    """The posterior mean under a Dirichlet prior (MLE paper, Sec. 3, Theorem 3.1).

    Parameters
    ----------
    prior : DirichletPrior
        :data:`LEARNED` by default: a symmetric Dirichlet whose concentration is
        sampled with the distribution (a hierarchical prior; measured against Jeffreys'
        in benchmarks/README.md, "A prior that learns"). :data:`JEFFREYS`, :data:`UNIFORM`,
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
        60 classes (issue 36), and no symmetric Dirichlet the sampler takes (α ≥ ½)
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
        sampler = dataclasses.replace(self, draws=max(self.draws, wanted))
        # The pages show the note, not Python warnings: a sampler that had not settled
        # is said there, with the intervals it affects.
        posterior, unsettled = said_not_converged(
            lambda: sampler.posterior(estimate, protocol=protocol, n=n, tallies=tallies)
        )
        low, high = posterior.interval(each)
        note = " ".join([*unsettled, posterior.prior_note()]).strip()
        if n <= EXACT_MAX_N:
            exact_low, exact_high = frequency_intervals(
                estimate, protocol=protocol, n=n, level=level, simultaneous=simultaneous
            )
            widened = np.maximum(low - exact_low, exact_high - high).max()
            low, high = np.minimum(low, exact_low), np.maximum(high, exact_high)
            if widened > WIDENED_NOTE:
                note = (
                    f"With {n:,} reports the prior, not the reports, would set these "
                    f"intervals: each is widened to hold the exact {level:.0%} confidence "
                    "interval for the true share, so it covers at least that often "
                    "whatever the prior. " + note
                ).strip()
        return IntervalEstimates(posterior.mean, low, high, "credible", note)

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
            result = self._learned(model, estimate, context, rng)
        else:
            result = self._hmc(model, alpha, rng)
        converged = result.min_ess >= self.min_ess and result.max_rhat <= self.max_rhat
        if not converged:
            smallest = float(result.ess.min())  # the values' (α's is apart)
            values = smallest >= self.min_ess and float(result.rhat.max()) <= self.max_rhat
            sizes = f"its smallest effective sample size is {smallest:,.0f}"
            if result.concentration is not None:
                sizes = (
                    f"the values' smallest effective sample size is {smallest:,.0f} "
                    f"and α's {result.concentration.ess:,.0f}"
                )
            # A mean's Monte Carlo error is its posterior sd over √ESS (BDA3, Sec. 11.5).
            noise = 1 / math.sqrt(max(smallest, 1.0))
            wanted_noise = 1 / math.sqrt(max(self.min_ess, 1.0))
            what = (
                "the frequencies' estimates are as precise as wanted; only α's posterior "
                "(the prior's concentration) is rougher than that"
                if values
                else f"the estimates carry Monte Carlo noise of up to {noise:.0%} of a "
                f"posterior sd ({wanted_noise:.0%} at the size wanted)"
            )
            warnings.warn(
                NotConverged(
                    f"Bayes's sampler had not settled when it stopped: {sizes} "
                    f"({self.min_ess:,.0f} wanted); the largest split R̂ is "
                    f"{result.max_rhat:.3f} (at most {self.max_rhat:g} wanted); {what}. "
                    "MLE needs no sampling; in code, "
                    f"Bayes(draws=…) above {self.draws:,} samples longer."
                ),
                stacklevel=3,
            )
        return dataclasses.replace(result, converged=converged)

    def _hmc(
        self, model: LikelihoodModel, alpha: NDArray[np.float64], rng: np.random.Generator
    ) -> Posterior:
        """HMC on ``model`` under Dirichlet(``alpha``), with this method's settings."""
        return sample_posterior(
            model,
            alpha,
            chains=self.chains,
            draws=self.draws,
            warmup=self.warmup,
            rng=rng,
            min_ess=self.min_ess,
            max_rhat=self.max_rhat,
            progress=self.progress,
        )

    def _learned(
        self,
        model: LikelihoodModel,
        estimate: Vector,
        context: Context,
        rng: np.random.Generator,
    ) -> Posterior:
        """The posterior under the learned prior: ``α`` sampled jointly with ``π``.

        A hierarchical Dirichlet (BDA3, Sec. 5.3): ``log α`` from the hyperprior,
        ``π | α`` symmetric Dirichlet, both drawn by the pair sampler with its
        concentration moves (:func:`ldpcore.stats.pair_gibbs.concentration_step`) on a
        separable likelihood: the model's own, or for HR's rows and UE's full reports the
        support counts' binomials implied by the estimate. Where the model is not
        separable HMC, which needs ``α >= ½``, then samples ``π`` at ``max(α̃, ½)`` with
        ``α̃`` the median of α over the warmup's second half (the posterior records it).
        """
        from ldpcore.stats.pair_gibbs import (  # noqa: PLC0415 (scipy)
            ConcentrationWalk,
            Hyperprior,
        )
        from ldpcore.stats.pair_gibbs import run as run_pairs  # noqa: PLC0415

        d = model.domain_size
        separable = _separable(model, estimate, context)
        chains = pair_chains(self.chains, d)
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
        total = _PAIR_WARMUP + 4 * self.draws
        _, warmup, _ = run_pairs(log_pi, walk, separable, rng, steps=_PAIR_WARMUP, keep=False)
        walk.settle()
        done = _PAIR_WARMUP
        if self.progress is not None:
            self.progress(done, total)
        if model.separable_counts() is None:
            # α's median over the warmup's second half: a plug-in for HMC, whose answer
            # is the posterior at that α, so the walks' last adaptations do not matter.
            assert warmup is not None
            floored = max(float(np.exp(np.median(warmup[:, _PAIR_WARMUP // 2 :]))), 0.5)
            result = self._hmc(model, np.full(d, floored), rng)  # its own progress count
            return dataclasses.replace(result, sampled_alpha=floored)

        def report(steps: int) -> None:
            nonlocal done
            done += steps
            if self.progress is not None:  # α's extra steps may run past the planned total
                self.progress(min(done, total - 1), total)

        frequencies, alphas, rhat, ess = self._pair_draws(log_pi, walk, separable, rng, report)
        if self.progress is not None:
            self.progress(total, total)  # done: the last chunks were not needed
        mean = frequencies.reshape(-1, d).mean(axis=0)
        return Posterior(
            mean / mean.sum(),
            frequencies,
            rhat[:d],
            ess[:d],
            None,
            True,
            mle,
            concentration=ConcentrationDraws(alphas, float(rhat[d]), float(ess[d])),
        )

    def _pair_draws(
        self,
        log_pi: NDArray[np.float64],
        walk: ConcentrationWalk,
        separable: SeparableLikelihood,
        rng: np.random.Generator,
        report: Callable[[int], None],
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Pair-sampler draws until every value's and α's ESS and R̂ pass.

        Passing is ESS ≥ ``min_ess`` and R̂ ≤ ``max_rhat``; at most ``4 · draws`` steps,
        or ``8 · draws`` once α alone falls short (where the reports say little about α
        its posterior spans 10⁻³ to 10¹ and its walk mixes slowest: GRR, d = 5, n = 12,
        ESS 276 after 1,600 steps; each further step there costs under a millisecond).
        Returns the draws of π and of α, and R̂ and ESS of every value with α's last
        (of ``log α``: the same as α's for R̂, and for the ESS nearly). ``report(steps)``
        hears of each chunk as it ends.
        """
        from ldpcore.stats.pair_gibbs import run as run_pairs  # noqa: PLC0415 (scipy)

        pieces: list[NDArray[np.float64]] = []
        d = log_pi.shape[1]
        steps, most = self.draws, 4 * self.draws
        # The columns (values, and α last) that fell short at the last full check.
        # Between full checks only they are re-checked (ESS and R̂ are per column): at
        # d = 1,024 a full check costs about 0.15 s, as much as 60 pair steps, so the
        # draws can grow in small increments without paying for it each time.
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
                rhat, ess = split_rhat_and_ess(columns)
            else:  # only the watched columns are gathered (all of them: 65 MB at d = 1,024)
                rhat, ess = split_rhat_and_ess(
                    np.concatenate([p[:, :, watch] for p in pieces], axis=1)
                )
            enough = float(ess.min()) >= self.min_ess and float(rhat.max()) <= self.max_rhat
            if enough and not full:  # the watched columns pass: now every one, once
                full = True
                columns = np.concatenate(pieces, axis=1)
                rhat, ess = split_rhat_and_ess(columns)
                enough = float(ess.min()) >= self.min_ess and float(rhat.max()) <= self.max_rhat
            if full:
                failing = (ess < self.min_ess) | (rhat > self.max_rhat)
                if failing[:d].any():
                    most = 4 * self.draws
                elif kept >= most:  # only α falls short
                    most = 8 * self.draws
                watch = np.flatnonzero(failing | (ess < 1.5 * self.min_ess))
            if enough or kept >= most:
                break
            # Early on the worst ESS grows faster than the draws, about as their 1.5th
            # power (Zipf d = 1,024, OUE: 154 after 400 steps, 868 after 1,247, while R̂
            # fell from 1.05 to 1.01; a straight-line guess overshot to twice the ESS
            # needed), so the draws grow by the shortfall to the 2/3 power, by at most
            # half and at least an eighth of a chunk (for an R̂ that fails alone).
            short = self.min_ess / max(float(ess.min()), 1.0)
            wanted = math.ceil(kept * (short ** (2 / 3) - 1.0))
            steps = min(most - kept, max(self.draws // 8, min(wanted, kept // 2)))
        return columns[:, :, :-1], np.exp(columns[:, :, -1]), rhat, ess


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
    from ldpcore.stats.pair_gibbs import SeparableLikelihood  # noqa: PLC0415 (scipy)

    # Both separable models are in the protocol's own support terms (GRR's report cell
    # of the true value is p, of another q), so the protocol's p and q are theirs.
    p, q = context.protocol.p, context.protocol.q
    own = model.separable_counts()
    if own is None:
        hits = np.clip(support_from_estimate(estimate, context.n, p=p, q=q), 0.0, context.n)
        own = (hits, context.n - hits)
    return SeparableLikelihood(own[0], own[1], p, q, estimate)


def _fingerprint(estimate: Vector, context: Context) -> int:
    """A 63-bit digest of the input, so the sampler's stream depends on nothing else."""
    digest = hashlib.blake2b(estimate.tobytes(), digest_size=8)
    digest.update(f"{context.n}|{context.protocol!r}".encode())
    if context.tallies is not None:
        digest.update(np.asarray(context.tallies, dtype=np.float64).tobytes())
    return int.from_bytes(digest.digest(), "little") >> 1


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
    progress: Callable[[int, int], None] | None = None,
) -> Posterior:
    """Sample ``p(π | tallies) ∝ L(π) Π π^(α−1)`` (see the module docstring).

    With ``min_ess``, the chains run on (``draws`` more at a time, up to four times
    ``draws``) until every value's ESS reaches it and R̂ is at most ``max_rhat``.
    ``converged`` in the result is left True; :class:`Bayes` applies its thresholds.
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
    checked: list[tuple[int, NDArray[np.float64], NDArray[np.float64]]] = []

    def enough(w: NDArray[np.float64]) -> bool:
        rhat, ess = split_rhat_and_ess(_frequencies(w))
        checked.append((w.shape[1], rhat, ess))  # the last check is the final answer
        return float(ess.min()) >= floor and float(rhat.max()) <= max_rhat

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
    if checked and checked[-1][0] == frequencies.shape[1]:
        _, rhat, ess = checked[-1]
    else:
        rhat, ess = split_rhat_and_ess(frequencies)
    mean = frequencies.reshape(-1, d).mean(axis=0)
    return Posterior(mean / mean.sum(), frequencies, rhat, ess, result, True, mle)


__all__ = [
    "HYPERPRIOR_LOG_SD",
    "JEFFREYS",
    "LEARNED",
    "PRIOR_PULL_WARNING",
    "UNIFORM",
    "Bayes",
    "DirichletPrior",
    "Posterior",
    "hyperprior_centre",
    "informed_prior",
    "pair_chains",
    "sample_posterior",
]
