"""dBitFlipPM: how often the best attacker guesses a user's value from one report.

The exact closed form for any d; :mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols.dbitflip import DBitFlipPM, bit_probabilities


def guess_rate(protocol: DBitFlipPM, prior: ArrayLike) -> float:
    """Exact MAP attacker success, in O(k log k + k·d').

    The posterior weighs ``v`` by ``π_v e^{ε/2}`` if sampled with bit 1, ``π_v`` if
    not sampled, ``π_v e^{−ε/2}`` if sampled with bit 0. Given the user's value ``v``
    and its own weight, each other value ``u`` outweighs it from some level on
    (always, from bit 0 up, or only with bit 1; ties go to the earlier of ``π``
    sorted decreasingly): ``v`` is guessed when no value outweighs it always, every
    value that outweighs it unless sampled with bit 0 is so, and none that outweighs
    it with bit 1 has it. The others' sampled values are a uniform subset, so that is
    a product of a hypergeometric factor and the bits' chances.
    """
    from scipy import special  # noqa: PLC0415 (loaded with the risk table only)

    pi = np.sort(check_prior(prior, protocol.domain_size))[::-1]
    k, m = protocol.domain_size, protocol.sampled
    a, b = bit_probabilities(protocol.epsilon)
    scale = math.exp(protocol.epsilon / 2.0)
    index = np.arange(k)

    def log_comb(top: NDArray[np.float64], bottom: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(
            special.gammaln(top + 1)
            - special.gammaln(bottom + 1)
            - special.gammaln(top - bottom + 1)
        )

    def beaten(level: int, own: int) -> NDArray[np.int64]:
        # How many u != v outweigh v when u's level is `level` and v's is `own`:
        # π_u A^level > π_v A^own, or equal and u earlier (a prefix of the order).
        target = pi * scale ** (own - level)
        ascending = -pi  # searchsorted needs ascending order
        strictly = np.searchsorted(ascending, -target, side="left")
        equal_or = np.searchsorted(ascending, -target, side="right")
        earlier_ties = np.clip(np.minimum(equal_or, index) - strictly, 0, None)
        count = strictly + earlier_ties
        return np.asarray(count - (strictly > index), dtype=np.int64)  # not v itself

    def clear(own: int, picks: int) -> NDArray[np.float64]:
        always = beaten(-1, own)
        from_zero = beaten(0, own)
        with_one = beaten(1, own)
        g0 = (from_zero - always).astype(np.float64)
        g1 = (with_one - from_zero).astype(np.float64)
        others = k - 1
        possible = (always == 0) & (g0 <= picks)
        left = np.maximum(picks - g0, 0.0)
        pool = others - g0
        # Every one of g0 picked (a hypergeometric share), each with bit 0 ...
        log_first = log_comb(pool, left) - log_comb(
            np.full(k, float(others)), np.full(k, float(picks))
        )
        first = np.exp(log_first) * (1 - b) ** g0
        # ... and of the g1 picked among the rest, each with bit 0.
        total = np.zeros(k)
        for h in range(m + 1):
            hh = np.full(k, float(h))
            ok = (hh <= g1) & (hh <= left) & (left - hh <= pool - g1)
            log_term = (
                log_comb(g1, np.minimum(hh, g1))
                + log_comb(pool - g1, np.clip(left - hh, 0, None))
                - log_comb(pool, left)
            )
            total += np.where(ok, np.exp(log_term) * (1 - b) ** h, 0.0)
        return np.where(possible, first * total, 0.0)

    share = m / k
    success = share * (a * clear(1, m - 1) + (1 - a) * clear(-1, m - 1))
    if m < k:
        success += (1 - share) * clear(0, m)
    return float(np.dot(pi, success))
