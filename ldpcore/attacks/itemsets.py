"""Fake users found by the values they all support: the frequent-itemset detection.

Cao, Jia and Gong (USENIX Security 2021, Sec. 6) observe that the maximal-gain attack's
fake reports all support the same set of targets, while an honest report supports two
given values together only by chance: the targets form an itemset far more frequent among
the reports than honest users make it. They mine the reports for frequent itemsets and
take the reports that contain one for fake.

What "more frequent than honest users make it" means is set here by a bound, not a chosen
support count. Under unary encoding (OUE, SUE and the chains over them) every bit is
flipped independently, so a report's support bits ``b_u`` and ``b_v`` for two values are
independent given the user's value, each set with probability ``q`` unless it is the
user's own value (then ``p``). So each honest user's centred product
``(b_u − q)(b_v − q)`` has mean zero, whatever the value distribution (one factor has
mean zero), and the pair's statistic

    ``T_uv = Σ_i (b_iu − q)(b_iv − q) = C_uv − q (C_u + C_v) + N q²``

(``C_uv`` the reports supporting both, ``C_u`` either one, ``N`` the reports) is a sum of
independent mean-zero terms, each at most ``M = (1 − q)²`` (``q ≤ ½``), with variance at
most ``σ² = q(1 − q) · max(q(1 − q), p(1 − p) + (p − q)²)``. Bernstein's inequality then
bounds an honest collection's chance of ``T_uv ≥ t`` by ``exp(−t²/(2(Nσ² + M t/3)))``;
the threshold makes it ``α / (d(d − 1)/2)`` for each pair, so that an honest collection
flags **any** pair with probability at most ``α`` (the union bound). Each fake report
supporting both adds ``(1 − q)²``.

Why not OLH, which Cao et al. also treat: there the two bits are ``[h(u) = y]`` and
``[h(v) = y]`` with ``y`` drawn from ``h(x)``, so their independence needs the hash to be
independent on *three* keys. The tool's family (:mod:`ldpcore.protocols.olh`) is
pairwise independent only: for keys in arithmetic progression (``x, u, 2u − x``) the
three hashes are linearly related, and an honest collection whose frequent value is
``x`` supports such pairs together beyond the bound (measured: at d = 64, n = 50,000,
ε = 1, a dozen pairs such as (2, 3) and (3, 5) with the value 1 frequent). A test for
OLH needs either a 3-wise independent hash or a bound that models the family.

The flagged pairs are grown into itemsets: from the strongest pair, values all of whose
pairs with the set are flagged join it, strongest first. A report that supports every
value of an itemset is flagged as a fake user's. An honest report does so by chance
(about ``q^r`` for ``r`` values), so the reports dropped include a few honest ones: the
detection's other false alarm, which :class:`ItemsetCheck` counts in expectation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes import fake_users, report_supports
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle

#: The default chance that an honest collection has any itemset flagged.
FALSE_ALARM = 1e-3
#: The most values the itemsets found may cover for the kept reports' correction, which
#: enumerates their 2^u bit patterns.
UNION_MAX = 16
#: Reports whose support bits are multiplied at once (a block of ``N × d`` floats).
_BLOCK = 1 << 14


@dataclass(frozen=True)
class PairCounts:
    """What the pairs' test needs of a collection, summed block by block.

    Attributes
    ----------
    reports : int
        ``N``, the reports counted.
    single : ndarray
        ``C_u``: the reports supporting each value.
    pairs : ndarray
        ``C_uv``: the reports supporting both (``d × d``, symmetric).
    """

    reports: int
    single: NDArray[np.int64]
    pairs: NDArray[np.int64]

    def __add__(self, other: PairCounts) -> PairCounts:
        return PairCounts(
            self.reports + other.reports, self.single + other.single, self.pairs + other.pairs
        )


@dataclass(frozen=True)
class ItemsetCheck:
    """What the frequent-itemset detection found.

    Attributes
    ----------
    itemsets : tuple of tuple of int
        The values found supported together far more often than honest users would.
    threshold : float
        The ``T_uv`` a pair had to exceed.
    statistics : ndarray
        ``T_uv`` for every pair (``d × d``; the diagonal is 0).
    false_alarm : float
        The bound on an honest collection's chance of any itemset.
    honest_share : float
        The chance an honest report supports every value of some itemset found (an
        upper bound, from ``p`` and ``q``): the share of honest reports dropped with the
        fakes.
    """

    itemsets: tuple[tuple[int, ...], ...]
    threshold: float
    statistics: NDArray[np.float64]
    false_alarm: float
    honest_share: float


def pair_counts(protocol: FrequencyOracle, reports: Any) -> PairCounts:
    """``N``, ``C_u`` and ``C_uv`` of ``reports``, in blocks of :data:`_BLOCK` reports."""
    supports = report_supports(protocol, reports)
    if supports is None:
        raise cannot_tell(protocol)
    d = protocol.domain_size
    pairs = np.zeros((d, d), dtype=np.int64)
    for start in range(0, supports.shape[0], _BLOCK):
        block = supports[start : start + _BLOCK].astype(np.float32)
        # float32 sums of 0/1 are exact below 2^24 per entry: a block is 2^14 rows.
        pairs += np.rint(block.T @ block).astype(np.int64)
    single = supports.sum(axis=0, dtype=np.int64)
    return PairCounts(int(supports.shape[0]), single, pairs)


def cannot_tell(protocol: FrequencyOracle) -> InputError:
    """The refusal for a protocol whose reports the itemset test does not read."""
    return InputError(
        f"the frequent-itemset detection reads unary-encoding reports (OUE, SUE), whose "
        f"bits are flipped independently; {protocol.name}'s are not"
    )


def pair_threshold(protocol: FrequencyOracle, reports: int, false_alarm: float) -> float:
    """The ``t`` with Bernstein's bound ``α / (d(d − 1)/2)`` on an honest pair's ``T_uv ≥ t``."""
    if not 0.0 < false_alarm < 1.0:
        raise InputError(f"false_alarm is a probability in (0, 1), got {false_alarm!r}")
    p, q, d = protocol.p, protocol.q, protocol.domain_size
    spread = q * (1 - q) * max(q * (1 - q), p * (1 - p) + (p - q) ** 2)
    most = (1 - q) ** 2
    log_odds = math.log(d * (d - 1) / 2 / false_alarm)
    # t² = 2L(Nσ² + Mt/3), the positive root.
    linear = most * log_odds / 3
    return linear + math.sqrt(linear**2 + 2 * log_odds * reports * spread)


def pair_statistics(protocol: FrequencyOracle, counts: PairCounts) -> NDArray[np.float64]:
    """``T_uv = C_uv − q (C_u + C_v) + N q²`` for every pair (diagonal 0)."""
    q = protocol.q
    single = counts.single.astype(np.float64)
    statistics = counts.pairs - q * (single[:, None] + single[None, :]) + counts.reports * q**2
    np.fill_diagonal(statistics, 0.0)
    return np.asarray(statistics, dtype=np.float64)


def grow_itemsets(flagged: NDArray[np.bool_], strength: NDArray[np.float64]) -> list[list[int]]:
    """Itemsets from the flagged pairs: cliques grown greedily from the strongest pair.

    A value joins the set when its pairs with every member are flagged, the one with
    the largest smallest statistic first; pairs inside a found set are not reused.
    """
    open_pairs = np.triu(flagged, 1).copy()
    found: list[list[int]] = []
    while open_pairs.any():
        scores = np.where(open_pairs, strength, -np.inf)
        u, v = np.unravel_index(int(np.argmax(scores)), scores.shape)
        members = [int(u), int(v)]
        while True:
            joins = np.asarray(flagged[members].all(axis=0), dtype=np.bool_)
            joins[members] = False
            if not joins.any():
                break
            weakest = np.where(joins, strength[members].min(axis=0), -np.inf)
            members.append(int(np.argmax(weakest)))
        members.sort()
        found.append(members)
        inside = np.zeros(open_pairs.shape, dtype=np.bool_)
        inside[np.ix_(members, members)] = True
        open_pairs &= ~inside
    return found


def detect(
    protocol: FrequencyOracle, counts: PairCounts, false_alarm: float = FALSE_ALARM
) -> ItemsetCheck:
    """The itemsets whose pairs are supported together beyond the honest bound."""
    threshold = pair_threshold(protocol, counts.reports, false_alarm)
    statistics = pair_statistics(protocol, counts)
    itemsets = tuple(tuple(s) for s in grow_itemsets(statistics > threshold, statistics))
    # An honest report supports all r values with chance at most p·q^(r−1) (own value
    # among them) or q^r: p ≥ q, so p·q^(r−1) bounds both.
    share = min(1.0, sum(protocol.p * protocol.q ** (len(s) - 1) for s in itemsets))
    return ItemsetCheck(itemsets, threshold, statistics, false_alarm, share)


def contains_itemset(
    protocol: FrequencyOracle, reports: Any, itemsets: tuple[tuple[int, ...], ...]
) -> NDArray[np.bool_]:
    """Which reports support every value of at least one itemset."""
    supports = report_supports(protocol, reports)
    if supports is None:
        raise cannot_tell(protocol)
    flagged = np.zeros(supports.shape[0], dtype=np.bool_)
    for itemset in itemsets:
        flagged |= supports[:, list(itemset)].all(axis=1)
    return flagged


def kept_channel(
    protocol: FrequencyOracle, itemsets: tuple[tuple[int, ...], ...]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """What an honest user of each value leaves among the reports kept.

    Returns ``A`` (``d × d``): ``A[v, x]``, the chance that a user of value ``x`` sends a
    report that is kept (it contains no itemset) and supports ``v``; and ``kept[x]``, the
    chance the report is kept. Unary bits are independent given ``x``, so only the bits of
    the itemsets' values (``U``, at most :data:`UNION_MAX` of them) are enumerated; a
    value outside ``U`` is supported independently of the report being kept.
    """
    d, p, q = protocol.domain_size, protocol.p, protocol.q
    union = sorted({v for itemset in itemsets for v in itemset})
    if len(union) > UNION_MAX:
        raise InputError(
            f"the itemsets found cover {len(union)} values, more than the {UNION_MAX} this "
            "correction enumerates; raise the false-alarm bound's strictness or look at the "
            "reports by hand"
        )
    states = (np.arange(1 << len(union))[:, None] >> np.arange(len(union))) & 1  # (S, u)
    position = {v: k for k, v in enumerate(union)}
    contains = np.zeros(states.shape[0], dtype=np.bool_)
    for itemset in itemsets:
        contains |= states[:, [position[v] for v in itemset]].all(axis=1)

    def union_law(own: int | None) -> tuple[float, NDArray[np.float64]]:
        """P(kept) and P(b_v = 1, kept) for v in U, for a user whose value is ``own``."""
        rates = np.full(len(union), q)
        if own is not None:
            rates[position[own]] = p
        chance = np.prod(np.where(states == 1, rates, 1 - rates), axis=1)
        kept = chance * ~contains
        return float(kept.sum()), kept @ states

    kept_share = np.empty(d)
    channel = np.empty((d, d))
    generic_kept, generic_union = union_law(None)
    for x in range(d):
        share, in_union = union_law(x) if x in position else (generic_kept, generic_union)
        kept_share[x] = share
        column = np.full(d, q * share)
        column[union] = in_union
        if x not in position:
            column[x] = p * share
        channel[:, x] = column
    return channel, kept_share


def screened_by_itemsets(
    protocol: FrequencyOracle, reports: Any, false_alarm: float = FALSE_ALARM
) -> tuple[NDArray[np.float64], int, ItemsetCheck]:
    """The honest users' estimate from the reports that contain no itemset found.

    Cao et al. drop the reports that contain an itemset and estimate from the rest. The
    honest reports dropped with the fakes are not a random sample: they support every
    value of the itemset (about ``p·q^(r−1)`` of them), so the plain estimate of those
    values falls below the truth, by more than the attack raised them at ε = 1 (the
    table in ``benchmarks/README.md``, "Two defences"). Here the kept counts are read
    through the channel of a *kept* honest report (:func:`kept_channel`): solving
    ``C_kept = A g`` for the honest users per value ``g`` gives an unbiased count, and
    the estimate is ``g / Σ g``. With no itemset found it is Base.

    Returns the estimate, how many reports were dropped, and the check.
    """
    check = detect(protocol, pair_counts(protocol, reports), false_alarm)
    flagged = contains_itemset(protocol, reports, check.itemsets)
    kept = np.asarray(reports)[~flagged]
    if not check.itemsets:
        return protocol.estimate(protocol.aggregate(kept), kept.shape[0]), 0, check
    if kept.shape[0] == 0:
        raise InputError("every report contains an itemset found: nothing is left to estimate")
    return (
        kept_estimate(protocol, protocol.aggregate(kept), check.itemsets),
        int(flagged.sum()),
        check,
    )


def kept_estimate(
    protocol: FrequencyOracle, kept_support: Any, itemsets: tuple[tuple[int, ...], ...]
) -> NDArray[np.float64]:
    """The honest users' frequencies from the kept reports' support counts.

    Solves ``C_kept = A g`` for the honest users per value ``g`` (:func:`kept_channel`)
    and returns ``g / Σ g``.
    """
    channel, _ = kept_channel(protocol, itemsets)
    users = np.linalg.solve(channel, np.asarray(kept_support, dtype=np.float64))
    return np.asarray(users / users.sum(), dtype=np.float64)


def readable(protocol: FrequencyOracle) -> bool:
    """Whether the detection reads this protocol's reports (unary encoding)."""
    return fake_users(protocol).report_supports is not None


__all__ = [
    "FALSE_ALARM",
    "UNION_MAX",
    "ItemsetCheck",
    "PairCounts",
    "cannot_tell",
    "contains_itemset",
    "detect",
    "grow_itemsets",
    "kept_channel",
    "kept_estimate",
    "pair_counts",
    "pair_statistics",
    "pair_threshold",
    "readable",
    "screened_by_itemsets",
]
