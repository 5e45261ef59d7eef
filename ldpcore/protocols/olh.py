"""Optimized Local Hashing (OLH) and Binary Local Hashing (BLH), NDSS 2020 Section III-B.

A user hashes the value into ``{0, …, g − 1}`` with a hash function of its own and
reports the hash function together with GRR over the ``g`` hashed values. The
report supports every value that hashes to the reported bucket.

The hash family
---------------
Multiply-add-shift (Dietzfelbinger, STACS 1996) followed by a range reduction:
``h_{a,b}(x) = ⌊ g · ⌊((a·x + b) mod 2^64) / 2^32⌋ / 2^32 ⌋`` with ``a, b`` uniform
64-bit seeds drawn per user. The 32-bit middle value is strongly universal over
32-bit keys, so any two values hash independently up to a bucket-size imbalance of
at most ``g/2^32`` — the pairwise independence that the variance of OLH (and of
``Σ_v f̃_v``) depends on. It is pure numpy and works on integers, not strings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore import bounds
from ldpcore._validation import check_int
from ldpcore.errors import InputError
from ldpcore.protocols.base import (
    FrequencyOracle,
    independent_support_counts,
    ratio_from_matrix,
)
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.rng import ClientRNG, RandomSource, as_source

if TYPE_CHECKING:
    pass

#: Upper bound on g: the range reduction needs ``g · 2^32 < 2^64`` with room to spare.
G_MAX = 1 << 31
#: Users scanned per block by ``aggregate``: three uint64 arrays stay in cache.
_AGGREGATE_BLOCK = 1 << 15
_SHIFT = np.uint64(32)


def default_g(epsilon: float) -> int:
    """The variance-optimal hash range ``g = round(e^ε + 1)``, at least 2 (NDSS Sec. III-B)."""
    return max(2, round(math.exp(epsilon) + 1))


@dataclass(frozen=True)
class HashedReports:
    """OLH/BLH reports: per user, the hash seeds ``(a, b)`` and the reported bucket.

    Attributes
    ----------
    multiplier, offset : ndarray of uint64
        The seeds ``a`` and ``b`` of each user's hash function ``h_{a,b}``.
    bucket : ndarray of int64
        The perturbed hashed value, in ``[0, g)``.
    """

    multiplier: NDArray[np.uint64]
    offset: NDArray[np.uint64]
    bucket: NDArray[np.int64]


def hash_values(
    multiplier: NDArray[np.uint64], offset: NDArray[np.uint64], values: NDArray[np.int64], g: int
) -> NDArray[np.int64]:
    """Evaluate ``h_{a,b}(x)`` element-wise (see the module docstring)."""
    mixed = multiplier * values.astype(np.uint64) + offset  # wraps mod 2^64 by design
    top = mixed >> _SHIFT
    return ((top * np.uint64(g)) >> _SHIFT).astype(np.int64)


#: The most hash tries a fake user of the maximal-gain attack may need on average.
MGA_TRIES_MAX = 1 << 16


@dataclass(frozen=True, kw_only=True)
class OLH(FrequencyOracle):
    """Optimized Local Hashing.

    ``p = e^ε / (e^ε + g − 1)`` and ``q = 1/g`` (see the reading notes, erratum 1).

    Parameters
    ----------
    epsilon : float
        Privacy budget.
    domain_size : int
        Number of values ``d``.
    g : int, optional
        Hash range; defaults to ``round(e^ε + 1)``, at least 2.

    Examples
    --------
    >>> OLH(epsilon=1.0, domain_size=1024).g
    4
    """

    name: ClassVar[str] = "OLH"
    description: ClassVar[str] = (
        "Optimized local hashing: hash to g buckets, then randomized response"
    )
    reference: ClassVar[str] = "Wang et al., USENIX Security 2017; NDSS 2020, Sec. III-B"
    good_for: ClassVar[str] = (
        "Large domains on a small message: about OUE's error with a seed and one bucket "
        "per report, at the cost of hashing every value to decode"
    )
    communication: ClassVar[str] = "a hash seed and one bucket (log2 g bits)"
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = (
        ProtocolParameter(
            "g",
            "OLH's hash range (default round(e^ε + 1))",
            2,
            default=lambda epsilon, _d: default_g(epsilon),
            examples=((0.5, 64), (1.0, 64), (2.0, 64), (4.0, 64)),
        ),
    )
    g: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        g = default_g(self.epsilon) if self.g is None else self.g
        object.__setattr__(self, "g", check_int(g, name="g", minimum=2, maximum=G_MAX))

    @property
    def hash_range(self) -> int:
        """``g`` as a plain int (always set after construction)."""
        assert self.g is not None  # set in __post_init__
        return self.g

    def parameters(self) -> dict[str, object]:
        """Constructor arguments, including ``g``."""
        return {**super().parameters(), "g": self.hash_range}

    @property
    def p(self) -> float:
        """``e^ε / (e^ε + g − 1)``."""
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + self.hash_range - 1)

    @property
    def q(self) -> float:
        """``1/g``."""
        return 1.0 / self.hash_range

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> HashedReports:
        """Hash each value with a fresh per-user hash function, then GRR over ``g`` buckets."""
        v = self._values(values)
        generator = as_source(rng)
        top = np.iinfo(np.uint64).max
        multiplier = generator.integers(0, top, size=v.size, dtype=np.uint64, endpoint=True)
        offset = generator.integers(0, top, size=v.size, dtype=np.uint64, endpoint=True)
        hashed = hash_values(multiplier, offset, v, self.hash_range)
        return HashedReports(multiplier, offset, self._perturb(hashed, generator))

    def perturb_bucket(self, hashed: NDArray[np.int64], rng: ClientRNG = None) -> NDArray[np.int64]:
        """GRR over ``g`` buckets: keep with ``e^ε/(e^ε + g − 1)``, else a uniform other bucket."""
        return self._perturb(hashed, as_source(rng))

    def _perturb(self, hashed: NDArray[np.int64], generator: RandomSource) -> NDArray[np.int64]:
        g = self.hash_range
        keep = generator.random(hashed.size) < self.p
        other = (hashed + 1 + generator.integers(0, g - 1, size=hashed.size)) % g
        return np.where(keep, hashed, other)

    def aggregate(self, reports: HashedReports) -> NDArray[np.int64]:
        """Support counts ``c_v = #{users : h_{a,b}(v) = bucket}``, in O(n·d) integer operations.

        Rather than hashing, ``h(v) = y`` is tested as a range check on the 64-bit
        mixed value: ``y·2^32 ≤ t·g < (y+1)·2^32`` with ``t = s >> 32`` holds exactly
        when ``(s − L) mod 2^64 < W`` for per-user constants ``L, W``. That leaves one
        multiply, one add and one compare per (user, value) pair.
        """
        if not isinstance(reports, HashedReports):
            raise InputError(
                f"{self.name} reports must be HashedReports, got {type(reports).__name__}"
            )
        bucket = np.asarray(reports.bucket, dtype=np.int64)
        g = self.hash_range
        if bucket.size and (bucket.min() < 0 or bucket.max() >= g):
            raise InputError(f"{self.name} report buckets must be in [0, {g - 1}]")
        y = bucket.astype(np.uint64)
        g64 = np.uint64(g)
        lower = (((y << _SHIFT) + g64 - np.uint64(1)) // g64) << _SHIFT
        upper = ((((y + np.uint64(1)) << _SHIFT) + g64 - np.uint64(1)) // g64) << _SHIFT
        width = upper - lower  # wraps to the right value for the last bucket too
        shifted = np.asarray(reports.offset, dtype=np.uint64) - lower
        multiplier = np.asarray(reports.multiplier, dtype=np.uint64)
        counts = np.zeros(self.domain_size, dtype=np.int64)
        for start in range(0, bucket.size, _AGGREGATE_BLOCK):
            stop = start + _AGGREGATE_BLOCK
            a, b, w = multiplier[start:stop], shifted[start:stop], width[start:stop]
            mixed = np.empty_like(a)
            hit = np.empty(a.shape, dtype=np.bool_)
            for value in range(self.domain_size):
                np.multiply(a, np.uint64(value), out=mixed)
                np.add(mixed, b, out=mixed)
                np.less(mixed, w, out=hit)
                counts[value] += np.count_nonzero(hit)
        return counts

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # Under the ideal hash the paper assumes, a user's indicators [h(v) = y] are
        # independent across v (q = 1/g).
        return independent_support_counts(true_counts, self.p, self.q, rng)

    def _bucket_channel(self) -> NDArray[np.float64]:
        """``P(bucket y | hashed value x)``: GRR over ``g`` buckets (for small ``g``)."""
        g = self.hash_range
        e = math.exp(self.epsilon)
        channel = np.full((g, g), 1.0 / (e + g - 1))
        np.fill_diagonal(channel, e / (e + g - 1))
        return channel

    def worst_case_ratio(self) -> float:
        """Exact worst-case ratio of ``P((h, y) | v)`` over outputs and inputs.

        The hash function is drawn independently of the value, so its probability
        cancels; what remains is GRR over the ``g`` buckets, whose two probabilities
        ``e^ε/(e^ε+g−1)`` and ``1/(e^ε+g−1)`` are both reached once some hash
        function separates ``v`` and ``v'``.
        """
        if self.hash_range <= 4096:
            return ratio_from_matrix(self._bucket_channel())
        e = math.exp(self.epsilon)
        return (e / (e + self.hash_range - 1)) * (e + self.hash_range - 1)

    def channel_matrix(self, n_hashes: int = 32, seed: int = 0) -> NDArray[np.float64]:
        """``Q[(h, y), v]`` for ``n_hashes`` hash functions drawn with ``seed``.

        The hash seeds cannot all be enumerated (2^128 of them); because they are
        independent of the input, each block of rows is the exact channel
        conditional on its hash function, scaled by the same ``1/n_hashes``.
        """
        g, d = self.hash_range, self.domain_size
        e = math.exp(self.epsilon)
        blocks = []
        for hashed in self._enumerated_hashes(n_hashes, seed):
            block = np.full((g, d), 1.0 / (e + g - 1))
            block[hashed, np.arange(d)] = e / (e + g - 1)
            blocks.append(block / n_hashes)
        return np.vstack(blocks)

    def support_matrix(self, n_hashes: int = 32, seed: int = 0) -> NDArray[np.float64]:
        """Row ``(h, y)`` of ``channel_matrix`` supports the values ``h`` maps to ``y``."""
        g, d = self.hash_range, self.domain_size
        blocks = []
        for hashed in self._enumerated_hashes(n_hashes, seed):
            block = np.zeros((g, d))
            block[hashed, np.arange(d)] = 1.0
            blocks.append(block)
        return np.vstack(blocks)

    def _enumerated_hashes(self, n_hashes: int, seed: int) -> list[NDArray[np.int64]]:
        """Each of ``n_hashes`` seeded hash functions applied to every value."""
        g, d = self.hash_range, self.domain_size
        if n_hashes * g * d > 20_000_000:
            raise InputError(
                f"channel_matrix would have {n_hashes * g:,} x {d:,} entries; "
                "use fewer hashes, a smaller domain or a smaller g"
            )
        generator = np.random.default_rng(seed)
        top = np.iinfo(np.uint64).max
        values = np.arange(d, dtype=np.int64)
        hashed = []
        for _ in range(n_hashes):
            a = np.full(d, generator.integers(0, top, dtype=np.uint64, endpoint=True))
            b = np.full(d, generator.integers(0, top, dtype=np.uint64, endpoint=True))
            hashed.append(hash_values(a, b, values, g))
        return hashed

    def distinguishing_event(self, reports: HashedReports, v: int, w: int) -> NDArray[np.bool_]:
        """The bucket is ``h(v)`` and ``h(v) ≠ h(w)`` (ratio ``e^ε`` exactly)."""
        size = reports.bucket.size
        hv = hash_values(reports.multiplier, reports.offset, np.full(size, v), self.hash_range)
        hw = hash_values(reports.multiplier, reports.offset, np.full(size, w), self.hash_range)
        return (reports.bucket == hv) & (hv != hw)


@dataclass(frozen=True, kw_only=True)
class BLH(OLH):
    """Binary Local Hashing: OLH with ``g = 2``.

    Examples
    --------
    >>> BLH(epsilon=1.0, domain_size=16).q
    0.5
    """

    name: ClassVar[str] = "BLH"
    description: ClassVar[str] = "Binary local hashing: OLH with two buckets"
    reference: ClassVar[str] = "Bassily & Smith, STOC 2015; Wang et al., USENIX Security 2017"
    good_for: ClassVar[str] = (
        "A one-bit report; its error is above OLH's, and far above it as ε grows"
    )
    communication: ClassVar[str] = "a hash seed and one bit"
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = ()  # g is fixed at 2

    def __post_init__(self) -> None:
        if self.g not in (None, 2):
            raise InputError(f"BLH always uses g=2; got g={self.g} (use OLH for other g)")
        object.__setattr__(self, "g", 2)
        super().__post_init__()

    def parameters(self) -> dict[str, object]:
        """Constructor arguments (``g`` is fixed at 2 and not one of them)."""
        return {"epsilon": self.epsilon, "domain_size": self.domain_size}


assert math.log(G_MAX - 1) > bounds.EPSILON_MAX  # g = round(e^ε + 1) must fit below G_MAX
