"""Hadamard Response (HR): Acharya, Sun & Zhang, AISTATS 2019; NDSS 2020 Section III-C.

Value ``v`` is mapped to column ``v + 1`` of the Sylvester Hadamard matrix ``H`` of
order ``K`` (the smallest power of two above ``d``), ``H[r, c] = (−1)^{popcount(r & c)}``.
A user reports one row index: with probability ``e^ε/(e^ε + 1)`` a uniform row where
its column is +1, otherwise a uniform row where it is −1. A report ``r`` supports
every value whose column is +1 in row ``r``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_counts
from ldpcore.errors import InputError
from ldpcore.protocols.base import (
    FrequencyOracle,
    ratio_from_matrix,
)
from ldpcore.protocols.walsh import fwht, hadamard_order, hadamard_signs
from ldpcore.rng import ClientRNG, as_source

if TYPE_CHECKING:
    from ldpcore.protocols.likelihoods import LikelihoodModel

_MAX_EXPLICIT_ROWS = 8192


@dataclass(frozen=True, kw_only=True)
class HadamardResponse(FrequencyOracle):
    """Hadamard Response: ``p = e^ε/(e^ε + 1)``, ``q = 1/2``.

    Reports are row indices in ``[0, K)`` (int64).

    Examples
    --------
    >>> HadamardResponse(epsilon=1.0, domain_size=1024).order
    2048
    """

    name: ClassVar[str] = "HR"
    description: ClassVar[str] = "Hadamard response: report one row of a Hadamard matrix"
    good_for: ClassVar[str] = (
        "Very large domains at small ε: one number per report and a fast transform to "
        "decode; less accurate than OLH or OUE as ε grows"
    )
    reference: ClassVar[str] = "Acharya, Sun & Zhang, AISTATS 2019; NDSS 2020, Sec. III-C"
    communication: ClassVar[str] = "one row index (log2 K bits)"
    #: The MLE and IBU use the exact multinomial of the reported rows when the row
    #: histogram (the tallies) is at hand.

    @property
    def order(self) -> int:
        """``K``, the order of the Hadamard matrix."""
        return hadamard_order(self.domain_size)

    @property
    def p(self) -> float:
        """``e^ε/(e^ε + 1)``."""
        return 1.0 / (1.0 + math.exp(-self.epsilon))

    @property
    def q(self) -> float:
        """``1/2``: two distinct columns agree on exactly half the rows."""
        return 0.5

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.int64]:
        """Draw each user's row: a +1 row of its column with probability ``p``, else a −1 row."""
        v = self._values(values)
        generator = as_source(rng)
        column = v + 1
        want_negative = generator.random(v.size) >= self.p
        rows = generator.integers(0, self.order, size=v.size, dtype=np.int64)
        negative = (np.bitwise_count(rows & column) & 1).astype(bool)
        # Flipping the row bit at the column's lowest set bit flips the sign: a
        # bijection between +1 and −1 rows, so the result stays uniform.
        return np.where(negative != want_negative, rows ^ (column & -column), rows)

    def aggregate(self, reports: ArrayLike) -> NDArray[np.int64]:
        """Support counts via one FWHT of the row histogram: ``c_v = (n + (H h)_{v+1}) / 2``."""
        rows = np.asarray(reports)
        if rows.ndim != 1 or (rows.size and not np.issubdtype(rows.dtype, np.integer)):
            raise InputError(
                f"HR reports must be a 1-D integer array of row indices, got {rows.dtype}"
            )
        if rows.size and (rows.min() < 0 or rows.max() >= self.order):
            raise InputError(f"HR reports must be row indices in [0, {self.order - 1}]")
        return self.support_from_rows(np.bincount(rows, minlength=self.order))

    def joining_rows(self, targets: NDArray[np.int64]) -> NDArray[np.int64]:
        """The rows with +1 in every target's column: ``{j : j·(t + 1) ≡ 0 (mod 2) ∀t}``.

        A subspace of ``GF(2)^log2 K`` (row 0, which supports every value, is one): the
        maximal-gain attack's reports (our derivation; Cao, Jia and Gong 2021 treat GRR,
        OUE and OLH only). A fake user draws one uniformly, so a value whose column is a
        sum of the targets' columns is supported by all of them, any other by half.
        """
        rows = np.arange(self.order, dtype=np.int64)
        joins = np.ones(rows.size, dtype=np.bool_)
        for target in targets:
            joins &= (np.bitwise_count(rows & (int(target) + 1)) & 1) == 0
        return rows[joins]

    def support_from_rows(self, histogram: NDArray[np.int64]) -> NDArray[np.int64]:
        """Support counts from the histogram of reported rows: one FWHT, exact integers."""
        n = int(histogram.sum())
        transformed = fwht(histogram)
        return (n + transformed[1 : self.domain_size + 1]) // 2

    def tally(self, reports: Any) -> NDArray[np.int64]:
        """HR's tallies are the histogram of reported rows (its sufficient statistic)."""
        rows = np.asarray(reports, dtype=np.int64)
        return np.bincount(rows, minlength=self.order).astype(np.int64)

    def _tallies_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return self._sample_rows_fast(true_counts, rng)

    def support_from_tallies(self, tallies: ArrayLike) -> NDArray[np.int64]:
        """Support counts from a row histogram: ``c_v = (n + (H h)_{v+1}) / 2``."""
        histogram = check_counts(tallies, name="tallies (HR row histogram)", length=self.order)
        return self.support_from_rows(histogram)

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return self.support_from_rows(self._sample_rows_fast(true_counts, rng))

    def _sample_rows_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """Exact row histogram in O(K log K) (support counts then take one FWHT).

        As a mixture, with ``t = (e^ε − 1)/(e^ε + 1)`` a user takes a uniform row
        of ``S_c = {r : r·c ≡ 0 (mod 2)}`` (its column's +1 rows), otherwise a
        uniform row of all ``K``. ``kept_v ~ Bin(n_v, t)``.

        A uniform row subject to ``r·c ≡ b`` is drawn bit by bit from the top.
        Write ``c = (c_hi, c_lo)``. If ``c_lo ≠ 0`` (or ``c = 0``), the top bit of
        ``r`` is a fair coin and the rest must satisfy ``r_lo·c_lo ≡ b ⊕ r_hi c_hi``;
        if ``c_lo = 0`` and ``c_hi = 1`` the top bit must equal ``b``. Users with
        equal ``(c, b)`` in the same prefix node are exchangeable, so each level
        splits every class count by one Binomial(·, 1/2): ``2K`` draws per level,
        ``log2 K`` levels, and the leaves are the row histogram.
        """
        order = self.order
        t = math.tanh(self.epsilon / 2)  # (e^ε − 1)/(e^ε + 1), stable for small ε
        kept = rng.binomial(true_counts, t).astype(np.int64)
        # classes[node, c, b]: users in this row-prefix node whose remaining
        # constraint is r_rest · c ≡ b (mod 2); c = 0 means unconstrained.
        classes = np.zeros((1, order, 2), dtype=np.int64)
        classes[0, 1 : self.domain_size + 1, 0] = kept
        classes[0, 0, 0] = int(true_counts.sum() - kept.sum())
        while classes.shape[1] > 1:
            nodes, width = classes.shape[0], classes.shape[1] // 2
            split = classes.reshape(nodes, 2, width, 2)  # [node, c_hi, c_lo, b]
            to_zero = rng.binomial(split, 0.5)
            # c_lo = 0, c_hi = 1: the top row bit is forced to equal b.
            to_zero[:, 1, 0, 0] = split[:, 1, 0, 0]
            to_zero[:, 1, 0, 1] = 0
            to_one = split - to_zero
            child_zero = to_zero[:, 0] + to_zero[:, 1]
            child_one = to_one[:, 0] + to_one[:, 1, :, ::-1]  # b ⊕ c_hi when the bit is 1
            classes = np.stack((child_zero, child_one), axis=1).reshape(2 * nodes, width, 2)
        return np.ascontiguousarray(classes[:, 0, 0])

    def likelihood_model(
        self, estimate: NDArray[np.float64], n: int, tallies: ArrayLike | None = None
    ) -> LikelihoodModel:
        """The multinomial of the row histogram (``tallies``), with ``Q`` applied by FWHT.

        Without the rows, the support counts' binomials (the default).
        """
        if tallies is None:
            return super().likelihood_model(estimate, n, tallies)
        rows = np.asarray(tallies, dtype=np.float64)
        if rows.shape != (self.order,) or np.any(rows < 0) or rows.sum() != n:
            raise InputError(
                f"HR tallies must be a row histogram of length K={self.order} "
                f"with non-negative entries summing to n={n}"
            )
        from ldpcore.protocols.likelihoods import HadamardRowModel  # noqa: PLC0415 (scipy)

        return HadamardRowModel(rows, order=self.order, domain_size=self.domain_size, p=self.p)

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[r, v] = 2p/K`` where ``H[r, v+1] = +1`` and ``2(1−p)/K`` where it is −1."""
        order = self.order
        if order > _MAX_EXPLICIT_ROWS:
            raise InputError(
                f"channel_matrix is built for K <= {_MAX_EXPLICIT_ROWS} rows, got K = {order}"
            )
        plus = hadamard_signs(order, self.domain_size) > 0
        return np.where(plus, 2 * self.p / order, 2 * (1 - self.p) / order)

    def support_matrix(self) -> NDArray[np.float64]:
        """Row ``r`` supports the values whose column is +1 in it."""
        return (hadamard_signs(self.order, self.domain_size) > 0).astype(float)

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """The row is +1 in ``v``'s column and −1 in ``w``'s (ratio ``e^ε`` exactly)."""
        rows = np.asarray(reports)
        plus_v = (np.bitwise_count(rows & (v + 1)) & 1) == 0
        plus_w = (np.bitwise_count(rows & (w + 1)) & 1) == 0
        return plus_v & ~plus_w

    def worst_case_ratio(self) -> float:
        """Exact worst-case ratio from the channel (closed form ``p/(1−p)`` for large ``K``)."""
        if self.order <= _MAX_EXPLICIT_ROWS:
            return ratio_from_matrix(self.channel_matrix())
        return self.p / (1 - self.p)
