"""Subset Selection: how often the best attacker guesses a user's value from one report.

The exact closed form for any d; :mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols.subset_selection import SubsetSelection


def guess_rate(protocol: SubsetSelection, prior: ArrayLike) -> float:
    """Exact MAP attacker success for a reported ``k``-subset ``S``, in O(d).

    The posterior is ``∝ π_v e^ε`` inside ``S`` and ``∝ π_v`` outside, so with
    ``π`` sorted decreasingly the guess is the first value of ``S`` if it is
    among the ``m`` values with ``π_v e^ε > π_1``, else the top value. The true
    value is in ``S`` with probability ``p``; the other members are uniform, so
    "none of the ``j`` values ranked above it are in ``S``" has a product form.
    """
    pi = np.sort(check_prior(prior, protocol.domain_size))[::-1]
    d, k, e, p = protocol.domain_size, protocol.subset_size, math.exp(protocol.epsilon), protocol.p
    m = int(np.count_nonzero(pi * e > pi[0])) or 1
    j = np.arange(m - 1, dtype=np.float64)
    # P(none of j given values among `picks` uniform picks from `pool` values).
    # A factor reaches 0 once more values must be missed than there is room for.
    miss_out = float(np.prod(np.maximum((d - 1 - k - j) / (d - 1 - j), 0.0)))
    miss_in = np.concatenate(([1.0], np.cumprod(np.maximum((d - k - j) / (d - 1 - j), 0.0))))
    top = pi[0] * (p + (1 - p) * miss_out)
    return float(top + p * np.dot(pi[1:m], miss_in[1:m]))
