"""``ldpcore epsilon-context``: an ε beside published deployments, after shuffling, over a year.

The JSON contract (``--format json``), every key always present:

``epsilon, n, delta``
    What was asked: the local ε per report, the users, the δ of the central bounds.
``shuffled``
    ``central_epsilon`` (the figure to quote: the smaller valid bound), ``numerical``,
    ``closed_form`` (null where its condition fails), ``closed_form_max_local_epsilon``,
    ``users_computed`` (the n the numerical bound was computed at), ``requires``,
    ``source``, ``sentence``.
``repeated``
    ``period, reports_per_period, periods, reports``; ``fresh`` with ``basic``,
    ``advanced``, ``advanced_delta``, ``quoted`` and ``quoted_delta`` (null when the
    quoted bound is the pure basic one); ``memoized`` with ``distinct_values``,
    ``epsilon`` and ``exposes``; ``sentence``.
``deployments``
    ``checked_on``, ``rows`` (as the Choose ε page's table, central rows compared with
    the shuffled ε), ``unchecked`` (``deployment``, ``why``), ``sentence``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ldpcore import bounds
from ldpcore.cli import _args
from ldpcore.errors import InputError

if TYPE_CHECKING:
    from ldpcore.advice.epsilon_context import EpsilonContext

EXAMPLE = """example (ε = 1 per report, a million users, collected daily for a year):
  ldpcore epsilon-context --epsilon 1 --n 1000000 --delta 1e-6 \\
      --reports-per-period 1 --periods 365 --format json
"""

#: Where the shuffling bounds come from.
SHUFFLE_SOURCE = (
    "Feldman, McMillan & Talwar, Hiding Among the Clones, FOCS 2021 (arXiv 2012.12803): "
    "numerical bound from Thm 3.2 by bisection, closed form Thm 3.1"
)


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    parser = _args.add_command(
        commands,
        "epsilon-context",
        help="an ε beside published deployments, after shuffling, and over repeated reports",
        description="For a local ε per report and n users: the central ε the reports reach "
        "through a trusted shuffler, the ε one user spends over repeated collection (fresh "
        "randomization and memoized responses), and the published deployments, each with "
        "its unit and model.",
        example=EXAMPLE,
    )
    parser.add_argument("--epsilon", required=True, help="local ε per report (above 0)")
    parser.add_argument("--n", required=True, help="users, one report each (at least 2)")
    parser.add_argument("--delta", default="1e-6", help="δ of the central bounds, in (0, 1)")
    parser.add_argument("--reports-per-period", default="1", help="reports per user and period")
    parser.add_argument("--periods", default="365", help="periods collected (365 days: a year)")
    parser.add_argument("--period", default="day", help="the period's name, for the sentences")
    parser.add_argument(
        "--distinct-values",
        default="1",
        help="values one user holds over the horizon (memoization pays once per value)",
    )
    parser.add_argument("--format", default="table", choices=["table", "json"])


def _count(raw: str, name: str) -> int:
    value = _args.whole(raw, name, 1, 10**9)
    assert value is not None
    return value


def _period(raw: str) -> str:
    word = raw.strip()
    if not word or len(word) > 20 or not all(c.isalpha() or c in " -" for c in word):
        raise InputError(f"--period must be a word such as day, week or month, got {raw!r}")
    return word


def payload(found: EpsilonContext) -> dict[str, Any]:
    """The command's JSON contract (see the module's text) for one ε in context."""
    # Here, not at the top: `ldpcore --help` loads neither pandas nor scipy.
    from ldpcore.advice.composition import MEMOIZATION_EXPOSES  # noqa: PLC0415
    from ldpcore.advice.deployments import (  # noqa: PLC0415
        CHECKED_ON,
        UNCHECKED,
        context_sentence,
        deployment_rows,
    )
    from ldpcore.advice.shuffling import USERS_COMPUTED_MAX  # noqa: PLC0415
    from ldpcore.present.context_sentences import SHUFFLE_TERMS, repeated_sentence, shuffle_sentence  # noqa: PLC0415

    bound, cost = found.shuffled, found.repeated
    epsilon, n = bound.epsilon0, bound.n
    return {
        "epsilon": epsilon,
        "n": n,
        "delta": bound.delta,
        "shuffled": {
            "central_epsilon": bound.epsilon,
            "numerical": bound.numerical,
            "closed_form": bound.closed_form,
            "closed_form_max_local_epsilon": bound.closed_form_limit,
            "users_computed": min(n, USERS_COMPUTED_MAX),
            "requires": SHUFFLE_TERMS,
            "source": SHUFFLE_SOURCE,
            "sentence": shuffle_sentence(bound),
        },
        "repeated": {
            "period": found.period,
            "reports_per_period": cost.reports_per_period,
            "periods": cost.periods,
            "reports": cost.reports,
            "fresh": {
                "basic": cost.basic,
                "advanced": cost.advanced,
                "advanced_delta": cost.delta,
                "quoted": cost.fresh,
                "quoted_delta": cost.delta if cost.fresh_is_advanced else None,
            },
            "memoized": {
                "distinct_values": cost.distinct_values,
                "epsilon": cost.memoized,
                "exposes": list(MEMOIZATION_EXPOSES),
            },
            "sentence": repeated_sentence(cost, found.period),
        },
        "deployments": {
            "checked_on": CHECKED_ON,
            "rows": deployment_rows(epsilon, bound),
            "unchecked": [{"deployment": who, "why": why} for who, why in UNCHECKED],
            "sentence": context_sentence(epsilon),
        },
    }


def run(args: argparse.Namespace) -> int:
    """Compute and print."""
    from ldpcore.advice.epsilon_context import epsilon_context  # noqa: PLC0415

    n = _args.whole(args.n, "n", 2, bounds.N_USERS_MAX)
    assert n is not None
    # ε and δ are checked by the core's own rules (ldpcore._validation), as every command's.
    context = epsilon_context(
        _args.number(args.epsilon, "epsilon"),
        n,
        delta=_args.number(args.delta, "delta"),
        reports_per_period=_count(args.reports_per_period, "reports-per-period"),
        periods=_count(args.periods, "periods"),
        period=_period(args.period),
        distinct_values=_count(args.distinct_values, "distinct-values"),
    )
    found = payload(context)
    if args.format == "json":
        _args.print_json(found)
        return 0
    print(found["shuffled"]["sentence"])
    print(f"  {found['shuffled']['requires']}")
    print(found["repeated"]["sentence"])
    print(found["deployments"]["sentence"])
    print(f"Published deployments (checked {found['deployments']['checked_on']}):")
    for row in found["deployments"]["rows"]:
        print(
            f"  {row['organisation']}, {row['use']}: ε = {row['ε']:g}, δ {row['δ']}, "
            f"{row['model']}, {row['unit']} — {row['compared with yours']}"
        )
    print("Not listed (figure not checked):")
    for item in found["deployments"]["unchecked"]:
        print(f"  {item['deployment']}: {item['why']}")
    return 0
