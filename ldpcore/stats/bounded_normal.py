"""Confidence intervals for a normal mean known to be at least zero (Feldman–Cousins).

A frequency is never negative, but its unbiased estimate can be far below zero. The
central interval ``x ± z`` then lies wholly below zero, and clipped to ``[0, 1]`` it is
empty or the single point 0: "certainly none", although the value may be held by a few
users. Feldman and Cousins ("A unified approach to the classical statistical analysis of
small signals", Phys. Rev. D 57, 1998, Sec. IV.B) build the Neyman belt for a mean
``μ ≥ 0`` of ``x ~ N(μ, 1)`` by ordering the outcomes of each ``μ`` by the likelihood
ratio ``R(x) = φ(x − μ) / φ(x − μ̂)``, ``μ̂ = max(x, 0)``: every ``μ`` then keeps its
level exactly, and the interval of any ``x`` is never empty and never a single point.
Far below zero it is ``[0, u]`` with ``u > 0`` shrinking slowly as ``x`` falls; far
above zero it is the central interval.

The acceptance region of ``μ`` is ``[x₁, x₂]`` with ``R(x₁) = R(x₂)`` and
``Φ(x₂ − μ) − Φ(x₁ − μ) = level``. For ``x ≥ 0``, ``log R = −(x − μ)² / 2``; below
zero, ``log R = xμ − μ² / 2``. So ``x₁ = 2μ − x₂`` where that is not negative and
``x₁ = (μ² − (x₂ − μ)²) / (2μ)`` where it is; ``x₂`` is found by bisection, for every
``μ`` of a fine grid at once.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: The belt's grid of means, in standard deviations: fine enough that an interval's
#: ends move by at most this much from the exact construction.
GRID_STEP = 0.002
#: How far above the central interval's half-width the grid runs; beyond it the belt is
#: the central one (Feldman and Cousins, Table X: from μ ≈ 4 at 95%).
GRID_MARGIN = 6.0


def _lower_edge(mu: NDArray[np.float64], upper: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x₁`` with the same likelihood ratio as ``upper`` (``x₂``), for each mean."""
    mirrored = 2 * mu - upper
    with np.errstate(divide="ignore", invalid="ignore"):
        below = (mu**2 - (upper - mu) ** 2) / (2 * mu)
    return np.where(mirrored >= 0, mirrored, np.where(mu > 0, below, -np.inf))


@lru_cache(maxsize=8)
def belt(level: float) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The belt at ``level``: means ``μ`` and each one's acceptance region ``[x₁, x₂]``.

    A pure function of ``level`` (about 45 ms of bisection), kept for the few levels
    asked: every interval of a run, a class's every poll, asks the same one. The arrays
    are read-only, so no caller can change another's belt.
    """
    from scipy import special  # noqa: PLC0415 (loaded when an interval is first made)

    z = float(special.ndtri(0.5 + level / 2))
    mu = np.arange(0.0, z + GRID_MARGIN, GRID_STEP)
    low, high = mu.copy(), mu + z + 2.0  # x₂ lies in between: the region holds `level`
    for _ in range(60):
        middle = (low + high) / 2
        held = special.ndtr(middle - mu) - special.ndtr(_lower_edge(mu, middle) - mu)
        short = held < level
        low, high = np.where(short, middle, low), np.where(short, high, middle)
    edges = (mu, _lower_edge(mu, high), high)
    for edge in edges:
        edge.flags.writeable = False
    return edges


def feldman_cousins(x: ArrayLike, level: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ``level`` interval for ``μ ≥ 0`` from each observed ``x ~ N(μ, 1)``.

    Examples
    --------
    Two standard deviations below zero the mean is still allowed up to 0.62; at zero the
    interval is the one-sided [0, 1.96]; at 3 it is lifted off zero (a brute-force belt
    that sorts a fine grid of outcomes by ``R``, the paper's recipe, gives the same ends
    to its grid's 0.01: tests/stats/test_bounded_normal.py).

    >>> low, high = feldman_cousins([-2.0, 0.0, 3.0], 0.95)
    >>> [round(float(v), 2) for v in low], [round(float(v), 2) for v in high]
    ([0.0, 0.0, 1.14], [0.62, 1.96, 4.96])
    """
    from scipy import special  # noqa: PLC0415

    values = np.asarray(x, dtype=np.float64)
    mu, lower, upper = belt(level)
    # Both edges rise with μ: the means whose region holds x form one run of the grid.
    first = np.searchsorted(upper, values, side="left")
    last = np.searchsorted(lower, values, side="right") - 1
    low = mu[np.minimum(first, mu.size - 1)]
    high = mu[np.clip(last, 0, mu.size - 1)]
    # Beyond the grid the belt is the central one.
    z = float(special.ndtri(0.5 + level / 2))
    far = values > mu[-1] - z
    low = np.where(far, values - z, low)
    high = np.where(far | (last >= mu.size - 1), values + z, high)
    return low, high


__all__ = ["GRID_MARGIN", "GRID_STEP", "belt", "feldman_cousins"]
