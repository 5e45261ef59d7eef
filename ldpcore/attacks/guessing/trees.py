"""Hierarchies: how often the best attacker guesses a user's value from one report.

A report is a level ``ℓ`` (drawn independently of the value) and that level's oracle's
report about the node holding the value. Given the level, the report says nothing more
about where in its node the value lies, so the best guess is the likeliest value of the
node the level's attacker would pick:
``(1/h) Σ_ℓ Σ_y max_j P_ℓ(y | j) · max_{v ∈ j} π_v``. Each level's inner sum is the level
oracle's own guess rate for the node weights ``π'_j = max_{v ∈ j} π_v`` (scaled to sum
to one, and back: the rate is linear in the weights).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.hierarchy import Hierarchy

#: A level oracle's guess rate for a prior (:func:`ldpcore.attacks.guessing.guess_rate`).
LevelRate = Callable[[FrequencyOracle, ArrayLike], float]


def guess_rate(protocol: Hierarchy, prior: ArrayLike, *, level_rate: LevelRate) -> float:
    """Exact MAP attacker success for a hierarchy, from its levels' own rates."""
    pi = check_prior(prior, protocol.domain_size)
    layout = protocol.layout
    padded = np.concatenate((pi, np.zeros(layout.padded - pi.size)))
    total = 0.0
    for level, oracle in enumerate(protocol.levels, start=1):
        best = padded.reshape(-1, layout.span(level)).max(axis=1)[: oracle.domain_size]
        weight = float(best.sum())
        total += weight * level_rate(oracle, best / weight)
    return total / protocol.height


__all__ = ["guess_rate"]
