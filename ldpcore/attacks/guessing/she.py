"""SHE: how often the best attacker guesses a user's value from one report.

The exact closed form for any d; :mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols.she import GRID_STEPS, SHE, noise_ratio

#: Cells of the (prior groups × levels) table computed at once; bounds memory only.
_BLOCK_CELLS = 1 << 22
#: The most distinct competing priors the guess rate compares exactly; beyond, they are
#: rounded to this many levels of ln π (within ``e^δ − 1``, ``δ`` the level's width).
GROUPS_MAX = 2_000


def guess_rate(protocol: SHE, prior: ArrayLike) -> float:
    """The MAP attacker's success rate, exactly: a sum over the grid's 65 score levels.

    The posterior of ``v`` given ``y`` is ``∝ π_v·r^{|k_v − 64| − |k_v|}`` (the other
    coordinates cancel), so the attacker guesses the largest score
    ``Z_v = ln π_v + (ε/2)·clip(2y_v − 1, −1, 1)``: independent scores, each on 65
    levels ``j = clip(64·y_v, 0, 64)``. The rate is ``Σ_u π_u P(Z_u beats every other
    | u)``, summed over ``Z_u``'s levels; values of equal prior share the levels and
    tie there (a uniform draw among the tied wins, which gives the optimal rate as any
    tie-break does: ``E[1/(1 + ties)] = ∫_0^1 (A + tM)^{k−1} dt``). Equal priors are
    grouped, so a uniform prior costs as little at d = 10⁶ as at d = 3. (Two different
    priors whose levels meet exactly would tie too; they are counted as not tied.)
    More than :data:`GROUPS_MAX` distinct competing priors are rounded to that many
    levels of ``ln π`` of width ``δ`` (their range over 1,999), which moves the rate
    by at most ``e^δ − 1``.
    """
    pi = check_prior(prior, protocol.domain_size)
    half, levels = protocol.noise_epsilon / 2.0, GRID_STEPS + 1
    values, repeats = np.unique(pi[pi > 0], return_counts=True)  # ascending
    logs, sizes = np.log(values), repeats.astype(np.float64)
    # No value wins below the second-best value's lowest score (counting repeats).
    second = logs[-1] if sizes[-1] >= 2 or logs.size == 1 else logs[-2]
    keep = logs + half >= second - half  # the rest never win and never beat a winner
    logs, sizes, values = logs[keep], sizes[keep], values[keep]
    if logs.size > GROUPS_MAX:
        logs, sizes, values = _rounded_groups(logs, sizes, values)
    other, own = _level_laws(protocol)
    below = np.concatenate([[0.0], np.cumsum(other)[:-1]])  # P(level < j), not own value
    scores = logs[:, None] + half * (2.0 * np.arange(levels) / GRID_STEPS - 1.0)
    beaten = _others_below(protocol, scores, logs, sizes)  # Σ_{g ≠ u} k_g ln P(Z_g ≤ z)
    rate = 0.0
    for group in range(logs.size):
        ties = sizes[group] - 1.0  # others of the same prior: same levels
        share = _tie_share(below, other, ties)
        correct = float(np.sum(own * np.exp(beaten[group]) * share))
        rate += sizes[group] * values[group] * correct
    return float(min(rate, 1.0))


def _level_laws(protocol: SHE) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """P(level j) for a coordinate that is not the user's value, and for the user's."""
    r = noise_ratio(protocol.epsilon)
    m = GRID_STEPS
    steps = np.arange(m + 1, dtype=np.float64)
    middle = (1.0 - r) / (1.0 + r) * np.power(r, steps)  # P(K = j), 0 < j < m
    other = middle.copy()
    other[0], other[m] = 1.0 / (1.0 + r), r**m / (1.0 + r)  # K <= 0, K >= m
    own = other[::-1].copy()  # y = 1 + K/m: level j is K = j − m
    return other, own


def _others_below(
    protocol: SHE,
    scores: NDArray[np.float64],
    logs: NDArray[np.float64],
    sizes: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``Σ_{g ≠ u} k_g ln P(Z_g ≤ scores[u, j])``, every group but row ``u``'s own."""
    other, _ = _level_laws(protocol)
    cumulative = np.cumsum(other)
    half, m = protocol.noise_epsilon / 2.0, GRID_STEPS
    total = np.zeros(scores.shape)
    step = max(1, _BLOCK_CELLS // max(1, scores.size))
    for start in range(0, logs.size, step):
        rows = slice(start, start + step)
        # Group g's level at or below each score: floor of (z − ln π_g + ε/2)·m/ε.
        level = np.floor(
            (scores[None, :, :] - logs[rows, None, None] + half) * m / protocol.noise_epsilon
        )
        with np.errstate(divide="ignore"):
            cdf = np.where(level < 0, 0.0, cumulative[np.clip(level, 0, m).astype(np.int64)])
            logged = np.log(cdf) * sizes[rows, None, None]
        own_rows = np.arange(logs.size)[None, :, None] == np.arange(logs.size)[rows, None, None]
        total += np.where(own_rows, 0.0, logged).sum(axis=0)
    return total


def _rounded_groups(
    logs: NDArray[np.float64], sizes: NDArray[np.float64], values: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The priors rounded to :data:`GROUPS_MAX` levels of ``ln π``, each level's mass kept.

    The guess rate ``Σ_y max_v π_v P(y | v)`` moves by at most ``Σ_v |π_v − π'_v|`` when
    ``π`` becomes ``π'`` (each max is 1-Lipschitz and ``Σ_y P(y | v) = 1``); a level of
    width ``δ`` moves each ``π_v`` by a factor within ``e^{±δ}``, so the rate by at most
    ``e^δ − 1`` (the docstring of :func:`guess_rate`).
    """
    width = (logs[-1] - logs[0]) / (GROUPS_MAX - 1)
    level = np.round((logs - logs[0]) / width).astype(np.int64)
    _, index = np.unique(level, return_inverse=True)
    counts = np.bincount(index, weights=sizes).astype(np.float64)
    mean = np.bincount(index, weights=sizes * values) / counts  # the level's mass kept
    return np.asarray(np.log(mean), dtype=np.float64), counts, mean


def _tie_share(
    below: NDArray[np.float64], mass: NDArray[np.float64], ties: float
) -> NDArray[np.float64]:
    """``E[1/(1 + T)·1{no tied other above}]`` per level: ``∫_0^1 (A + tM)^k dt``.

    ``A = P(level < j)`` and ``M = P(level = j)`` for each of the ``k = ties`` others of
    the same prior; ``((A + M)^{k+1} − A^{k+1}) / ((k + 1)M)``, in a cancellation-free form.
    """
    if ties == 0:
        return np.ones_like(below)
    k = ties + 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        top = np.exp(k * np.log(below + mass))
        # (A + M)^k·(1 − (A/(A + M))^k), the second factor by expm1: no 0·inf at large k.
        rise = top * -np.expm1(k * (np.log(below) - np.log(below + mass)))
        return np.where(mass > 0, rise / (k * mass), 0.0)
