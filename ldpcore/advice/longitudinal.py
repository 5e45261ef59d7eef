"""Collecting again and again: what T rounds of one protocol give and cost, plan by plan.

A telemetry team collecting every period for ``T`` periods chooses between:

* a **memoized** chain (L-GRR, L-OSUE, RAPPOR's L-SUE, …): one report spends ε₁, and no
  number of reports spends more than ε∞ about a value; each period's estimate is one
  round's, and the average over the periods keeps the permanent round's noise;
* its **one-shot** protocol afresh every period at the same ε₁ per report: each period is
  as accurate as one report at ε₁ allows, the average improves ``T``-fold, and a user
  spends ``T·ε₁`` (``ε`` after ``T`` reports, exact:
  :func:`ldpcore.protocols.repeated.epsilon_after`);
* the one-shot protocol afresh at **ε∞/T** per report: the memoized chain's lifetime budget
  split over the periods (basic composition, exact for these channels), with the noise
  that so small a budget leaves.

Every number here is exact: one round's variance is NDSS 2020 Eq. 3 with the chain's
compound ``p`` and ``q``, the average's is :mod:`ldpcore.protocols.rounds`' formula,
and the ε is the worst report sequence's. A simulation checks them
(:mod:`ldpcore.experiments.rounds`).

What the ε means over the rounds is measured too (:func:`averaging_attack`): an
aggregator who keeps each user's reports and guesses the value they support most often
(the most likely value, for values equally likely a priori) is right ever more often
with fresh reports, and never more often than the permanent answer allows with a
memoized chain.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from ldpcore import bounds
from ldpcore._validation import check_int
from ldpcore.attacks.guessing import guess_rate
from ldpcore.errors import InputError
from ldpcore.protocols import PROTOCOLS, FrequencyOracle, Memoized
from ldpcore.protocols.repeated import (
    average_variance,
    check_repeatable,
    epsilon_after,
    lifetime_epsilon,
    one_shot_form,
)

PlanKind = Literal["memoized", "fresh", "split"]


@dataclass(frozen=True)
class CollectionPlan:
    """One way to collect ``rounds`` times, with what it costs and gives (exact).

    Attributes
    ----------
    kind : {"memoized", "fresh", "split"}
        A memoized chain; a one-shot protocol afresh at the same ε per report; or afresh
        at the memoized chain's lifetime budget split over the rounds.
    protocol : FrequencyOracle
        The protocol each report uses.
    rounds : int
        ``T``.
    spent : float
        What ``T`` reports of one value spend (exact, at most ``bound``).
    bound : float
        What any number of reports spends at most (ε∞), ``inf`` without memoization.
    round_error : float
        The typical error of one round's Base estimate: ``√(mean_v Var f̃_v)``.
    average_error : float
        The same for the average of the ``T`` rounds' Base estimates.
    """

    kind: PlanKind
    protocol: FrequencyOracle
    rounds: int
    spent: float
    bound: float
    round_error: float
    average_error: float

    @property
    def per_report(self) -> float:
        """What one report spends (ε₁)."""
        return self.protocol.spent_epsilon()

    @property
    def label(self) -> str:
        """The plan in a few words: ``"L-GRR, memoized (ε∞ = 2)"``."""
        name = self.protocol.name
        if self.kind == "memoized":
            return f"{name}, memoized (ε∞ = {self.bound:.3g})"
        if self.kind == "fresh":
            return f"{name}, afresh every round"
        return f"{name}, afresh at ε/T"


def one_shot_counterpart(protocol: FrequencyOracle) -> type[FrequencyOracle]:
    """The protocol drawn afresh at every report that ``protocol`` memoizes (or itself)."""
    return one_shot_form(protocol)


def memoized_counterpart(protocol: FrequencyOracle) -> type[FrequencyOracle] | None:
    """``protocol``'s own class if it memoizes, else the first registered chain over it."""
    if math.isfinite(lifetime_epsilon(protocol)):
        return type(protocol)
    registered: list[type[FrequencyOracle]] = list(PROTOCOLS.values())
    for cls in registered:
        if issubclass(cls, Memoized) and cls.first_round is type(protocol):
            return cls
    return None


def typical_error(protocol: FrequencyOracle, frequencies: ArrayLike, n: int, rounds: int) -> float:
    """``√(mean_v Var f̄_v)``: how far the average of ``rounds`` Base estimates is off (exact).

    At one round, NDSS Eq. 3's.
    """
    return math.sqrt(float(np.mean(average_variance(protocol, frequencies, n, rounds))))


def _plan(
    kind: PlanKind, protocol: FrequencyOracle, f: np.ndarray, n: int, rounds: int
) -> CollectionPlan:
    return CollectionPlan(
        kind=kind,
        protocol=protocol,
        rounds=rounds,
        spent=epsilon_after(protocol, rounds),
        bound=lifetime_epsilon(protocol),
        round_error=typical_error(protocol, f, n, 1),
        average_error=typical_error(protocol, f, n, rounds),
    )


def collection_plans(
    protocol: FrequencyOracle,
    frequencies: ArrayLike,
    n: int,
    rounds: int,
    *,
    epsilon_inf: float | None = None,
) -> tuple[CollectionPlan, ...]:
    """The plans for collecting ``rounds`` times from ``n`` users with these frequencies.

    The memoized chain (``protocol`` itself, or the registered chain over its kind at the
    same ε₁ with ``epsilon_inf``, default the chain's), the one-shot protocol afresh at
    ε₁, and the one-shot protocol afresh at ε∞/T where that is an accepted ε. A protocol
    with no memoized chain (OLH, SS, HR) gets the fresh plan and, at ε/T, the plan that
    spends its one report's ε in all.

    Examples
    --------
    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=4)
    >>> [plan.kind for plan in collection_plans(grr, [0.4, 0.3, 0.2, 0.1], 1000, 30)]
    ['memoized', 'fresh', 'split']
    """
    check_repeatable(protocol)
    rounds = check_int(
        rounds, name="rounds", minimum=bounds.ROUNDS_MIN, maximum=bounds.EXACT_ROUNDS_MAX
    )
    f = np.asarray(frequencies, dtype=np.float64)
    d, epsilon = protocol.domain_size, protocol.epsilon
    plans = []
    memoized = memoized_counterpart(protocol)
    budget = epsilon
    if memoized is not None:
        chain = _memoized_plan_protocol(protocol, memoized, epsilon_inf)
        plans.append(_plan("memoized", chain, f, n, rounds))
        budget = lifetime_epsilon(chain)
    one_shot = one_shot_counterpart(protocol)
    fresh = one_shot(epsilon=epsilon, domain_size=d)
    plans.append(_plan("fresh", fresh, f, n, rounds))
    split = budget / rounds
    if rounds > 1 and split >= bounds.EPSILON_MIN:
        plans.append(_plan("split", one_shot(epsilon=split, domain_size=d), f, n, rounds))
    return tuple(plans)


def memoized_chains(
    frequencies: ArrayLike,
    n: int,
    rounds: int,
    *,
    epsilon: float,
    epsilon_inf: float | None = None,
) -> tuple[CollectionPlan, ...]:
    """Every registered memoized chain at one report's ε and the lifetime ε∞, least error first.

    Which chain to run when the collection repeats: each one's plan (exact), sorted by
    the error of one round, then of the average. A chain whose fresh round cannot bring
    one report to ε at this ε∞ (an OUE-like round, :mod:`ldpcore.protocols.lue`) is left
    out.

    Examples
    --------
    >>> [p.protocol.name for p in memoized_chains([0.5, 0.5], 1000, 30, epsilon=1.0)][0]
    'L-GRR'
    """
    f = np.asarray(frequencies, dtype=np.float64)
    registered: list[type[FrequencyOracle]] = list(PROTOCOLS.values())
    plans = []
    for cls in registered:
        if not issubclass(cls, Memoized):
            continue
        try:
            chain = cls(epsilon=epsilon, domain_size=f.size, epsilon_inf=epsilon_inf)  # type: ignore[arg-type]  # None: default
        except InputError:
            continue
        plans.append(_plan("memoized", chain, f, n, rounds))
    return tuple(sorted(plans, key=lambda plan: (plan.round_error, plan.average_error)))


@dataclass(frozen=True)
class AveragingRow:
    """How often an averaging aggregator guesses a user's value, after ``rounds`` reports.

    Attributes
    ----------
    plan : str
        The plan's label.
    rounds : int
        Reports seen per user.
    right, low, high : float
        The share of users guessed right, with its 95% Wilson interval.
    bound : float
        The most any aggregator can reach from ``rounds`` reports (values equally likely):
        ``e^{ε_t}/(e^{ε_t} + d − 1)`` for ``ε_t`` = what they spend (the best guess rate of
        any ε_t-LDP channel), and no more than the permanent answer's own guess rate for a
        memoized chain, whatever the rounds.
    chance : float
        ``1/d``: guessing with no report.
    kind : {"memoized", "fresh", "split"}
        The plan's kind.
    users : int
        Users simulated for the point.
    """

    plan: str
    rounds: int
    right: float
    low: float
    high: float
    bound: float
    chance: float
    kind: PlanKind
    users: int


#: Users × values the averaging attack draws per point at most: each user's support
#: counts over the d values are drawn (about 0.2 s at this size), so fewer users on a
#: larger domain, and never fewer than :data:`ATTACK_USERS_MIN`.
ATTACK_CELLS = 2_000_000
ATTACK_USERS_MIN = 2_000
#: The largest domain the averaging attack is simulated on (8 million cells a point).
ATTACK_DOMAIN_MAX = 4096


def attack_users(d: int, users: int | None = None) -> int:
    """Users per point: ``users``, or as many as :data:`ATTACK_CELLS` allow (at most 50,000).

    Examples
    --------
    >>> attack_users(16), attack_users(1024), attack_users(100_000)
    (50000, 2000, 2000)
    """
    if users is not None:
        return users
    return max(ATTACK_USERS_MIN, min(50_000, ATTACK_CELLS // d))


def averaging_attack(
    plans: Sequence[CollectionPlan],
    rounds: Sequence[int],
    *,
    users: int | None = None,
    seed: int = 0,
) -> list[AveragingRow]:
    """Simulate the averaging aggregator on each plan with a chain, at each number of rounds.

    ``users`` users (default :func:`attack_users`) with uniformly random values report
    ``t`` times each (:meth:`ldpcore.protocols.rounds.Chain.guesses_after`: their memo
    once, the rounds' supports exactly); the guess is the value their reports support
    most often.
    """
    d = plans[0].protocol.domain_size
    if d > ATTACK_DOMAIN_MAX:
        raise InputError(
            f"the averaging attack is simulated on at most {ATTACK_DOMAIN_MAX:,} values "
            f"(each user's support counts are drawn); this domain has {d:,}"
        )
    generator = np.random.default_rng(seed)
    users = attack_users(d, users)
    rows = []
    for plan in plans:
        chain = plan.protocol.rounds_chain()
        if chain is None:
            continue
        d = plan.protocol.domain_size
        memo = 1.0
        if isinstance(plan.protocol, Memoized):
            first = plan.protocol.first_round(epsilon=plan.protocol.epsilon_inf, domain_size=d)
            memo = guess_rate(first, np.ones(d))
        for t in rounds:
            values = generator.integers(0, d, size=users)
            right = float(np.mean(chain.guesses_after(values, int(t), generator) == values))
            low, high = _wilson(right, users)
            bound = min(memo, _ldp_guess_bound(epsilon_after(plan.protocol, int(t)), d))
            rows.append(
                AveragingRow(plan.label, int(t), right, low, high, bound, 1.0 / d, plan.kind, users)
            )
    return rows


def _ldp_guess_bound(epsilon: float, d: int) -> float:
    """``e^ε/(e^ε + d − 1)``, the best guess rate of any ε-LDP channel.

    A guess of one of ``d`` equally likely values is right at most this often, since each
    output's likelihoods under the ``d`` values are within e^ε of each other.
    """
    if epsilon > 700:  # e^ε overflows; the bound is 1 to double precision long before
        return 1.0
    return math.exp(epsilon) / (math.exp(epsilon) + d - 1)


def _wilson(share: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of ``trials``."""
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    half /= 1 + z * z / trials
    return max(0.0, centre - half), min(1.0, centre + half)


def _memoized_plan_protocol(
    protocol: FrequencyOracle, memoized: type[FrequencyOracle], epsilon_inf: float | None
) -> FrequencyOracle:
    """The memoized plan's protocol: ``protocol`` itself, or the chain at ``epsilon_inf``.

    A chain of rounds (:class:`Memoized`) takes ``epsilon_inf`` (None: its default); a
    protocol that memoizes its one report (dBitFlipPM) has no ε∞ of its own to set.
    """
    d, epsilon = protocol.domain_size, protocol.epsilon
    if not issubclass(memoized, Memoized):
        return protocol
    if memoized is type(protocol) and epsilon_inf is None:
        return protocol
    return memoized(epsilon=epsilon, domain_size=d, epsilon_inf=epsilon_inf)  # type: ignore[arg-type]  # None: default


__all__ = [
    "ATTACK_DOMAIN_MAX",
    "AveragingRow",
    "CollectionPlan",
    "attack_users",
    "averaging_attack",
    "collection_plans",
    "memoized_chains",
    "memoized_counterpart",
    "one_shot_counterpart",
    "typical_error",
]
