"""Decisions from simulations: which method to use, and which ε (or n) is enough.

One concept per module:

* :mod:`~ldpcore.advice.ranking` — :func:`rank_methods`, and ranking on one consistent
  stand-in for the truth (NDSS 2020 Sec. V-D);
* :mod:`~ldpcore.advice.unknown_truth` — :func:`recommend`: rank the methods for a
  collection on truths drawn from the posterior given it;
* :mod:`~ldpcore.advice.sweeps` — :func:`sweep_verdicts`, the best significant method
  along a sweep;
* :mod:`~ldpcore.advice.bisection` — :func:`advise_epsilon` and :func:`advise_users`,
  each method's smallest ε or n meeting a target;
* :mod:`~ldpcore.advice.epsilon_search` — :func:`choose_epsilon`, the adaptive paired
  search of Choose ε, and :mod:`~ldpcore.advice.epsilon_answer`, what it answers;
* :mod:`~ldpcore.advice.error_curve` — :func:`error_curve`, Choose ε's chart, Base exact
  where it can be;
* :mod:`~ldpcore.advice.verdicts` — :func:`verdict`, what a paired comparison
  recommends;
* :mod:`~ldpcore.advice.deployments` — the ε of published deployments;
* :mod:`~ldpcore.advice.shuffling` — the central ε of shuffled reports (FMT 2021), and
  :mod:`~ldpcore.advice.composition` — what repeated collection spends; both bundled by
  :mod:`~ldpcore.advice.epsilon_context`;
* :mod:`~ldpcore.advice.risk` — :func:`privacy_risk`;
* :mod:`~ldpcore.advice.timing` — how long a search will take.

The sentences they lead to are in :mod:`ldpcore.present.sentences`.
"""

from __future__ import annotations

from ldpcore.advice.bisection import Advice, advise_epsilon, advise_users
from ldpcore.advice.composition import RepeatedCost, repeated_cost
from ldpcore.advice.epsilon_answer import (
    ConsistentOption,
    EpsilonAnswer,
    winning_answer,
)
from ldpcore.advice.epsilon_context import EpsilonContext, epsilon_context
from ldpcore.advice.epsilon_search import choose_epsilon
from ldpcore.advice.error_curve import error_curve
from ldpcore.advice.ranking import (
    Recommendation,
    consistent_methods,
    no_op_methods,
    rank_methods,
)
from ldpcore.advice.risk import privacy_risk
from ldpcore.advice.shuffling import ShuffleBound, shuffled_epsilon
from ldpcore.advice.sweeps import SweepVerdict, sweep_verdicts
from ldpcore.advice.targets import AccuracyTarget, check_target, parse_target
from ldpcore.advice.timing import (
    RUNS_PER_PROTOCOL,
    estimate_choose_epsilon_seconds,
    parallel_seconds,
)
from ldpcore.advice.unknown_truth import recommend
from ldpcore.advice.verdicts import Verdict, verdict
from ldpcore.bounds import EPSILON_RANGE, USERS_RANGE

__all__ = [
    "EPSILON_RANGE",
    "RUNS_PER_PROTOCOL",
    "USERS_RANGE",
    "AccuracyTarget",
    "Advice",
    "ConsistentOption",
    "EpsilonAnswer",
    "EpsilonContext",
    "Recommendation",
    "RepeatedCost",
    "ShuffleBound",
    "SweepVerdict",
    "Verdict",
    "advise_epsilon",
    "advise_users",
    "check_target",
    "choose_epsilon",
    "consistent_methods",
    "epsilon_context",
    "error_curve",
    "estimate_choose_epsilon_seconds",
    "no_op_methods",
    "parallel_seconds",
    "parse_target",
    "privacy_risk",
    "rank_methods",
    "recommend",
    "repeated_cost",
    "shuffled_epsilon",
    "sweep_verdicts",
    "verdict",
    "winning_answer",
]
