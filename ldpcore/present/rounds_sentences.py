"""Words and tables about collecting again and again.

The plans of :mod:`ldpcore.advice.longitudinal` (exact) and a simulated run of
:mod:`ldpcore.experiments.rounds` (with intervals, compared on the same trials), for the
"Collecting again" page, Choose ε's decision record and ``ldpcore simulate --rounds``.
``tests/present/test_rounds_words.py`` checks every number the words cite against the plans.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ldpcore.formats import (
    format_budget,
    format_count,
    format_error,
    format_margin,
    format_ratio,
)

if TYPE_CHECKING:
    import pandas as pd

    from ldpcore.advice.longitudinal import AveragingRow, CollectionPlan
    from ldpcore.experiments.rounds import RoundsRun

#: The words a period can be called by (the page's choice, the CLI's ``--period``).
PERIODS = ("day", "week", "month", "round")


def _plural(count: int, word: str) -> str:
    return f"{format_count(count)} {word}{'' if count == 1 else 's'}"


def _bound(plan: CollectionPlan) -> str:
    return "no bound" if math.isinf(plan.bound) else format_budget(plan.bound)


def plans_frame(plans: Sequence[CollectionPlan]) -> pd.DataFrame:
    """One row per plan: what a user spends and how far the estimates are off (exact).

    Examples
    --------
    >>> from ldpcore.advice.longitudinal import collection_plans
    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=4)
    >>> list(plans_frame(collection_plans(grr, [0.25] * 4, 1000, 30)).columns)[:3]
    ['plan', 'ε per report', 'ε after 30 reports']
    """
    import pandas as pd  # noqa: PLC0415

    rounds = plans[0].rounds
    return pd.DataFrame(
        {
            "plan": [plan.label for plan in plans],
            "ε per report": [format_budget(plan.per_report) for plan in plans],
            f"ε after {rounds:,} reports": [format_budget(plan.spent) for plan in plans],
            "ε after any number": [_bound(plan) for plan in plans],
            "one round: a typical value within (95%)": [
                format_margin(p.round_error) for p in plans
            ],
            f"the {rounds:,}-round average within (95%)": [
                format_margin(plan.average_error) for plan in plans
            ],
        }
    )


def _within(sd: float) -> str:
    """The words "within ±x pp", or what a margin past any share's reach says instead.

    Examples
    --------
    >>> _within(0.00254), _within(0.95)
    ('within ±0.498 pp', 'off by more than ±100 pp (no better than a guess)')
    """
    margin = format_margin(sd)
    if margin.startswith("over"):
        return "off by more than ±100 pp (no better than a guess)"
    return f"within {margin}"


def plans_words(plans: Sequence[CollectionPlan], *, n: int, period: str = "day") -> list[str]:
    """One sentence per plan, the memoized one first, in a stakeholder's words.

    Examples
    --------
    >>> from ldpcore.advice.longitudinal import collection_plans
    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=4)
    >>> plans_words(collection_plans(grr, [0.25] * 4, 1000, 30), n=1000)[2][:60]
    'GRR afresh every day at the same ε per report: each user spe'
    """
    rounds = plans[0].rounds
    words = []
    for plan in plans:
        name = plan.protocol.name
        each = (
            f"a typical value's estimate each {period} is {_within(plan.round_error)} of the "
            f"truth 95% of the time, and the average of all {format_count(rounds)} "
            f"{_within(plan.average_error)}"
        )
        if plan.kind == "memoized":
            words.append(
                f"{name}, memoized: each user spends {format_budget(plan.per_report)} per "
                f"report and at most {_bound(plan)} however long the collection runs "
                f"({format_budget(plan.spent)} after {_plural(rounds, 'report')}); {each}. "
                "The permanent answers are drawn once, so their noise never averages away."
            )
        elif plan.kind == "fresh":
            words.append(
                f"{name} afresh every {period} at the same ε per report: each user spends "
                f"{format_budget(plan.spent)} after {_plural(rounds, 'report')} "
                f"({format_count(rounds)} × {format_budget(plan.per_report)}), with no bound "
                f"as the collection goes on; {each}."
            )
        else:
            words.append(
                f"{name} afresh at {format_budget(plan.per_report)} per report, so that each "
                f"user spends {format_budget(plan.spent)} in all after "
                f"{_plural(rounds, 'report')}: {each}."
            )
    header = (
        f"Collected every {period} for {_plural(rounds, period)} from {format_count(n)} users "
        "(exact: NDSS 2020 Eq. 3 per round; the average's variance and ε after T reports "
        "from the chain of rounds):"
    )
    return [header, *words]


def chains_words(chains: Sequence[CollectionPlan], *, period: str = "day") -> str:
    """Which memoized chain to run: the one with the least error each round, and the rest.

    Examples
    --------
    >>> from ldpcore.advice.longitudinal import memoized_chains
    >>> chains_words(memoized_chains([0.5, 0.5], 1000, 30, epsilon=1.0))[:50]
    'Of the memoized chains at ε = 1 per report and ε∞ '
    """
    best, *rest = chains
    others = "; ".join(f"{plan.protocol.name} {format_margin(plan.round_error)}" for plan in rest)
    return (
        f"Of the memoized chains at ε = {format_budget(best.per_report)} per report and "
        f"ε∞ = {format_budget(best.bound)}, {best.protocol.name} has the least error each "
        f"{period}: a typical value {_within(best.round_error)}, 95% of the time "
        f"(the average of {format_count(best.rounds)}: {format_margin(best.average_error)})"
        + (f"; then {others}." if rest else ".")
    )


def attack_rounds(rounds: int) -> list[int]:
    """The numbers of reports the averaging attack is shown at: 1, 3, 10, … up to ``rounds``.

    Examples
    --------
    >>> attack_rounds(365)
    [1, 3, 10, 30, 100, 365]
    >>> attack_rounds(1), attack_rounds(2)
    ([1], [1, 2])
    """
    steps = [t for t in (1, 3, 10, 30, 100, 300, 1000) if 1.5 * t < rounds]
    return [*steps, rounds]


def averaging_words(rows: Sequence[AveragingRow], *, period: str = "day") -> str:
    """What an averaging aggregator guesses after the most reports, plan by plan.

    Examples
    --------
    >>> from ldpcore.advice.longitudinal import averaging_attack, collection_plans
    >>> from ldpcore.protocols import get_protocol
    >>> grr = get_protocol("GRR", epsilon=1.0, domain_size=8)
    >>> plans = collection_plans(grr, [0.125] * 8, 1000, 30)
    >>> averaging_words(averaging_attack(plans, [30], users=2000), period="day")[:44]
    "An aggregator who keeps every user's reports"
    """
    last = max(row.rounds for row in rows)
    final = [row for row in rows if row.rounds == last]
    parts = [
        f"{_percent(row.right)} of the time with {row.plan} (95% interval "
        f"{_percent(row.low)}–{_percent(row.high)}; "
        + (
            f"the most any guess can reach, however many reports: {_percent(row.bound)})"
            if row.kind == "memoized"
            else f"the most any guess can reach from these reports: {_percent(row.bound)})"
        )
        for row in final
    ]
    return (
        "An aggregator who keeps every user's reports and guesses the value they support "
        f"most often (the most likely value when values are equally likely; by chance "
        f"{_percent(final[0].chance)}) is right, after {_plural(last, period)}, "
        + "; ".join(parts)
        + f". Simulated, {format_count(final[0].users)} users per point."
    )


def no_attack_words(plans: Sequence[CollectionPlan]) -> str:
    """Why no averaging attack is drawn for these plans.

    Examples
    --------
    >>> from ldpcore.advice.longitudinal import collection_plans
    >>> from ldpcore.protocols import get_protocol
    >>> flip = get_protocol("dBitFlipPM", epsilon=1.0, domain_size=8)
    >>> no_attack_words(collection_plans(flip, [0.125] * 8, 100, 30))[:40]
    "dBitFlipPM's reports are drawn once per "
    """
    first = plans[0]
    if first.kind == "memoized" and first.protocol.rounds_chain() is None:
        return (
            f"{first.protocol.name}'s reports are drawn once per value and sent again every "
            f"{'round'}: averaging them reveals no more than one report does (ε = "
            f"{format_budget(first.per_report)}). Its fresh form's reports are not written "
            "as rounds here, so the attack on them is not simulated."
        )
    return (
        f"{first.protocol.name}'s reports are not written as rounds here: the averaging "
        "attack is not simulated for it."
    )


def _percent(share: float) -> str:
    return f"{100 * share:.3g}%"


def rounds_run_words(run: RoundsRun) -> str:
    """What the simulation found about post-processing over the rounds (paired with Base).

    Compares each method's two ways of using the rounds — averaging its answers, or
    applying it once to the average of Base's — with averaging Base's, on the same
    trials.
    """
    summary = run.summary
    base = summary[summary["method"] == "Base"].iloc[0]
    agreed = (
        "agrees with"
        if base["average_low"] <= run.exact_average <= base["average_high"]
        else "is outside the 95% interval of"
    )
    lines = [
        f"Averaging Base over {format_count(run.rounds)} rounds: MSE "
        f"{format_error(base['average_mse'])} (95% interval {format_error(base['average_low'])}"
        f"–{format_error(base['average_high'])}, {run.config.trials} trials), which {agreed} "
        f"the exact {format_error(run.exact_average)}."
    ]
    for record in summary.to_dict("records"):
        if record["method"] == "Base":
            continue
        lines.append(
            f"{record['method']}: averaging its answers gives MSE "
            f"{format_error(record['average_mse'])} ({_against(record, 'average')}); applying "
            f"it once to the average of Base's gives {format_error(record['pooled_mse'])} "
            f"({_against(record, 'pooled')})."
        )
    return "\n".join(lines)


def _against(record: dict[str, object], label: str) -> str:
    outcome = str(record[f"{label}_vs_base"])
    if outcome in {"lower", "higher"}:
        ratio, low, high = (
            float(record[f"{label}_ratio{tail}"])  # type: ignore[arg-type]
            for tail in ("", "_low", "_high")
        )
        return (
            f"{outcome} than averaging Base's: {ratio:.3g} × its MSE, interval "
            f"{low:.3g}–{high:.3g}, paired on the same trials"
        )
    if outcome == "same answers":
        return "the same answers as averaging Base's"
    return f"{outcome} from averaging Base's"


#: How the simulated check averages the rounds, as its table names each way.
_AVERAGED = {
    "average": "each round post-processed, then averaged",
    "pooled": "Base averaged, then post-processed once",
}


def rounds_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The simulated check's table in words, per method.

    One round's MSE, and each way of averaging the rounds with its MSE against averaging
    Base's (paired, 95%).

    ``summary`` is :attr:`ldpcore.experiments.rounds.RoundsRun.summary`.
    """
    import pandas as pd  # noqa: PLC0415

    rows = []
    for record in summary.to_dict("records"):
        row = {"method": record["method"], "one round: MSE (95%)": _mse(record, "round")}
        for label, words in _AVERAGED.items():
            ratio = format_ratio(
                record[f"{label}_ratio"],
                record[f"{label}_ratio_low"],
                record[f"{label}_ratio_high"],
            )
            row[f"{words}: MSE (95%)"] = _mse(record, label)
            row[f"{words}: ÷ Base averaged (95%)"] = f"{ratio}, {record[f'{label}_vs_base']}"
        rows.append(row)
    return pd.DataFrame(rows)


def _mse(record: dict[str, Any], label: str) -> str:
    low, high = format_error(record[f"{label}_low"]), format_error(record[f"{label}_high"])
    return f"{format_error(record[f'{label}_mse'])} ({low}–{high})"


__all__ = [
    "PERIODS",
    "attack_rounds",
    "averaging_words",
    "chains_words",
    "no_attack_words",
    "plans_frame",
    "plans_words",
    "rounds_run_words",
    "rounds_table",
]
