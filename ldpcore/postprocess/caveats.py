"""What a person must know before relying on an estimate or its intervals: facts, not words.

A method records what it found (its sampler stopped early, its prior shaped the answer,
its intervals were widened); :mod:`ldpcore.present.sentences` (``caveat_words``) says it,
so the words sit above the results they describe, like every other sentence.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unsettled:
    """A sampler stopped before its convergence thresholds.

    Attributes
    ----------
    values_ess : float
        The values' smallest effective sample size (bulk, and tail where measured).
    alpha_ess : float or None
        The learned concentration α's, where it was sampled.
    max_rhat : float
        The largest rank-normalised split R̂ (values and α).
    wanted_ess, wanted_rhat : float
        The thresholds.
    draws : int
        The draws per chain asked for (more samples longer).
    values_settled : bool
        Whether the values alone met the thresholds (only α fell short).
    """

    values_ess: float
    alpha_ess: float | None
    max_rhat: float
    wanted_ess: float
    wanted_rhat: float
    draws: int
    values_settled: bool


@dataclass(frozen=True)
class PriorShapes:
    """The prior, not the reports, shapes the answer (``Posterior.prior_shapes_answer``).

    Attributes
    ----------
    seen, values : int
        How many values the reports see clearly (MLE above two posterior sds), of all.
    pull : float
        ``Posterior.prior_pull``: how far the prior moved what the reports measure, in
        posterior sds (``inf`` when the reports see no value).
    moved : float
        The share of the mass the prior moved from where the reports alone put it.
    pull_counts : bool
        Whether the pull is the reason (a fixed prior past the warning line); otherwise
        the few values seen are.
    """

    seen: int
    values: int
    pull: float
    moved: float
    pull_counts: bool


@dataclass(frozen=True)
class Widened:
    """Credible intervals widened to hold the exact confidence intervals (small n).

    Attributes
    ----------
    n : int
        The reports.
    level : float
        The exact intervals' level.
    """

    n: int
    level: float


#: Anything a method may record about its answer.
Caveat = Unsettled | PriorShapes | Widened

__all__ = ["Caveat", "PriorShapes", "Unsettled", "Widened"]
