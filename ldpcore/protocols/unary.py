"""Unary encoding: OUE (Wang et al., USENIX Security 2017) and SUE (basic RAPPOR).

NDSS 2020 Section III-C. A value is one-hot encoded as ``d`` bits and each bit is
perturbed independently: the user's own bit is reported as 1 with probability
``p``, every other bit with probability ``q``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_counts
from ldpcore.errors import InputError
from ldpcore.protocols._halving import SplitKernels
from ldpcore.protocols.base import (
    FrequencyOracle,
    independent_support_counts,
)
from ldpcore.protocols.rounds import Chain
from ldpcore.rng import ClientRNG, as_source

if TYPE_CHECKING:
    from ldpcore.protocols.likelihoods import LikelihoodModel

#: Largest d whose 2^d report histogram a unary encoding's tallies can be.
_UNARY_REPORTS_MAX_D = 20

#: ``channel_matrix`` enumerates all 2^d bit vectors only up to this d.
_MAX_ENUMERATED_BITS = 12
#: Up to this d the tallies are the histogram of the 2^d possible reports, so the MLE
#: and IBU use the full-report likelihood (MLE paper, Sec. 5: a = 10, b = 2^10); above
#: it they are the support counts (the 2^d histogram would not fit).
FULL_REPORTS_MAX_D = _MAX_ENUMERATED_BITS


@dataclass(frozen=True, kw_only=True)
class UnaryEncoding(FrequencyOracle):
    """Shared client, server and sampler for the unary-encoding protocols.

    Reports are a boolean matrix of shape ``(n_users, d)``: row ``i`` is the
    perturbed bit vector of user ``i``; it supports the values whose bit is 1.
    """

    vector_reports: ClassVar[bool] = True
    communication: ClassVar[str] = "d bits"
    # Kernels of the maximal-gain padding's sampler, kept between trials (made on use).
    _kernels: dict[str, SplitKernels] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def likelihood_model(
        self, estimate: NDArray[np.float64], n: int, tallies: ArrayLike | None = None
    ) -> LikelihoodModel:
        """The multinomial of the full report histogram when the tallies are that histogram.

        That is for ``d <= FULL_REPORTS_MAX_D`` (MLE paper, Sec. 5); the support counts'
        binomials otherwise (never enumerate ``2^d`` reports for a larger ``d``).
        """
        d = self.domain_size
        if tallies is not None and d <= _UNARY_REPORTS_MAX_D:
            histogram = np.asarray(tallies, dtype=np.float64)
            if histogram.shape == (1 << d,):
                if np.any(histogram < 0) or histogram.sum() != n:
                    raise InputError(
                        f"{self.name} tallies must be a report histogram with non-negative "
                        f"entries summing to n={n}"
                    )
                from ldpcore.protocols.likelihoods import UnaryReportModel  # noqa: PLC0415

                bits = self.support_matrix()
                return UnaryReportModel(histogram, bits, p=self.p, q=self.q)
        return super().likelihood_model(estimate, n, tallies)

    @property
    def full_reports(self) -> bool:
        """Whether the tallies are the histogram of all ``2^d`` reports (small ``d``)."""
        return self.domain_size <= FULL_REPORTS_MAX_D

    def report_index(self, reports: ArrayLike) -> NDArray[np.int64]:
        """Each bit vector as its row of ``channel_matrix``: ``Σ_j y_j 2^j``."""
        bits = np.asarray(reports, dtype=np.int64)
        return bits @ (np.int64(1) << np.arange(self.domain_size, dtype=np.int64))

    def _tallies_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """The full report histogram at small ``d``: one multinomial per true value.

        A user of value ``v`` sends report ``y`` with probability ``Q[y, v]`` (the
        bits are independent), so the ``n_v`` reports of value ``v`` are one
        ``Multinomial(n_v, Q[:, v])`` over the ``2^d`` reports, exactly.
        """
        if not self.full_reports:
            return self._sample_fast(true_counts, rng)
        channel = self.channel_matrix()
        histogram = np.zeros(channel.shape[0], dtype=np.int64)
        for v in np.flatnonzero(true_counts):
            histogram += rng.multinomial(int(true_counts[v]), channel[:, v])
        return histogram

    def tally(self, reports: ArrayLike) -> NDArray[np.int64]:
        """The histogram of whole reports at small ``d`` (:attr:`full_reports`), else support."""
        if not self.full_reports:
            return self.aggregate(reports)
        return np.bincount(self.report_index(reports), minlength=1 << self.domain_size)

    def support_from_tallies(self, tallies: ArrayLike) -> NDArray[np.int64]:
        """Support counts from the tallies: ``c_v = Σ_y h_y y_v`` for a report histogram."""
        array = np.asarray(tallies)
        if self.full_reports and array.shape == (1 << self.domain_size,):
            histogram = check_counts(
                array, name="tallies (report histogram)", length=1 << self.domain_size
            )
            return np.asarray(self.support_matrix().T @ histogram, dtype=np.int64)
        return super().support_from_tallies(tallies)

    def rounds_chain(self) -> Chain:
        """Every round flips the one-hot vector afresh: the bit round on an unchanged memo."""
        return Chain("bits", self.domain_size, p1=1.0, q1=0.0, p2=self.p, q2=self.q)

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.bool_]:
        """Perturb each user's one-hot vector bit by bit."""
        v = self._values(values)
        generator = as_source(rng)
        bits = generator.random((v.size, self.domain_size)) < self.q
        rows = np.arange(v.size)
        bits[rows, v] = generator.random(v.size) < self.p
        return bits

    def aggregate(self, reports: ArrayLike) -> NDArray[np.int64]:
        """Sum the bit vectors column by column."""
        bits = np.asarray(reports)
        if bits.ndim != 2 or bits.shape[1] != self.domain_size or bits.dtype != np.bool_:
            raise InputError(
                f"{self.name} reports must be a boolean array of shape "
                f"(n_users, {self.domain_size}), "
                f"got {bits.dtype} array of shape {bits.shape}"
            )
        return np.asarray(bits.sum(axis=0, dtype=np.int64), dtype=np.int64)

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # Bits are independent across positions and users.
        return independent_support_counts(true_counts, self.p, self.q, rng)

    def padding(self, targets: int) -> int:
        """The maximal-gain report's ones besides the targets': ``⌊p + (d − 1)q⌋ − r``, ≥ 0.

        An honest report has ``p + (d − 1)q`` ones on average; a fake one with the
        targets' alone would stand out to a server that counts them (Cao, Jia and Gong
        2021, Sec. 4.2 and their detection defence, Sec. 6).
        """
        return max(0, math.floor(self.p + (self.domain_size - 1) * self.q) - targets)

    def padding_kernels(self) -> SplitKernels:
        """The halving sampler's kernels for this ``d``, made on first use and kept.

        Building them costs about 10 ms at d = 1,024 (most of a poisoned trial); scipy
        loads with them, never with the protocol.
        """
        kept = self._kernels.get("padding")
        if kept is None:
            kept = self._kernels["padding"] = SplitKernels(self.domain_size)
        return kept

    def _bit_channel(self) -> NDArray[np.float64]:
        """``B[x, own]``: P(bit = x) at the user's own position (own=1) or another (own=0)."""
        p, q = self.p, self.q
        return np.array([[1 - q, 1 - p], [q, p]])

    def worst_case_ratio(self) -> float:
        """Exact worst-case ratio from the per-bit channel.

        Two inputs ``v ≠ v'`` give the same bit distribution everywhere except at
        positions ``v`` and ``v'``, so for an output ``y`` the ratio is
        ``[B(y_v,1) B(y_v',0)] / [B(y_v,0) B(y_v',1)]``; maximising over the two bits
        gives ``max_x B(x,1)/B(x,0) · max_x B(x,0)/B(x,1)``.
        """
        bit = self._bit_channel()
        return float(np.max(bit[:, 1] / bit[:, 0]) * np.max(bit[:, 0] / bit[:, 1]))

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[y, v]`` over all ``2^d`` bit vectors; row ``y`` read in binary."""
        d = self.domain_size
        if d > _MAX_ENUMERATED_BITS:
            raise InputError(
                f"channel_matrix enumerates 2^d outputs; domain_size must be <= "
                f"{_MAX_ENUMERATED_BITS}, got {d}"
            )
        bit = self._bit_channel()
        outputs = np.array(list(itertools.product((0, 1), repeat=d)))[:, ::-1]
        channel = np.empty((outputs.shape[0], d))
        for v in range(d):
            own = np.zeros(d, dtype=int)
            own[v] = 1
            channel[:, v] = np.prod(bit[outputs, own], axis=1)
        return channel

    def support_matrix(self) -> NDArray[np.float64]:
        """Row ``y`` of ``channel_matrix`` (a bit vector read in binary) supports its 1 bits."""
        d = self.domain_size
        return np.array(list(itertools.product((0, 1), repeat=d)))[:, ::-1].astype(float)

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """Bit ``v`` set and bit ``w`` clear (ratio ``p(1−q) / (q(1−p))``, i.e. ``e^ε``)."""
        bits = np.asarray(reports)
        return bits[:, v] & ~bits[:, w]


@dataclass(frozen=True, kw_only=True)
class OUE(UnaryEncoding):
    """Optimized Unary Encoding: ``p = 1/2``, ``q = 1/(e^ε + 1)``.

    Examples
    --------
    >>> OUE(epsilon=math.log(3), domain_size=8).q
    0.25
    """

    name: ClassVar[str] = "OUE"
    description: ClassVar[str] = "Optimized unary encoding: one bit per value, own bit kept at 1/2"
    good_for: ClassVar[str] = (
        "Large domains when d bits per report are affordable: beyond d = 3e^ε + 2 values "
        "its error is below GRR's (Wang et al. 2017)"
    )
    reference: ClassVar[str] = "Wang et al., USENIX Security 2017; NDSS 2020, Sec. III-C"

    @property
    def p(self) -> float:
        """``1/2``."""
        return 0.5

    @property
    def q(self) -> float:
        """``1/(e^ε + 1)``."""
        return 1.0 / (math.exp(self.epsilon) + 1.0)


@dataclass(frozen=True, kw_only=True)
class SUE(UnaryEncoding):
    """Symmetric Unary Encoding (basic one-time RAPPOR).

    ``p = e^{ε/2}/(e^{ε/2} + 1)`` and ``q = 1 − p``.

    Examples
    --------
    >>> sue = SUE(epsilon=2.0, domain_size=8)
    >>> round(sue.p + sue.q, 12)
    1.0
    """

    name: ClassVar[str] = "SUE"
    description: ClassVar[str] = "Symmetric unary encoding (basic RAPPOR): every bit flipped alike"
    good_for: ClassVar[str] = (
        "Matching basic RAPPOR's reports; at the same ε its error is higher than OUE's"
    )
    reference: ClassVar[str] = "Erlingsson et al., CCS 2014; Wang et al., USENIX Security 2017"

    @property
    def p(self) -> float:
        """``e^{ε/2}/(e^{ε/2} + 1)``."""
        half = math.exp(self.epsilon / 2)
        return half / (half + 1.0)

    @property
    def q(self) -> float:
        """``1/(e^{ε/2} + 1)``."""
        return 1.0 / (math.exp(self.epsilon / 2) + 1.0)
