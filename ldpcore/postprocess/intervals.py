"""An interval on every estimated frequency, from the Base estimate's exact variance.

Whatever the protocol, each user's report supports value ``v`` with probability ``p``
if ``v`` is their value and ``q`` otherwise, independently of the other users. So the
support count is ``c_v ~ Bin(n f_v, p) + Bin(n (1 − f_v), q)`` and the Base estimate
``f̃_v = (c_v / n − q) / (p − q)`` is unbiased with variance (NDSS 2020, Eq. 3)

    Var f̃_v = A + B f_v,   A = q(1 − q) / (n (p − q)²),   B = (1 − p − q) / (n (p − q)).

The interval for the true ``f_v`` is the score interval: every ``f`` in [0, 1] with
``(f̃_v − f)² ≤ z² (A + B f)``, a quadratic in ``f`` solved exactly (Wilson's
construction for a binomial proportion, here for the protocol's noise). It is a
confidence interval for the *truth*, so it is valid whichever post-processing method
made the point estimate; :func:`frequency_intervals` widens it, where needed, to
contain the method's estimate (a union only adds coverage). Coverage is measured per
protocol, ε, n and value frequency in benchmarks/README.md, "Coverage".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError
from ldpcore.protocols import FrequencyOracle


def check_level(level: object) -> float:
    """A confidence level in [0.5, 1), or an :class:`InputError` that says so."""
    if isinstance(level, bool) or not isinstance(level, int | float):
        raise InputError(f"the interval level must be a number in [0.5, 1), got {level!r}")
    if not (math.isfinite(level) and 0.5 <= level < 1):
        raise InputError(f"the interval level must be in [0.5, 1) (0.95 for 95%), got {level!r}")
    return float(level)


def base_variance_terms(protocol: FrequencyOracle, n: int) -> tuple[float, float]:
    """``(A, B)`` with ``Var f̃_v = A + B f_v`` for this protocol and ``n`` (NDSS Eq. 3)."""
    p, q = protocol.p, protocol.q
    gap = p - q
    return q * (1 - q) / (n * gap**2), (1 - p - q) / (n * gap)


def frequency_intervals(
    estimate: ArrayLike,
    *,
    protocol: FrequencyOracle,
    n: int,
    level: float = 0.95,
    point: ArrayLike | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-sided ``level`` intervals for every true frequency, within [0, 1].

    Parameters
    ----------
    estimate : array_like
        The Base estimate ``f̃`` (NDSS Eq. 2), one value per domain value.
    protocol : FrequencyOracle
        The protocol that produced it (its ``p`` and ``q``).
    n : int
        Number of users.
    level : float
        Nominal coverage of each interval (per value, not simultaneous).
    point : array_like, optional
        A post-processed estimate; each interval is widened to contain it where it lies
        in [0, 1].

    Returns
    -------
    low, high : ndarray
        The bounds, ``0 <= low <= high <= 1``.

    Examples
    --------
    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=4)
    >>> low, high = frequency_intervals([0.5, 0.3, 0.2, -0.01], protocol=grr, n=10_000)
    >>> bool(low[0] < 0.5 < high[0]), float(low[3]), bool(high[3] > 0)
    (True, 0.0, True)
    """
    level = check_level(level)
    f = np.asarray(estimate, dtype=np.float64)
    if f.ndim != 1 or not np.all(np.isfinite(f)):
        raise InputError("the estimate must be a vector of finite numbers")
    a, b = base_variance_terms(protocol, n)
    # scipy is loaded when an interval is first made: the methods' registry, which the
    # command line's help reads, imports this module.
    from scipy import special  # noqa: PLC0415

    z2 = float(special.ndtri(0.5 + level / 2)) ** 2
    # f² − (2f̃ + z²B) f + (f̃² − z²A) ≤ 0: between the roots.
    half_sum = f + z2 * b / 2
    discriminant = half_sum**2 - (f**2 - z2 * a)
    root = np.sqrt(np.maximum(discriminant, 0.0))
    low = np.clip(half_sum - root, 0.0, 1.0)
    high = np.clip(half_sum + root, 0.0, 1.0)
    # No f in [0, 1] fits (an estimate far outside it): the nearest end, as a point.
    empty = (discriminant < 0) | (half_sum + root < 0) | (half_sum - root > 1)
    low = np.where(empty & (f < 0.5), 0.0, np.where(empty, 1.0, low))
    high = np.where(empty & (f < 0.5), 0.0, np.where(empty, 1.0, high))
    if point is not None:
        inside = np.clip(np.asarray(point, dtype=np.float64), 0.0, 1.0)
        low, high = np.minimum(low, inside), np.maximum(high, inside)
    return low, high


#: The highest level of a credible interval: its tails need ``40 / tail`` draws (8,000
#: at 99%), and beyond that the sampler would take a minute where it takes a second.
CREDIBLE_LEVEL_MAX = 0.99


@dataclass(frozen=True)
class IntervalEstimates:
    """A method's estimate of every frequency with an interval for each.

    Attributes
    ----------
    point, low, high : ndarray
        The estimate and the bounds, ``0 <= low <= point <= high <= 1`` where the
        estimate lies in [0, 1].
    kind : {"credible", "confidence"}
        Bayes gives posterior (credible) intervals; every other method the score
        confidence interval of :func:`frequency_intervals`.
    warning : str
        Empty, or what a person must know before relying on the intervals (Bayes: when
        the prior, not the reports, shapes the answer).
    """

    point: NDArray[np.float64]
    low: NDArray[np.float64]
    high: NDArray[np.float64]
    kind: Literal["credible", "confidence"]
    warning: str = ""


__all__ = [
    "CREDIBLE_LEVEL_MAX",
    "IntervalEstimates",
    "base_variance_terms",
    "check_level",
    "frequency_intervals",
]
