"""What a comparison of methods recommends: the verdict, from paired per-trial errors.

:func:`verdict` reads :func:`ldpcore.stats.compare.compare`'s paired intervals as a
decision: the method to use and whether post-processing helps. The statistics are in
:mod:`ldpcore.stats.compare`; the headline a person reads is
:func:`ldpcore.present.sentences.verdict_headline`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ldpcore.errors import InputError
from ldpcore.stats.compare import ALPHA, MARGIN, Comparison, compare


@dataclass(frozen=True)
class Verdict:
    """What a comparison of methods recommends, and whether post-processing helps.

    Attributes
    ----------
    recommended : str
        The method to use.
    helps : bool
        Whether ``recommended`` has a significantly lower MSE than Base.
    against_base : list of Comparison
        Every method against Base.
    against_best : list of Comparison
        Every method against the method with the lowest mean MSE.
    best : str
        The method with the lowest mean MSE (significant or not).
    query : str
        The query in words (for the headline that
        :func:`ldpcore.present.sentences.verdict_headline` writes).
    too_biased : dict of str to float
        The methods not recommended although their MSE might be, because their answers
        to the values asked are off by more than :data:`BIAS_TOLERANCE` of their total:
        each one's mean total as a multiple of the truth's (0.3: 70% too low).
    """

    recommended: str
    helps: bool
    against_base: list[Comparison]
    against_best: list[Comparison]
    best: str
    query: str
    too_biased: dict[str, float] = field(default_factory=dict)

    @property
    def winner(self) -> str | None:
        """The recommended method when it measurably helps (charts highlight it), else None."""
        return self.recommended if self.helps else None


#: How far the answers to the values a question singles out (a top-k's shares, a set's
#: or a range's total) may be off, as a share of their true total, before a method is
#: refused whatever its MSE: an estimate of the top-10's shares at 0.3× the truth has a
#: small MSE when the shares are small, and no analyst would act on it. A question
#: about every value at once is judged by its MSE alone.
BIAS_TOLERANCE = 0.5


def total_factors(answers: NDArray[np.float64], truth: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each method's answers in total over the trials' mean, as a multiple of the truth's.

    ``answers`` is ``(methods, trials, answers)``; 1 is unbiased in total, 0.3 is 70%
    too low. NaN where the true answers total nothing (no share to be off by).

    Examples
    --------
    >>> answers = np.array([[[0.3, 0.2], [0.1, 0.2]], [[0.06, 0.04], [0.06, 0.04]]])
    >>> total_factors(answers, np.array([0.2, 0.2])).round(2).tolist()
    [1.0, 0.25]
    """
    total = float(np.sum(truth))
    if total <= 0:
        return np.full(answers.shape[0], np.nan)
    return answers.mean(axis=1).sum(axis=1) / total


def verdict(
    errors: NDArray[np.float64],
    names: Sequence[str],
    *,
    no_ops: Sequence[str] = (),
    consistent: Sequence[str] = (),
    query: str = "the query",
    alpha: float = ALPHA,
    margin: float = MARGIN,
    against_base: Sequence[Comparison] | None = None,
    factors: Mapping[str, float] | None = None,
) -> Verdict:
    """The recommendation from paired per-trial errors, with Base as the reference.

    If some method is significantly better than Base by more than the practical margin
    (its MSE ratio below ``1 / (1 + margin)``), the recommended one is, among those, the
    one with the lowest mean MSE. Otherwise post-processing does not help enough to act
    on: the recommendation is a method from ``consistent`` (which give a proper
    distribution) that is not significantly worse than Base, else Base itself. A gain
    whose interval lies below 1 but whose ratio is within the margin (1.05× by default) is
    real and too small to recommend a method for.

    Parameters
    ----------
    errors, names, no_ops, alpha, margin
        As for :func:`compare`; ``names`` must include ``"Base"``.
    against_base : sequence of Comparison, optional
        :func:`compare` of these errors with Base, when the caller has it already (an
        experiment's summary is built from it); computed here otherwise.
    consistent : sequence of str
        Methods whose output is a distribution (non-negative, sums to one), in order
        of preference for the no-gain case.
    query : str
        The query in words, kept on the verdict for its headline.
    factors : mapping of str to float, optional
        For a question about some values (not all at once): each method's answers in
        total as a multiple of the truth's (:func:`total_factors`). A method off by more
        than :data:`BIAS_TOLERANCE` is neither recommended nor the fallback, and is named
        on the verdict (``too_biased``).
    """
    names = list(names)
    if "Base" not in names:
        raise InputError("a verdict compares methods with Base: include Base in the methods")
    errors = np.asarray(errors, dtype=np.float64)
    if against_base is None:
        against_base = compare(
            errors, names, reference="Base", no_ops=no_ops, alpha=alpha, margin=margin
        )
    against_base = list(against_base)
    means = errors.mean(axis=1)
    best = names[int(np.argmin(means))]
    against_best = (
        compare(errors, names, reference=best, alpha=alpha, margin=margin) if len(names) > 1 else []
    )
    biased = {
        name: float(factor)
        for name, factor in (factors or {}).items()
        if name != "Base" and abs(factor - 1) > BIAS_TOLERANCE
    }
    winners = [
        c
        for c in against_base
        if c.better and c.ratio < 1 / (1 + margin) and c.method not in biased
    ]
    said = (against_base, against_best, best, query, biased)
    if winners:
        # By mean MSE, as the ranking orders them: where the ratio is a median over
        # drawn truths (a collection's recommendation), its order can differ.
        chosen = min(winners, key=lambda c: means[names.index(c.method)])
        return Verdict(chosen.method, True, *said)
    by_name = {c.method: c for c in against_base}
    fallback = next(
        (
            m
            for m in consistent
            if m in by_name and not by_name[m].worse and not by_name[m].no_op and m not in biased
        ),
        "Base",
    )
    return Verdict(fallback, False, *said)


__all__ = ["BIAS_TOLERANCE", "Verdict", "total_factors", "verdict"]
