"""Subset Selection's fake users: what a fake report is, and its support drawn exactly.

Cao, Jia and Gong (USENIX Security 2021) for the attacks; :mod:`ldpcore.attacks.fakes`
registers these functions for the protocol.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes.base import FakeUsers, not_described
from ldpcore.protocols._halving import sample_support
from ldpcore.protocols.subset_selection import SubsetSelection

#: The attacks besides the random item attack, which needs nothing of the protocol.
ATTACKS = frozenset({"rpa", "mga"})


def support_rate(
    protocol: SubsetSelection, kind: str, targets: NDArray[np.int64]
) -> NDArray[np.float64]:
    """A uniform ``k``-subset holds each value with ``k/d``; the maximal-gain one the targets.

    Maximal gain (our derivation, after Cao, Jia and Gong 2021, Sec. 4): a report
    supports at most ``k`` values, so with ``r <= k`` targets it holds all of them and
    ``k − r`` of the others uniformly; with ``r > k`` the fake users take the targets
    ``k`` at a time in turn, each target held by ``k/r`` of them. Either way each fake
    report adds ``min(r, k)`` supported targets, the most a subset can.
    """
    d, k, r = protocol.domain_size, protocol.subset_size, targets.size
    if kind == "rpa":
        return np.full(d, k / d)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    if r > k:
        rate = np.zeros(d)
        rate[targets] = k / r
        return rate
    rate = np.full(d, (k - r) / (d - r) if d > r else 0.0)
    rate[targets] = 1.0
    return rate


def support(
    protocol: SubsetSelection,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Exactly, in O(log d) calls: uniform subsets by halving; the targets' counts fixed.

    The halving sampler draws the uniform reports (``rpa``) and the padding (``mga``).
    """
    d, k, r = protocol.domain_size, protocol.subset_size, targets.size
    if kind == "rpa":
        users = np.zeros(d, dtype=np.int64)
        users[0] = fakes  # none keeps a value: where they sit does not matter
        return sample_support(users, k, 0.0, rng, protocol.split_kernels)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    if r > k:
        return np.bincount(
            reports(protocol, kind, targets, fakes, rng).ravel(), minlength=d
        ).astype(np.int64)
    support = np.zeros(d, dtype=np.int64)
    support[targets] = fakes
    others = np.setdiff1d(np.arange(d), targets)
    if k > r and fakes:
        users = np.zeros(others.size, dtype=np.int64)
        users[0] = fakes
        # The kernels hold any population up to d: the protocol's own serve.
        support[others] = sample_support(users, k - r, 0.0, rng, protocol.split_kernels)
    return support


def reports(
    protocol: SubsetSelection,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Uniform ``k``-subsets (``rpa``), or subsets holding the targets (``mga``)."""
    d, k, r = protocol.domain_size, protocol.subset_size, targets.size
    if kind == "rpa":
        return np.argpartition(rng.random((fakes, d)), k - 1, axis=1)[:, :k].astype(np.int64)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    if r > k:  # the targets k at a time, in turn
        start = (np.arange(fakes) * k)[:, None] + np.arange(k)[None, :]
        return targets[start % r].astype(np.int64)
    others = np.setdiff1d(np.arange(d), targets)
    chosen = np.argpartition(rng.random((fakes, others.size)), max(k - r - 1, 0), axis=1)
    padding = others[chosen[:, : k - r]]
    return np.concatenate([np.tile(targets, (fakes, 1)), padding], axis=1).astype(np.int64)


def padding(protocol: SubsetSelection, targets: int) -> int:
    """The subset's slots the targets leave free."""
    return max(protocol.subset_size - targets, 0)


FAKES = FakeUsers(
    attacks=ATTACKS, support_rate=support_rate, support=support, reports=reports, padding=padding
)
