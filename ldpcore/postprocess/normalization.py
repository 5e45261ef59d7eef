"""Normalization methods (NDSS 2020, Sections IV-B and IV-C)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ldpcore.postprocess.base import Context, Rows, RowWise
from ldpcore.protocols.base import FrequencyOracle


def project_to_simplex(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Euclidean projection onto ``{f : f ≥ 0, Σ f = 1}`` in O(d log d).

    The KKT solution of NDSS Appendix A: ``f'_v = max(f̃_v + δ, 0)`` with ``δ`` such
    that the result sums to one. With the values sorted in decreasing order ``u``,
    the support is the longest prefix with ``u_j > (Σ_{i≤j} u_i − 1)/j``.
    ``values`` may be a stack of vectors (shape ``(k, d)``): each row is projected.

    Examples
    --------
    >>> project_to_simplex(np.array([0.5, 0.4, -0.2])).round(6).tolist()
    [0.55, 0.45, 0.0]
    """
    rows = np.atleast_2d(values)
    ordered = np.sort(rows, axis=-1)[:, ::-1]
    cumulative = np.cumsum(ordered, axis=-1)
    ranks = np.arange(1, rows.shape[-1] + 1)
    # The condition holds at j = 1 (u₁ − (u₁ − 1) = 1), so every row has a support:
    # its size is one past the last j where the condition holds.
    holds = ordered - (cumulative - 1.0) / ranks > 0
    support = rows.shape[-1] - np.argmax(holds[:, ::-1], axis=-1)
    shift = (cumulative[np.arange(rows.shape[0]), support - 1] - 1.0) / support
    return np.maximum(rows - shift[:, np.newaxis], 0.0).reshape(np.shape(values))


@dataclass(frozen=True, kw_only=True)
class Norm(RowWise):
    """Add the same ``δ`` to every estimate so they sum to one (NDSS Sec. IV-B).

    Unbiased (Lemma 3). A no-op for protocols whose estimates already sum to one
    (GRR and SS: every report supports a fixed number of values).
    """

    name: ClassVar[str] = "Norm"
    description: ClassVar[str] = "Add δ to every estimate so the total is 1"
    nonnegative: ClassVar = "no"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-B; Hay et al., VLDB 2010"
    bias: ClassVar[str] = "None (Lemma 3); keeps negative estimates"
    formula: ClassVar[str] = (
        r"f'_v = \tilde f_v + \delta,\quad \delta = \tfrac{1}{d}\Big(1 - \sum_u \tilde f_u\Big)"
    )
    explanation: ClassVar[str] = (
        "Shift every estimate by the same amount so they add up to one. It stays unbiased but "
        "keeps the negative values."
    )

    def is_no_op(self, protocol: FrequencyOracle) -> bool:
        """True where Base estimates already sum to one (the shift is zero)."""
        return protocol.estimates_sum_to_one

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        shift = (1.0 - estimates.sum(axis=-1)) / estimates.shape[-1]
        return estimates + shift[:, np.newaxis]


@dataclass(frozen=True, kw_only=True)
class NormMul(RowWise):
    """Clip negatives, then scale: ``f'_v = max(γ f̃_v, 0)`` with ``Σ f' = 1`` (NDSS Sec. IV-B).

    When no estimate is positive there is nothing to scale; we return the uniform
    distribution, the only choice that treats all (tied at zero) values alike.
    """

    name: ClassVar[str] = "Norm-Mul"
    description: ClassVar[str] = "Convert negatives to 0, then multiply by γ so the total is 1"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-B; Kairouz et al., ICML 2016"
    bias: ClassVar[str] = "Positive for rare values, strongly negative for the most frequent ones"
    formula: ClassVar[str] = r"f'_v = \gamma \max(\tilde f_v, 0),\quad \sum_v f'_v = 1"
    explanation: ClassVar[str] = (
        "Clip the negatives, then shrink everything by one factor so the total is one. Big values"
        " lose the most: on skewed data the most frequent values are badly underestimated."
    )
    caveat: ClassVar[str] = (
        "Norm-Mul shrinks every value by one factor, so on skewed data the most frequent "
        "values are badly underestimated even where its MSE over all values is lowest; "
        "where those values matter, use Norm-Sub"
    )

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        positive = np.maximum(estimates, 0.0)
        total = positive.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):  # rows with total 0: below
            return np.where(total > 0, positive / total, 1.0 / estimates.shape[-1])


@dataclass(frozen=True, kw_only=True)
class NormCut(RowWise):
    """Zero the negative and the smallest positive estimates (NDSS Sec. IV-B).

    Reading note 5: if ``Σ max(f̃_v, 0) ≤ 1`` only the negatives are clipped;
    otherwise the largest estimates are kept while their running sum stays ≤ 1 and
    the rest become 0, without rescaling. Tied estimates are kept or dropped
    together, so equal inputs give equal outputs. The result sums to at most 1.

    Edge case (ours; the paper is silent): when the largest estimate, or the tied group
    of largest estimates, alone exceeds 1, the paper's rule keeps nothing and returns all
    zeros, the worst answer for a method meant to sum to about 1. We keep that group,
    capped at ``1 / size`` each so the total is exactly 1, and zero the rest.
    """

    name: ClassVar[str] = "Norm-Cut"
    description: ClassVar[str] = "Convert negatives and small estimates to 0 so the total is ≤ 1"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "almost"
    complexity: ClassVar[str] = "O(d log d)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-B"
    bias: ClassVar[str] = "Negative for the values cut to 0; frequent values stay unbiased"
    formula: ClassVar[str] = (
        r"f'_v = \tilde f_v\,[\tilde f_v \ge \theta],\quad \theta \text{ the smallest with } "
        r"\sum_{\tilde f_u \ge \theta} \tilde f_u \le 1"
    )
    explanation: ClassVar[str] = (
        "Keep the largest estimates as they are and drop the small ones until the total fits "
        "under one. Frequent values stay unbiased; the total may end a little below one. If "
        "the largest estimate alone is above one, it is kept, capped so the total is one."
    )

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        positive = np.maximum(estimates, 0.0)
        ordered = np.sort(positive, axis=-1)[:, ::-1]
        cumulative = np.cumsum(ordered, axis=-1)
        # A tie group fits only as a whole: test the running sum at the last member.
        last_of_group = np.ones(ordered.shape, dtype=bool)
        last_of_group[:, :-1] = ordered[:, 1:] != ordered[:, :-1]
        fits = last_of_group & (cumulative <= 1.0)
        # The threshold is the value at the last place that fits (where one does).
        last_fit = ordered.shape[-1] - 1 - np.argmax(fits[:, ::-1], axis=-1)
        threshold = ordered[np.arange(ordered.shape[0]), last_fit][:, np.newaxis]
        result = np.where(positive >= threshold, positive, 0.0)
        # The top group alone exceeds 1: keep it, capped (see above).
        top = positive == ordered[:, :1]
        capped = np.where(top, 1.0 / np.count_nonzero(top, axis=-1, keepdims=True), 0.0)
        result = np.where(fits.any(axis=-1, keepdims=True), result, capped)
        # Only the negatives are clipped when the positives already fit under 1.
        return np.where(positive.sum(axis=-1, keepdims=True) <= 1.0, positive, result)


@dataclass(frozen=True, kw_only=True)
class NormSub(RowWise):
    """Constrained least squares: the projection of ``f̃`` onto the simplex (NDSS Sec. IV-C).

    ``f'_v = max(f̃_v + δ, 0)`` with ``Σ f' = 1`` (Appendix A); also called CLS.
    """

    name: ClassVar[str] = "Norm-Sub"
    aliases: ClassVar[tuple[str, ...]] = ("CLS",)
    description: ClassVar[str] = (
        "Convert negatives to 0 while adding δ to the rest so the total is 1"
    )
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d log d)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-B/C and Appendix A"
    bias: ClassVar[str] = "Positive for rare values, negative (evenly spread) for frequent ones"
    formula: ClassVar[str] = r"f'_v = \max(\tilde f_v + \delta, 0),\quad \sum_v f'_v = 1"
    explanation: ClassVar[str] = (
        "Find the single shift that, after clipping negatives, makes the total exactly one. It is"
        " the closest consistent vector to the estimate (least squares), and usually the safest "
        "default."
    )

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        return project_to_simplex(estimates)
