"""MLE-Apx: the constrained maximum likelihood under the Gaussian approximation.

NDSS 2020, Section IV-D and Appendix B, with the signs re-derived (reading note 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ldpcore.postprocess.base import Context, PostProcessor, Vector


def mle_apx(estimate: NDArray[np.float64], p: float, q: float) -> NDArray[np.float64]:
    """Solve MLE-Apx for a Base estimate.

    Minimise ``Σ_v (f'_v − f̃_v)² / (A + f'_v B)`` (the exponent of NDSS Eq. 9 with the
    variance of Eq. 3; ``A = q(1−q)``, ``B = (p−q)(1−p−q)``) subject to ``f' ≥ 0`` and
    ``Σ f' = 1``. On the support ``D1`` the KKT conditions give one common
    ``x = (f'_v − f̃_v)(p−q)/(A + f'_v B)``; summing ``f'_v = (A x + (p−q) f̃_v)/(p−q − B x)``
    over ``D1`` and setting the total to one gives
    ``x = (p−q)(1 − S)/(|D1| A + B)`` with ``S = Σ_{D1} f̃_v``.

    ``f'_v = γ f̃_v + δ`` with ``γ = (p−q)/(p−q−Bx) > 0``, so the values left out
    are always the smallest: we sort once and shrink the support (Michelot's
    iteration: drop every value whose ``f'`` is negative, recompute) using prefix
    sums, O(d log d) in all. ``|D1| A + B ≥ A + B = p(1−p) > 0``, so ``x`` is finite.
    A support whose ``p − q − Bx`` is not positive admits no solution of this form
    (only for absurd inputs, e.g. all estimates far below −1); it is shrunk too.
    """
    d = estimate.size
    a_term = q * (1 - q)
    b_term = (p - q) * (1 - p - q)
    gap = p - q
    order = np.argsort(-estimate, kind="stable")
    ordered = estimate[order]
    prefix = np.cumsum(ordered)
    size = d
    while True:
        x = gap * (1.0 - prefix[size - 1]) / (size * a_term + b_term)
        denominator = gap - b_term * x
        if size == 1:
            break
        if denominator <= 0:
            size = _drop_bottom_ties(ordered, size)
            continue
        gamma, delta = gap / denominator, a_term * x / denominator
        # Positive outputs are a prefix of the sorted values: γ u + δ > 0 ⟺ u > −δ/γ.
        keep = int(np.searchsorted(-ordered[:size], delta / gamma, side="left"))
        if keep == size:
            break
        size = max(keep, 1)
    result = np.zeros(d)
    if size == 1:
        winners = ordered == ordered[0]  # ties at the top share the mass equally
        result[order[winners]] = 1.0 / winners.sum()
        return result
    result[order[:size]] = (a_term * x + gap * ordered[:size]) / denominator
    return result


def _drop_bottom_ties(ordered: NDArray[np.float64], size: int) -> int:
    lowest = ordered[size - 1]
    return max(int(np.searchsorted(-ordered[:size], -lowest, side="left")), 1)


@dataclass(frozen=True, kw_only=True)
class MLEApx(PostProcessor):
    """Constrained MLE under the Gaussian approximation of the Base estimate (NDSS Sec. IV-D).

    See :func:`mle_apx` for the derivation. Close to Norm-Sub because ``γ ≈ 1``.
    """

    name: ClassVar[str] = "MLE-Apx"
    reads: ClassVar = "support"
    description: ClassVar[str] = (
        "Gaussian-approximate MLE: clip to 0, then scale and shift the rest"
    )
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d log d)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-D and Appendix B"
    bias: ClassVar[str] = "Like Norm-Sub: positive for rare values, negative for frequent ones"
    formula: ClassVar[str] = (
        r"f'_v = \gamma \tilde f_v + \delta \text{ on } D_1,\ 0 \text{ elsewhere}"
    )
    explanation: ClassVar[str] = (
        "The most likely consistent distribution if the noise were exactly Gaussian with the "
        "variance of Eq. (3). In practice it is almost Norm-Sub."
    )

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return mle_apx(estimate, context.protocol.p, context.protocol.q)
