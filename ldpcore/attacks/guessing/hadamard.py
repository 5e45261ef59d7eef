"""Hadamard Response: how often the best attacker guesses a user's value from one report.

The exact closed form for any d; :mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols.hadamard import HadamardResponse


def guess_rate(protocol: HadamardResponse, prior: ArrayLike) -> float:
    """Exact MAP attacker success ``(2/K) Σ_r max(p · max_{+} π, (1−p) · max_{−} π)``.

    ``max_{+}`` and ``max_{−}`` are the largest prior among the values whose
    column is +1 / −1 in row ``r``. Walking the values from the most to the least
    likely, each one settles, for every row still open, the side its sign falls
    on; a row is closed once both sides are known, and about half the open rows
    close per value, so the walk takes ``O(K log K)`` sign evaluations, not ``K·d``.
    """
    pi = check_prior(prior, protocol.domain_size)
    order, p = protocol.order, protocol.p
    by_prior = np.argsort(-pi, kind="stable")
    rows = np.arange(order, dtype=np.int64)
    best_in = np.zeros(order)
    best_out = np.zeros(order)
    need_in = np.ones(order, dtype=bool)
    need_out = np.ones(order, dtype=bool)
    open_rows = rows
    for value in by_prior:
        if open_rows.size == 0 or pi[value] == 0:
            break
        negative = (np.bitwise_count(open_rows & (int(value) + 1)) & 1).astype(bool)
        fill_in = open_rows[~negative & need_in[open_rows]]
        fill_out = open_rows[negative & need_out[open_rows]]
        best_in[fill_in], need_in[fill_in] = pi[value], False
        best_out[fill_out], need_out[fill_out] = pi[value], False
        open_rows = open_rows[need_in[open_rows] | need_out[open_rows]]
    return float(2.0 / order * np.maximum(p * best_in, (1 - p) * best_out).sum())
