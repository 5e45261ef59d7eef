"""How many fake users it takes to lift one value into the top k.

With ``m`` fake users among ``n`` honest ones, value ``v``'s Base estimate has expectation

    E[f̃_v] = (n f_v + m g_v) / (n + m),    g_v = (ρ_v − q) / (p − q),

where ``ρ_v`` is the chance one fake report supports ``v`` (:func:`fake_rate`; the Base
estimate is unbiased for the mixture of honest and fake users, Cao, Jia and Gong 2021,
Sec. 4). The target ``t`` passes another value ``v`` once ``n f_t + m g_t > n f_v + m g_v``,
that is for ``m > n (f_v − f_t) / (g_t − g_v)`` (never when ``g_t ≤ g_v`` and ``f_v ≥ f_t``).
It is in the top k once at most ``k − 1`` values remain ahead of it, so the fewest fake
users are the ``(a − k + 1)``-th smallest of those thresholds, with ``a`` values ahead
of it at first. This is in expectation: at that ``m`` the target's estimate passes the
k-th about half the time (the noise decides), and more often with every fake user more.

A smaller ε lowers ``p − q``, so every ``g`` grows and fewer fake users suffice: the
noise that protects each honest user is what the aggregator divides away, and the fake
reports, sent without noise, are divided by the same small number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.gains import check_targets, fake_rate
from ldpcore.errors import InputError
from ldpcore.protocols import get_protocol
from ldpcore.protocols.base import FrequencyOracle


def fakes_to_enter_top_k(
    protocol: FrequencyOracle,
    frequencies: ArrayLike,
    n: int,
    *,
    target: int,
    k: int,
    kind: str = "mga",
) -> int | None:
    """The fewest fake users whose reports lift ``target`` into the top ``k``, in expectation.

    Parameters
    ----------
    protocol : FrequencyOracle
        The protocol every user reports under (ε and d included).
    frequencies : array_like
        The honest users' true frequencies.
    n : int
        Honest users.
    target : int
        The value pushed (0-based).
    k : int
        The top-k query's k (1 ≤ k < d).
    kind : {"mga", "rpa", "ria"}
        The attack (default the maximal gain: the fewest fake users).

    Returns
    -------
    int or None
        0 if the target is already in the top k in expectation; None if no number of
        these fake users lifts it there.

    Examples
    --------
    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=4)
    >>> fakes_to_enter_top_k(grr, [0.5, 0.3, 0.15, 0.05], 1000, target=3, k=2)
    76
    """
    f = np.asarray(frequencies, dtype=np.float64)
    d = protocol.domain_size
    if f.shape != (d,):
        raise InputError(f"expected {d} frequencies, got shape {f.shape}")
    chosen = check_targets([target], d)
    if not 1 <= k < d:
        raise InputError(f"k must be between 1 and d − 1 = {d - 1}, got {k}")
    if n < 1:
        raise InputError(f"n must be at least 1, got {n}")
    g = (fake_rate(protocol, kind, chosen) - protocol.q) / (protocol.p - protocol.q)
    t = int(chosen[0])
    others = np.delete(np.arange(d), t)
    ahead = others[f[others] >= f[t]]
    if ahead.size < k:
        return 0
    with np.errstate(divide="ignore", invalid="ignore"):
        edge = n * (f[ahead] - f[t]) / (g[t] - g[ahead])
    # The first whole m strictly past each edge; never where the target does not gain.
    passes = np.where(g[t] > g[ahead], np.floor(edge) + 1, np.inf)
    needed = float(np.sort(passes)[ahead.size - k])
    return None if math.isinf(needed) else int(needed)


#: The ε a question about fake users is answered at besides the chosen one: strong
#: privacy to weak.
EPSILON_GRID = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


@dataclass(frozen=True)
class TopKQuestion:
    """How many fake users lift one value into the top k, at an ε and around it.

    Attributes
    ----------
    label : str
        The value pushed up.
    share : float
        Its true frequency.
    k : int
    protocol : str
    epsilon : float
        The ε asked about (the answer's), among ``by_epsilon``'s.
    n : int
        Honest users.
    by_epsilon : tuple of (float, int or None)
        Fake users needed at each ε (None: no number of them does it).
    """

    label: str
    share: float
    k: int
    protocol: str
    epsilon: float
    n: int
    by_epsilon: tuple[tuple[float, int | None], ...]


def top_k_question(
    protocol: str,
    frequencies: ArrayLike,
    n: int,
    *,
    labels: Sequence[str],
    target: int,
    k: int,
    epsilon: float,
    grid: Sequence[float] = EPSILON_GRID,
) -> TopKQuestion:
    """:func:`fakes_to_enter_top_k` at ``epsilon`` and at each ε of ``grid``.

    One value that the page, its decision record and the command line all show, so
    they cannot differ.
    """
    frequencies = np.asarray(frequencies, dtype=float)
    d = frequencies.size
    needed = tuple(
        (
            float(e),
            fakes_to_enter_top_k(
                get_protocol(protocol, epsilon=float(e), domain_size=d),
                frequencies,
                n,
                target=target,
                k=k,
            ),
        )
        for e in sorted({*grid, epsilon})
    )
    return TopKQuestion(
        str(labels[target]), float(frequencies[target]), k, protocol, float(epsilon), n, needed
    )


__all__ = ["EPSILON_GRID", "TopKQuestion", "fakes_to_enter_top_k", "top_k_question"]
