"""The Bayes method's priors: Dirichlet, fixed or learned, and the learned one's hyperprior.

MLE paper (Lopuhaä-Zwakenberg et al.), Section 3: the posterior mean is the best
estimate under the prior it assumes, so the prior is a choice a person makes, in words
(:meth:`DirichletPrior.in_words`). The default is learned: a symmetric Dirichlet whose
concentration α has a log-normal hyperprior and is sampled jointly with the distribution
(:func:`ldpcore.postprocess.posterior_draws.learned_posterior`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError

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
#: "Bayes with the learned prior"). Proper and vanishing at 0, which the posterior needs
#: (:class:`ldpcore.stats.concentration.Hyperprior`).
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


__all__ = [
    "HYPERPRIOR_LOG_SD",
    "JEFFREYS",
    "LEARNED",
    "UNIFORM",
    "DirichletPrior",
    "PriorKind",
    "hyperprior_centre",
    "informed_prior",
]
