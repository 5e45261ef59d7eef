"""A poisoned collection, drawn exactly, and the targets' expected gain in closed form.

**The gain** (Cao, Jia and Gong 2021, Sec. 4, Theorems 1–9 for GRR, OUE and OLH; here
for any protocol in the generalized view, NDSS 2020 Sec. III). With ``n`` honest users,
``m`` fake ones and ``β = m / (n + m)``, the aggregator estimates from all ``n + m``
reports, ``f̃_t = (c_t / (n + m) − q) / (p − q)``. An honest report supports ``t`` with
probability ``q + (p − q) f_t``; a fake one with the attack's rate ``ρ_t``
(:func:`fake_rate`). So

    E f̃_t = [(1 − β)(q + (p − q) f_t) + β ρ_t − q] / (p − q)
          = f_t + β [(ρ_t − q) / (p − q) − f_t],

and the targets' total expected gain over the honest estimate (which is unbiased) is

    G = β [Σ_{t∈T} (ρ_t − q) / (p − q) − f_T],   f_T = Σ_{t∈T} f_t.

The random item attack's ``ρ_t = p/r + q(1 − 1/r)`` gives ``G = β(1 − f_T)`` for every
protocol (Cao et al.'s RIA gains); the others' rates are the protocol's
(:func:`ldpcore.attacks.fakes.support_rate`), e.g. GRR's maximal gain ``ρ_t = 1/r`` gives
``β(1 − f_T) + β(d − r)/(e^ε − 1)``.

**The draws.** The honest users' support counts come first, exactly as an honest run
draws them from the same generator, and are kept (``Poisoned.honest_support``): the
collection before the attack, which the gain is measured against. The fake users'
support counts are then drawn exactly, in O(d) whatever their number, and added: the
random item attack's fakes *are* honest users holding targets (the protocol's own fast
sampler), the other attacks' are the protocol's
(:func:`ldpcore.attacks.fakes.support`). With ``m = 0`` nothing more is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_counts
from ldpcore.attacks import fakes as per_protocol
from ldpcore.attacks.kinds import AttackSpec
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.rng import as_generator


@dataclass(frozen=True)
class Poisoned:
    """A collection with fake users in it.

    Attributes
    ----------
    support : ndarray of int64
        The support counts of all ``users`` reports, honest and fake.
    users : int
        ``n + m``: what the aggregator divides by.
    honest, fakes : int
        ``n`` and ``m``.
    targets : ndarray of int64
        The values the attack pushes up.
    honest_support : ndarray of int64
        The honest users' support counts alone: the collection before the attack.
    """

    support: NDArray[np.int64]
    users: int
    honest: int
    fakes: int
    targets: NDArray[np.int64]
    honest_support: NDArray[np.int64]


def check_targets(targets: ArrayLike, domain_size: int) -> NDArray[np.int64]:
    """Distinct values in ``[0, d)``, at least one, or an :class:`InputError`."""
    chosen = np.asarray(targets, dtype=np.int64).ravel()
    if chosen.size == 0 or np.unique(chosen).size != chosen.size:
        raise InputError("an attack needs one or more distinct target values")
    if chosen.min() < 0 or chosen.max() >= domain_size:
        raise InputError(f"target values must be in [0, {domain_size - 1}], got {chosen.tolist()}")
    return chosen


def choose_targets(count: int, domain_size: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """``count`` distinct targets, uniformly at random (as Cao et al. choose them)."""
    if count > domain_size:
        raise InputError(
            f"an attack on {count} targets needs at least {count} values; d = {domain_size}"
        )
    return np.sort(rng.choice(domain_size, size=count, replace=False)).astype(np.int64)


def check_attackable(protocol: FrequencyOracle) -> None:
    """Refuse, in words, a protocol whose tallies do not count values (a tree, SW, Haar).

    These functions push values up. A tree's fake users push a range up instead
    (:mod:`ldpcore.attacks.ranges`, after Liao et al., arXiv 2503.03454); the Square
    Wave's and the Haar wavelet's are not modelled.
    """
    if not protocol.support_view:
        where = (
            "its fake users push a range up (ldpcore.attacks.ranges; the Fake users page "
            "and simulate --attack run them)"
            if protocol.composite
            else "fake users against it are not modelled; pick a tree (TreeOUE, TreeOLH) "
            "or a protocol that counts values (GRR, OLH, OUE, …)"
        )
        raise InputError(
            f"{protocol.name}'s tallies count {protocol.tallies_count}, not values: {where}"
        )


def fake_rate(protocol: FrequencyOracle, kind: str, targets: ArrayLike) -> NDArray[np.float64]:
    """``ρ_v``: the probability that one fake report supports each value ``v``."""
    check_attackable(protocol)
    chosen = check_targets(targets, protocol.domain_size)
    if kind == "ria":
        rate = np.full(protocol.domain_size, protocol.q)
        rate[chosen] += (protocol.p - protocol.q) / chosen.size
        return rate
    return per_protocol.support_rate(protocol, kind, chosen)


def expected_gain(
    protocol: FrequencyOracle,
    kind: str,
    targets: ArrayLike,
    frequencies: ArrayLike,
    beta: float,
) -> float:
    """The targets' total expected gain ``G`` in their Base estimates (module docstring)."""
    chosen = check_targets(targets, protocol.domain_size)
    f = np.asarray(frequencies, dtype=np.float64)
    rate = fake_rate(protocol, kind, chosen)[chosen]
    p, q = protocol.p, protocol.q
    return float(beta * (np.sum((rate - q) / (p - q)) - f[chosen].sum()))


def fake_support(
    protocol: FrequencyOracle,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """The ``fakes`` fake reports' support counts, drawn exactly in O(d)."""
    if fakes == 0:
        return np.zeros(protocol.domain_size, dtype=np.int64)
    if kind == "ria":
        held = np.zeros(protocol.domain_size, dtype=np.int64)
        held[targets] = rng.multinomial(fakes, np.full(targets.size, 1.0 / targets.size))
        return protocol.sample_support_counts(held, rng)
    return per_protocol.support(protocol, kind, targets, fakes, rng)


def fake_reports(
    protocol: FrequencyOracle,
    kind: str,
    targets: ArrayLike,
    fakes: int,
    rng: np.random.Generator,
) -> Any:
    """The fake users' reports themselves, in the protocol's report format."""
    check_attackable(protocol)
    chosen = check_targets(targets, protocol.domain_size)
    if kind == "ria":
        return protocol.randomize(rng.choice(chosen, size=fakes), rng)
    return per_protocol.reports(protocol, kind, chosen, fakes, rng)


def poison(
    protocol: FrequencyOracle,
    true_counts: ArrayLike,
    attack: AttackSpec,
    rng: Any = None,
    *,
    targets: ArrayLike | None = None,
) -> Poisoned:
    """Honest users' support counts plus the attack's fake users', drawn exactly.

    Parameters
    ----------
    protocol : FrequencyOracle
        The protocol every user (honest or fake) reports under.
    true_counts : array_like
        The honest users' values, as a histogram.
    attack : AttackSpec
        Which attack, how many fake users, how many targets.
    rng : Generator, int or None
        The honest draws come first from it, then the targets and the fake ones.
    targets : array_like, optional
        The target values (default: ``attack.targets`` chosen uniformly at random).
    """
    check_attackable(protocol)
    generator = as_generator(rng)
    counts = check_counts(np.asarray(true_counts), name="true_counts", length=protocol.domain_size)
    n = int(counts.sum())
    m = attack.fake_users(n)
    # The honest reports first, from the generator as an honest run would draw them:
    # the attack's gain is measured against this very collection (Cao et al.'s
    # after-minus-before), so it must not share a draw with the fake users.
    honest = protocol.sample_support_counts(counts, generator)
    if targets is None:
        chosen = choose_targets(attack.targets, protocol.domain_size, generator)
    else:
        chosen = check_targets(targets, protocol.domain_size)
    support = honest + fake_support(protocol, attack.kind, chosen, m, generator)
    return Poisoned(support, n + m, n, m, chosen, honest)


__all__ = [
    "Poisoned",
    "check_attackable",
    "check_targets",
    "choose_targets",
    "expected_gain",
    "fake_rate",
    "fake_reports",
    "fake_support",
    "poison",
]
