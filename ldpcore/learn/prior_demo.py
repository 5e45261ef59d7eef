"""What a prior adds: Bayes with a weak, a good and a wrong prior on the same reports.

For the Learn page: a small population reports many times over (each trial
a fresh randomization of the same true values); Bayes's posterior mean is computed under
three priors, each worth as many users as the population:

* Jeffreys' (Dirichlet ½): says little;
* a *good* prior: last year's population, a fresh draw of as many users from this
  one's shape (close to the truth, not equal to it);
* a *wrong* prior: a population shaped the other way round (its most common value is
  this one's rarest).

Each prior's mean squared error is compared with Jeffreys' on the same trials
(:func:`ldpcore.stats.compare.compare`: paired, with a simultaneous interval), and MLE (the
reports alone) is shown beside them. With so few users the prior matters: a good one
cuts the error, a wrong one adds to it (MLE paper, Sec. 3: the posterior mean is
optimal only under the prior that is true).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ldpcore.errors import InputError
from ldpcore.postprocess import JEFFREYS, Bayes, DirichletPrior, get_method, informed_prior
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import get_protocol
from ldpcore.rng import trial_generators
from ldpcore.stats.compare import Comparison, compare

#: The rows, in order: the label shown and how the prior is made from the true counts.
PRIORS = ("Jeffreys (weak)", "Good prior (last year's class)", "Wrong prior (reversed)")


@dataclass(frozen=True)
class PriorDemo:
    """The comparison: a table, and each informed prior's paired comparison with Jeffreys'.

    Attributes
    ----------
    table : DataFrame
        ``estimator, MSE, vs Jeffreys, low, high`` (the paired MSE ratio and its interval).
    informed : tuple of (str, Comparison)
        The good and the wrong prior, each with its comparison with Jeffreys' (in words:
        :func:`ldpcore.present.sentences.prior_sentence`).
    """

    table: pd.DataFrame
    informed: tuple[tuple[str, Comparison], ...]


def _priors(counts: np.ndarray, weight: float, seed: int) -> dict[str, DirichletPrior]:
    """The three priors, each worth ``weight`` users.

    Last year's class is a fresh draw of as many users from this year's shape: close to
    the truth, not equal to it.
    """
    last_year = np.random.default_rng(seed).multinomial(int(counts.sum()), counts / counts.sum())
    # The same counts, assigned in the opposite order of frequency.
    reversed_counts = np.sort(counts)[np.argsort(np.argsort(-counts, kind="stable"))]
    return {
        PRIORS[0]: JEFFREYS,
        PRIORS[1]: informed_prior(last_year, weight),
        PRIORS[2]: informed_prior(reversed_counts, weight),
    }


def prior_demo(
    *,
    protocol: str,
    epsilon: float,
    values: ArrayLike,
    domain_size: int,
    trials: int = 20,
    seed: int = 0,
) -> PriorDemo:
    """Run the comparison on a population's true ``values`` (integers in ``[0, d)``).

    The informed priors are worth as many users as the population (``n``).
    """
    users = np.asarray(values)
    if users.ndim != 1 or users.size == 0:
        raise InputError("the population needs at least one user")
    counts = np.bincount(users, minlength=domain_size)
    n = int(users.size)
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=domain_size)
    truth = counts / n
    samplers = {
        label: Bayes(prior=prior, draws=200, warmup=200, min_ess=100)
        for label, prior in _priors(counts, float(n), seed).items()
    }
    names = [*samplers, "MLE"]
    errors = np.empty((len(names), trials))
    mle = get_method("MLE")
    for trial, rng in enumerate(trial_generators(seed, trials)):
        estimate = oracle.estimate(oracle.sample_support_counts(counts, rng), n)
        with warnings.catch_warnings():
            # A demonstration of a few hundred draws: its Monte Carlo error is far below
            # the trial-to-trial spread that the comparison measures.
            warnings.simplefilter("ignore", NotConverged)
            outputs = [s(estimate, protocol=oracle, n=n) for s in samplers.values()]
        outputs.append(mle(estimate, protocol=oracle, n=n))
        errors[:, trial] = [float(np.mean((out - truth) ** 2)) for out in outputs]
    comparisons = {c.method: c for c in compare(errors, names, reference=PRIORS[0])}
    estimators = [*(f"Bayes, {label[0].lower()}{label[1:]}" for label in samplers), "MLE"]
    rows = []
    for row, name in enumerate(names):
        found = comparisons.get(name)
        rows.append(
            {
                "estimator": estimators[row],
                "MSE": float(errors[row].mean()),
                "vs Jeffreys": "reference" if found is None else f"{found.ratio:.2f}×",
                "low": np.nan if found is None else found.low,
                "high": np.nan if found is None else found.high,
            }
        )
    informed = tuple((label, comparisons[label]) for label in PRIORS[1:])
    return PriorDemo(pd.DataFrame(rows), informed)


__all__ = ["PRIORS", "PriorDemo", "prior_demo"]
