"""Exact maximisers of two likelihoods: GRR's reports and the support counts' binomials.

The closed forms behind :meth:`ReportModel.maximum
<ldpcore.protocols.likelihoods.ReportModel.maximum>` and
:meth:`SupportBinomialModel.maximum
<ldpcore.protocols.likelihoods.SupportBinomialModel.maximum>` (MLE paper,
Lopuhaä-Zwakenberg et al., Sec. 3.1, Eq. (22) and Appendix B). Models without one are
climbed by EM (:func:`ldpcore.postprocess.ibu.run_em`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray


def grr_mle(counts: NDArray[np.float64], *, p: float, q: float) -> NDArray[np.float64]:
    """Exact GRR MLE in O(d log d) (MLE paper, Appendix B, Algorithm 1; reading note 11).

    Maximise ``Σ_y s_y log(q + (p − q) π_y)`` over the simplex. With ``r = q/(p − q)
    = 1/(e^ε − 1)`` the KKT conditions give, on the kept set ``K``,
    ``π_y = (s_y / Σ_K s)(1 + |K| r) − r``, and ``π_y = 0`` elsewhere. The kept set is
    a top set of the counts; it shrinks until no kept value is negative. (The
    paper's printed update uses ``n − k`` where the derivation gives ``|K|``.)
    """
    if not counts.sum() > 0:  # no reports: a flat likelihood, every π a maximum
        return np.full(counts.size, 1.0 / counts.size)
    r = q / (p - q)
    order = np.argsort(-counts, kind="stable")
    ordered = counts[order]
    prefix = np.cumsum(ordered)
    size = ordered.size
    while True:
        scale = (1.0 + size * r) / prefix[size - 1]
        # π_y > 0 ⟺ s_y > r / scale; kept values are a prefix of the sorted counts.
        keep = int(np.searchsorted(-ordered[:size], -r / scale, side="left"))
        if keep >= size or keep == 0:
            break
        size = keep
    result = np.zeros(counts.size)
    result[order[:size]] = np.maximum(ordered[:size] * scale - r, 0.0)
    return result / result.sum()


def support_binomial_mle(
    counts: NDArray[np.float64], *, n: float, p: float, q: float
) -> NDArray[np.float64]:
    """Exact maximiser of ``Σ_v log Bin(c_v; n, q + (p − q) π_v)`` over the simplex.

    The objective is separable and concave. With ``t_v = q + (p − q) π_v`` the KKT
    conditions read ``(p − q)[c_v/t_v − (n − c_v)/(1 − t_v)] = μ`` where ``π_v > 0``.
    For a given ``μ`` (``m = μ/(p − q)``) each ``t_v`` is the root in ``(0, 1)`` of
    ``m t² − (m + n) t + c_v = 0``, ``t = 2c_v / ((m + n) + √((m + n)² − 4 m c_v))``;
    ``Σ_v π_v(μ)`` falls with ``μ``; a Newton iteration kept inside a shrinking
    bracket finds the ``μ`` where it is 1 (``_newton_in_bracket``).
    """
    c = counts
    gap = p - q

    def roots(m: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        b = m + n
        root = np.sqrt(np.maximum(b * b - 4.0 * m * c, 0.0))
        # The root in [0, 1], by whichever of the two equivalent forms is free of
        # cancellation: 2c/(b + √D) when b > 0, (b − √D)/(2m) when b ≤ 0 (then m < 0).
        t = 2.0 * c / (b + root) if b > 0 else (b - root) / (2.0 * m)
        return t, root

    def frequencies(m: float) -> NDArray[np.float64]:
        return np.clip((roots(m)[0] - q) / gap, 0.0, 1.0)

    # Bracket: at the largest slope at t = q every π is 0; at the smallest slope at
    # t = p every π is 1. Nudge both ends outwards so the signs are strict.
    with np.errstate(divide="ignore"):
        slope_q = c / q - (n - c) / (1 - q)
        slope_p = c / p - (n - c) / (1 - p)
    high = float(slope_q.max()) + 1.0
    low = float(slope_p.min()) - 1.0
    if frequencies(high).sum() > 1 or frequencies(low).sum() < 1:  # not in exact arithmetic
        raise ArithmeticError("support_binomial_mle: could not bracket the multiplier")
    m_star = _newton_in_bracket(roots, low=low, high=high, q=q, gap=gap)
    pi = frequencies(m_star)
    return pi / pi.sum()


def _newton_in_bracket(
    roots: Callable[[float], tuple[NDArray[np.float64], NDArray[np.float64]]],
    *,
    low: float,
    high: float,
    q: float,
    gap: float,
) -> float:
    """The ``m`` in ``[low, high]`` where ``Σ_v clip((t_v(m) − q)/gap, 0, 1) = 1``.

    The sum falls with ``m``: ``dt/dm = −t(1 − t)/√D`` (differentiate
    ``m t² − (m + n) t + c = 0``; ``2mt − (m + n) = −√D`` at the root taken). Newton
    steps from ``m = 0`` (where ``t = c/n``, the Base estimate), bisection whenever a
    step would leave the bracket. At the Explorer's defaults this takes 5–8
    evaluations where Brent's method from the bracket took about 34.
    """
    m = 0.0 if low < 0.0 < high else (low + high) / 2
    for _ in range(200):
        t, root = roots(m)
        pi = (t - q) / gap
        inside = (pi > 0.0) & (pi < 1.0)
        excess = float(np.clip(pi, 0.0, 1.0).sum()) - 1.0
        if excess > 0:
            low = m
        else:
            high = m
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = -float(np.sum((t * (1.0 - t) / root)[inside])) / gap
        step = excess / slope if slope < 0 else math.nan
        proposal = m - step
        if not low < proposal < high:
            proposal = (low + high) / 2
        if excess == 0.0 or abs(proposal - m) <= 1e-14 + 4 * np.finfo(float).eps * abs(m):
            return proposal if excess != 0.0 else m
        m = proposal
    return m


__all__ = ["grr_mle", "support_binomial_mle"]
