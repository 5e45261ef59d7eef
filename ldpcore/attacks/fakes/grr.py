"""GRR's fake users: what a fake report is, and its support drawn exactly.

Cao, Jia and Gong (USENIX Security 2021) for the attacks; :mod:`ldpcore.attacks.fakes`
registers these functions for the protocol.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes.base import FakeUsers, not_described
from ldpcore.protocols.grr import GRR

#: The attacks besides the random item attack, which needs nothing of the protocol.
ATTACKS = frozenset({"rpa", "mga"})


def support_rate(protocol: GRR, kind: str, targets: NDArray[np.int64]) -> NDArray[np.float64]:
    """A uniform report supports each value with 1/d; the maximal-gain one a target.

    Cao, Jia and Gong 2021, Sec. 4.1: the fake users report the targets in turn, so
    each target is reported by ``1/r`` of them (gain ``β(1 − f_T) + β(d − r)/(e^ε − 1)``).
    """
    if kind == "rpa":
        return np.full(protocol.domain_size, 1.0 / protocol.domain_size)
    if kind == "mga":
        rate = np.zeros(protocol.domain_size)
        rate[targets] = 1.0 / targets.size
        return rate
    raise not_described(protocol, kind, ATTACKS)


def support(
    protocol: GRR, kind: str, targets: NDArray[np.int64], fakes: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """A report's support is the reported value: one multinomial, or the targets' turns."""
    if kind == "rpa":
        return rng.multinomial(fakes, np.full(protocol.domain_size, 1.0 / protocol.domain_size))
    if kind == "mga":
        support = np.zeros(protocol.domain_size, dtype=np.int64)
        turns, extra = divmod(fakes, targets.size)
        support[targets] = turns
        support[targets[:extra]] += 1  # fake user i reports target i mod r
        return support
    raise not_described(protocol, kind, ATTACKS)


def reports(
    protocol: GRR, kind: str, targets: NDArray[np.int64], fakes: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Uniform values (``rpa``), or the targets in turn (``mga``)."""
    if kind == "rpa":
        return rng.integers(0, protocol.domain_size, size=fakes).astype(np.int64)
    if kind == "mga":
        return targets[np.arange(fakes) % targets.size].astype(np.int64)
    raise not_described(protocol, kind, ATTACKS)


def no_padding(protocol: GRR, targets: int) -> int:
    """A GRR report is one value: nothing besides the target."""
    return 0


FAKES = FakeUsers(
    attacks=ATTACKS,
    support_rate=support_rate,
    support=support,
    reports=reports,
    padding=no_padding,
)
