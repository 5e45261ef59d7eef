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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

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
#: Events repeated at most this often are multiplied in one by one, more as a binomial.
_ONE_AT_A_TIME = 8
#: A node whose chance of fewer than k values above is below e^-40 (4e-18) adds nothing.
_NEGLIGIBLE_LOG = -40.0


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
    independent Bernoulli variables, counted exactly below ``k`` (:func:`counts_below`);
    ``x`` is integrated out by Gauss–Hermite quadrature, leaving out the nodes where more
    than ``k`` values are so surely above that fewer is negligible (Chernoff).
    """
    from scipy import special  # noqa: PLC0415 (scipy loads where it is used)

    f = np.asarray(frequencies, dtype=np.float64)
    users = n + fakes
    g = (rate - protocol.q) / (protocol.p - protocol.q)
    mean = (n * f + fakes * g) / users
    # The generalized Base's variance (NDSS Eq. 3), which the gains are defined through,
    # whatever estimator the protocol's own simulations use (dBitFlipPM: Ding et al.'s).
    honest = FrequencyOracle.variance(protocol, f, n)
    sd = np.sqrt(np.maximum(honest, 0.0)) * n / users
    nodes, weights = _quadrature()
    x = mean[target] + sd[target] * nodes  # the target's estimate at each node
    others = np.delete(np.arange(f.size), target)
    # Values with the same mean and spread (the same count, the same fake support) are
    # above the target with the same chance: each distinct pair is computed once and
    # counted as often as it occurs (a long tail holds few distinct counts).
    order = np.lexsort((sd[others], mean[others]))
    means, sds = mean[others][order], sd[others][order]
    starts = np.flatnonzero(np.r_[True, (np.diff(means) != 0) | (np.diff(sds) != 0)])
    times = np.diff(np.r_[starts, means.size])
    centre, spread = means[starts, None], sds[starts, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        above = special.ndtr((centre - x[None, :]) / spread)
    # A value with no noise (sd 0) is above exactly when its mean is.
    above = np.where(np.isnan(above), (centre > x[None, :]).astype(float), above)
    # Where the target's estimate is low, more than k values are expected above it and
    # the chance of fewer than k is negligible (Chernoff's lower tail for a sum of
    # independent Bernoulli variables, P(S < k) ≤ exp(−(μ − k)²/(2μ)) for μ > k): those
    # nodes add nothing, and the values uncertain only there need not be counted.
    expected = times @ above
    tail = np.zeros_like(expected)
    over = expected > k
    tail[over] = -((expected[over] - k) ** 2) / (2 * expected[over])
    live = tail > _NEGLIGIBLE_LOG
    if not live.any():
        return 0.0
    above, weights_live = above[:, live], weights[live]
    inside = counts_below(above, k, times).sum(axis=0)
    return float(np.sum(weights_live * inside) / weights.sum())


@cache
def _quadrature() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The Gauss–Hermite nodes and weights, computed once (read-only)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(_NODES)
    nodes.flags.writeable = weights.flags.writeable = False
    return nodes, weights


def counts_below(
    chances: NDArray[np.float64], k: int, times: NDArray[np.int64] | None = None
) -> NDArray[np.float64]:
    """``P(S = j)`` for ``j < k``, ``S`` the number of independent events that happen.

    ``chances`` is ``(events, columns)``: one set of events per column (a quadrature
    node); ``times``, how often each event occurs (default once). The coefficients of
    ``z^j`` in ``Π_v (1 − p_v + p_v z)^{t_v}``, exact: for the events with ``p ≤ ½``
    everywhere the product is ``Π(1 − p_v)^{t_v} · exp(Σ_r (−1)^(r+1) z^r Σ_v t_v w_v^r
    / r)`` with ``w = p/(1 − p) ≤ 1``, a formal power series whose first ``k``
    coefficients need only ``k − 1`` power sums (no product tree); the few events with
    ``p > ½`` somewhere are multiplied in one at a time, each as its binomial.

    Examples
    --------
    >>> counts_below(np.array([[0.5], [0.5]]), 3).ravel().tolist()
    [0.25, 0.5, 0.25]
    >>> counts_below(np.array([[0.5]]), 3, np.array([2])).ravel().tolist()
    [0.25, 0.5, 0.25]
    """
    from scipy import stats  # noqa: PLC0415 (scipy loads where it is used)

    many = np.ones(chances.shape[0], dtype=np.int64) if times is None else np.asarray(times)
    high = np.any(chances > 0.5, axis=1)
    low, low_times = chances[~high], many[~high].astype(np.float64)
    columns = chances.shape[1]
    weight = low / (1.0 - low)
    series = np.zeros((k, columns))
    power = np.ones_like(weight)
    for r in range(1, k):
        power = power * weight
        series[r] = (-1.0) ** (r + 1) * (low_times @ power) / r
    counted = np.zeros((k, columns))
    counted[0] = 1.0
    for j in range(1, k):  # exp of a power series: j b_j = Σ_r r a_r b_(j−r)
        counted[j] = sum(r * series[r] * counted[j - r] for r in range(1, j + 1)) / j
    counted *= np.exp(low_times @ np.log1p(-low))
    ahead = np.arange(k)[:, None]
    for chance, count in zip(chances[high], many[high], strict=True):
        if count <= _ONE_AT_A_TIME:
            for _ in range(int(count)):
                counted[1:] = counted[1:] * (1.0 - chance) + counted[:-1] * chance
                counted[0] = counted[0] * (1.0 - chance)
            continue
        law = stats.binom.pmf(ahead, int(count), chance[None, :])  # (k, columns)
        counted = np.stack([(law[: j + 1] * counted[j::-1]).sum(axis=0) for j in range(k)])
    return counted


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

    def rates(m: int) -> Iterator[NDArray[np.float64]]:
        """Cao et al.'s report first; the attacker's own fillings only when it falls short."""
        yield maximal
        for leaders in (k - 1, 0) if chooses else ():
            rate = best_support_rate(protocol, f, n, m, target=target, k=k, leaders=leaders)
            if rate is not None:
                yield rate

    def enough(m: int) -> bool:
        return any(
            top_k_chance(protocol, f, n, m, rate=rate, target=target, k=k) >= chance
            for rate in rates(m)
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
    "counts_below",
    "fakes_for_top_k",
    "fakes_to_enter_top_k",
    "top_k_chance",
    "top_k_question",
]
