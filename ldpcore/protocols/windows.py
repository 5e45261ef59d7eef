"""Windows of consecutive values, summed by running sums (the Square Wave's channel).

Position ``y`` lies in value ``v``'s window when ``v ≤ y ≤ v + width − 1``; ``B`` is the
0/1 matrix of these windows. ``B x`` and ``Bᵀ r`` are both O(length) by running sums,
which is what makes the Square Wave's EM steps O(d) (:mod:`ldpcore.protocols.likelihoods`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def window_sums(x: NDArray[np.float64], width: int, length: int) -> NDArray[np.float64]:
    """``(B x)_y = Σ_{v = y − width + 1}^{y} x_v`` for ``y < length``, along the last axis.

    ``B`` is the 0/1 matrix of the windows (position ``y`` lies in value ``v``'s window
    when ``v ≤ y ≤ v + width − 1``); O(d) by running sums.
    """
    d = x.shape[-1]
    running = np.concatenate([np.zeros((*x.shape[:-1], 1)), np.cumsum(x, axis=-1)], axis=-1)
    y = np.arange(length)
    high = np.minimum(y, d - 1) + 1
    low = np.clip(y - width + 1, 0, d)
    return running[..., high] - running[..., low]


def window_adjoint(r: NDArray[np.float64], width: int, domain_size: int) -> NDArray[np.float64]:
    """``(Bᵀ r)_v = Σ_{y = v}^{v + width − 1} r_y``, along the last axis (O(length))."""
    running = np.concatenate([np.zeros((*r.shape[:-1], 1)), np.cumsum(r, axis=-1)], axis=-1)
    v = np.arange(domain_size)
    return running[..., v + width] - running[..., v]


__all__ = ["window_adjoint", "window_sums"]
