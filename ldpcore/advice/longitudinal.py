"""Collecting again and again: what T rounds of one protocol give and cost, plan by plan.

A telemetry team collecting every period for ``T`` periods chooses between:

* a **memoized** chain (L-GRR, L-OSUE, RAPPOR's L-SUE, …): one report spends ε₁, and no
  number of reports spends more than ε∞ about a value; each period's estimate is one
  round's, and the average over the periods keeps the permanent round's noise;
* its **one-shot** protocol afresh every period at the same ε₁ per report: each period is
  as accurate as one report at ε₁ allows, the average improves ``T``-fold, and a user
  spends ``T·ε₁`` (``ε`` after ``T`` reports, exact: :meth:`FrequencyOracle.epsilon_after`);
* the one-shot protocol afresh at **ε∞/T** per report: the memoized chain's lifetime budget
  split over the periods (basic composition, exact for these channels), with the noise
  that so small a budget leaves.

Every number here is exact: one round's variance is NDSS 2020 Eq. 3 with the chain's
compound ``p`` and ``q``, the average's is :mod:`ldpcore.protocols.rounds`' formula,
and the ε is the worst report sequence's. A simulation checks them
(:mod:`ldpcore.experiments.rounds`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from ldpcore import bounds
from ldpcore._validation import check_int
from ldpcore.protocols import PROTOCOLS, FrequencyOracle, Memoized

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
    """The one-shot protocol a memoized chain memoizes (itself for a one-shot one)."""
    if isinstance(protocol, Memoized):
        return protocol.first_round
    return type(protocol)


def memoized_counterpart(protocol: FrequencyOracle) -> type[Memoized] | None:
    """The first registered memoized chain whose permanent round is ``protocol``'s kind."""
    if isinstance(protocol, Memoized):
        return type(protocol)
    registered: list[type[FrequencyOracle]] = list(PROTOCOLS.values())
    for cls in registered:
        if issubclass(cls, Memoized) and cls.first_round is type(protocol):
            return cls
    return None


def _plan(
    kind: PlanKind, protocol: FrequencyOracle, f: np.ndarray, n: int, rounds: int
) -> CollectionPlan:
    return CollectionPlan(
        kind=kind,
        protocol=protocol,
        rounds=rounds,
        spent=protocol.epsilon_after(rounds),
        bound=protocol.lifetime_epsilon(),
        round_error=math.sqrt(float(np.mean(protocol.variance(f, n)))),
        average_error=math.sqrt(float(np.mean(protocol.average_variance(f, n, rounds)))),
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
    rounds = check_int(
        rounds, name="rounds", minimum=bounds.ROUNDS_MIN, maximum=bounds.EXACT_ROUNDS_MAX
    )
    f = np.asarray(frequencies, dtype=np.float64)
    d, epsilon = protocol.domain_size, protocol.epsilon
    plans = []
    memoized = memoized_counterpart(protocol)
    budget = epsilon
    if memoized is not None:
        chain = (
            protocol
            if isinstance(protocol, Memoized) and epsilon_inf is None
            else memoized(
                epsilon=epsilon,
                domain_size=d,
                epsilon_inf=_lifetime(protocol, epsilon_inf),  # type: ignore[arg-type]  # None: default
            )
        )
        plans.append(_plan("memoized", chain, f, n, rounds))
        budget = chain.lifetime_epsilon()
    one_shot = one_shot_counterpart(protocol)
    fresh = one_shot(epsilon=epsilon, domain_size=d)
    plans.append(_plan("fresh", fresh, f, n, rounds))
    split = budget / rounds
    if rounds > 1 and split >= bounds.EPSILON_MIN:
        plans.append(_plan("split", one_shot(epsilon=split, domain_size=d), f, n, rounds))
    return tuple(plans)


def _lifetime(protocol: FrequencyOracle, epsilon_inf: float | None) -> float | None:
    if epsilon_inf is not None:
        return epsilon_inf
    return protocol.epsilon_inf if isinstance(protocol, Memoized) else None


__all__ = [
    "CollectionPlan",
    "collection_plans",
    "memoized_counterpart",
    "one_shot_counterpart",
]
