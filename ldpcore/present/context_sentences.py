"""An ε in words: the odds it allows, after shuffling, and over repeated reports.

The words of :mod:`ldpcore.advice.epsilon_context`'s numbers, read on Choose ε, in its
decision record and notebook, and by ``ldpcore epsilon-context``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ldpcore.formats import (
    format_budget,
    format_delta,
    format_number,
)

if TYPE_CHECKING:
    from ldpcore.advice.composition import RepeatedCost
    from ldpcore.advice.shuffling import ShuffleBound


def odds_sentence(epsilon: float) -> str:
    """What ε-LDP means for one person, in odds and in certainty (markdown).

    Posterior odds are at most ``e^ε`` times the prior odds, so a belief ``b`` becomes at
    most ``e^ε b / (1 − b + e^ε b)`` ("is 0.4 a lot?" answered in certainty).

    Examples
    --------
    >>> odds_sentence(1.0).split(". ")[1]
    'An observer who thought it 50% likely that the person holds a given value can be at most **73% sure** after one report; one who thought it 10% likely, at most 23%.'
    """  # noqa: E501
    factor = math.exp(epsilon)

    def at_most(belief: float) -> float:
        return factor * belief / (1.0 - belief + factor * belief)

    return (
        "Whatever anyone knew before, one person's report can change their odds about "
        f"that person's value by at most a factor **e^ε = {factor:,.2f}** "
        "(the definition of ε-LDP). An observer who thought it 50% likely that the person "
        f"holds a given value can be at most **{at_most(0.5):.0%} sure** after one report; "
        f"one who thought it 10% likely, at most {at_most(0.1):.0%}."
    )


#: How the paired comparisons with Base are made, for captions under every method table.
#: What amplification by shuffling needs and covers, said wherever its figure is shown.
SHUFFLE_TERMS = (
    "It needs a trusted shuffler that removes who sent which report, one report per user, "
    "and holds for any ε-LDP randomizer (every protocol here). Against the shuffler itself, "
    "or anyone who sees reports before they are shuffled, each report is still protected "
    "by its local ε alone (Feldman, McMillan & Talwar, FOCS 2021)."
)


def shuffle_sentence(bound: ShuffleBound) -> str:
    """The central ε the shuffled reports reach, in one sentence a stakeholder can repeat.

    Examples
    --------
    >>> from ldpcore.advice.shuffling import ShuffleBound
    >>> bound = ShuffleBound(4.0, 100_000, 1e-6, 0.1698, 0.5346, 6.07)
    >>> shuffle_sentence(bound).split(" are together ")[1].split(" (")[0]
    'central ε = 0.17 at δ = 10⁻⁶'
    """
    closed = (
        f"the paper's closed form gives at most {format_number(bound.closed_form)}"
        if bound.closed_form is not None
        else (
            "the paper's closed form does not apply: it needs a local ε of at most "
            f"{format_number(bound.closed_form_limit)} at this n and δ"
        )
        if bound.closed_form_limit > 0
        else "the paper's closed form does not apply at so few users"
    )
    return (
        f"Shuffled before analysis, the reports of {bound.n:,} users at a local ε of "
        f"{format_number(bound.epsilon0)} are together central ε = "
        f"{format_number(bound.epsilon)} at δ = {format_delta(bound.delta)} (the numerical "
        f"bound of Feldman, McMillan & Talwar; {closed}): that is the figure to set beside "
        "a central ε such as the Census Bureau's."
    )


def repeated_sentence(cost: RepeatedCost, period: str = "day") -> str:
    """What one user spends over the horizon, fresh and memoized, in one sentence.

    Examples
    --------
    >>> from ldpcore.advice.composition import repeated_cost
    >>> repeated_sentence(repeated_cost(1.0, periods=365)).split("one user spends ")[1][:50]
    'ε = 365 in all (basic composition, 365 × 1); with '
    """
    reports = f"{cost.reports_per_period:,} report{'s' * (cost.reports_per_period != 1)}"
    horizon = f"{cost.periods:,} {period}{'s' * (cost.periods != 1)}"
    if cost.fresh_is_advanced:
        fresh = (
            f"at most ε = {format_budget(cost.advanced)} in all at δ = "
            f"{format_delta(cost.delta)} (advanced composition; basic composition gives "
            f"{format_budget(cost.basic)})"
        )
    else:
        fresh = (
            f"ε = {format_budget(cost.basic)} in all (basic composition, "
            f"{cost.reports:,} × {format_number(cost.epsilon)})"
        )
    values = (
        "a value that never changes costs"
        if cost.distinct_values == 1
        else f"{cost.distinct_values:,} distinct values cost"
    )
    return (
        f"Collected {reports} per {period} for {horizon} with fresh randomization, one user "
        f"spends {fresh}; with a memoized (permanent) response, {values} "
        f"ε = {format_budget(cost.memoized)} once, but each change of value costs "
        f"{format_number(cost.epsilon)} again and the repeated report links a user's "
        "reports together."
    )


__all__ = ["SHUFFLE_TERMS", "odds_sentence", "repeated_sentence", "shuffle_sentence"]
