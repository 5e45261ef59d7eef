"""dBitFlipPM: d sampled bits with permanent memoization (Ding, Kulkarni, Yekhanin, NeurIPS 2017).

Microsoft's telemetry collection (Ding et al., Sec. 3): each user samples ``d'`` of the
``k`` values uniformly without replacement (independently of its own value) and sends,
for each sampled value ``j``, one bit: 1 with ``a = e^{ε/2}/(e^{ε/2} + 1)`` if ``j`` is
its value, with ``b = 1/(e^{ε/2} + 1)`` otherwise. Two sampled values' bits change the
report's probability by ``(a/b)² = e^ε`` at most, so it is ε-LDP (``d' >= 2``; with one
sampled value it is ε/2-LDP, and :meth:`DBitFlipPM.spent_epsilon` says so). *Permanent
memoization* (Sec. 4): a user's response to a value is drawn once and sent again at
every round while the value stays, so any number of rounds spends ε once per value.

In the generalized view (NDSS 2020 Sec. III) a report supports the sampled values whose
bit is 1: ``p = (d'/k)·a`` and ``q = (d'/k)·b``. Ding et al.'s estimator divides by the
observed number of users who sampled each value; the Base estimate here divides by its
expectation ``n·d'/k``, as every protocol of the tool does. Both are unbiased.

Exact fast sampler, O(log k) vectorised calls: ``K_v ~ Bin(n_v, d'/k)`` users of ``v``
sample ``v``; their other ``d' − 1`` picks, and the ``d'`` picks of the users who do not
sample their own value, are uniform subsets of the *other* values, which is Subset
Selection's own-user structure (``_halving.sample_support`` with every user an own
user). Each pick's bit is independent given the picks, so
``c_v = Bin(K_v, a) + Bin(O_v, b)`` with ``O_v`` the picks of ``v`` by the other users.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_int
from ldpcore.errors import InputError
from ldpcore.protocols._halving import SplitKernels, sample_support
from ldpcore.protocols.base import FrequencyOracle, ProtocolParameter
from ldpcore.rng import ClientRNG, as_source

if TYPE_CHECKING:
    pass

#: ``channel_matrix`` enumerates C(k, d')·2^d' reports only up to this many.
_MAX_ENUMERATED = 200_000
#: The most values a report samples (a column each in report files).
D_BITS_MAX = 64


def bit_probabilities(epsilon: float) -> tuple[float, float]:
    """``(a, b)``: a sampled value's bit is 1 with ``a`` if it is the user's, else ``b``."""
    half = math.exp(epsilon / 2.0)
    return half / (half + 1.0), 1.0 / (half + 1.0)


@dataclass(frozen=True, kw_only=True)
class DBitFlipPM(FrequencyOracle):
    """dBitFlip with permanent memoization: ``d'`` sampled values, one bit each.

    Reports are an int64 array of shape ``(n_users, 2·d')``: the sampled values, then
    their bits (0 or 1).

    Parameters
    ----------
    d_bits : int, optional
        ``d'``, the values each report samples, ``1 <= d' <= min(k, 64)`` (default 2: the
        fewest that spend the whole ε).

    Examples
    --------
    >>> flip = DBitFlipPM(epsilon=1.0, domain_size=8)
    >>> flip.sampled, round(flip.p / flip.q, 6) == round(math.exp(0.5), 6)
    (2, True)
    """

    name: ClassVar[str] = "dBitFlipPM"
    description: ClassVar[str] = (
        "Microsoft's telemetry oracle: d' sampled values, one noisy bit each, memoized"
    )
    reference: ClassVar[str] = "Ding, Kulkarni & Yekhanin, NeurIPS 2017, Sec. 3-4"
    good_for: ClassVar[str] = (
        "Collecting again and again on a tiny message: d' bits a report and ε spent once "
        "per value, at a much higher error than the unary encodings'"
    )
    communication: ClassVar[str] = "d' values and d' bits"
    #: With one sampled value a report is ε/2-LDP: its ratio is its own formula's.
    spends_whole_budget: ClassVar[bool] = False
    #: Permanent memoization: a value's response is drawn once and sent every round.
    memoizes_report: ClassVar[bool] = True
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = (
        ProtocolParameter(
            "d_bits", "dBitFlipPM's sampled values per report, 1 <= d_bits <= d (default 2)", 1
        ),
    )

    d_bits: int | None = None
    # The halving sampler's kernels, kept between trials, one per kind of call: a kernel
    # table grown by one kind of call would change the next call's draws of another, so
    # a seed would not give the same counts twice.
    _split_kernels: dict[str, SplitKernels] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        given = min(2, self.domain_size) if self.d_bits is None else self.d_bits
        most = min(self.domain_size, D_BITS_MAX)
        object.__setattr__(self, "d_bits", check_int(given, name="d_bits", minimum=1, maximum=most))

    def kernels(self, kind: str) -> SplitKernels:
        """The split kernels of one kind of call (``own``, ``rest``, ``fake``), made on use."""
        if kind not in self._split_kernels:
            self._split_kernels[kind] = SplitKernels(self.domain_size)
        return self._split_kernels[kind]

    @property
    def sampled(self) -> int:
        """``d'`` as a plain int (always set after construction)."""
        assert self.d_bits is not None  # set in __post_init__
        return self.d_bits

    def parameters(self) -> dict[str, Any]:
        """Constructor arguments, including ``d_bits``."""
        return {**super().parameters(), "d_bits": self.sampled}

    @property
    def p(self) -> float:
        """``(d'/k)·e^{ε/2}/(e^{ε/2} + 1)``."""
        return self.sampled / self.domain_size * bit_probabilities(self.epsilon)[0]

    @property
    def q(self) -> float:
        """``(d'/k)/(e^{ε/2} + 1)``."""
        return self.sampled / self.domain_size * bit_probabilities(self.epsilon)[1]

    def spent_epsilon(self) -> float:
        """ε, or ε/2 when a report samples one value (no two bits to tell apart)."""
        return self.epsilon if self.sampled >= 2 else self.epsilon / 2.0

    # --------------------------------------------------------- client, server
    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.int64]:
        """Sample ``d'`` values uniformly (keys' smallest), then one bit each.

        A deployment keeps each user's response per value and sends it again; one
        report of a new response has the same law.
        """
        v = self._values(values)
        generator = as_source(rng)
        k, m = self.domain_size, self.sampled
        keys = np.asarray(generator.random((v.size, k)))
        picks = np.argpartition(keys, m - 1, axis=1)[:, :m].astype(np.int64)
        a, b = bit_probabilities(self.epsilon)
        chance = np.where(picks == v[:, None], a, b)
        bits = (np.asarray(generator.random((v.size, m))) < chance).astype(np.int64)
        return np.concatenate([picks, bits], axis=1)

    def picks_and_bits(self, reports: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The reports' sampled values and their bits, two ``(n, d_bits)`` arrays (checked)."""
        array = np.asarray(reports)
        m = self.sampled
        if array.ndim != 2 or array.shape[1] != 2 * m or not np.issubdtype(array.dtype, np.integer):
            raise InputError(
                f"dBitFlipPM reports must be an integer array of shape (n_users, {2 * m}): "
                f"{m} sampled values then their bits; got {array.dtype} array of shape "
                f"{array.shape}"
            )
        return array[:, :m].astype(np.int64), array[:, m:].astype(np.int64)

    def aggregate(self, reports: ArrayLike) -> NDArray[np.int64]:
        """Count, per value, the reports that sampled it with bit 1."""
        picks, bits = self.picks_and_bits(reports)
        self._values(picks.ravel())
        if np.any((bits != 0) & (bits != 1)):
            raise InputError("dBitFlipPM bits must be 0 or 1")
        return np.bincount(picks[bits == 1], minlength=self.domain_size).astype(np.int64)

    def users_per_batch(self) -> int:
        """About 4 million key cells a batch, whatever ``k`` is (bounded memory)."""
        return max(1, (1 << 22) // self.domain_size)

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        k, m = self.domain_size, self.sampled
        a, b = bit_probabilities(self.epsilon)
        own = rng.binomial(true_counts, m / k).astype(np.int64)
        # Own users (in _halving's sense) with m − 1 and m picks among the other values;
        # sample_support counts each own user at its value too, which is taken off.
        others = sample_support(own, m, 1.0, rng, self.kernels("own")) - own
        rest = true_counts - own
        if m < k and rest.any():
            others += sample_support(rest, m + 1, 1.0, rng, self.kernels("rest")) - rest
        return (rng.binomial(own, a) + rng.binomial(others, b)).astype(np.int64)

    # ---------------------------------------------------------------- privacy
    def worst_case_ratio(self) -> float:
        """``(a/b)² = e^ε`` when two sampled values' bits can differ, else ``a/b``."""
        a, b = bit_probabilities(self.epsilon)
        return (a / b) ** 2 if self.sampled >= 2 else a / b

    def _outputs(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        k, m = self.domain_size, self.sampled
        count = math.comb(k, m) * 2**m
        if count > _MAX_ENUMERATED:
            raise InputError(
                f"channel_matrix enumerates C(k, d')·2^d' = {count:,} reports; at most "
                f"{_MAX_ENUMERATED:,} are allowed"
            )
        subsets = list(itertools.combinations(range(k), m))
        patterns = list(itertools.product((0, 1), repeat=m))
        picks = np.array([s for s in subsets for _ in patterns], dtype=np.int64)
        bits = np.array([p for _ in subsets for p in patterns], dtype=np.int64)
        return picks, bits

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[y, v]`` over every (sampled values, bits) report, subsets in lexicographic order."""
        picks, bits = self._outputs()
        k, m = self.domain_size, self.sampled
        a, b = bit_probabilities(self.epsilon)
        channel = np.empty((picks.shape[0], k))
        for v in range(k):
            chance = np.where(picks == v, a, b)
            channel[:, v] = np.prod(np.where(bits == 1, chance, 1 - chance), axis=1)
        return channel / math.comb(k, m)

    def support_matrix(self) -> NDArray[np.float64]:
        """A report supports its sampled values whose bit is 1."""
        picks, bits = self._outputs()
        support = np.zeros((picks.shape[0], self.domain_size))
        rows = np.repeat(np.arange(picks.shape[0]), self.sampled)
        support[rows, picks.ravel()] = bits.ravel()
        return support

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """``v`` sampled with bit 1 and, when two are sampled, ``w`` sampled with bit 0."""
        picks, bits = self.picks_and_bits(reports)
        v_one = np.any((picks == v) & (bits == 1), axis=1)
        if self.sampled < 2:
            return np.asarray(v_one)
        return np.asarray(v_one & np.any((picks == w) & (bits == 0), axis=1))


@dataclass(frozen=True, kw_only=True)
class DBitFlip(DBitFlipPM):
    """dBitFlip drawn afresh at every report: the one-shot form of dBitFlipPM (not registered).

    Its rounds are independent draws and compose (the collecting-again plans' "afresh").
    """

    name: ClassVar[str] = "dBitFlip"
    memoizes_report: ClassVar[bool] = False


# Without memoization, dBitFlipPM is dBitFlip drawn afresh at every report.
DBitFlipPM.one_shot = DBitFlip

__all__ = ["D_BITS_MAX", "DBitFlip", "DBitFlipPM", "bit_probabilities"]
