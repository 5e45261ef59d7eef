"""The Haar wavelet with Hadamard randomized response (HaarHRR; Kulkarni et al., VLDB 2019).

Kulkarni, Cormode and Srivastava, "Answering Range Queries Under Local Differential
Privacy", Sec. 4.4. The ``d`` values are padded to ``D = 2^h`` leaves of a binary tree.
Node ``j`` at depth ``ℓ − 1`` has one Haar coefficient, ``θ_{ℓ,j}`` = (the share of users
in its left half) − (the share in its right half). A user draws a level ``ℓ`` uniformly;
its coefficients there are all 0 but one, ``s = ±1`` at its ancestor ``j``. It reports that
vector by Hadamard randomized response: a uniform row ``r`` of the ``2^{ℓ−1}``-point
Hadamard matrix and the bit ``s·H[r, j]``, kept with ``p = e^ε/(1 + e^ε)`` and flipped
otherwise. The aggregator's coefficients ``θ̂ = H S / (n_ℓ (2p − 1))`` (``S_r`` the sum of
the bits at row ``r``) are unbiased, and the leaves follow from the root's total (1) down:
each child holds half its parent plus or minus half the coefficient. So the estimate is
consistent by construction, and a range reads at most two coefficients per level.

Tallies: for each level, its rows' report counts ``N_r`` then their +1 counts ``P_r``
(``2 (D − 1)`` numbers). The fast sampler draws them exactly in O(D log D): each leaf's
users split over the levels, and at each level the rows by halving on the row's bits
(:func:`_rows_by_halving`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_counts, check_n_users, check_values
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle, ratio_from_matrix
from ldpcore.protocols.walsh import fwht
from ldpcore.rng import ClientRNG, as_source

#: Largest channel ``channel_matrix`` builds (outputs × values).
_MAX_EXPLICIT_CELLS = 1 << 22


@dataclass(frozen=True)
class HaarReports:
    """Reports of HaarHRR: each user's level (1 … h), Hadamard row and bit (±1)."""

    levels: NDArray[np.int64]
    rows: NDArray[np.int64]
    bits: NDArray[np.int64]


@dataclass(frozen=True, kw_only=True)
class HaarHRR(FrequencyOracle):
    """The Haar wavelet, each level reported by Hadamard randomized response.

    ``p`` and ``q`` are the bit's chances of being kept and flipped (``p/q = e^ε``):
    there is no support count per value.
    """

    name: ClassVar[str] = "HaarHRR"
    description: ClassVar[str] = (
        "Haar wavelet: one level's coefficient per user, by Hadamard randomized response"
    )
    good_for: ClassVar[str] = (
        "Ranges of an ordered domain: a range reads two coefficients per level, and the "
        "estimate is consistent as it comes"
    )
    reference: ClassVar[str] = "Kulkarni, Cormode and Srivastava, VLDB 2019, Sec. 4.4"
    variance_source: ClassVar[str] = "Kulkarni et al. Sec. 4.4"
    communication: ClassVar[str] = "a level, a row and one bit (about 2 log2 d bits)"
    support_view: ClassVar[bool] = False
    ordered_values: ClassVar[bool] = True
    offers_likelihood: ClassVar[bool] = False
    tallies_count: ClassVar[str] = "each level's Hadamard rows and their bits"

    # ------------------------------------------------------------------ the tree
    @property
    def height(self) -> int:
        """``h``: the levels, ``D = 2^h ≥ d``."""
        return max(1, math.ceil(math.log2(self.domain_size)))

    @property
    def padded(self) -> int:
        """``D = 2^h``, the tree's leaves."""
        return 1 << self.height

    @property
    def tally_length(self) -> int:
        """``2 (D − 1)``: each level's rows' reports, then their +1s."""
        return 2 * (self.padded - 1)

    def _span(self, level: int) -> int:
        return self.padded >> (level - 1)

    @cached_property
    def _signs(self) -> NDArray[np.int64]:
        """``s_ℓ(x)``: +1 where leaf ``x`` is in the left half of its level-ℓ node, else −1."""
        x = np.arange(self.padded)
        spans = np.array([self._span(level) for level in range(1, self.height + 1)])
        return np.where((x % spans[:, None]) < spans[:, None] // 2, 1, -1)

    @property
    def p(self) -> float:
        """The chance the bit is kept: ``e^ε / (1 + e^ε)``."""
        return 1.0 / (1.0 + math.exp(-self.epsilon))

    @property
    def q(self) -> float:
        """The chance it is flipped: ``1 / (1 + e^ε)``."""
        return 1.0 / (1.0 + math.exp(self.epsilon))

    # ------------------------------------------------------------ client and server
    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> HaarReports:
        """Each user's level, row and bit, drawn by the real client."""
        v = check_values(values, domain_size=self.domain_size)
        source = as_source(rng)
        levels = source.integers(1, self.height + 1, size=v.size)
        widths = np.left_shift(1, levels - 1)
        rows = (source.random(v.size) * widths).astype(np.int64)
        rows = np.minimum(rows, widths - 1)
        spans = self.padded >> (levels - 1)
        node = v // spans
        sign = np.where(v % spans < spans // 2, 1, -1)
        true_bit = sign * (1 - 2 * bit_parity(rows & node))
        kept = source.random(v.size) < self.p
        return HaarReports(levels.astype(np.int64), rows, np.where(kept, true_bit, -true_bit))

    def aggregate(self, reports: HaarReports) -> NDArray[np.int64]:
        """Each level's rows' report counts, then their +1 counts (the tallies)."""
        if not isinstance(reports, HaarReports):
            raise InputError(f"{self.name} reports are HaarReports, got {type(reports).__name__}")
        levels = np.asarray(reports.levels, dtype=np.int64)
        rows = np.asarray(reports.rows, dtype=np.int64)
        bits = np.asarray(reports.bits, dtype=np.int64)
        if levels.size and (levels.min() < 1 or levels.max() > self.height):
            raise InputError(f"{self.name} report levels must be in [1, {self.height}]")
        if rows.size and (rows.min() < 0 or np.any(rows >= np.left_shift(1, levels - 1))):
            raise InputError(f"{self.name} rows must be in [0, 2^(level − 1))")
        if bits.size and not np.all(np.abs(bits) == 1):
            raise InputError(f"{self.name} bits must be +1 or −1")
        out = np.zeros(self.tally_length, dtype=np.int64)
        for level in range(1, self.height + 1):
            start, width = self._cut(level)
            chosen = levels == level
            out[start : start + width] = np.bincount(rows[chosen], minlength=width)
            out[start + width : start + 2 * width] = np.bincount(
                rows[chosen & (bits == 1)], minlength=width
            )
        return out

    def _cut(self, level: int) -> tuple[int, int]:
        """Where level ``ℓ``'s tallies start, and its rows ``2^{ℓ−1}``."""
        width = 1 << (level - 1)
        return 2 * (width - 1), width

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # The contract asks for it; the base refuses support counts before calling it.
        self._check_support_view()
        raise NotImplementedError

    def _tallies_per_user(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return self._summed_per_user(
            true_counts, rng, self.aggregate, np.zeros(self.tally_length, dtype=np.int64)
        )

    def _tallies_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # Leaves up: a user takes level ℓ with chance 1/ℓ among the ℓ levels left above
        # it, and level ℓ needs its users only by half-node, so each level splits the
        # counts of its 2^ℓ half-nodes (2D binomials in all, not D·h).
        remaining = np.zeros(self.padded, dtype=np.int64)
        remaining[: self.domain_size] = true_counts
        out = np.zeros(self.tally_length, dtype=np.int64)
        for level in range(self.height, 0, -1):
            here = rng.binomial(remaining, 1.0 / level) if level > 1 else remaining
            halves = here.reshape(-1, 2)  # (nodes, left/right)
            plus, minus = _rows_by_halving(halves[:, 0], halves[:, 1], rng)
            start, width = self._cut(level)
            out[start : start + width] = plus + minus
            out[start + width : start + 2 * width] = rng.binomial(plus, self.p) + rng.binomial(
                minus, self.q
            )
            remaining = (remaining - here).reshape(-1, 2).sum(axis=1)
        return out

    # --------------------------------------------------------------------- estimates
    def coefficients(self, tallies: ArrayLike) -> list[NDArray[np.float64]]:
        """Each level's unbiased coefficients ``θ̂ = H S / (n_ℓ (2p − 1))`` (0 where none)."""
        counts = check_counts(tallies, name="tallies", length=self.tally_length)
        found = []
        for level in range(1, self.height + 1):
            start, width = self._cut(level)
            reports = counts[start : start + width]
            plus = counts[start + width : start + 2 * width]
            if np.any(plus > reports):
                raise InputError(f"{self.name} tallies count more +1 bits than reports")
            users = int(reports.sum())
            sums = 2 * plus - reports
            scale = users * (self.p - self.q)
            found.append(fwht(sums).astype(np.float64) / scale if users else np.zeros(width))
        return found

    def leaves_from(self, coefficients: list[NDArray[np.float64]]) -> NDArray[np.float64]:
        """The leaves from the root's total (1) down: children ``(T ± θ)/2``."""
        totals = np.ones(1)
        for theta in coefficients:
            totals = np.stack(((totals + theta) / 2, (totals - theta) / 2), axis=1).ravel()
        return totals[: self.domain_size]

    def estimate_from_tallies(self, tallies: ArrayLike, n: int) -> NDArray[np.float64]:
        """The leaves of the unbiased coefficients: unbiased, and summing to one over ``D``."""
        n = check_n_users(n)
        counts = check_counts(tallies, name="tallies", length=self.tally_length)
        users = sum(int(counts[a : a + w].sum()) for a, w in map(self._cut, self._levels()))
        if users != n:
            raise InputError(f"{self.name}'s tallies count {users:,} reports, but n = {n:,}")
        return self.leaves_from(self.coefficients(counts))

    def _levels(self) -> range:
        return range(1, self.height + 1)

    # ---------------------------------------------------------------------- accuracy
    def range_variances(
        self, frequencies: ArrayLike, n: int, starts: ArrayLike, stops: ArrayLike
    ) -> NDArray[np.float64]:
        """The variance of each range ``[start, stop)``'s estimate (delta method in 1/n).

        A range's answer is ``Σ_ℓ Σ_j a_{ℓ,j} θ̂_{ℓ,j}`` (``a``: its Haar weights, at most two
        per level). With ``g_ℓ(x) = a_{ℓ, anc(x)} s_ℓ(x)`` per leaf and ``C`` their covariance
        under ``f``: each level's bits give ``(‖a_ℓ‖² − t² E g_ℓ²) E[1/n_ℓ] / t²``
        (``t = 2p − 1``), which of the users report it ``C_ℓℓ (n E[1/n_ℓ] − 1)/(n − 1)``,
        and two levels' users, a partition, ``−C_ℓℓ'/(n − 1)``.
        """
        n = check_n_users(n)
        f = self._frequencies(frequencies)
        a = np.asarray(starts, dtype=np.int64)
        b = np.asarray(stops, dtype=np.int64)
        if a.shape != b.shape or np.any(a < 0) or np.any(b <= a) or np.any(b > self.domain_size):
            raise InputError(f"ranges must satisfy 0 ≤ start < stop ≤ {self.domain_size}")
        t = self.p - self.q
        h = self.height
        mean_users = n / h
        inverse = (1 / mean_users) * (1 + (1 - 1 / h) / mean_users)  # E[1/n_ℓ], to 1/n²
        out = np.empty(a.size)
        for at, (start, stop) in enumerate(zip(a, b, strict=True)):
            g = self._weights(int(stop)) - self._weights(int(start))  # (h, D)
            norms = np.array(
                [self._coefficient_norm(int(start), int(stop), lv) for lv in self._levels()]
            )
            moments = (g * f) @ g.T
            means = g @ f
            cov = moments - np.outer(means, means)
            bits = (norms - t**2 * np.diag(moments)) * inverse / t**2
            chosen = np.diag(cov) * (n * inverse - 1) / (n - 1) if n > 1 else np.zeros(h)
            across = (cov.sum() - np.trace(cov)) / (n - 1) if n > 1 else 0.0
            out[at] = float(bits.sum() + chosen.sum() - across)
        return out

    def _frequencies(self, frequencies: ArrayLike) -> NDArray[np.float64]:
        f = np.asarray(frequencies, dtype=np.float64)
        if f.shape != (self.domain_size,):
            raise InputError(f"frequencies must have length {self.domain_size}, got {f.shape}")
        return np.concatenate([f, np.zeros(self.padded - self.domain_size)])

    def _weights(self, stop: int) -> NDArray[np.float64]:
        """``g_ℓ(x)`` of the prefix ``[0, stop)``: its weight at ``x``'s node, times ``s_ℓ(x)``.

        The prefix's weight at node ``j`` (span ``S``) is (its left leaves − its right
        leaves before ``stop``)/``S``, the share of ``θ_j`` the prefix sums.
        """
        out = np.zeros((self.height, self.padded))
        for level in self._levels():
            span = self._span(level)
            node = self._node_weights(stop, level)
            out[level - 1] = np.repeat(node, span) * self._signs[level - 1]
        return out

    def _node_weights(self, stop: int, level: int) -> NDArray[np.float64]:
        span = self._span(level)
        nodes = self.padded // span
        inside = np.clip(stop - np.arange(nodes) * span, 0, span)  # leaves before stop
        left = np.minimum(inside, span // 2)
        right = inside - left
        return (left - right) / span

    def _coefficient_norm(self, start: int, stop: int, level: int) -> float:
        """``‖a_ℓ‖²``: the range's weights on level ``ℓ``'s coefficients, squared and summed."""
        weights = self._node_weights(stop, level) - self._node_weights(start, level)
        return float(np.sum(weights**2))

    def variance(self, frequencies: ArrayLike, n: int) -> NDArray[np.float64]:
        """Each value's variance, as :meth:`range_variances` for its range of one, in O(h d).

        For one leaf ``x`` the weights sit at its ancestors ``A_ℓ`` (span ``S_ℓ``):
        ``g_ℓ = s_ℓ(x) s_ℓ(·) / S_ℓ`` on ``A_ℓ``. So ``E g_ℓ² = F(A_ℓ)/S_ℓ²``,
        ``E g_ℓ = s_ℓ(x) θ(A_ℓ)/S_ℓ``, and for a deeper ``ℓ'``,
        ``E g_ℓ g_ℓ' = s_ℓ'(x) θ(A_ℓ')/(S_ℓ S_ℓ')`` (``F``: a node's share, ``θ`` its
        coefficient under ``f``): the covariances need only running sums over levels.
        """
        return self._combine(self._variance_parts(self._frequencies(frequencies)), n)[
            : self.domain_size
        ]

    def _variance_parts(self, f: NDArray[np.float64]) -> NDArray[np.float64]:
        """Per leaf, the n-free sums :meth:`_combine` weighs: bits, own level, across levels."""
        h, t = self.height, self.p - self.q
        spans = np.array([self._span(level) for level in self._levels()], dtype=np.float64)
        share = np.empty((h, self.padded))
        theta = np.empty((h, self.padded))
        for level in self._levels():
            span = self._span(level)
            halves = f.reshape(-1, 2, span // 2).sum(axis=2)
            share[level - 1] = np.repeat(halves.sum(axis=1), span)
            theta[level - 1] = np.repeat(halves[:, 0] - halves[:, 1], span)
        signs = self._signs.astype(np.float64)
        inverse_span = 1.0 / spans[:, None]
        second = share * inverse_span**2  # E g_ℓ²
        mean = signs * theta * inverse_span  # E g_ℓ
        own = second - mean**2  # C_ℓℓ
        # Σ_{ℓ<ℓ'} E g_ℓ g_ℓ' = Σ_ℓ' s_ℓ' θ_ℓ' / S_ℓ' · Σ_{ℓ<ℓ'} 1/S_ℓ.
        before = np.concatenate(([0.0], np.cumsum(1.0 / spans)[:-1]))[:, None]
        pairs = np.sum(signs * theta * inverse_span * before, axis=0)
        cross = 2 * pairs - (mean.sum(axis=0) ** 2 - np.sum(mean**2, axis=0))
        bits = np.sum(inverse_span**2 - t**2 * second, axis=0) / t**2
        return np.stack((bits, own.sum(axis=0), cross))

    def _combine(self, parts: NDArray[np.float64], n: int) -> NDArray[np.float64]:
        """The variance at ``n`` users from the n-free parts.

        ``bits·E[1/n_ℓ] + own·(n E[1/n_ℓ] − 1)/(n − 1) − cross/(n − 1)``, with ``E[1/n_ℓ]``
        of the binomial users of a level to order 1/n² (delta method).
        """
        n = check_n_users(n)
        mean_users = n / self.height
        expected_inverse = (1 / mean_users) * (1 + (1 - 1 / self.height) / mean_users)
        bits, own, cross = parts
        if n == 1:
            return np.asarray(bits * expected_inverse)
        return np.asarray(
            bits * expected_inverse + own * (n * expected_inverse - 1) / (n - 1) - cross / (n - 1)
        )

    @cached_property
    def _uniform_parts(self) -> NDArray[np.float64]:
        uniform = self._frequencies(np.full(self.domain_size, 1 / self.domain_size))
        return self._variance_parts(uniform)[:, : self.domain_size].mean(axis=1)

    def approx_variance(self, n: int) -> float:
        """The mean of :meth:`variance` at the uniform distribution (its parts kept)."""
        return float(self._combine(self._uniform_parts, n))

    def likelihood_model(self, estimate: Any, n: int, tallies: Any = None) -> Any:
        """Refused: no likelihood of the bits is written here."""
        raise InputError(f"{self.name} has no likelihood here; its estimate is exact as it comes")

    # ---------------------------------------------------------------------- privacy
    def _outputs(self) -> list[tuple[int, int, int]]:
        return [
            (level, row, bit)
            for level in self._levels()
            for row in range(1 << (level - 1))
            for bit in (1, -1)
        ]

    def _agreement(self) -> NDArray[np.bool_]:
        """Whether output ``(ℓ, r, bit)`` is value ``v``'s true bit at that level and row."""
        outputs = self._outputs()
        if len(outputs) * self.domain_size > _MAX_EXPLICIT_CELLS:
            raise InputError(f"{self.name}'s channel is built for d up to about 1,000")
        v = np.arange(self.domain_size)
        out = np.empty((len(outputs), self.domain_size), dtype=bool)
        for at, (level, row, bit) in enumerate(outputs):
            node = v // self._span(level)
            out[at] = self._signs[level - 1][v] * (1 - 2 * bit_parity(row & node)) == bit
        return out

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[(ℓ, r, bit), v] = (1/h)(1/2^{ℓ−1})·(p if bit = s_ℓ(v) H[r, anc_ℓ(v)] else q)``."""
        agree = self._agreement()
        scale = np.array([self.height * (1 << (level - 1)) for level, _, _ in self._outputs()])
        return np.where(agree, self.p, self.q) / scale[:, None]

    def worst_case_ratio(self) -> float:
        """``p / q = e^ε``: at every level some two values' bits differ."""
        if len(self._outputs()) * self.domain_size <= _MAX_EXPLICIT_CELLS:
            return ratio_from_matrix(self.channel_matrix())
        return self.p / self.q

    def support_matrix(self) -> NDArray[np.float64]:
        """``1`` where output ``(ℓ, r, bit)`` is the likelier one for value ``v`` (chance ∝ p)."""
        return self._agreement().astype(np.float64)

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """At the level where ``v`` and ``w`` part (their lowest common node), ``v``'s bit.

        There they sit in opposite halves of one node, so their true bits are opposite at
        every row: the event has ``p`` for ``v``'s users and ``q`` for ``w``'s, times the
        same level and row chances.
        """
        if not isinstance(reports, HaarReports):
            raise InputError(f"{self.name} reports are HaarReports")
        level = self.height - (int(v) ^ int(w)).bit_length() + 1
        span = self._span(level)
        node = int(v) // span
        sign = 1 if int(v) % span < span // 2 else -1
        rows = np.asarray(reports.rows, dtype=np.int64)
        expected = sign * (1 - 2 * bit_parity(rows & node))
        return (np.asarray(reports.levels) == level) & (np.asarray(reports.bits) == expected)


def bit_parity(x: ArrayLike) -> NDArray[np.int64]:
    """``popcount(x) mod 2`` of non-negative integers, element-wise (``H[r, j]``'s sign)."""
    a = np.asarray(x, dtype=np.uint64).copy()
    for shift in (32, 16, 8, 4, 2, 1):
        a ^= a >> np.uint64(shift)
    return (a & np.uint64(1)).astype(np.int64)


def _rows_by_halving(
    left: NDArray[np.int64], right: NDArray[np.int64], rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per Hadamard row ``r``, the users whose true bit ``s·H[r, j]`` is +1 and −1.

    Each user's row is uniform: its bits are fair coins, decided from the highest. The
    state after deciding some of them is (the row's bits so far, the node's bits not yet
    used, the sign so far): a 1 in the row where the node has a 1 flips the sign
    (``H[r, j] = (−1)^{popcount(r & j)}``), after which that node bit is no longer
    needed. One binomial(·, 1/2) per state and bit: O(K log K) for ``K`` nodes, exact.
    """
    nodes = left.size
    state = np.stack((left, right), axis=-1).reshape(1, nodes, 2)  # (rows so far, node, sign)
    while state.shape[1] > 1:
        rows, remaining = state.shape[0], state.shape[1]
        split = state.reshape(rows, 2, remaining // 2, 2)  # (rows, node's top bit, rest, sign)
        ones = rng.binomial(split, 0.5)
        zeros = split - ones
        stay = zeros[:, 0] + zeros[:, 1]  # the row's bit is 0: no flip
        flip = ones[:, 0] + ones[:, 1, :, ::-1]  # the row's bit is 1: flip where the node's is 1
        state = np.stack((stay, flip), axis=1).reshape(rows * 2, remaining // 2, 2)
    return state[:, 0, 0], state[:, 0, 1]


__all__ = ["HaarHRR", "HaarReports", "bit_parity"]
