"""The Square Wave: how often the best attacker guesses a user's value from one position.

The exact closed form for any d; :mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols.square_wave import SquareWave


def guess_rate(protocol: SquareWave, prior: ArrayLike) -> float:
    """Exact MAP attacker success: ``Σ_y max(p · max_{v ∋ y} π_v, q · max_{v ∌ y} π_v)``.

    Position ``y`` lies in the windows of the values ``y − 2b … y``: the best guess is
    the likeliest of those (chance ``p`` each) or of the rest (chance ``q``). Running
    maxima from both ends give the rest's best in O(d); the windows' best is a sliding
    maximum, O(d · b) with ``d`` at most 2,048.
    """
    pi = check_prior(prior, protocol.domain_size)
    width, d = protocol.width, protocol.domain_size
    y = np.arange(protocol.outputs)
    padded = np.concatenate([np.zeros(width - 1), pi, np.zeros(width - 1)])
    inside = np.lib.stride_tricks.sliding_window_view(padded, width).max(axis=1)
    before = np.concatenate([[0.0], np.maximum.accumulate(pi)])  # best of values < k
    after = np.concatenate([np.maximum.accumulate(pi[::-1])[::-1], [0.0]])  # best of ≥ k
    outside = np.maximum(before[np.clip(y - width + 1, 0, d)], after[np.clip(y + 1, 0, d)])
    return float(np.maximum(protocol.p * inside, protocol.q * outside).sum())
