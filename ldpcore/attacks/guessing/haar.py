"""The Haar wavelet (HaarHRR): how often the best attacker guesses a value from one report.

The exact closed form for any d; :mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols.haar import HaarHRR, bit_parity


def guess_rate(protocol: HaarHRR, prior: ArrayLike) -> float:
    """Exact MAP attacker success over the reports ``(ℓ, r, bit)``.

    At level ``ℓ`` and row ``r`` the two bits split the values in two: those whose true
    bit is +1 and the rest. The likelier value of either set is guessed: one bit gives
    ``p·M`` (``M`` the largest ``π``, whose set it is), the other
    ``max(p·M', q·M)`` with ``M'`` the largest ``π`` of the other set. Value ``v`` is in the
    other set when ``s(v) s(v*) H[r, j(v) ⊕ j*] = −1``: candidates (each node's best
    value on either side) are taken from the largest down, each settling the rows where
    its parity holds (about half of those left), so a level costs about O(K log K).
    """
    pi = check_prior(prior, protocol.domain_size)
    padded = np.concatenate([pi, np.zeros(protocol.padded - pi.size)])
    top = int(np.argmax(padded))
    best = float(padded[top])
    p, q, h = protocol.p, protocol.q, protocol.height
    rate = 0.0
    for level in range(1, h + 1):
        span = protocol.padded >> (level - 1)
        halves = padded.reshape(-1, 2, span // 2).max(axis=2)  # (nodes, left/right)
        nodes = halves.shape[0]
        home = top // span
        same_side = 0 if top % span < span // 2 else 1
        shifted = np.arange(nodes) ^ home  # k = j ⊕ j*, per node j
        # Same side as v*: in the other set where H[r, k] = −1; the opposite side where +1.
        values = np.concatenate([halves[:, same_side], halves[:, 1 - same_side]])
        keys = np.concatenate([shifted, shifted])
        needs = np.concatenate([-np.ones(nodes, dtype=np.int64), np.ones(nodes, dtype=np.int64)])
        other = np.zeros(nodes)
        open_rows = np.arange(nodes)
        for at in np.argsort(-values, kind="stable"):
            if open_rows.size == 0 or values[at] <= 0.0:
                break
            sign = 1 - 2 * bit_parity(open_rows & keys[at])
            hit = sign == needs[at]
            other[open_rows[hit]] = values[at]
            open_rows = open_rows[~hit]
        rate += float(np.sum(p * best + np.maximum(p * other, q * best))) / (h * nodes)
    return rate
