"""Unary encoding: OUE (Wang et al., USENIX Security 2017) and SUE (basic RAPPOR).

NDSS 2020 Section III-C. A value is one-hot encoded as ``d`` bits and each bit is
perturbed independently: the user's own bit is reported as 1 with probability
``p``, every other bit with probability ``q``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle, check_prior, membership_guess_rate
from ldpcore.rng import ClientRNG, as_source

#: ``channel_matrix`` enumerates all 2^d bit vectors only up to this d.
_MAX_ENUMERATED_BITS = 12


@dataclass(frozen=True, kw_only=True)
class _UnaryEncoding(FrequencyOracle):
    """Shared client, server and sampler for the unary-encoding protocols.

    Reports are a boolean matrix of shape ``(n_users, d)``: row ``i`` is the
    perturbed bit vector of user ``i``; it supports the values whose bit is 1.
    """

    communication: ClassVar[str] = "d bits"

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.bool_]:
        """Perturb each user's one-hot vector bit by bit."""
        v = self._values(values)
        generator = as_source(rng)
        bits = generator.random((v.size, self.domain_size)) < self.q
        rows = np.arange(v.size)
        bits[rows, v] = generator.random(v.size) < self.p
        return bits

    def _users_per_batch(self) -> int:
        return max(1, (1 << 22) // self.domain_size)

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
        # Bits are independent across positions and users, so each c_v is exactly
        # Bin(n_v, p) + Bin(n − n_v, q), independently of the other values.
        n = int(true_counts.sum())
        return (rng.binomial(true_counts, self.p) + rng.binomial(n - true_counts, self.q)).astype(
            np.int64
        )

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

    def bayes_guess_rate(self, prior: ArrayLike) -> float:
        """Exact MAP attacker success: independent bits, ``P(1) = p`` own / ``q`` other."""
        p, q = self.p, self.q
        ratio = (p / q) * ((1 - q) / (1 - p))  # e^ε: a set bit against a clear one
        return membership_guess_rate(
            check_prior(prior, self.domain_size), own=p, other=q, ratio=ratio
        )

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


@dataclass(frozen=True, kw_only=True)
class OUE(_UnaryEncoding):
    """Optimized Unary Encoding: ``p = 1/2``, ``q = 1/(e^ε + 1)``.

    Examples
    --------
    >>> OUE(epsilon=math.log(3), domain_size=8).q
    0.25
    """

    name: ClassVar[str] = "OUE"
    description: ClassVar[str] = "Optimized unary encoding: one bit per value, own bit kept at 1/2"
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
class SUE(_UnaryEncoding):
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
