"""An ε in context: its central ε after shuffling and what repeated collection costs.

One bundle for the Choose ε page, the decision record, the notebook and
``ldpcore epsilon-context``, so all four state the same figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from ldpcore.advice.composition import RepeatedCost, repeated_cost
from ldpcore.advice.longitudinal import CollectionPlan, collection_plans
from ldpcore.advice.shuffling import ShuffleBound, shuffled_epsilon
from ldpcore.protocols import get_protocol

#: Cadences offered on the page: name → (reports per period, periods, period).
CADENCES: MappingProxyType[str, tuple[int, int, str]] = MappingProxyType(
    {
        "once a day, for a year": (1, 365, "day"),
        "once a week, for a year": (1, 52, "week"),
        "once a month, for a year": (1, 12, "month"),
        "once an hour, for a year": (24, 365, "day"),
        "once, never again": (1, 1, "collection"),
    }
)


@dataclass(frozen=True)
class EpsilonContext:
    """A local ε per report, shuffled among n users and collected at a cadence.

    Attributes
    ----------
    shuffled
        The central (ε, δ) after a trusted shuffler (:mod:`ldpcore.advice.shuffling`).
    repeated
        What one user spends over the cadence (:mod:`ldpcore.advice.composition`).
    period
        The period's name ("day"), for the sentences.
    """

    shuffled: ShuffleBound
    repeated: RepeatedCost
    period: str


def epsilon_context(
    epsilon: float,
    n: int,
    *,
    delta: float = 1e-6,
    reports_per_period: int = 1,
    periods: int = 365,
    period: str = "day",
    distinct_values: int = 1,
) -> EpsilonContext:
    """Both figures for ``epsilon`` (checked: an :class:`~ldpcore.errors.InputError` if not).

    Examples
    --------
    >>> found = epsilon_context(4.0, 100_000)
    >>> round(found.shuffled.epsilon, 2), found.repeated.basic
    (0.17, 1460.0)
    """
    return EpsilonContext(
        shuffled=shuffled_epsilon(epsilon, n, delta),
        repeated=repeated_cost(
            epsilon,
            reports_per_period=reports_per_period,
            periods=periods,
            distinct_values=distinct_values,
            delta=delta,
        ),
        period=period,
    )


def cadence_plans(
    protocol: str,
    epsilon: float,
    frequencies: NDArray[np.float64],
    n: int,
    cadence: tuple[int, int, str],
) -> tuple[tuple[CollectionPlan, ...], str] | None:
    """The plans for collecting at ``cadence`` (one of :data:`CADENCES`), or None once.

    The rounds are the cadence's reports; a round is the cadence's period when it sends
    one report a period, else "round" (an hourly report is not a day's).
    """
    per_period, periods, period = cadence
    rounds = per_period * periods
    if rounds == 1:
        return None
    built = get_protocol(protocol, epsilon=epsilon, domain_size=frequencies.size)
    word = period if per_period == 1 else "round"
    return collection_plans(built, frequencies, n, rounds), word


__all__ = ["CADENCES", "EpsilonContext", "cadence_plans", "epsilon_context"]
