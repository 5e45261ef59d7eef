"""Collection repeated over rounds: a report as a chain of a permanent and a fresh round.

A memoizing protocol (RAPPOR, Erlingsson et al., CCS 2014, Sec. 3; the longitudinal
chains of Arcolezi et al., arXiv 2111.04636, Sec. 3) randomizes each user's value once,
*permanently*, and keeps that answer (the memo); every round's report is a fresh
randomization of the memo. A one-shot protocol is the same chain with a permanent round
that changes nothing (``p₁ = 1``, ``q₁ = 0``): every round randomizes the value afresh.

Two shapes of chain cover GRR and the unary encodings:

- ``"value"``: the memo is one value and each round is randomized response on it (GRR's
  mechanics: keep with ``p``, else one of the ``d − 1`` others uniformly, NDSS Eq. 1);
- ``"bits"``: the memo is a bit vector and each round flips every bit independently
  (a one keeps with ``p₂``, a zero turns to one with ``q₂``; Wang et al. 2017 Sec. 4.3).

For both, the chance that one round's report supports ``v`` is ``p = p₁p₂ + (1 − p₁)q₂``
for a user of ``v`` and ``q = q₁p₂ + (1 − q₁)q₂`` for any other user, independently across
users, so one round is a protocol of the generalized view (NDSS 2020 Sec. III) with these
``p`` and ``q``, and NDSS Eq. 3 is its exact variance.

Over ``T`` rounds of the same users (their values fixed), the memo is drawn once:
``M_v``, the users whose memo supports ``v``, is ``Bin(n_v, p₁) + Bin(n − n_v, q₁)``, and
each round ``c_v(t) = Bin(M_v, p₂) + Bin(n − M_v, q₂)`` given the memo. For the ``"value"``
shape the memos form a histogram and each round is GRR's exact sampler on it. So a round
costs O(d) whatever ``n`` is. The average of the ``T`` Base estimates has variance (law of
total variance, derived here and checked against simulation in ``tests/protocols/test_rounds.py``)::

    Var(f̄_v) = [(p₂ − q₂)² Var(M_v) + (E[M_v] p₂(1 − p₂) + (n − E[M_v]) q₂(1 − q₂)) / T]
               / [n² (p − q)²],

with ``Var(M_v) = n_v p₁(1 − p₁) + (n − n_v) q₁(1 − q₁)`` and ``E[M_v] = n_v p₁ + (n − n_v) q₁``:
the permanent round's share never averages away. At ``T = 1`` it is NDSS Eq. 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError
from ldpcore.rng import ClientRNG, as_source

ChainShape = Literal["value", "bits"]


@dataclass(frozen=True)
class Chain:
    """A permanent round ``(p₁, q₁)`` then a fresh round ``(p₂, q₂)`` per report.

    Parameters
    ----------
    shape : {"value", "bits"}
        Whether the memo is one value (GRR's rounds) or a bit vector (unary encoding's).
    domain_size : int
        ``d``.
    p1, q1 : float
        The permanent round: the memo supports the user's value with ``p₁``, another
        value with ``q₁``.
    p2, q2 : float
        Each report: it supports a value the memo supports with ``p₂``, another with
        ``q₂``.

    Examples
    --------
    >>> chain = Chain("bits", 4, p1=0.5, q1=0.25, p2=0.75, q2=0.25)
    >>> round(chain.p, 6), round(chain.q, 6)
    (0.5, 0.375)
    """

    shape: ChainShape
    domain_size: int
    p1: float
    q1: float
    p2: float
    q2: float

    @property
    def p(self) -> float:
        """One report supports the user's own value: ``p₁p₂ + (1 − p₁)q₂``."""
        return self.p1 * self.p2 + (1.0 - self.p1) * self.q2

    @property
    def q(self) -> float:
        """One report supports another value: ``q₁p₂ + (1 − q₁)q₂``."""
        return self.q1 * self.p2 + (1.0 - self.q1) * self.q2

    @property
    def memoized(self) -> bool:
        """Whether the permanent round randomizes (else every round is afresh)."""
        return self.q1 > 0.0

    # ------------------------------------------------------------ privacy
    def ratio_after(self, rounds: int) -> float:
        """The worst ratio ``P(T reports | v)/P(T reports | w)`` over every ``T`` reports.

        ``"value"``: the worst reports name ``v`` every round, giving
        ``[p₁p₂ᵀ + (1 − p₁)q₂ᵀ] / [q₁p₂ᵀ + (1 − q₁)q₂ᵀ]`` (the probability of a report
        sequence depends on it only through how often each value is named, and it grows
        with the count of ``v`` and falls with that of ``w``). ``"bits"``: the bits are
        independent, and per bit the ratio grows with its number of ones (monotone
        likelihood ratio, ``p₂ > q₂``), so the worst is ``v``'s bit always one and ``w``'s
        always zero. Both are checked against every report sequence at small ``d`` and
        ``T`` in ``tests/protocols/test_rounds.py``. A one-shot chain gives ``e^{Tε}``; a memoized
        one tends to the permanent round's ``p₁/q₁`` (times ``(1−q₁)/(1−p₁)`` for bits).
        """
        t = rounds
        p1, q1, p2, q2 = self.p1, self.q1, self.p2, self.q2
        # Divided through by p₂ᵗ (and (1 − q₂)ᵗ): the powers left are below one, so a long
        # collection underflows to the permanent round's ratio instead of 0/0.
        fall = (q2 / p2) ** t
        ones = (p1 + (1 - p1) * fall) / (q1 + (1 - q1) * fall)
        if self.shape == "value":
            return ones
        rise = ((1 - p2) / (1 - q2)) ** t
        zeros = (q1 * rise + (1 - q1)) / (p1 * rise + (1 - p1))
        return ones * zeros

    def epsilon_after(self, rounds: int) -> float:
        """``ln`` of :meth:`ratio_after`: what ``rounds`` reports of one value spend.

        A one-shot chain spends ``T`` times one report's ε, exactly, since ``rounds``
        independent reports can each fall on their worst output; computed so rather
        than through the ratio, which overflows for a large ``T``.
        """
        if not self.memoized:
            return rounds * math.log(self.ratio_after(1))
        return math.log(self.ratio_after(rounds))

    def permanent_epsilon(self) -> float:
        """The bound every number of rounds stays under: the permanent round's ε (ε∞)."""
        if not self.memoized:
            return math.inf
        if self.shape == "value":
            return math.log(self.p1 / self.q1)
        return math.log(self.p1 * (1 - self.q1) / (self.q1 * (1 - self.p1)))

    # -------------------------------------------------------------- users
    def memoize(self, values: NDArray[np.int64], rng: ClientRNG = None) -> NDArray[np.generic]:
        """Each user's memo: a value (``"value"``) or a bit vector (``"bits"``).

        A one-shot chain's memo is the value itself (one-hot for bits).
        """
        return self._round(self._encode(values), self.p1, self.q1, rng)

    def report(self, memo: NDArray[np.generic], rng: ClientRNG = None) -> NDArray[np.generic]:
        """One round's fresh reports from the users' memos."""
        return self._round(memo, self.p2, self.q2, rng)

    def _encode(self, values: NDArray[np.int64]) -> NDArray[np.generic]:
        if self.shape == "value":
            return values
        bits = np.zeros((values.size, self.domain_size), dtype=bool)
        bits[np.arange(values.size), values] = True
        return bits

    def _round(
        self, held: NDArray[np.generic], p: float, q: float, rng: ClientRNG
    ) -> NDArray[np.generic]:
        generator = as_source(rng)
        if self.shape == "bits":
            draws = np.asarray(generator.random(held.shape))
            return np.where(held, draws < p, draws < q)
        if p == 1.0:
            return held.copy()
        # GRR on the held value: keep it with p, else a uniform other (v + U{1..d−1} mod d).
        d = self.domain_size
        keep = np.asarray(generator.random(held.size)) < p
        other = (held + 1 + np.asarray(generator.integers(0, d - 1, size=held.size))) % d
        return np.where(keep, held, other).astype(np.int64)

    def counts(self, reports: NDArray[np.generic]) -> NDArray[np.int64]:
        """Support counts of one round's reports."""
        if self.shape == "bits":
            return np.asarray(reports.sum(axis=0, dtype=np.int64), dtype=np.int64)
        return np.bincount(reports.astype(np.int64), minlength=self.domain_size).astype(np.int64)

    # ------------------------------------------------------------ sampling
    def sample_rounds(
        self, true_counts: NDArray[np.int64], rounds: int, rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """``rounds`` rounds' support counts of the same users, exactly, O(d) per round.

        The memo is drawn once (its histogram, or each value's count of memo ones), then
        each round from it (module docstring).
        """
        n = int(true_counts.sum())
        held = self._counts_round(true_counts, self.p1, self.q1, rng)
        out = np.empty((rounds, self.domain_size), dtype=np.int64)
        for t in range(rounds):
            out[t] = self._counts_round(held, self.p2, self.q2, rng, total=n)
        return out

    def _counts_round(
        self,
        held: NDArray[np.int64],
        p: float,
        q: float,
        rng: np.random.Generator,
        *,
        total: int | None = None,
    ) -> NDArray[np.int64]:
        n = int(held.sum()) if total is None else total
        if self.shape == "bits":
            # Each column's ones keep with p, its zeros turn with q, independently.
            return (rng.binomial(held, p) + rng.binomial(n - held, q)).astype(np.int64)
        # GRR as a mixture (NDSS Eq. 1): keep with p − q, else uniform over all d values.
        kept = rng.binomial(held, p - q)
        spread = int(n - kept.sum())
        uniform = rng.multinomial(spread, np.full(self.domain_size, 1.0 / self.domain_size))
        return (kept + uniform).astype(np.int64)

    def sample_rounds_per_user(
        self, true_counts: NDArray[np.int64], rounds: int, rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """The slow reference: every user's memo, then every round's report, counted."""
        values = np.repeat(np.arange(self.domain_size), true_counts).astype(np.int64)
        memo = self.memoize(values, rng)
        return np.stack([self.counts(self.report(memo, rng)) for _ in range(rounds)])

    # ------------------------------------------------------------ accuracy
    def average_variance(self, frequencies: ArrayLike, n: int, rounds: int) -> NDArray[np.float64]:
        """Per value, the variance of the average of ``rounds`` Base estimates (module doc)."""
        f = np.asarray(frequencies, dtype=np.float64)
        own = n * f
        p1, q1, p2, q2 = self.p1, self.q1, self.p2, self.q2
        memo_variance = own * p1 * (1 - p1) + (n - own) * q1 * (1 - q1)
        memo_mean = own * p1 + (n - own) * q1
        fresh = memo_mean * p2 * (1 - p2) + (n - memo_mean) * q2 * (1 - q2)
        total = (p2 - q2) ** 2 * memo_variance + fresh / rounds
        return np.asarray(total / (n**2 * (self.p - self.q) ** 2), dtype=np.float64)

    # ------------------------------------------------------------ attack
    def guesses_after(
        self, values: NDArray[np.int64], rounds: int, rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """An averaging attacker's guess of each user's value from its ``rounds`` reports.

        Under a uniform prior the most likely value is the one the reports support most
        often: a report sequence's probability given ``v`` grows with ``v``'s count of
        support and depends on nothing else of ``v`` (:meth:`ratio_after`'s argument), so
        the guess is that count's argmax, ties broken at random. Each user's ``rounds``
        reports enter only through those counts, drawn exactly from the memo: a
        multinomial of ``rounds`` reports (``"value"``) or one binomial per bit.
        """
        memo = self.memoize(values, rng)
        d = self.domain_size
        if self.shape == "bits":
            support = rng.binomial(rounds, np.where(memo, self.p2, self.q2))
        else:
            probabilities = np.full((values.size, d), (1.0 - self.p2) / (d - 1))
            probabilities[np.arange(values.size), memo] = self.p2
            support = rng.multinomial(rounds, probabilities)
        jitter = rng.random(support.shape) * 0.5  # below one report: breaks ties only
        return np.asarray(np.argmax(support + jitter, axis=1), dtype=np.int64)


def solve_fresh_round(ratio_of: ChainRatio, *, target: float, upper: float) -> float:
    """The fresh round's ``u = e^{−ε₂}`` at which one report's worst ratio is ``target``.

    ``ratio_of(u)`` is one report's worst ratio with the fresh round at ``e^{−ε₂} = u``; it
    falls from ``ratio_of(0)`` (a fresh round that changes nothing: the permanent round's
    ratio) as ``u`` grows. Bisection on ``[0, upper]`` down to adjacent floating-point
    numbers: Arcolezi et al. give closed forms chain by chain (Sec. 3), and one search
    serves every chain (``tests/protocols/test_rounds.py`` checks the ratio it reaches).
    """
    most = ratio_of(0.0)
    if most < target * (1.0 - 1e-12):
        raise InputError(
            f"one report's ε can be at most {math.log(most):.4g} with this lifetime ε∞ "
            "(the permanent round's); lower epsilon or raise epsilon_inf"
        )
    if most <= target * (1.0 + 1e-12):
        return 0.0  # one report may spend all of ε∞: the fresh round keeps the memo
    low, high = 0.0, upper
    while True:
        middle = (low + high) / 2.0
        if middle in (low, high):
            return low
        if ratio_of(middle) >= target:
            low = middle
        else:
            high = middle


class ChainRatio:
    """One report's worst ratio as a function of the fresh round's ``u = e^{−ε₂}``."""

    def __init__(self, shape: ChainShape, d: int, p1: float, q1: float, fresh: FreshRound):
        self._shape, self._d, self._p1, self._q1, self._fresh = shape, d, p1, q1, fresh

    def chain(self, u: float) -> Chain:
        """The chain with the fresh round at ``u``."""
        p2, q2 = self._fresh(u, self._d)
        return Chain(self._shape, self._d, p1=self._p1, q1=self._q1, p2=p2, q2=q2)

    def __call__(self, u: float) -> float:
        """One report's worst ratio at ``u``."""
        return self.chain(u).ratio_after(1)


@dataclass(frozen=True)
class FreshRound:
    """A fresh round's ``(p₂, q₂)`` at ``u = e^{−ε₂}``: GRR's, SUE's or OUE's form."""

    kind: Literal["grr", "symmetric", "optimized"]

    def __call__(self, u: float, d: int) -> tuple[float, float]:
        """``(p₂, q₂)`` at ``u`` (``u = 0``: GRR and SUE keep everything; OUE keeps ½)."""
        if self.kind == "grr":  # NDSS Eq. 1: p = e^ε/(e^ε + d − 1), q = 1/(e^ε + d − 1)
            return 1.0 / (1.0 + (d - 1) * u), u / (1.0 + (d - 1) * u)
        if self.kind == "symmetric":  # SUE: p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p
            root = math.sqrt(u)
            return 1.0 / (1.0 + root), root / (1.0 + root)
        return 0.5, u / (1.0 + u)  # OUE: p = 1/2, q = 1/(e^ε + 1)


__all__ = ["Chain", "ChainRatio", "ChainShape", "FreshRound", "solve_fresh_round"]
