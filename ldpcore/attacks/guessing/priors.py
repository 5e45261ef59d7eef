"""What the attacker who reads one report starts from: a prior, checked, and a shared form.

The guess rates (:mod:`ldpcore.attacks.guessing`) take the attacker's prior over the
values; :func:`membership_guess_rate` is the closed form shared by the families whose
report marks each value in or out independently (unary encodings, local hashing).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError


def check_prior(prior: ArrayLike, domain_size: int) -> NDArray[np.float64]:
    """``prior`` as a probability vector of length ``domain_size``, or a clear error."""
    pi = np.asarray(prior, dtype=np.float64)
    if pi.shape != (domain_size,):
        raise InputError(f"the prior needs {domain_size} entries, got shape {pi.shape}")
    if not np.all(np.isfinite(pi)) or np.any(pi < 0) or pi.sum() <= 0:
        raise InputError("the prior must be finite, non-negative and not all zero")
    return pi / pi.sum()


def membership_guess_rate(
    prior: NDArray[np.float64], *, own: float, other: float, ratio: float
) -> float:
    """Bayes-optimal guess rate when a report marks each value in or out independently.

    Unary encodings (each bit), and local hashing under an ideal hash (each value
    hashing to the reported bucket), report a membership bit ``b_v`` per value:
    ``P(b_v = 1) = own`` for the user's value and ``other`` for every other value,
    independently, with likelihood ratio ``ratio > 1`` between a marked and an
    unmarked value. Sort ``π`` decreasingly; the MAP guess is the top value if it is
    marked, else the first marked value ``v`` if ``π_v · ratio > π_1``, else the top
    value. With ``m = #{v : π_v · ratio > π_1}``, the guess is right with probability
    ``π_1 [own + (1 − own)(1 − other)^(m−1)] + Σ_{v=2..m} π_v (1 − other)^(v−1) own``.
    """
    pi = np.sort(prior)[::-1]
    m = int(np.count_nonzero(pi * ratio > pi[0])) or 1
    stay = (1.0 - other) ** np.arange(m)  # (1 − other)^(v−1) for v = 1..m
    first = pi[0] * (own + (1.0 - own) * stay[m - 1])
    return float(first + own * np.dot(pi[1:m], stay[1:m]))


__all__ = ["check_prior", "membership_guess_rate"]
