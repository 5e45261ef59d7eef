"""Collecting again: what ``T`` reports of one value spend, and how they are drawn.

A protocol describes its rounds in one of three ways (its declarations on
:class:`~ldpcore.protocols.base.FrequencyOracle`):

* ``memoizes_report`` (dBitFlipPM): the whole report is drawn once and sent again, so
  any number of reports spends one report's ε and the rounds are one draw repeated;
* ``rounds_chain()`` returns a :class:`~ldpcore.protocols.rounds.Chain`: a permanent
  round then a fresh one (the memoized chains of Arcolezi et al.; GRR and the unary
  encodings as chains whose every round is fresh);
* neither: rounds are independent draws, and ε composes over them.

These functions read those declarations; the protocols hold no code for them.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore import bounds
from ldpcore._validation import check_int, check_n_users
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle, Sampler, check_sampling
from ldpcore.rng import RNGLike


def check_rounds(rounds: object, *, simulated: bool = False) -> int:
    """Rounds a simulation keeps (``ROUNDS_MAX``) or an exact figure takes."""
    most = bounds.ROUNDS_MAX if simulated else bounds.EXACT_ROUNDS_MAX
    return check_int(rounds, name="rounds", minimum=bounds.ROUNDS_MIN, maximum=most)


def check_repeatable(protocol: FrequencyOracle) -> None:
    """Refuse, in words, a protocol whose repeated collection is not modelled.

    A hierarchy's user draws a level at every report, so T reports reveal up to T levels
    of the user's value; the Square Wave's T positions average towards the value itself.
    What either spends, and how the averages behave, is not written here.
    """
    if not protocol.support_view:
        raise InputError(
            f"collecting again with {protocol.name} is not modelled yet: its tallies count "
            f"{protocol.tallies_count}; pick a protocol that counts values (GRR, OUE, OLH, …)"
        )


def one_shot_form(protocol: FrequencyOracle | type[FrequencyOracle]) -> type[FrequencyOracle]:
    """The protocol that randomizes afresh at every report (its class unless memoized)."""
    cls = protocol if isinstance(protocol, type) else type(protocol)
    return cls.one_shot or cls


def lifetime_epsilon(protocol: FrequencyOracle) -> float:
    """ε∞: what any number of reports of one value spend (infinite unless memoized)."""
    if protocol.memoizes_report:
        return protocol.spent_epsilon()
    chain = protocol.rounds_chain()
    return math.inf if chain is None else chain.permanent_epsilon()


def epsilon_after(protocol: FrequencyOracle, rounds: int) -> float:
    """What ``rounds`` reports of one value spend, exactly (at most ε∞ if memoized).

    Without memoization ``rounds`` independent reports can each fall on their worst
    output, so they spend ``rounds`` times one report's ε.
    """
    rounds = check_rounds(rounds)
    if protocol.memoizes_report:
        return protocol.spent_epsilon()
    chain = protocol.rounds_chain()
    if chain is None:
        return rounds * protocol.spent_epsilon()
    return chain.epsilon_after(rounds)


def sample_rounds(
    protocol: FrequencyOracle,
    true_counts: ArrayLike,
    rounds: int,
    rng: RNGLike = None,
    *,
    sampler: Sampler = "fast",
) -> NDArray[np.int64]:
    """The tallies of ``rounds`` reports from the same users, one row a round.

    A memoizing chain's users keep their permanent answer across the rounds
    (:meth:`Chain.sample_rounds <ldpcore.protocols.rounds.Chain.sample_rounds>`, exact
    and O(d) a round; its rows are support counts); another protocol's rounds are its
    own sampler's tallies (:meth:`~ldpcore.protocols.base.FrequencyOracle.sample_tallies`),
    drawn once and repeated if it memoizes its whole report, else drawn afresh. A row's
    Base estimate is :meth:`~ldpcore.protocols.base.FrequencyOracle.estimate_from_tallies`.
    ``sampler="per-user"`` runs every user's memo and reports.
    """
    rounds = check_rounds(rounds, simulated=True)
    check_repeatable(protocol)
    counts, generator = check_sampling(protocol, true_counts, rng, sampler)

    def draw() -> NDArray[np.int64]:
        return protocol.sample_tallies(counts, generator, sampler=sampler)

    if protocol.memoizes_report:  # the same responses every round
        return np.repeat(draw()[None, :], rounds, axis=0)
    chain = protocol.rounds_chain()
    if chain is not None and sampler == "fast":
        return chain.sample_rounds(counts, rounds, generator)
    if chain is not None:
        return chain.sample_rounds_per_user(counts, rounds, generator)
    return np.stack([draw() for _ in range(rounds)])


def average_variance(
    protocol: FrequencyOracle, frequencies: ArrayLike, n: int, rounds: int
) -> NDArray[np.float64]:
    """Per value, the variance of the average of ``rounds`` rounds' Base estimates.

    Independent rounds divide NDSS Eq. 3 by ``rounds``; a memoizing protocol's
    permanent round does not average away (:mod:`ldpcore.protocols.rounds`).
    """
    rounds = check_rounds(rounds)
    one = protocol.variance(frequencies, n)
    if protocol.memoizes_report:  # every round the same: nothing to average
        return one
    chain = protocol.rounds_chain()
    if chain is None or not chain.memoized:
        return one / rounds
    return chain.average_variance(frequencies, check_n_users(n), rounds)


__all__ = [
    "average_variance",
    "check_repeatable",
    "check_rounds",
    "epsilon_after",
    "lifetime_epsilon",
    "one_shot_form",
    "sample_rounds",
]
