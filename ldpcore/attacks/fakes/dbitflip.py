"""dBitFlipPM's fake users: what a fake report is, and its support drawn exactly.

Cao, Jia and Gong (USENIX Security 2021) for the attacks; :mod:`ldpcore.attacks.fakes`
registers these functions for the protocol.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes.base import FakeUsers, not_described
from ldpcore.protocols._halving import sample_support
from ldpcore.protocols.dbitflip import DBitFlipPM

#: The attacks besides the random item attack, which needs nothing of the protocol.
ATTACKS = frozenset({"rpa", "mga"})


def support_rate(
    protocol: DBitFlipPM, kind: str, targets: NDArray[np.int64]
) -> NDArray[np.float64]:
    """A uniform report supports each value with ``(d'/k)·½``; the maximal-gain one the targets.

    Maximal gain (our derivation, after Cao, Jia and Gong 2021, Sec. 4, as for SS): a
    report supports at most ``d'`` values, its sampled ones with bit 1, so with
    ``r <= d'`` targets it samples all of them with bit 1 (and other values with bit
    0); with ``r > d'`` the fake users take the targets ``d'`` at a time in turn.
    """
    k, m, r = protocol.domain_size, protocol.sampled, targets.size
    if kind == "rpa":
        return np.full(k, m / k / 2.0)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    rate = np.zeros(k)
    rate[targets] = 1.0 if r <= m else m / r
    return rate


def support(
    protocol: DBitFlipPM,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Exactly: uniform subsets by halving, each pick's bit 1 with ½ (``rpa``); the targets'."""
    k, m = protocol.domain_size, protocol.sampled
    if kind == "rpa":
        users = np.zeros(k, dtype=np.int64)
        users[0] = fakes  # none keeps a value: where they sit does not matter
        picks = sample_support(users, m, 0.0, rng, protocol.kernels("fake"))
        return rng.binomial(picks, 0.5).astype(np.int64)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    return protocol.aggregate(reports(protocol, kind, targets, fakes, rng))


def reports(
    protocol: DBitFlipPM,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Uniform reports (``rpa``), or reports sampling the targets with bit 1 (``mga``)."""
    k, m, r = protocol.domain_size, protocol.sampled, targets.size
    if kind == "rpa":
        picks = np.argpartition(rng.random((fakes, k)), m - 1, axis=1)[:, :m]
        bits = rng.integers(0, 2, size=(fakes, m))
        return np.concatenate([picks, bits], axis=1).astype(np.int64)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    if r >= m:  # the targets d' at a time, in turn
        start = (np.arange(fakes) * m)[:, None] + np.arange(m)[None, :]
        picks = targets[start % r]
        bits = np.ones((fakes, m), dtype=np.int64)
    else:
        others = np.setdiff1d(np.arange(k), targets)
        chosen = np.argpartition(rng.random((fakes, others.size)), m - r - 1, axis=1)
        padding = others[chosen[:, : m - r]]
        picks = np.concatenate([np.tile(targets, (fakes, 1)), padding], axis=1)
        bits = np.concatenate(
            [np.ones((fakes, r), dtype=np.int64), np.zeros((fakes, m - r), dtype=np.int64)],
            axis=1,
        )
    return np.concatenate([picks, bits], axis=1).astype(np.int64)


def no_padding(protocol: DBitFlipPM, targets: int) -> int:
    """The other sampled values' bits are 0: they support nothing."""
    return 0


FAKES = FakeUsers(
    attacks=ATTACKS, support_rate=support_rate, support=support, reports=reports, padding=no_padding
)
