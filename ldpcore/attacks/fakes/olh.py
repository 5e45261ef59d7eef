"""Local hashing's (OLH, BLH) fake users: what a fake report is, and its support drawn exactly.

Cao, Jia and Gong (USENIX Security 2021) for the attacks; :mod:`ldpcore.attacks.fakes`
registers these functions for the protocol.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes.base import FakeUsers, not_described
from ldpcore.errors import InputError
from ldpcore.protocols.olh import MGA_TRIES_MAX, OLH, HashedReports, hash_values

#: The attacks besides the random item attack, which needs nothing of the protocol.
ATTACKS = frozenset({"rpa", "mga"})
#: No value kept out of the bucket: the flat maximal-gain report's shape.
_NOTHING: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
_NOTHING.flags.writeable = False


def support_rate(protocol: OLH, kind: str, targets: NDArray[np.int64]) -> NDArray[np.float64]:
    """A uniform report supports each value with ``1/g``; the maximal-gain one every target.

    Maximal gain (Cao, Jia and Gong 2021, Sec. 4.3): a hash under which every target
    falls in the reported bucket; under the ideal hash the other values still fall
    there with ``1/g`` each.
    """
    if kind == "rpa":
        return np.full(protocol.domain_size, protocol.q)
    if kind == "mga":
        return shaped_rate(protocol, targets, _NOTHING)
    raise not_described(protocol, kind, ATTACKS)


def support(
    protocol: OLH, kind: str, targets: NDArray[np.int64], fakes: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Independent ``Bin(m, 1/g)`` per value; ``m`` for every target under ``mga``.

    Under the ideal hash, as the honest sampler's. The real hash family's maximal-gain
    reports (:func:`reports`) put the other values in the targets' bucket a few
    per cent more or less often than ``1/g`` once the targets collide (up to 7% per
    value at d = 12, ``tests/attacks/test_attacks.py``); the targets' counts are exact.
    """
    if kind == "mga":
        return shaped_support(protocol, targets, _NOTHING, fakes, rng)
    if kind != "rpa":
        raise not_described(protocol, kind, ATTACKS)
    return rng.binomial(fakes, protocol.q, size=protocol.domain_size).astype(np.int64)


def reports(
    protocol: OLH, kind: str, targets: NDArray[np.int64], fakes: int, rng: np.random.Generator
) -> HashedReports:
    """Random seeds and buckets (``rpa``), or a hash that joins every target (``mga``).

    Maximal gain: seeds are searched until every target hashes to one bucket, which
    is reported (about ``g^(r−1)`` tries a fake user).
    """
    top = np.iinfo(np.uint64).max
    g = protocol.hash_range

    def seeds(size: int) -> tuple[NDArray[np.uint64], NDArray[np.uint64]]:
        drawn = rng.integers(0, top, size=(2, size), dtype=np.uint64, endpoint=True)
        return drawn[0], drawn[1]

    if kind == "rpa":
        a, b = seeds(fakes)
        return HashedReports(a, b, rng.integers(0, g, size=fakes).astype(np.int64))
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    return joining_reports(protocol, targets, fakes, rng)


def joining_reports(
    protocol: OLH,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
    *,
    avoid: NDArray[np.int64] | None = None,
) -> HashedReports:
    """Maximal-gain reports: seeds searched until every target hashes to one bucket.

    The bucket is reported: about ``g^(r−1)`` tries a fake user. ``avoid``: values
    the hash must also keep out of that bucket (``g/(g − 1)`` times the tries each,
    under an ideal hash), which an attacker on a tree's range asks of the nodes its
    reading subtracts.
    """
    top = np.iinfo(np.uint64).max
    g = protocol.hash_range
    shunned = _NOTHING if avoid is None else np.asarray(avoid, np.int64)
    tries = float(g) ** (targets.size - 1) * (g / (g - 1)) ** shunned.size
    if tries > MGA_TRIES_MAX:
        raise InputError(
            f"{protocol.name}'s maximal-gain attack needs a hash that sends all {targets.size} "
            f"targets to one of {g} buckets"
            + (f" and {shunned.size} other values out of it" if shunned.size else "")
            + f": about {tries:,.0f} tries a fake user; use at most "
            f"{1 + int(math.log(MGA_TRIES_MAX, g))} targets"
        )
    multiplier = np.zeros(fakes, dtype=np.uint64)
    offset = np.zeros(fakes, dtype=np.uint64)
    bucket = np.zeros(fakes, dtype=np.int64)
    pending = np.arange(fakes)
    drawn_in_all, give_up = 0, 100 * (fakes + 1) * max(tries, 1.0) + (1 << 22)
    while pending.size:
        batch = np.repeat(pending, max(1, min(int(4 * tries), 1 << 20) // pending.size))
        a, b = rng.integers(0, top, size=(2, batch.size), dtype=np.uint64, endpoint=True)
        hashed = hash_values(a[:, None], b[:, None], targets[None, :], g)
        found = np.all(hashed == hashed[:, :1], axis=1)
        if shunned.size:
            kept_out = hash_values(a[:, None], b[:, None], shunned[None, :], g)
            found &= np.all(kept_out != hashed[:, :1], axis=1)
        # Each pending fake user takes its first hit.
        hits = np.flatnonzero(found)
        users, first = np.unique(batch[hits], return_index=True)
        chosen = hits[first]
        multiplier[users], offset[users] = a[chosen], b[chosen]
        bucket[users] = hashed[chosen, 0]
        pending = np.setdiff1d(pending, users)
        drawn_in_all += batch.size
        if pending.size and drawn_in_all > give_up:
            raise InputError(
                f"{protocol.name}'s hash rarely joins these targets while keeping the others "
                f"out: {drawn_in_all:,} seeds tried; ask for fewer targets"
            )
    return HashedReports(multiplier, offset, bucket)


def shaped_rate(
    protocol: OLH, targets: NDArray[np.int64], avoid: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Every target in the reported bucket, ``avoid`` out of it, the others ``1/g``."""
    rate = np.full(protocol.domain_size, protocol.q)
    rate[targets] = 1.0
    rate[avoid] = 0.0
    return rate


def shaped_support(
    protocol: OLH,
    targets: NDArray[np.int64],
    avoid: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """``Bin(m, 1/g)`` per other value under the ideal hash; ``m`` and 0 where fixed."""
    support = rng.binomial(fakes, protocol.q, size=protocol.domain_size).astype(np.int64)
    support[targets] = fakes
    support[avoid] = 0
    return support


def shaped_reports(
    protocol: OLH,
    targets: NDArray[np.int64],
    avoid: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> HashedReports:
    """A hash searched to join the targets and keep ``avoid`` out (:func:`joining_reports`)."""
    return joining_reports(protocol, targets, fakes, rng, avoid=avoid)


FAKES = FakeUsers(
    attacks=ATTACKS,
    support_rate=support_rate,
    support=support,
    reports=reports,
    shaped_rate=shaped_rate,
    shaped_support=shaped_support,
    shaped_reports=shaped_reports,
)
