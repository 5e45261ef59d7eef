"""The generalized view of a frequency oracle (NDSS 2020, Section III).

Every pure protocol has each user report a set ``Y`` of domain values: the user's
true value is in ``Y`` with probability ``p``, any other value with probability
``q < p``. The aggregator counts, for each value ``v``, the reports that support
it (``c_v``) and scales the count into an unbiased frequency estimate.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore import bounds
from ldpcore._validation import (
    check_counts,
    check_domain_size,
    check_epsilon,
    check_n_users,
    check_values,
)
from ldpcore.errors import InputError
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.rng import ClientRNG, RNGLike, as_generator

if TYPE_CHECKING:
    from ldpcore.protocols.likelihoods import LikelihoodModel
    from ldpcore.protocols.rounds import Chain

Sampler = Literal["fast", "per-user"]
SAMPLERS: tuple[Sampler, ...] = ("fast", "per-user")

#: Users randomized per batch on the per-user path; bounds memory, not results.
_USERS_PER_BATCH = 1 << 16
#: Report cells per batch for protocols whose report is a vector over the domain.
_CELLS_PER_BATCH = 1 << 22


@dataclass(frozen=True, kw_only=True)
class FrequencyOracle(ABC):
    """A frequency oracle under ε-LDP in the generalized (p, q) view.

    Subclasses set the class metadata, implement ``p``/``q``, the client
    randomizer (``randomize``), the server's aggregation (``aggregate``) and the
    fast support-count sampler (``_sample_fast``).

    Parameters
    ----------
    epsilon : float
        The privacy budget ε > 0.
    domain_size : int
        The number of values ``d``; user values are 0-based indices in ``[0, d)``.
    """

    #: Canonical registry name, e.g. ``"OLH"``.
    name: ClassVar[str]
    #: One line for people: what the protocol does.
    description: ClassVar[str]
    #: Where the protocol and its formulas come from.
    reference: ClassVar[str]
    #: When to choose it, in one sentence (the Explorer's protocol table and Learn).
    good_for: ClassVar[str] = ""
    #: What one report costs to send, for people comparing protocols.
    communication: ClassVar[str]
    #: Whether every Base estimate sums to exactly one (each report supports a fixed
    #: number of values: GRR one, SS k), so that adding a constant to reach a total of
    #: one (Norm) changes nothing. Tested against sampled estimates for every protocol.
    estimates_sum_to_one: ClassVar[bool] = False
    #: Constructor parameters besides ε and d, declared for the CLI and configs.
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = ()
    #: Whether the channel's worst ratio is exactly e^ε. False for a protocol whose
    #: published form post-processes an ε-LDP mechanism (THE thresholds SHE's noisy
    #: vector), so its reports are private at a smaller ε than the one asked for; the
    #: privacy tests then check its ratio against its own formula instead.
    spends_whole_budget: ClassVar[bool] = True
    #: Whether a user's whole report for a value is drawn once and sent again at every
    #: round (permanent memoization, dBitFlipPM): any number of reports then spends one
    #: report's ε, and the rounds are one draw repeated. A memoized *chain* that
    #: re-randomizes its memo declares :meth:`rounds_chain` instead.
    memoizes_report: ClassVar[bool] = False
    #: The protocol that randomizes afresh at every report, for a memoizing one (a chain's
    #: permanent round, dBitFlip for dBitFlipPM); None: the protocol itself.
    one_shot: ClassVar[type[FrequencyOracle] | None] = None
    #: Whether its reports are real vectors (SHE): its aggregate ("support counts") is then
    #: real sums, its channel a density (no ``channel_matrix``), and its ``p`` and ``q``
    #: those of the binomial with the same mean and variance, not probabilities of support.
    real_valued_reports: ClassVar[bool] = False
    #: Whether a report holds a cell per value (unary bits, SS's indicator, SHE's reals,
    #: dBitFlipPM's keys): batches of reports are then sized by cells
    #: (:func:`users_per_batch`), so memory stays bounded whatever d is.
    vector_reports: ClassVar[bool] = False
    #: Besides the support counts, what :meth:`tally` keeps per value, in order after them
    #: (dBitFlipPM: ``("sampled",)``, the users who sampled each value): the columns a
    #: counts file carries for the protocol's own estimator.
    tally_columns: ClassVar[tuple[str, ...]] = ()
    #: Whether the Base estimate is assembled from flat collections inside the protocol (a
    #: hierarchy's levels): it then is a :class:`~ldpcore.protocols.composite.Composite`,
    #: a method runs on each part with the part's own oracle, and the protocol joins the
    #: outputs. Its estimates are post-processed from their tallies; it has no support
    #: count per value.
    composite: ClassVar[bool] = False
    #: Whether the Base estimate is the (p, q) view's: each value's support count scaled
    #: by Eq. 2, with the variance of Eq. 3. False for a protocol whose estimate is made
    #: another way (a hierarchy's levels, the Square Wave's inverted channel): what reads
    #: ``p`` and ``q`` as that view (support counts, their files, fake users' gains,
    #: intervals, MLE-Apx and Power) then refuses it in words.
    support_view: ClassVar[bool] = True
    #: Whether the protocol is made for ordered values (ranges, quantiles): methods that
    #: smooth neighbouring values (EMS) then join "all methods" for it.
    ordered_values: ClassVar[bool] = False
    #: Whether climbing its likelihood to the top is affordable. False for the Square
    #: Wave: its positions blur the values, so its MLE is a deconvolution that EM reaches
    #: only after about 10⁵ steps (minutes per estimate at d = 73); MLE and IBU then
    #: refuse it in words, and EM stopped early (Li et al.'s own estimator) stands in.
    maximum_reachable: ClassVar[bool] = True
    #: Whether it declares a likelihood (:meth:`likelihood_model`). False for the Haar
    #: wavelet, whose estimate is exact as it comes: MLE, IBU, EM and EMS refuse it.
    offers_likelihood: ClassVar[bool] = True
    #: What its tallies count, for messages that refuse a protocol outside the (p, q)
    #: view (:attr:`support_view`).
    tallies_count: ClassVar[str] = "each value's support"
    #: The largest domain it takes (None: any within the bounds); the Square Wave keeps
    #: its channel's inverse, of d × (d + 2b) numbers.
    max_domain: ClassVar[int | None] = None
    #: Where :meth:`variance`'s exact form comes from, said beside an exact ε or count:
    #: NDSS Eq. 3 for a flat oracle's (p, q) estimator, the mechanism's paper otherwise.
    variance_source: ClassVar[str] = "NDSS Eq. 3"

    epsilon: float
    domain_size: int

    def __post_init__(self) -> None:
        # Frozen dataclass: normalised values are written once, here.
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "domain_size", check_domain_size(self.domain_size))

    # ------------------------------------------------------------------ (p, q)
    @property
    @abstractmethod
    def p(self) -> float:
        """Probability that a report supports the user's own value."""

    @property
    @abstractmethod
    def q(self) -> float:
        """Probability that a report supports a given other value."""

    def spent_epsilon(self) -> float:
        """The ε the reports are private at: ε, unless :attr:`spends_whole_budget` is False."""
        return self.epsilon

    def parameters(self) -> dict[str, Any]:
        """Return the constructor arguments that reproduce this protocol."""
        return {"epsilon": self.epsilon, "domain_size": self.domain_size}

    # --------------------------------------------------------------- accuracy
    def variance(self, frequencies: ArrayLike, n: int) -> NDArray[np.float64]:
        """Per-value variance of the Base estimate, NDSS Eq. (3).

        ``σ_v² = [q(1−q) + f_v (p−q)(1−p−q)] / [n (p−q)²]``. It is exact for every
        protocol here, because each ``c_v`` is a sum of independent Bernoulli
        indicators with success probability ``p`` (users with value ``v``) or
        ``q`` (everyone else).

        Parameters
        ----------
        frequencies : array_like
            True frequencies ``f_v`` (length ``d``).
        n : int
            Number of users.
        """
        n = check_n_users(n)
        f = np.asarray(frequencies, dtype=np.float64)
        if f.shape != (self.domain_size,):
            raise InputError(
                f"frequencies must have length domain_size={self.domain_size}, got shape {f.shape}"
            )
        p, q = self.p, self.q
        return (q * (1 - q) + f * (p - q) * (1 - p - q)) / (n * (p - q) ** 2)

    def approx_variance(self, n: int) -> float:
        """The f-free variance of the Base estimate, NDSS Eq. (5): ``q(1−q)/[n(p−q)²]``."""
        n = check_n_users(n)
        p, q = self.p, self.q
        return q * (1 - q) / (n * (p - q) ** 2)

    def likelihood_model(
        self, estimate: NDArray[np.float64], n: int, tallies: ArrayLike | None = None
    ) -> LikelihoodModel:
        """The likelihood the MLE and IBU maximise for this protocol's data.

        By default each support count is a binomial, ``c_v ~ Bin(n, q + (p − q) π_v)``
        (:class:`~ldpcore.protocols.likelihoods.SupportBinomialModel`), with the counts
        recovered from the Base estimate exactly, ``c_v = n (q + (p − q) f̃_v)``. A
        protocol with an exact model of its reports or tallies overrides this.
        """
        # scipy (the models' KL terms) loads here, not with the protocols.
        from ldpcore.protocols.likelihoods import SupportBinomialModel  # noqa: PLC0415

        counts = support_from_estimate(estimate, n, p=self.p, q=self.q)
        return SupportBinomialModel(counts, n, p=self.p, q=self.q)

    def estimate(self, support_counts: ArrayLike, n: int) -> NDArray[np.float64]:
        """Return the unbiased Base estimate ``f̃_v = (c_v/n − q)/(p − q)`` (NDSS Sec. III).

        Parameters
        ----------
        support_counts : array_like
            ``c_v``, the number of reports supporting each value (length ``d``).
        n : int
            Number of users who reported.
        """
        self._check_support_view()
        n = check_n_users(n)
        counts = check_counts(
            support_counts, name="support_counts", length=self.domain_size, maximum=n
        )
        return (counts / n - self.q) / (self.p - self.q)

    # --------------------------------------------------------------- sampling
    def sample_support_counts(
        self,
        true_counts: ArrayLike,
        rng: RNGLike = None,
        *,
        sampler: Sampler = "fast",
    ) -> NDArray[np.int64]:
        """Draw the support counts ``c`` that ``n = Σ true_counts`` users would produce.

        Parameters
        ----------
        true_counts : array_like
            ``n_v``, how many users hold each value (length ``d``).
        rng : Generator, int or None
            Source of randomness.
        sampler : {"fast", "per-user"}
            ``"fast"`` draws ``c`` directly from its exact distribution in time
            independent of ``n``; ``"per-user"`` runs the real client randomizer
            for every user and the server's aggregation (the slow reference path).

        Returns
        -------
        ndarray of int64
            One support count per value.
        """
        self._check_support_view()
        counts, generator = self._check_sampling(true_counts, rng, sampler)
        if sampler == "fast":
            return self._sample_fast(counts, generator)
        return self._sample_per_user(counts, generator)

    def _check_support_view(self) -> None:
        """Refuse, in words, support counts from a protocol outside the (p, q) view."""
        if not self.support_view:
            raise InputError(
                f"{self.name} has no support count per value: its tallies count "
                f"{self.tallies_count}; draw its tallies (sample_tallies) and estimate from "
                "them (estimate_from_tallies)"
            )

    def _check_sampling(
        self, true_counts: ArrayLike, rng: RNGLike, sampler: str
    ) -> tuple[NDArray[np.int64], np.random.Generator]:
        return check_sampling(self, true_counts, rng, sampler)

    def sample_tallies(
        self,
        true_counts: ArrayLike,
        rng: RNGLike = None,
        *,
        sampler: Sampler = "fast",
    ) -> NDArray[np.int64]:
        """Draw the report histogram the protocol's exact likelihood needs (its *tallies*).

        GRR's tallies are its support counts (how often each value was reported);
        HR's are the histogram of reported rows (length ``K``). For the other
        protocols the full report histogram is exponentially large, so their
        support counts stand in. ``support_from_tallies`` maps back to support counts
        with the same randomness, so both views of one trial agree.
        """
        counts, generator = self._check_sampling(true_counts, rng, sampler)
        if sampler == "fast":
            return self._tallies_fast(counts, generator)
        return self._tallies_per_user(counts, generator)

    def _tallies_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return self._sample_fast(true_counts, rng)

    def _tallies_per_user(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return self._summed_per_user(true_counts, rng, self.tally, None)

    def tally(self, reports: Any) -> NDArray[np.int64]:
        """The tallies of these reports: what :meth:`sample_tallies` draws, counted.

        Support counts unless the protocol's estimator or likelihood reads more of its
        reports (HR: the histogram of reported rows; dBitFlipPM: the users who sampled
        each value too, :attr:`tally_columns`). Tallies of two sets of reports add up.
        """
        return self.aggregate(reports)

    def support_from_tallies(self, tallies: ArrayLike) -> NDArray[np.int64]:
        """Turn the tallies of ``sample_tallies`` into support counts ``c_v``."""
        self._check_support_view()
        return check_counts(tallies, name="tallies", length=self.domain_size)

    def estimate_from_tallies(self, tallies: ArrayLike, n: int) -> NDArray[np.float64]:
        """The Base estimate from the tallies of :meth:`sample_tallies`.

        The support counts' estimate (:meth:`estimate`), unless the protocol's own
        estimator needs more of its reports than their support (dBitFlipPM: how many
        users sampled each value, Ding et al.'s estimator).
        """
        return self.estimate(self.support_from_tallies(tallies), n)

    def _sample_per_user(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return self._summed_per_user(true_counts, rng, self.aggregate, empty_support(self))

    def _summed_per_user(
        self,
        true_counts: NDArray[np.int64],
        rng: np.random.Generator,
        tally: Callable[[Any], Any],
        total: NDArray[Any] | None,
    ) -> NDArray[Any]:
        """``total`` plus ``tally`` of every batch of real reports (the per-user paths).

        ``total`` None: the first batch's tally starts the sum (no users: no reports'
        tally).
        """
        for values in _user_batches(true_counts, users_per_batch(self)):
            part = tally(self.randomize(values, rng))
            total = part if total is None else total + part
        if total is None:
            return np.asarray(tally(self.randomize(np.zeros(0, dtype=np.int64), rng)))
        return total

    @abstractmethod
    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """Draw support counts from their exact joint distribution, O(d) (or near) per call."""

    # ------------------------------------------------------ client and server
    @abstractmethod
    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> Any:
        """Apply the client randomizer to each user's value (0-based indices).

        Returns the protocol's reports; their format is given by the subclass. With
        ``rng=None`` the draws come from the OS's secure generator
        (:class:`ldpcore.rng.SecureRandom`); pass a Generator or a seed only to
        simulate reproducibly.
        """

    @abstractmethod
    def aggregate(self, reports: Any) -> NDArray[np.int64]:
        """Turn a batch of reports into support counts ``c_v`` (length ``d``)."""

    def _values(self, values: ArrayLike) -> NDArray[np.int64]:
        return check_values(values, domain_size=self.domain_size)

    # ------------------------------------------------ repeated collection
    def rounds_chain(self) -> Chain | None:
        """Its reports as a permanent then a fresh round (:mod:`ldpcore.protocols.rounds`).

        None where it has not been written as one: its rounds are then independent
        draws, its ε composes over them and the averaging attack is not described.
        """
        return None

    # ---------------------------------------------------------------- privacy
    @abstractmethod
    def worst_case_ratio(self) -> float:
        """Exact ``max_{y, v, v'} P(y | v) / P(y | v')`` over the protocol's outputs.

        Computed from the channel's structure rather than from ``epsilon``; ε-LDP
        holds if and only if it is at most ``e^ε``.
        """

    @abstractmethod
    def channel_matrix(self) -> NDArray[np.float64]:
        """Return ``Q[y, v] = P(report y | value v)`` with every output enumerated.

        Only for small domains (the output space can be exponential in ``d``);
        raises ``ValueError`` when it would be too large.
        """

    @abstractmethod
    def support_matrix(self) -> NDArray[np.float64]:
        """``M[y, v] = 1`` when output ``y`` (as enumerated by ``channel_matrix``) supports ``v``.

        With ``channel_matrix`` it gives the support counts' exact moments, a path
        independent of both samplers (the statistical tests use it).
        """

    @abstractmethod
    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """For each report, whether it lies in the event that best tells ``v`` from ``w``.

        The privacy audit (:mod:`ldpcore.collection.audit`) counts it for users of ``v`` and of
        ``w``; under a correct randomizer its probability ratio is at most ``e^ε``
        (exactly ``e^ε`` for the best event).
        """

    def __str__(self) -> str:
        extras = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in self.parameters().items()
            if k not in {"epsilon", "domain_size"}
        )
        tail = f", {extras}" if extras else ""
        return f"{self.name}(ε={self.epsilon:g}, d={self.domain_size}{tail})"


class ValueReports:
    """The report format of protocols whose report is one value in ``[0, d)`` (e.g. GRR).

    Mixed into a :class:`FrequencyOracle` subclass, it declares the audit's event (the
    report is ``v``) and the support matrix (outputs are the values), and makes the
    MLE use the exact multinomial likelihood of the reported values; its report files
    (one ``value`` column) are :mod:`ldpcore.collection.formats.value`'s.
    """

    domain_size: int
    if TYPE_CHECKING:  # the protocol it is mixed into has them (types only: no shadowing)

        @property
        def p(self) -> float:
            """Probability that a report supports the user's own value."""

        @property
        def q(self) -> float:
            """Probability that a report supports another given value."""

    def likelihood_model(
        self, estimate: NDArray[np.float64], n: int, tallies: ArrayLike | None = None
    ) -> LikelihoodModel:
        """The exact multinomial of the reported values (MLE paper, Eq. 22)."""
        from ldpcore.protocols.likelihoods import ReportModel  # noqa: PLC0415 (scipy)

        counts = support_from_estimate(estimate, n, p=self.p, q=self.q)
        return ReportModel(np.maximum(counts, 0.0), p=self.p, q=self.q)

    def support_matrix(self) -> NDArray[np.float64]:
        """Outputs are the ``d`` values; a report supports the value it is."""
        return np.eye(self.domain_size)

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """The report is ``v`` (probability ``p`` for ``v``'s users, ``q`` for ``w``'s)."""
        return np.asarray(reports) == v


def check_sampling(
    protocol: FrequencyOracle, true_counts: ArrayLike, rng: RNGLike, sampler: str
) -> tuple[NDArray[np.int64], np.random.Generator]:
    """The histogram a sampler draws for, checked, and its generator (one check for all).

    Raises :class:`~ldpcore.errors.InputError` for a histogram of the wrong length or
    with no user, an unknown sampler, or too many users for the per-user path.
    """
    counts = check_counts(true_counts, name="true_counts", length=protocol.domain_size)
    n = check_n_users(int(counts.sum()))
    if sampler not in SAMPLERS:
        raise InputError(f"sampler must be one of {', '.join(SAMPLERS)}; got {sampler!r}")
    if sampler == "per-user" and n > bounds.PER_USER_N_MAX:
        raise InputError(
            f"the per-user sampler handles at most {bounds.PER_USER_N_MAX:,} users, "
            f"got n={n:,}; use sampler='fast'"
        )
    return counts, as_generator(rng)


def users_per_batch(protocol: FrequencyOracle) -> int:
    """Users randomized at once on a per-user path (bounds memory, not results).

    About 4 million report cells a batch where a report is a vector over the domain.
    """
    if protocol.vector_reports:
        return max(1, _CELLS_PER_BATCH // protocol.domain_size)
    return _USERS_PER_BATCH


def empty_support(protocol: FrequencyOracle) -> NDArray[np.int64]:
    """The aggregate of no reports: zeros of ``aggregate``'s dtype (real for SHE)."""
    dtype = np.float64 if protocol.real_valued_reports else np.int64
    return np.zeros(protocol.domain_size, dtype=dtype)


def ratio_from_matrix(channel: NDArray[np.float64]) -> float:
    """Worst-case output-probability ratio of an explicit channel ``Q[y, v]``.

    An output that some input can produce and another cannot has an infinite ratio.
    """
    high = channel.max(axis=1)
    low = channel.min(axis=1)
    possible = high > 0
    if np.any(low[possible] == 0):
        return math.inf
    return float(np.max(high[possible] / low[possible]))


def _user_batches(true_counts: NDArray[np.int64], batch: int) -> Iterator[NDArray[np.int64]]:
    """Yield the users' values (sorted by value) in batches of at most ``batch``."""
    n = int(true_counts.sum())
    ends = np.cumsum(true_counts)
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        # value of user i is the first v with ends[v] > i
        yield np.searchsorted(ends, np.arange(start, stop), side="right").astype(np.int64)


def independent_support_counts(
    true_counts: NDArray[np.int64], p: float, q: float, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Support counts when each value's support is independent of the others' (O(d)).

    For unary encoding (independent bits) and OLH under an ideal hash, each
    ``c_v = Bin(n_v, p) + Bin(n − n_v, q)`` exactly, independently across ``v`` (NDSS
    2020, Sec. III): one draw per value, whatever ``n``.
    """
    n = int(true_counts.sum())
    return (rng.binomial(true_counts, p) + rng.binomial(n - true_counts, q)).astype(np.int64)


def support_from_estimate(
    estimate: ArrayLike, n: int, *, p: float, q: float
) -> NDArray[np.float64]:
    """Support counts from a Base estimate: ``c_v = n (q + (p − q) f̃_v)``, Eq. 2 inverted."""
    return n * (q + (p - q) * np.asarray(estimate, dtype=np.float64))
