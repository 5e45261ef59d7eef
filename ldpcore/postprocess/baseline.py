"""Baseline methods that only enforce non-negativity (NDSS 2020, Section IV-A)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ldpcore.errors import InputError
from ldpcore.postprocess.base import Context, Rows, RowWise
from ldpcore.protocols.base import FrequencyOracle


@dataclass(frozen=True, kw_only=True)
class Base(RowWise):
    """The unbiased estimate itself, ``f'_v = f̃_v`` (NDSS Sec. III)."""

    name: ClassVar[str] = "Base"
    description: ClassVar[str] = "The unbiased estimate, unchanged"
    nonnegative: ClassVar = "no"
    sums_to_one: ClassVar = "no"
    complexity: ClassVar[str] = "O(1)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. III"
    unbiased: ClassVar[bool] = True
    bias: ClassVar[str] = "None: unbiased, but with the full variance and negative estimates"
    formula: ClassVar[str] = r"f'_v = \tilde f_v = \frac{c_v/n - q}{p - q}"
    explanation: ClassVar[str] = (
        "The aggregator's unbiased estimate: on average exactly right, but every value carries "
        "the full noise, so rare values often come out negative and the total is not exactly 1."
    )

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        return estimates


@dataclass(frozen=True, kw_only=True)
class BasePos(RowWise):
    """Negative estimates become zero: ``f'_v = max(f̃_v, 0)`` (NDSS Sec. IV-A)."""

    name: ClassVar[str] = "Base-Pos"
    description: ClassVar[str] = "Convert negative estimates to 0"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "no"
    complexity: ClassVar[str] = "O(d)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-A"
    bias: ClassVar[str] = "Positive for every value (Lemma 1); grows with the size of a set query"
    formula: ClassVar[str] = r"f'_v = \max(\tilde f_v, 0)"
    explanation: ClassVar[str] = (
        "Negative estimates are impossible frequencies, so set them to zero. Each single value "
        "gets closer to the truth, but because only negative noise is removed, sums over many "
        "values drift upwards."
    )

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        return np.maximum(estimates, 0.0)


@dataclass(frozen=True, kw_only=True)
class PostPos(RowWise):
    """Clamp each *query answer* at zero (NDSS Sec. IV-A).

    It does not change the vector: the queries layer clamps every answer it
    computes from it. For single-value queries it equals Base-Pos.
    """

    name: ClassVar[str] = "Post-Pos"
    description: ClassVar[str] = "Convert negative query answers to 0"
    nonnegative: ClassVar = "no"  # the vector; every query answer is non-negative
    sums_to_one: ClassVar = "no"
    complexity: ClassVar[str] = "O(1) per answer"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-A"
    bias: ClassVar[str] = "Positive, but small for set queries whose answers are rarely negative"
    formula: ClassVar[str] = r"\text{answer}'(S) = \max\Big(\sum_{v \in S} \tilde f_v,\ 0\Big)"
    explanation: ClassVar[str] = (
        "Keep the estimates as they are and only clamp the final answer of a question at zero. "
        "For one value it is Base-Pos; for a large set it is almost Base."
    )
    answers_only: ClassVar[bool] = True

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        return estimates


@dataclass(frozen=True, kw_only=True)
class BaseCut(RowWise):
    """Estimates below ``T = Φ⁻¹(1 − α/d)·σ`` become zero (NDSS Sec. IV-A, Eq. 7).

    ``σ`` is the f-free standard deviation of Eq. (5). We cut at ``max(T, 0)``: when
    ``α/d ≥ 1/2`` the normal quantile is not positive, and a negative threshold
    would keep some negative estimates while zeroing smaller ones, breaking both
    non-negativity and the order of the estimates.

    Parameters
    ----------
    alpha : float
        Expected number of false positives among zero-frequency values (default 2,
        the paper's choice).
    """

    name: ClassVar[str] = "Base-Cut"
    description: ClassVar[str] = "Convert estimates below a significance threshold to 0"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "no"
    complexity: ClassVar[str] = "O(d)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-A, Eq. (7)"
    bias: ClassVar[str] = "Negative for values cut to 0, positive for noise pushed above T"
    formula: ClassVar[str] = (
        r"f'_v = \tilde f_v \cdot [\tilde f_v \ge T],\quad "
        r"T = \Phi^{-1}\!\left(1 - \tfrac{\alpha}{d}\right)\sigma"
    )
    explanation: ClassVar[str] = (
        "Treat anything below a significance threshold as noise and set it to zero; about α of "
        "the truly-zero values survive by chance. Frequent values are untouched, rare ones "
        "vanish."
    )

    alpha: float = 2.0

    def __post_init__(self) -> None:
        if not (
            isinstance(self.alpha, int | float) and math.isfinite(self.alpha) and self.alpha > 0
        ):
            raise InputError(f"alpha must be a finite number > 0, got {self.alpha!r}")

    def threshold(self, protocol: FrequencyOracle, n: int) -> float:
        """``max(Φ⁻¹(1 − α/d)·σ, 0)``."""
        tail = self.alpha / protocol.domain_size
        if tail >= 0.5:
            return 0.0
        from scipy import special  # noqa: PLC0415 (not at import: the CLI's --help)

        return float(special.ndtri(1.0 - tail)) * math.sqrt(protocol.approx_variance(n))

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        threshold = self.threshold(context.protocol, context.n)
        return np.where(estimates >= threshold, estimates, 0.0)
