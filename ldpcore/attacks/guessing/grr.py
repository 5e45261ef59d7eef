"""GRR: how often the best attacker guesses a user's value from one report.

The exact closed form for any d; :mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols.grr import GRR


def guess_rate(protocol: GRR, prior: ArrayLike) -> float:
    """Exact MAP attacker success: ``Σ_y max(p π_y, q · max_{v≠y} π_v)`` in O(d)."""
    pi = check_prior(prior, protocol.domain_size)
    top = int(np.argmax(pi))
    first, second = pi[top], np.partition(pi, -2)[-2]
    best_other = np.full(pi.size, first)
    best_other[top] = second
    return float(np.maximum(protocol.p * pi, protocol.q * best_other).sum())
