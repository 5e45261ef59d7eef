"""Hadamard Response's fake users: what a fake report is, and its support drawn exactly.

Cao, Jia and Gong (USENIX Security 2021) for the attacks; :mod:`ldpcore.attacks.fakes`
registers these functions for the protocol.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes.base import FakeUsers, not_described
from ldpcore.protocols.hadamard import HadamardResponse

#: The attacks besides the random item attack, which needs nothing of the protocol.
ATTACKS = frozenset({"rpa", "mga"})


def support_rate(
    protocol: HadamardResponse, kind: str, targets: NDArray[np.int64]
) -> NDArray[np.float64]:
    """A uniform row supports each value with ½; a joining row every target (exactly)."""
    if kind == "rpa":
        return np.full(protocol.domain_size, 0.5)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    rows = protocol.joining_rows(targets)
    histogram = np.bincount(rows, minlength=protocol.order)
    return protocol.support_from_rows(histogram) / rows.size


def support(
    protocol: HadamardResponse,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """The fake rows' histogram (one multinomial), then one FWHT: O(K log K)."""
    if kind == "rpa":
        histogram = rng.multinomial(fakes, np.full(protocol.order, 1.0 / protocol.order))
    elif kind == "mga":
        rows = protocol.joining_rows(targets)
        histogram = np.zeros(protocol.order, dtype=np.int64)
        histogram[rows] = rng.multinomial(fakes, np.full(rows.size, 1.0 / rows.size))
    else:
        raise not_described(protocol, kind, ATTACKS)
    return protocol.support_from_rows(histogram.astype(np.int64))


def reports(
    protocol: HadamardResponse,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Uniform rows (``rpa``), or uniform rows joining every target (``mga``)."""
    if kind == "rpa":
        return rng.integers(0, protocol.order, size=fakes).astype(np.int64)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    return rng.choice(protocol.joining_rows(targets), size=fakes).astype(np.int64)


FAKES = FakeUsers(attacks=ATTACKS, support_rate=support_rate, support=support, reports=reports)
