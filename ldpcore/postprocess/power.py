"""Power and PowerNS: calibration with a fitted power-law prior (Jia & Gong, INFOCOM 2019).

NDSS 2020, Section IV-E, Eq. (11); the count-domain form of reading note 7.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ldpcore.postprocess.base import Context, PostProcessor, Vector
from ldpcore.postprocess.normalization import project_to_simplex

#: Largest exponent considered for the prior (beyond it the prior is a point mass at 1).
_MAX_EXPONENT = 60.0
#: Counts below this are summed exactly; above it the summand is smooth.
_EXACT_BELOW = 256
#: Quadrature cells per posterior window; each cell uses 2-point Gauss–Legendre.
_CELLS = 160
#: The Gaussian likelihood is negligible beyond this many standard deviations.
_WINDOW_SIGMAS = 12.0
#: Windows up to this many counts wide are summed exactly, integer by integer.
_EXACT_WINDOW = 1024
#: Evaluate the posterior mean directly for up to this many values, else tabulate.
_DIRECT_LIMIT = 256


def power_sum(n: int, exponent: float) -> float:
    """``H(n, b) = Σ_{x=1}^{n} x^{−b}`` by Euler–Maclaurin (exact sum below 16).

    The correction terms up to ``B6`` make the relative error below 1e-12 for the
    smooth tail ``x ≥ 16``, for any ``b ≥ 0`` and any ``n`` (even 1e12).
    """
    b = exponent
    head_end = min(n, 15)
    head = float(np.sum(np.arange(1, head_end + 1, dtype=np.float64) ** -b))
    if n <= 15:
        return head
    m = 16.0
    big = float(n)
    one_minus_b = 1.0 - b
    if abs(one_minus_b) < 1e-12:
        integral = math.log(big / m)
    else:
        integral = (
            math.expm1(one_minus_b * math.log(big)) - math.expm1(one_minus_b * math.log(m))
        ) / one_minus_b

    def derivative(order: int, x: float) -> float:
        coefficient = 1.0
        for i in range(order):
            coefficient *= -(b + i)
        return coefficient * x ** (-b - order)

    corrections = (
        (m**-b + big**-b) / 2
        + (1 / 12) * (derivative(1, big) - derivative(1, m))
        - (1 / 720) * (derivative(3, big) - derivative(3, m))
        + (1 / 30240) * (derivative(5, big) - derivative(5, m))
    )
    return head + integral + corrections


def fit_power_law_exponent(mean_count: float, n: int) -> float:
    """The exponent ``a`` of ``P(x) ∝ x^{−a}`` on ``{1..n}`` whose mean is ``mean_count``.

    The mean ``H(n, a−1)/H(n, a)`` falls from ``(n+1)/2`` at ``a = 0`` to 1 as
    ``a → ∞``; a target outside that range gets the nearest end (``a = 0`` or the
    largest exponent considered).
    """
    if n == 1:
        return 0.0

    def mean(a: float) -> float:
        return power_sum(n, a - 1.0) / power_sum(n, a)

    if mean_count >= mean(0.0):
        return 0.0
    if mean_count <= mean(_MAX_EXPONENT):
        return _MAX_EXPONENT
    from scipy import optimize  # noqa: PLC0415 (not at import: the CLI's --help)

    return float(optimize.brentq(lambda a: mean(a) - mean_count, 0.0, _MAX_EXPONENT, xtol=1e-12))


def posterior_mean_counts(
    observed: NDArray[np.float64], *, exponent: float, noise_sd: float, n: int
) -> NDArray[np.float64]:
    """``E[x | c̃] = Σ x^{1−a} φ((c̃−x)/s) / Σ x^{−a} φ((c̃−x)/s)`` over ``x ∈ {1..n}``.

    Only ``x`` within ``12 s`` of ``c̃`` matter. When that window is at most 1024 counts
    wide it is summed exactly. Otherwise counts below 256 are summed exactly
    (the prior is steep there); above, each integer block ``[u, w)`` is replaced by
    the integral over ``[u − ½, w − ½]`` (the midpoint Euler–Maclaurin form) with
    2-point Gauss–Legendre on cells that are fine near the exact part and at most
    ``0.15 s`` wide elsewhere.
    """
    c = np.asarray(observed, dtype=np.float64)[:, None]
    s = noise_sd
    a = exponent
    # Clamp to {1..n}: an estimate beyond n (possible under noise) looks at x near n.
    lo = np.maximum(1.0, np.floor(np.minimum(c, float(n)) - _WINDOW_SIGMAS * s))
    hi = np.minimum(float(n), np.ceil(np.maximum(c, 1.0) + _WINDOW_SIGMAS * s) + 64.0)

    if _WINDOW_SIGMAS * 2 * s + 64 <= _EXACT_WINDOW:
        # Narrow noise: the summand changes within one count, so no integral
        # approximation is valid; sum every integer of each window exactly.
        offsets = np.arange(_EXACT_WINDOW + 2, dtype=np.float64)[None, :]
        x = lo + offsets
        log_w = np.where(x <= hi, 0.0, -np.inf)
        return _weighted_mean(x, log_w, c, a, s)

    near = lo[:, 0] < _EXACT_BELOW
    if near.all() or not near.any() or n < _EXACT_BELOW:
        return _mixed_quadrature(c, lo=lo, hi=hi, a=a, s=s, n=n, exact_part=bool(near.any()))
    # Rows whose window starts above the exact part skip its 255 nodes entirely.
    result = np.empty(c.shape[0])
    result[near] = _mixed_quadrature(
        c[near], lo=lo[near], hi=hi[near], a=a, s=s, n=n, exact_part=True
    )
    result[~near] = _mixed_quadrature(
        c[~near], lo=lo[~near], hi=hi[~near], a=a, s=s, n=n, exact_part=False
    )
    return result


def _mixed_quadrature(
    c: NDArray[np.float64],
    *,
    lo: NDArray[np.float64],
    hi: NDArray[np.float64],
    a: float,
    s: float,
    n: int,
    exact_part: bool,
) -> NDArray[np.float64]:
    nodes: list[NDArray[np.float64]] = []
    log_weights: list[NDArray[np.float64]] = []
    if exact_part:
        exact = np.arange(1, min(n, _EXACT_BELOW - 1) + 1, dtype=np.float64)[None, :]
        nodes.append(exact * np.ones_like(c))
        log_weights.append(np.where((exact >= lo) & (exact <= hi), 0.0, -np.inf))

    if n >= _EXACT_BELOW:
        start = np.maximum(lo, float(_EXACT_BELOW)) - 0.5
        stop = hi + 0.5
        active = stop > start
        stop = np.where(active, stop, start + 1.0)
        # Cells uniform in log(x − start + s/8): fine near `start`, ~uniform far away.
        offset = max(s / 8.0, 1.0)
        u = np.linspace(0.0, 1.0, _CELLS + 1)[None, :]
        span = np.log1p((stop - start) / offset)
        edges = start + offset * np.expm1(u * span)
        left, right = edges[:, :-1], edges[:, 1:]
        mid, half = (left + right) / 2, (right - left) / 2
        gauss = 1.0 / math.sqrt(3.0)
        cell_log_w = np.where(active, np.log(half), -np.inf)
        for sign in (-1.0, 1.0):
            nodes.append(mid + sign * gauss * half)
            log_weights.append(cell_log_w)

    return _weighted_mean(
        np.concatenate(nodes, axis=1), np.concatenate(log_weights, axis=1), c, a, s
    )


def _weighted_mean(
    x: NDArray[np.float64], log_w: NDArray[np.float64], c: NDArray[np.float64], a: float, s: float
) -> NDArray[np.float64]:
    """Posterior mean over nodes ``x`` with quadrature log-weights ``log_w`` (row per ``c``)."""
    log_w = log_w - a * np.log(x) - (x - c) ** 2 / (2.0 * s * s)
    log_w -= log_w.max(axis=1, keepdims=True)
    weights = np.exp(log_w)
    return (weights * x).sum(axis=1) / weights.sum(axis=1)


def power_calibrate(
    estimate: NDArray[np.float64], *, p: float, q: float, n: int
) -> NDArray[np.float64]:
    """Power's output (frequencies) for a Base estimate; see :class:`Power`."""
    counts = n * estimate
    noise_sd = math.sqrt(n * q * (1 - q)) / (p - q)
    exponent = fit_power_law_exponent(n / estimate.size, n)
    unique, inverse = np.unique(counts, return_inverse=True)
    if unique.size <= _DIRECT_LIMIT:
        return posterior_mean_counts(unique, exponent=exponent, noise_sd=noise_sd, n=n)[inverse] / n
    # Tabulate once: step s/4 where the prior's curvature matters, then 5% steps;
    # the posterior mean is smooth on the scale s, so a cubic interpolant is ample.
    low, high = float(unique[0]), float(unique[-1])
    core_end = min(high, max(low, 0.0) + 40.0 * noise_sd)
    grid = np.arange(low, core_end + noise_sd / 4, noise_sd / 4)
    if high > grid[-1]:
        grid = np.concatenate(
            [
                grid,
                np.geomspace(
                    grid[-1] * 1.05,
                    high * 1.05,
                    num=max(
                        2, math.ceil(math.log(high * 1.05 / (grid[-1] * 1.05)) / math.log(1.05)) + 1
                    ),
                ),
            ]
        )
    table = posterior_mean_counts(grid, exponent=exponent, noise_sd=noise_sd, n=n)
    # The posterior mean rises with c̃ (the Gaussian likelihood has a monotone
    # likelihood ratio), but a cubic spline may wiggle by rounding-sized amounts; a
    # running maximum over the sorted inputs restores the order exactly. (A monotone
    # PCHIP interpolant is 6× less accurate at the sharp bend near c̃ ≈ 4s.)
    from scipy import interpolate  # noqa: PLC0415 (not at import: the CLI's --help)

    fitted = interpolate.CubicSpline(grid, table)(unique)
    return np.maximum.accumulate(fitted)[inverse] / n


@dataclass(frozen=True, kw_only=True)
class Power(PostProcessor):
    """Posterior mean under a power-law prior fitted to the data (NDSS Sec. IV-E, Eq. 11).

    In counts (reading note 7): ``c̃ = n f̃`` is the true count ``x`` plus Gaussian
    noise of variance ``s² = n q(1−q)/(p−q)²`` (Eq. 5). The prior is
    ``P(x) ∝ x^{−a}`` on ``{1, …, n}`` with ``a`` chosen so that its mean is the
    average count ``n/d``. The output is ``E[x | c̃]/n``, non-negative (at least
    ``1/n``: the prior puts no mass on a count of 0) but not summing to one.
    With more than 256 distinct inputs the posterior mean is tabulated once and
    interpolated.
    """

    name: ClassVar[str] = "Power"
    description: ClassVar[str] = "Posterior mean under a fitted power-law prior"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "no"
    complexity: ClassVar[str] = "O(d log d) (tabulated posterior)"
    reference: ClassVar[str] = "Jia & Gong, INFOCOM 2019; NDSS 2020, Sec. IV-E, Eq. (11)"
    bias: ClassVar[str] = "Shrinks towards the fitted prior: rare values up, frequent ones down"
    formula: ClassVar[str] = r"f'_v = \mathbb{E}[x \mid \tilde c_v]/n,\quad P(x) \propto x^{-a}"
    explanation: ClassVar[str] = (
        "Assume frequencies follow a power law, fit it, and replace each estimate by its expected"
        " true value given the noisy observation. Very good on skewed data, worse when the "
        "assumption is wrong."
    )

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return power_calibrate(estimate, p=context.protocol.p, q=context.protocol.q, n=context.n)


@dataclass(frozen=True, kw_only=True)
class PowerNS(PostProcessor):
    """Norm-Sub applied to Power's output (NDSS Sec. IV-E)."""

    name: ClassVar[str] = "PowerNS"
    description: ClassVar[str] = "Power, then Norm-Sub so the estimates are consistent"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d log d) (tabulated posterior)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-E"
    bias: ClassVar[str] = "Like Power, then shifted so the total is 1"
    formula: ClassVar[str] = r"f' = \text{Norm-Sub}(\text{Power}(\tilde f))"
    explanation: ClassVar[str] = (
        "Power followed by Norm-Sub, so the result is also a proper distribution."
    )
    derived_from: ClassVar[str | None] = "Power"

    def from_parent(self, parent_output: NDArray[np.float64]) -> NDArray[np.float64]:
        """Norm-Sub of Power's output."""
        return project_to_simplex(parent_output)

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        protocol = context.protocol
        return self.from_parent(power_calibrate(estimate, p=protocol.p, q=protocol.q, n=context.n))
