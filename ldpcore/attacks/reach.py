"""How many fake users it takes to lift one value into the top k.

With ``m`` fake users among ``n`` honest ones, value ``v``'s Base estimate has expectation

    E[f̃_v] = (n f_v + m g_v) / (n + m),    g_v = (ρ_v − q) / (p − q),

where ``ρ_v`` is the chance one fake report supports ``v`` (:func:`fake_rate`; the Base
estimate is unbiased for the mixture of honest and fake users, Cao, Jia and Gong 2021,
Sec. 4). The target ``t`` passes another value ``v`` once ``n f_t + m g_t > n f_v + m g_v``,
that is for ``m > n (f_v − f_t) / (g_t − g_v)`` (never when ``g_t ≤ g_v`` and ``f_v ≥ f_t``).
It is in the top k once at most ``k − 1`` values remain ahead of it, so in expectation
the fewest fake users are the ``(a − k + 1)``-th smallest of those thresholds, with ``a``
values ahead of it at first (:func:`fakes_to_enter_top_k`, Cao et al.'s reports).

**The count shown counts the noise** (:func:`fakes_for_top_k`). Where many values lie
close to the target the expected-value count puts it in the top k far less than half
the time (10–15% measured at d = 100, n = 10⁵, ε = 1). The count shown is the fewest
fake users that put it there *at least half the time*: each value's Base estimate taken
as normal with its exact variance (NDSS Eq. 3), independent across values, the number
ahead of the target counted exactly given its own estimate (:func:`top_k_chance`).

**The attacker at its best** (``kind="best"``, the default there). Where a maximal-gain
report must support other values and the attacker picks which (a unary report padded to
an honest number of ones, a subset's free slots), Cao, Jia and Gong fill them at random,
which lifts the competitors too. Two other fillings are tried at every ``m``
(:func:`best_support_rate`): the ``k − 1`` values furthest ahead take every report (the
target need not pass them) or none do, and the other slots are spread to make the
target's smallest expected lead over the rest as large as it can be; the count is the
best of the three. A value given every report would tie the target as ``m`` grows,
which the noise turns into a coin flip, so spreading beats filling with the rarest
values. Where the protocol picks the other values (OLH's hash, HR's row) Cao et al.'s
report stands, and the answer says so (:attr:`TopKQuestion.attacker_chooses`).

A smaller ε lowers ``p − q``, so every ``g`` grows and fewer fake users suffice: the
noise that protects each honest user is what the aggregator divides away, and the fake
reports, sent without noise, are divided by the same small number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.attacks.fakes import chosen_padding
from ldpcore.attacks.gains import check_targets, fake_rate
from ldpcore.errors import InputError
from ldpcore.protocols import get_protocol
from ldpcore.protocols.base import FrequencyOracle


def best_support_rate(
    protocol: FrequencyOracle,
    frequencies: ArrayLike,
    n: int,
    fakes: int,
    *,
    target: int,
    k: int,
    leaders: int | None = None,
) -> NDArray[np.float64] | None:
    """Per value, the share of ``fakes`` fake reports that support it: a rank attacker's.

    None where the protocol, not the attacker, picks the report's other values. The
    target is in every report; of the other slots (:func:`~ldpcore.attacks.fakes.
    chosen_padding`) the ``leaders`` values furthest ahead take what they can (default
    ``k − 1``: the target need not pass them); the rest are spread so that the target's
    expected lead ``m(1 − ρ_v)/(p − q) − n(f_v − f_t)`` over every other value is as
    large as it can be at its smallest: ``ρ_v = clip(1 − λ − n(f_v − f_t)(p − q)/m, 0, 1)``
    with ``λ`` set by the number of slots (water-filling). A value given every report
    would tie the target as ``m`` grows, which the noise turns into a coin flip.

    Examples
    --------
    >>> from ldpcore.protocols import get_protocol
    >>> ss = get_protocol("SS", epsilon=1.0, domain_size=6, k=3)
    >>> rate = best_support_rate(ss, [0.3, 0.25, 0.2, 0.15, 0.06, 0.04], 1000, 500,
    ...                          target=4, k=2)
    >>> rate.round(3).tolist(), float(rate.sum())
    ([1.0, 0.2, 0.228, 0.256, 1.0, 0.317], 3.0)
    """
    f = np.asarray(frequencies, dtype=np.float64)
    d = protocol.domain_size
    padding = chosen_padding(protocol, 1)
    if padding is None:
        return None
    rate = np.zeros(d)
    rate[target] = 1.0
    others = np.delete(np.arange(d), target)
    by_size = others[np.argsort(-f[others], kind="stable")]
    first = by_size[: min(padding, k - 1 if leaders is None else leaders)]
    rate[first] = 1.0
    rest = by_size[first.size :]
    slots = padding - first.size
    if slots <= 0 or rest.size == 0:
        return rate
    if slots >= rest.size:
        rate[rest] = 1.0
        return rate
    scale = protocol.p - protocol.q
    lag = n * (f[rest] - f[target]) * scale / max(fakes, 1)

    def spread(level: float) -> NDArray[np.float64]:
        return np.asarray(np.clip(1.0 - level - lag, 0.0, 1.0), dtype=np.float64)

    # Σ spread(λ) falls as λ grows: bisect λ for the slots.
    low, high = float(-1.0 - lag.max()), float(1.0 - lag.min())
    for _ in range(64):  # to the float's resolution
        middle = (low + high) / 2
        low, high = (middle, high) if spread(middle).sum() > slots else (low, middle)
    shares = spread(high)
    rate[rest] = shares * (slots / shares.sum()) if shares.sum() > 0 else slots / rest.size
    return np.minimum(rate, 1.0)


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
        Cao et al.'s attack (default the maximal gain). The attacker at its best, with
        the noise counted, is :func:`fakes_for_top_k`.

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


#: Gauss–Hermite nodes over the target's own estimate in :func:`top_k_chance`.
_NODES = 32
#: Values whose chance to be above the target stays below this at every node are counted
#: together, as a Poisson count (:func:`top_k_chance`).
_RARE = 1e-3


def top_k_chance(
    protocol: FrequencyOracle,
    frequencies: ArrayLike,
    n: int,
    fakes: int,
    *,
    rate: NDArray[np.float64],
    target: int,
    k: int,
) -> float:
    """The chance the target's Base estimate is among the ``k`` largest with ``fakes`` fake users.

    Each value's Base estimate over the ``n + fakes`` reports is taken as normal, with the
    mean of the module docstring and the honest reports' variance (NDSS Eq. 3, scaled by
    ``(n/(n + m))²``; the fake reports' support ``rate · m`` is fixed), independent across
    values. Given the target's estimate ``x`` the number of values above it is a sum of
    independent Bernoulli variables, counted up to ``k`` (a Poisson-binomial recursion
    over the values whose chance is neither 0 nor 1, those below 10⁻³ pooled as one
    Poisson count); ``x`` is integrated out by Gauss–Hermite quadrature.
    """
    from scipy import special, stats  # noqa: PLC0415 (scipy loads where it is used)

    f = np.asarray(frequencies, dtype=np.float64)
    users = n + fakes
    g = (rate - protocol.q) / (protocol.p - protocol.q)
    mean = (n * f + fakes * g) / users
    # The generalized Base's variance (NDSS Eq. 3), which the gains are defined through,
    # whatever estimator the protocol's own simulations use (dBitFlipPM: Ding et al.'s).
    honest = FrequencyOracle.variance(protocol, f, n)
    sd = np.sqrt(np.maximum(honest, 0.0)) * n / users
    nodes, weights = np.polynomial.hermite_e.hermegauss(_NODES)
    x = mean[target] + sd[target] * nodes  # the target's estimate at each node
    others = np.delete(np.arange(f.size), target)
    with np.errstate(divide="ignore", invalid="ignore"):
        above = special.ndtr((mean[others, None] - x[None, :]) / sd[others, None])
    # A value with no noise (sd 0) is above exactly when its mean is.
    above = np.where(np.isnan(above), (mean[others, None] > x[None, :]).astype(float), above)
    sure = np.all(above > 1 - 1e-12, axis=1)
    rare = ~sure & np.all(above < _RARE, axis=1)
    unsure = ~sure & ~rare
    # The rare values' count is Poisson (Le Cam: off by at most Σ p² ≤ 10⁻³ Σ p in total
    # variation); the others' is counted exactly.
    start = min(int(sure.sum()), k)
    if start >= k:
        return 0.0
    # P(the uncertain values put j ahead), j < k − start: the product of their
    # generating polynomials 1 − p + p·z, truncated, multiplied pairwise in a tree.
    need = k - start
    polys = np.zeros((int(unsure.sum()), need, nodes.size))
    polys[:, 0] = 1 - above[unsure]
    if need > 1:
        polys[:, 1] = above[unsure]
    while polys.shape[0] > 1:
        if polys.shape[0] % 2:
            one = np.zeros((1, need, nodes.size))
            one[0, 0] = 1.0
            polys = np.concatenate([polys, one])
        left, right = polys[0::2], polys[1::2]
        product = np.empty_like(left)
        for j in range(need):
            product[:, j] = np.einsum("vin,vin->vn", left[:, : j + 1], right[:, j::-1])
        polys = product
    counted = np.zeros((need, nodes.size))
    counted[0] = 1.0  # no uncertain value: none of them ahead
    if polys.shape[0]:
        counted = polys[0]
    poisson = stats.poisson.pmf(np.arange(need)[:, None], above[rare].sum(axis=0)[None, :])
    # The rare values' Poisson count added to the others': a convolution, below ``need``.
    inside = np.zeros(nodes.size)
    for j in range(need):
        inside += counted[j] * poisson[: need - j].sum(axis=0)
    return float(np.sum(weights * inside) / weights.sum())


def fakes_for_top_k(
    protocol: FrequencyOracle,
    frequencies: ArrayLike,
    n: int,
    *,
    target: int,
    k: int,
    kind: str = "best",
    chance: float = 0.5,
    precision: float = 0.0,
) -> int | None:
    """The fewest fake users that put ``target`` in the top ``k`` with at least ``chance``.

    The noise counts: where many values lie close to the target, the expected-value
    count of :func:`fakes_to_enter_top_k` lifts it into the top k far less than half the
    time. This searches ``m`` (doubling, then bisecting) for :func:`top_k_chance` to reach
    ``chance``; None if it does not by ``10⁶ n`` fake users. ``kind="best"``: at each
    ``m`` the best of three ways to fill a maximal-gain report's other slots, Cao et
    al.'s (at random) and :func:`best_support_rate`'s two (the ``k − 1`` leaders given
    every report, or none), where the attacker picks them; ``"mga"``: Cao et al.'s only.
    ``precision``: the search stops once the count is known within this share of it
    (the count returned reaches ``chance``; 0: the exact fewest).
    """
    f = np.asarray(frequencies, dtype=np.float64)
    start = fakes_to_enter_top_k(protocol, f, n, target=target, k=k)
    chosen = check_targets([target], protocol.domain_size)
    maximal = fake_rate(protocol, "mga", chosen)
    chooses = kind == "best" and bool(chosen_padding(protocol, 1))

    def enough(m: int) -> bool:
        rates = [maximal]
        if chooses:
            rates += [
                r
                for leaders in (k - 1, 0)
                if (r := best_support_rate(protocol, f, n, m, target=target, k=k, leaders=leaders))
                is not None
            ]
        return any(
            top_k_chance(protocol, f, n, m, rate=rate, target=target, k=k) >= chance
            for rate in rates
        )

    if enough(0):
        return 0
    low, high = 0, max(1, start or 1)
    while not enough(high):
        low, high = high, high * 2
        if high > 10**6 * n:
            return None
    while high - low > max(1, int(precision * high)):
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


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
    attacker_chooses : bool
        Whether the attacker picks every value its report supports (the best report of
        :func:`best_support_rate`), or the protocol picks some (the maximal-gain report).
    """

    label: str
    share: float
    k: int
    protocol: str
    epsilon: float
    n: int
    by_epsilon: tuple[tuple[float, int | None], ...]
    attacker_chooses: bool = True


def _two_figures_up(count: int | None) -> int | None:
    """A count rounded *up* to two significant figures (2,914 → 3,000; 59 stays 59).

    Two figures are the normal model's precision; rounding up keeps the count enough.
    """
    if count is None or count < 100:
        return count
    step = 10 ** (len(str(count)) - 2)
    return -(-count // step) * step


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
    they cannot differ: each count searched to 1% and rounded up to two significant
    figures, the precision of its normal model.
    """
    frequencies = np.asarray(frequencies, dtype=float)
    d = frequencies.size
    needed = tuple(
        (
            float(e),
            _two_figures_up(
                fakes_for_top_k(
                    get_protocol(protocol, epsilon=float(e), domain_size=d),
                    frequencies,
                    n,
                    target=target,
                    k=k,
                    precision=0.01,
                )
            ),
        )
        for e in sorted({*grid, epsilon})
    )
    chooses = chosen_padding(get_protocol(protocol, epsilon=float(epsilon), domain_size=d), 1)
    return TopKQuestion(
        str(labels[target]),
        float(frequencies[target]),
        k,
        protocol,
        float(epsilon),
        n,
        needed,
        chooses is not None,
    )


__all__ = [
    "EPSILON_GRID",
    "TopKQuestion",
    "best_support_rate",
    "fakes_for_top_k",
    "fakes_to_enter_top_k",
    "top_k_chance",
    "top_k_question",
]
