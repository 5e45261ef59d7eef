"""dBitFlipPM: d sampled bits with permanent memoization (Ding, Kulkarni, Yekhanin, NeurIPS 2017).

Microsoft's telemetry collection (Ding et al., Sec. 3): each user samples ``d'`` of the
``k`` values uniformly without replacement (independently of its own value) and sends,
for each sampled value ``j``, one bit: 1 with ``a = e^{ε/2}/(e^{ε/2} + 1)`` if ``j`` is
its value, with ``b = 1/(e^{ε/2} + 1)`` otherwise. Two sampled values' bits change the
report's probability by ``(a/b)² = e^ε`` at most, so it is ε-LDP (``d' >= 2``; with one
sampled value it is ε/2-LDP, and :meth:`DBitFlipPM.spent_epsilon` says so). *Permanent
memoization* (Sec. 4): a user's response to a value is drawn once and sent again at
every round while the value stays, so any number of rounds spends ε once per value.

**The Base estimate is Ding et al.'s** (Sec. 3) wherever the reports, or a simulation of
them, are at hand: each user who sampled ``v`` adds ``(b_v (e^{ε/2} + 1) − 1)/(e^{ε/2} − 1)``
(1 in expectation if ``v`` is its value, 0 otherwise), scaled by ``k/(n d')``. The
aggregate it needs keeps, per value, the bits equal to 1 *and* how many users sampled
it (the tallies, length ``2k``: :meth:`DBitFlipPM.tally`). Its variance is
``[(k/d') e^{ε/2}/(e^{ε/2} − 1)² + f_v (k/d' − 1)] / n`` (:meth:`DBitFlipPM.variance`).

In the generalized view (NDSS 2020 Sec. III) a report supports the sampled values whose
bit is 1: ``p = (d'/k)·a`` and ``q = (d'/k)·b``, and ``(c_v/n − q)/(p − q)`` replaces the
number of users who sampled ``v`` by its mean ``n d'/k``. Both are unbiased; the
generalized form's variance is larger by ``(e^{ε/2} + 1 − d'/k)/e^{ε/2}`` at ``f_v = 0``
(1.33 to 1.77 at the ε the tool offers), because the luck of the sampling enters it.
It stays where only support counts exist (a file of them, the fake users' simulation,
whose gain Cao et al. define through ``p`` and ``q``), and where a method needs ``p``
and ``q`` (the likelihood of MLE and IBU, the intervals' binomial model, which is
conservative for Ding's estimator).

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

from ldpcore._validation import check_counts, check_int, check_n_users
from ldpcore.errors import InputError
from ldpcore.protocols._halving import SplitKernels, sample_support
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.rng import ClientRNG, as_source

if TYPE_CHECKING:
    from ldpcore.protocols.likelihoods import LikelihoodModel

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

    vector_reports: ClassVar[bool] = True
    tally_columns: ClassVar[tuple[str, ...]] = ("sampled",)
    name: ClassVar[str] = "dBitFlipPM"
    description: ClassVar[str] = (
        "Microsoft's telemetry oracle: d' sampled values, one noisy bit each, memoized"
    )
    reference: ClassVar[str] = "Ding, Kulkarni & Yekhanin, NeurIPS 2017, Sec. 3-4"
    variance_source: ClassVar[str] = "Ding et al. Sec. 3"
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
            "d_bits",
            "dBitFlipPM's sampled values per report, 1 <= d_bits <= d (default 2, or d if less)",
            1,
            default=lambda _epsilon, d: min(2, d),
            examples=((1.0, 2), (1.0, 64)),
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

    def _draw(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Per value: the reports with its bit 1, and the reports that sampled it."""
        k, m = self.domain_size, self.sampled
        a, b = bit_probabilities(self.epsilon)
        own = rng.binomial(true_counts, m / k).astype(np.int64)
        # Own users (in _halving's sense) with m − 1 and m picks among the other values;
        # sample_support counts each own user at its value too, which is taken off.
        others = sample_support(own, m, 1.0, rng, self.kernels("own")) - own
        rest = true_counts - own
        if m < k and rest.any():
            others += sample_support(rest, m + 1, 1.0, rng, self.kernels("rest")) - rest
        ones = (rng.binomial(own, a) + rng.binomial(others, b)).astype(np.int64)
        return ones, (own + others).astype(np.int64)

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return self._draw(true_counts, rng)[0]

    # ------------------------------------------------- Ding et al.'s estimator
    def _tallies_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return np.concatenate(self._draw(true_counts, rng))

    def tally(self, reports: ArrayLike) -> NDArray[np.int64]:
        """Per value, the reports with its bit 1, then the reports that sampled it (2k)."""
        picks, _ = self.picks_and_bits(reports)
        sampled = np.bincount(picks.ravel(), minlength=self.domain_size).astype(np.int64)
        return np.concatenate([self.aggregate(reports), sampled])

    def split_tallies(
        self, tallies: ArrayLike, n: int | None = None
    ) -> tuple[NDArray[np.int64], NDArray[np.int64] | None]:
        """``(ones, sampled)`` from tallies of length 2k; ``(support, None)`` from k.

        Checked: whole and non-negative, no value's ones above its samplings, and with
        ``n`` the ``n·d'`` samplings every ``n`` reports make.
        """
        array = np.asarray(tallies)
        k = self.domain_size
        if array.shape != (2 * k,):
            return check_counts(array, name="support_counts", length=k), None
        ones = check_counts(array[:k], name="tallies (bits equal to 1)", length=k)
        sampled = check_counts(array[k:], name="tallies (times sampled)", length=k)
        if np.any(ones > sampled):
            raise InputError("a value has more bits equal to 1 than reports that sampled it")
        if n is not None and int(sampled.sum()) != n * self.sampled:
            raise InputError(
                f"{n:,} reports sample {n * self.sampled:,} values in all (d' = "
                f"{self.sampled}); these tallies have {int(sampled.sum()):,}"
            )
        return ones, sampled

    def support_from_tallies(self, tallies: ArrayLike) -> NDArray[np.int64]:
        """The bit-1 counts (the generalized view's support) from either form of tallies."""
        return self.split_tallies(tallies)[0]

    def estimate_from_tallies(self, tallies: ArrayLike, n: int) -> NDArray[np.float64]:
        """Ding, Kulkarni and Yekhanin's estimator (NeurIPS 2017, Sec. 3), from the 2k tallies.

        ``f̂_v = (k / (n d')) Σ_{users who sampled v} (b_v (e^{ε/2} + 1) − 1) / (e^{ε/2} − 1)``
        ``= (k / (n d')) [(e^{ε/2} + 1) c_v − K_v] / (e^{ε/2} − 1)``, with ``c_v`` the bits
        equal to 1 and ``K_v`` the users who sampled ``v``. A user who did not sample
        ``v`` adds nothing, so the luck of the sampling does not enter as it does in
        the generalized form (which replaces ``K_v`` by its mean ``n d'/k``). From
        support counts alone (length k) the generalized form is all there is.
        """
        n = check_n_users(n)
        ones, sampled = self.split_tallies(tallies, n)
        if sampled is None:
            return self.estimate(ones, n)
        half = math.exp(self.epsilon / 2.0)
        scale = self.domain_size / (n * self.sampled)
        return np.asarray(scale * ((half + 1.0) * ones - sampled) / (half - 1.0), dtype=np.float64)

    def likelihood_model(
        self, estimate: NDArray[np.float64], n: int, tallies: ArrayLike | None = None
    ) -> LikelihoodModel:
        """The support counts' binomials, from the bits equal to 1 when the tallies are given.

        Ding et al.'s estimate is not the generalized one, so the counts are not read
        back from it where the tallies hold them; without tallies the default applies.
        """
        if tallies is not None and np.shape(tallies) == (2 * self.domain_size,):
            # scipy (the models' KL terms) loads here, not with the protocols.
            from ldpcore.protocols.likelihoods import SupportBinomialModel  # noqa: PLC0415

            ones = self.split_tallies(np.asarray(tallies).astype(np.int64), n)[0]
            return SupportBinomialModel(ones.astype(np.float64), n, p=self.p, q=self.q)
        return super().likelihood_model(estimate, n, tallies)

    def variance(self, frequencies: ArrayLike, n: int) -> NDArray[np.float64]:
        """Ding et al.'s estimator's variance: ``[r e^{ε/2}/(e^{ε/2} − 1)² + f_v (r − 1)] / n``.

        ``r = k/d'``. Each user adds ``r·1[v sampled]·(b(e^{ε/2}+1) − 1)/(e^{ε/2} − 1)``,
        independently: its square's mean is ``r e^{ε/2}/(e^{ε/2} − 1)²`` for a user
        without ``v`` (mean 0) and ``r (e^ε − e^{ε/2} + 1)/(e^{ε/2} − 1)²`` with it (mean 1).
        The generalized form's (NDSS Eq. 3) is larger by the factor
        ``(e^{ε/2} + 1 − d'/k)/e^{ε/2}`` at ``f_v = 0``.
        """
        n = check_n_users(n)
        f = np.asarray(frequencies, dtype=np.float64)
        if f.shape != (self.domain_size,):
            raise InputError(
                f"frequencies must have length domain_size={self.domain_size}, got shape {f.shape}"
            )
        return (self._noise() + f * (self._ratio() - 1.0)) / n

    def approx_variance(self, n: int) -> float:
        """The f-free variance of Ding et al.'s estimator: ``r e^{ε/2}/[n (e^{ε/2} − 1)²]``."""
        return self._noise() / check_n_users(n)

    def _ratio(self) -> float:
        return self.domain_size / self.sampled

    def _noise(self) -> float:
        half = math.exp(self.epsilon / 2.0)
        return self._ratio() * half / (half - 1.0) ** 2

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
