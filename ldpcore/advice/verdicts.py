"""What a comparison of methods recommends: the verdict, from paired per-trial errors.

:func:`verdict` reads :func:`ldpcore.stats.compare.compare`'s paired intervals as a
decision: the method to use and whether post-processing helps. The statistics are in
:mod:`ldpcore.stats.compare`; the headline a person reads is
:func:`ldpcore.present.sentences.verdict_headline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
    """

    recommended: str
    helps: bool
    against_base: list[Comparison]
    against_best: list[Comparison]
    best: str
    query: str

    @property
    def winner(self) -> str | None:
        """The recommended method when it measurably helps (charts highlight it), else None."""
        return self.recommended if self.helps else None


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
    winners = [c for c in against_base if c.better and c.ratio < 1 / (1 + margin)]
    if winners:
        chosen = min(winners, key=lambda c: c.ratio)
        return Verdict(chosen.method, True, against_base, against_best, best, query)
    by_name = {c.method: c for c in against_base}
    fallback = next(
        (m for m in consistent if m in by_name and not by_name[m].worse and not by_name[m].no_op),
        "Base",
    )
    return Verdict(fallback, False, against_base, against_best, best, query)


__all__ = ["Verdict", "verdict"]
