"""Discrete Laplace noise drawn exactly, from uniform integers only.

Canonne, Kamath and Steinke ("The Discrete Gaussian for Differential Privacy",
NeurIPS 2020, Sec. 5) sample ``P(Y = y) ∝ e^{−|y| s/t}`` for whole ``s, t`` with no
floating point at all:

* **Bernoulli(e^{−γ})** for a rational ``γ = u/t`` in [0, 1] (their Algorithm 1): draw
  ``A_1, A_2, …`` with ``A_j ~ Bernoulli(γ/j)`` until one is 0; the number of draws
  made is odd with probability exactly ``e^{−γ}`` (the alternating series of ``e^{−γ}``).
  ``Bernoulli(γ/j)`` is ``Bernoulli(1/j)`` and ``Bernoulli(u/t)`` both 1, two uniform
  integers compared with a bound.
* **Discrete Laplace** (their Algorithm 2): ``U`` uniform on ``{0, …, t − 1}``, kept with
  probability ``e^{−U/t}``; ``V`` the number of ``Bernoulli(e^{−1})`` successes before the
  first failure; ``X = U + tV`` is then geometric with ratio ``e^{−1/t}``, and
  ``Y = ⌊X/s⌋`` geometric with ratio ``e^{−s/t}``; a fair sign, with ``−0`` rejected,
  makes it two-sided.

Every draw is a uniform integer from the caller's source (a numpy Generator, or the OS's
secure generator for a real client, :class:`ldpcore.rng.SecureRandom`), so the output
law is the discrete Laplace law itself, with no cut tail and no rounding: the privacy
ratio it gives is exact (``δ = 0``). The loops are vectorised; each ends with
probability at least ``1 − e^{−1}`` per pass, so a batch takes a few passes.

The arithmetic is in 64-bit integers: ``t`` at most 2⁵² and ``s/t`` at most 64 (the
callers' grid, :func:`dyadic_rate`); ``U + tV`` would pass 2⁶³ only for ``V`` of 2¹¹ or
more (probability ``e^{−2048}``), and is then computed in Python's unbounded integers.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from ldpcore.errors import InputError
from ldpcore.rng import RandomSource

#: The rates drawn here are multiples of ``2^−RATE_BITS``.
RATE_BITS = 52


def dyadic_rate(rate: float) -> Fraction:
    """``rate`` rounded *down* to a multiple of ``2^−52``: the rate the noise is drawn at.

    Rounding down only lowers the privacy loss (a smaller rate is more noise), and keeps
    the sampler's integers within 64 bits. Refused below ``2^−52`` and above 64.

    Examples
    --------
    >>> dyadic_rate(1 / 128)
    Fraction(1, 128)
    >>> float(1 / 1280 - dyadic_rate(1 / 1280)) < 2**-52
    True
    """
    steps = math.floor(rate * (1 << RATE_BITS))
    if not 1 <= steps <= 64 << RATE_BITS:
        raise InputError(f"a noise rate must be between 2^-52 and 64, got {rate!r}")
    return Fraction(steps, 1 << RATE_BITS)


def bernoulli_exp(
    source: RandomSource, numerator: NDArray[np.int64], denominator: int
) -> NDArray[np.bool_]:
    """Exact ``Bernoulli(e^{−u/t})`` per entry of ``u = numerator``, ``t = denominator``.

    Canonne, Kamath and Steinke 2020, Algorithm 1 (for ``0 ≤ u ≤ t``).
    """
    u = np.asarray(numerator, dtype=np.int64)
    if np.any(u < 0) or np.any(u > denominator):
        raise InputError("bernoulli_exp needs 0 <= numerator <= denominator")
    flat = u.ravel()
    result = np.empty(flat.size, dtype=bool)
    running = np.arange(flat.size)
    j = 1  # every entry still running has made the same number of draws
    while running.size:
        # A_j ~ Bernoulli(γ/j) = Bernoulli(1/j)·Bernoulli(u/t), independently.
        if j == 1:
            more = np.ones(running.size, dtype=bool)
        else:
            more = np.asarray(source.integers(0, j, size=running.size)) == 0
        if denominator == 1:  # Bernoulli(u) with u in {0, 1}
            more &= flat[running] == 1
        else:
            more &= np.asarray(source.integers(0, denominator, size=running.size)) < flat[running]
        # The run stops at the first A_j = 0, after j draws: 1 when j is odd.
        result[running[~more]] = j % 2 == 1
        running = running[more]
        j += 1
    return result.reshape(u.shape)


def _failures_before_stop(source: RandomSource, size: int) -> NDArray[np.int64]:
    """Successes of ``Bernoulli(e^{−1})`` before the first failure, ``size`` times."""
    count = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    while active.size:
        success = bernoulli_exp(source, np.ones(active.size, dtype=np.int64), 1)
        count[active[success]] += 1
        active = active[success]
    return count


def discrete_laplace(
    source: RandomSource, size: int | tuple[int, ...], rate: Fraction
) -> NDArray[np.int64]:
    """Exact draws of ``P(Y = y) = (1 − e^{−γ})/(1 + e^{−γ})·e^{−γ|y|}``, ``γ = rate``.

    Canonne, Kamath and Steinke 2020, Algorithm 2, with ``γ = s/t`` (a :class:`Fraction`,
    from :func:`dyadic_rate`).
    """
    s, t = rate.numerator, rate.denominator
    if not (0 < s <= 64 << RATE_BITS and 0 < t <= 1 << RATE_BITS):
        raise InputError(f"discrete_laplace needs a rate s/t with small s, t; got {rate}")
    shape = (size,) if isinstance(size, int) else tuple(size)
    total = math.prod(shape)
    out = np.empty(total, dtype=np.int64)
    pending = np.arange(total)
    while pending.size:
        u = np.asarray(source.integers(0, t, size=pending.size), dtype=np.int64)
        kept = bernoulli_exp(source, u, t)
        v = _failures_before_stop(source, int(kept.sum()))
        if v.size and int(v.max()) >= (np.iinfo(np.int64).max - t) // t:
            big = [(int(a) + t * int(b)) // s for a, b in zip(u[kept], v, strict=True)]
            magnitude = np.array(big, dtype=np.int64)
        else:
            magnitude = (u[kept] + t * v) // s
        negative = np.asarray(source.integers(0, 2, size=magnitude.size), dtype=bool)
        accept = ~(negative & (magnitude == 0))  # "−0" would count 0 twice
        placed = np.flatnonzero(kept)[accept]
        out[pending[placed]] = np.where(negative[accept], -magnitude[accept], magnitude[accept])
        retry = np.ones(pending.size, dtype=bool)
        retry[placed] = False
        pending = pending[retry]
    return out.reshape(shape)


def discrete_laplace_pmf(values: NDArray[np.int64], rate: Fraction) -> NDArray[np.float64]:
    """The law :func:`discrete_laplace` draws from, at ``values``."""
    r = math.exp(-float(rate))
    return np.asarray((1 - r) / (1 + r) * r ** np.abs(values), dtype=np.float64)


__all__ = [
    "RATE_BITS",
    "bernoulli_exp",
    "discrete_laplace",
    "discrete_laplace_pmf",
    "dyadic_rate",
]
