"""MLE: the maximum-likelihood distribution given the protocol's tallies.

MLE paper (Lopuhaä-Zwakenberg et al.), Section 3.1, Eq. (22) and Appendix B.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from numpy.typing import NDArray

from ldpcore.postprocess.base import Context, PostProcessor, Vector
from ldpcore.postprocess.ibu import projected_start, run_em

if TYPE_CHECKING:  # the models load scipy: imported where a likelihood is first needed
    from ldpcore.protocols.likelihoods import LikelihoodModel


@dataclass(frozen=True, kw_only=True)
class MLE(PostProcessor):
    """Maximum-likelihood distribution from the protocol's tallies (MLE paper, Eq. 22).

    Which likelihood, exactly:

    * GRR: the multinomial of its report histogram; exact O(d log d) solution.
    * HR with its row histogram passed as ``tallies``: the multinomial of the rows,
      maximised by accelerated EM to convergence.
    * OUE and SUE with ``d <= 12`` and their report histogram as ``tallies``: the
      multinomial of the ``2^d`` reports (MLE paper, Sec. 5), by accelerated EM.
    * OLH, BLH, SS, OUE and SUE above ``d = 12``, and HR without rows: the support
      counts as independent ``Bin(n, q + (p − q) π_v)``; exact solution by a
      one-dimensional root search.
    """

    name: ClassVar[str] = "MLE"
    reads: ClassVar = "likelihood"
    climbs_to_top: ClassVar[bool] = True
    description: ClassVar[str] = "Maximum-likelihood distribution from the tallies"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = (
        "O(d log d) (HR rows: EM, O(K log K) per step; UE reports: O(2^d d²) per step)"
    )
    reference: ClassVar[str] = "Lopuhaä-Zwakenberg et al., Sec. 3.1, Eq. (22), Appendix B"
    bias: ClassVar[str] = "Zeroes many rare values; slight shrinkage of frequent ones"
    formula: ClassVar[str] = r"\hat\pi = \arg\max_{\pi \in \Delta} \log P(\text{tallies} \mid \pi)"
    explanation: ClassVar[str] = (
        "The distribution under which the reports actually received are most likely. Exact and "
        "consistent; it sets many rare values to exactly zero."
    )

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        # Where EM must climb (HR's rows, UE's reports), it starts at the projected Base
        # estimate, near the top already: 5–6 Newton steps from uniform became 3–4 at
        # d = 16,384; the likelihood is concave, so the top is the same.
        return maximum_likelihood(context_model(estimate, context), start=estimate)


def context_model(estimate: Vector, context: Context) -> LikelihoodModel:
    """The likelihood the protocol declares for this estimate and its tallies."""
    tallies = None if context.tallies is None else np.asarray(context.tallies, dtype=float)
    return context.protocol.likelihood_model(estimate, context.n, tallies)


def maximum_likelihood(
    model: LikelihoodModel, *, start: Vector | None = None
) -> NDArray[np.float64]:
    """The maximiser of ``model``'s likelihood over the simplex (exact where one is known).

    The model's own exact maximiser (:meth:`LikelihoodModel.maximum
    <ldpcore.protocols.likelihoods.LikelihoodModel.maximum>`) where it has one, else
    accelerated EM to convergence, from the uniform distribution or from ``start``'s
    projection onto the simplex (a Base estimate, say).
    """
    exact = model.maximum()
    if exact is not None:
        return exact
    begin = None if start is None else projected_start(start)
    return run_em(model, tolerance=1e-15, kkt_tolerance=1e-13, start=begin).frequencies
