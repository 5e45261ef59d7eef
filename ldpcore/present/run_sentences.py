"""Sentences about one run and its answer: its cost, its caveats, fake users in the top k.

Beside :mod:`ldpcore.present.sentences` (the advice's sentences): a run's cost before
it starts (the budget's question), what a method records about its answer as facts
(:mod:`ldpcore.postprocess.caveats`, :class:`~ldpcore.postprocess.ibu.NotConverged`),
and what an uploaded report file's checks found. What fake users did to each method is
:mod:`ldpcore.present.attack_sentences`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ldpcore.attacks.itemsets import FALSE_ALARM
from ldpcore.formats import (
    format_duration,
    format_durations_apart,
    format_error,
    format_share,
)
from ldpcore.postprocess.caveats import Caveat, PriorShapes, Unsettled, Widened

# Measured spans the words quote; tests/house/test_claims.py holds them to the stored runs.
#: Bayes's 95% credible intervals on frequent values where the prior shapes the answer.
FLAGGED_FREQUENT_COVERAGE = (0.41, 0.91)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ldpcore.attacks.reach import TopKQuestion
    from ldpcore.collection.report_check import ReportCheck
    from ldpcore.experiments.clock import Busy
    from ldpcore.experiments.config import ExperimentConfig
    from ldpcore.postprocess.ibu import NotConverged


def caveat_words(caveat: Caveat) -> str:
    """What a method recorded about its answer, said to a person (the pages and the CLI).

    Examples
    --------
    >>> from ldpcore.postprocess.caveats import Widened
    >>> caveat_words(Widened(n=25, level=0.95))[:60]
    'With 25 reports the prior, not the reports, would set these '
    """
    if isinstance(caveat, Widened):
        return (
            f"With {caveat.n:,} reports the prior, not the reports, would set these "
            f"intervals: each is widened to hold the exact {caveat.level:.0%} confidence "
            "interval for the true share, so it covers at least that often whatever the prior."
        )
    if isinstance(caveat, PriorShapes):
        if math.isinf(caveat.pull):
            how_far = "the reports alone place no value clearly above 0"
        elif caveat.pull_counts:
            how_far = (
                f"it moved values the reports measure well by up to {caveat.pull:.1f} posterior sds"
            )
        else:
            how_far = (
                f"the reports see only {caveat.seen} of the {caveat.values} values clearly "
                "(above two posterior sds), and the rest are mostly the prior's"
            )
        return (
            f"The prior shapes these numbers: {how_far}, and {caveat.moved:.0%} of the mass "
            "sits elsewhere than the reports alone put it. The credible intervals then "
            "describe the prior as much as the reports and can cover the truth much less "
            f"often than stated ({100 * FLAGGED_FREQUENT_COVERAGE[0]:.0f}–"
            f"{100 * FLAGGED_FREQUENT_COVERAGE[1]:.0f}% for frequent values at 95% in such cases, "
            "benchmarks/README.md). With this little information per value, prefer MLE or "
            "Norm-Sub with confidence intervals, or a prior from data you trust."
        )
    sizes = f"its smallest effective sample size is {caveat.values_ess:,.0f}"
    if caveat.alpha_ess is not None:
        sizes = (
            f"the values' smallest effective sample size is {caveat.values_ess:,.0f} "
            f"and α's {caveat.alpha_ess:,.0f}"
        )
    # A mean's Monte Carlo error is its posterior sd over √ESS (BDA3, Sec. 11.5).
    noise = 1 / math.sqrt(max(caveat.values_ess, 1.0))
    wanted_noise = 1 / math.sqrt(max(caveat.wanted_ess, 1.0))
    what = (
        "the frequencies' estimates are as precise as wanted; only α's posterior "
        "(the prior's concentration) is rougher than that"
        if caveat.values_settled
        else f"the estimates carry Monte Carlo noise of up to {noise:.0%} of a "
        f"posterior sd ({wanted_noise:.0%} at the size wanted)"
    )
    return (
        f"Bayes's sampler had not settled when it stopped: {sizes} "
        f"({caveat.wanted_ess:,.0f} wanted); the largest rank-normalised R̂ is "
        f"{caveat.max_rhat:.3f} (at most {caveat.wanted_rhat:g} wanted); {what}. "
        f"MLE needs no sampling; in code, Bayes(draws=…) above {caveat.draws:,} samples longer."
    )


def caveats_note(caveats: Sequence[Caveat]) -> str:
    """Every caveat of an answer in one note (empty when there is none)."""
    return " ".join(caveat_words(caveat) for caveat in caveats)


def not_converged_words(warning: NotConverged) -> str:
    """A :class:`~ldpcore.postprocess.ibu.NotConverged` warning, said to a person."""
    fact = warning.fact
    if isinstance(fact, Unsettled | PriorShapes | Widened):
        return caveat_words(fact)
    return str(warning)


def run_in_words(
    config: ExperimentConfig, parameter: str | None, values: Sequence[Any], domain_size: int
) -> str:
    """A run in words: "This run (30 trials of HR at d = 16,384 with 13 methods)", or a sweep's.

    Examples
    --------
    >>> from ldpcore.experiments.config import ExperimentConfig
    >>> config = ExperimentConfig(
    ...     protocol="HR", epsilon=1.0, n=1000, dataset="zipf:d=64", trials=30, methods=["Base"]
    ... )
    >>> run_in_words(config, None, [], 16_384)
    'This run (30 trials of HR at d = 16,384 with 1 method)'
    """
    # What the sweep varies is named by the sweep, not by the configuration it starts
    # from ("each 30 trials of OLH" over protocols misnamed every other protocol).
    protocol = "" if parameter == "protocol" else f" of {config.protocol}"
    size = "" if parameter == "d" else f" at d = {domain_size:,}"
    methods = len(config.methods)
    what = f"{config.trials} trials{protocol}{size} with {methods} method{'s' * (methods != 1)}"
    if parameter is not None:
        count = len(values)
        listed = f": {', '.join(map(str, values))}" if count <= 8 else ""
        return f"This sweep ({count} values of {parameter}{listed}; each {what})"
    return f"This run ({what})"


def extrapolation(beyond: bool) -> str:
    """The caveat after an estimate beyond the measured domain sizes (empty within them)."""
    if not beyond:
        return ""
    # Here, not at the top: the experiments load scipy, and the CLI's --help must not.
    from ldpcore.experiments.costs import measured_up_to  # noqa: PLC0415

    return (
        f" Costs were measured up to d = {measured_up_to():,}: beyond that this is an "
        "extrapolation, and the iterative methods (MLE, IBU) can take far longer."
    )


def report_check_words(check: ReportCheck) -> str:
    """What the ones-count and itemset tests found in a report file, and what they cannot see.

    Examples
    --------
    >>> import numpy as np
    >>> from ldpcore.collection.report_check import ReportCheck
    >>> zero = np.zeros(4, dtype=np.int64)
    >>> check = ReportCheck("OUE", 5000, zero, 0, zero, 2, 30, 4e-7)
    >>> report_check_words(check)[:58]
    'No report has an unlikely number of ones: every one of the'
    """
    if not check.can_tell:
        return (
            f"Every {check.protocol} report supports as many values as any other, so a fake "
            "report cannot be told from an honest one by its size: this check applies to "
            "unary encoding (OUE, SUE) only."
        )
    blind = (
        " The ones count cannot see a maximal-gain report padded to an honest number of "
        "ones, which the itemset test sees when it supports two or more targets; neither "
        "sees a random target sent through the real randomizer (Cao et al. 2021): a clean "
        "result is not proof of an honest collection."
    )
    return _ones_words(check) + " " + itemset_words(check) + blind


def itemset_words(check: ReportCheck) -> str:
    """What the frequent-itemset test found in a report file.

    Examples
    --------
    >>> import numpy as np
    >>> from ldpcore.collection.report_check import ReportCheck
    >>> zero = np.zeros(4, dtype=np.int64)
    >>> itemset_words(ReportCheck("OUE", 5000, zero, 0, zero, 2, 30, 4e-7))[:40]
    'No two values are supported together by '
    """
    if not check.itemsets:
        return (
            "No two values are supported together by more reports than honest users make "
            f"(an honest collection would show such a pair with chance below {FALSE_ALARM:g})."
        )
    sets = "; ".join("{" + ", ".join(str(v) for v in itemset) + "}" for itemset in check.itemsets)
    return (
        f"{check.itemset_flagged:,} reports support every value of {sets} together, far more "
        "than honest users would (an honest collection shows such a set with chance below "
        f"{FALSE_ALARM:g}): the mark of fake users sending the maximal-gain report for those "
        "targets. Dropping them also drops the honest reports that support the whole set by "
        f"chance (at most {check.itemset_honest_share:.1%} of them), which are not a random "
        "sample, so the estimate from the rest is corrected for them (it reads the kept "
        "reports through the chance that an honest report is kept)."
    )


def _ones_words(check: ReportCheck) -> str:
    """What the ones-count test found."""
    span = f"{check.low:,} to {check.high:,} ones"
    if not check.flagged:
        return (
            f"No report has an unlikely number of ones: every one of the {check.users:,} "
            f"has {span}, as honest {check.protocol} reports have with probability "
            f"{1 - (check.rate or 0.0):.6f}."
        )
    chance = check.expected_by_chance
    return (
        f"{check.flagged:,} of {check.users:,} reports have a number of ones outside "
        f"{span}, which an honest {check.protocol} report has with probability "
        f"{format_error(float(f'{check.rate:.1g}'))}: an honest collection of this size "
        f"would show {format_error(float(f'{chance:.2g}'))} such "
        f"report{'s' if chance != 1 else ''} on average, so these are "
        "almost surely not honest users' randomized reports (a uniformly random report "
        "has about half its bits set). Dropping them leaves the other "
        f"{check.users - check.flagged:,}; an honest report is dropped with the same small "
        "chance whatever its value, so the rest still estimate the honest users' "
        "frequencies."
    )


def fake_users_to_top_k_words(
    label: str,
    k: int,
    *,
    protocol: str,
    epsilon: float,
    n: int,
    by_epsilon: Sequence[tuple[float, int | None]],
) -> str:
    """How many fake users lift ``label`` into the top ``k`` at ``epsilon``, and across ε.

    ``by_epsilon`` holds ``(ε, fake users needed)`` pairs
    (:func:`ldpcore.attacks.reach.fakes_for_top_k`), ``epsilon`` among them.

    Examples
    --------
    >>> fake_users_to_top_k_words("kale", 10, protocol="OLH", epsilon=1.0, n=10_000,
    ...                           by_epsilon=[(0.5, 120), (1.0, 250), (4.0, 2_100)])[:64]
    'At ε = 1, 250 fake users (2.44% of all reports) sending the OLH '
    """
    found = dict(by_epsilon)
    needed = found.get(epsilon)
    if needed is None:
        return (
            f"At ε = {epsilon:g} no number of fake users sending {protocol} reports puts "
            f"{label!r} in the top {k} half the time."
        )
    if needed == 0:
        head = f"At ε = {epsilon:g}, {label!r} is already in the top {k}."
    else:
        head = (
            f"At ε = {epsilon:g}, {needed:,} fake users "
            f"({format_share(needed / (n + needed))} of all reports) sending the {protocol} "
            f"reports that lift {label!r} furthest would put it in the top {k} at least half "
            f"the time beside {n:,} honest users (more often with each one more)."
        )
    others = [(e, m) for e, m in by_epsilon if e != epsilon and m is not None]
    if not others:
        return head
    smaller = ", ".join(f"{m:,} at ε = {e:g}" for e, m in others if e < epsilon)
    larger = ", ".join(f"{m:,} at ε = {e:g}" for e, m in others if e > epsilon)
    counts = [m for _, m in sorted(by_epsilon) if m is not None]
    if counts == sorted(counts):
        parts = [
            *([f"fewer at a smaller ε ({smaller})"] if smaller else []),
            *([f"more at a larger one ({larger})"] if larger else []),
        ]
        return (
            f"{head} It takes {' and '.join(parts)}: a smaller ε protects each person "
            "better and makes the collection easier to push, because the aggregator divides "
            "away the noise that protects them, and the fake reports, sent without noise, "
            "with it."
        )
    listed = "; ".join(part for part in (smaller, larger) if part)
    return (
        f"{head} At the other ε it takes {listed}. A smaller ε makes each fake report push "
        "further (the aggregator divides it by a smaller p − q) but also adds noise that "
        "can hide the target among its neighbours, so here the fewest are not at the "
        "smallest ε."
    )


def clock_words(cpu_seconds: float, clock: float, busy: Busy) -> str:
    """What a run's estimate means by the clock here now, or "" when the machine is quiet.

    Examples
    --------
    >>> from ldpcore.experiments.clock import Busy
    >>> clock_words(2.2, 4.4, Busy(3.0, 2))
    ' With this machine as busy as it is now (3 processes waiting for its 2 cores), that is about 4.4 s by the clock.'
    >>> clock_words(2.2, 2.2, Busy(0.0, 2))
    ''
    """  # noqa: E501
    if clock <= cpu_seconds * 1.05:
        return ""
    return (
        f" With this machine as busy as it is now ({busy.load:.3g} processes waiting for its "
        f"{busy.cores} core{'s' * (busy.cores != 1)}), that is about {format_duration(clock)} "
        "by the clock."
    )


def budget_question(what: str, seconds: float, budget: float, more: str = "") -> str:
    """Why a run waits to be asked for: its estimate against the server's budget.

    ``more`` is said after the estimate (an extrapolation, the clock's time now).

    Examples
    --------
    >>> budget_question("This run", 40.0, 20.0)[:60]
    'This run is estimated at about **40 s** of computing, above '
    """
    # Here, not at the top: the command line reads these sentences and answers --help
    # without loading the experiments (scipy).
    from ldpcore.experiments.costs import BUDGET_VARIABLE  # noqa: PLC0415

    estimate, limit = format_durations_apart(seconds, budget)
    where = f"within this server's budget of {limit} per run"
    if seconds > budget:
        where = f"above this server's budget of {limit} per run (set by whoever runs it, "
        where += f"{BUDGET_VARIABLE})"
    return (
        f"{what} is estimated at about **{estimate}** of computing, {where}.{more} It starts "
        "only when you ask, uses at most all workers but one, and can be stopped. Or make it "
        "smaller: fewer trials, a smaller d, fewer methods."
    )


def stopped_words(what: str, seconds: float, budget: float) -> str:
    """What a visitor who stopped a run reads: what it would have cost, and what to change."""
    estimate, _ = format_durations_apart(seconds, budget)
    return (
        f"Stopped. {what} would take about {estimate}; make it smaller (fewer trials, a "
        "smaller d, fewer methods) or run it again."
    )


def top_k_question_words(question: TopKQuestion) -> str:
    """:func:`fake_users_to_top_k_words` for a :class:`~ldpcore.attacks.reach.TopKQuestion`."""
    return fake_users_to_top_k_words(
        question.label,
        question.k,
        protocol=question.protocol,
        epsilon=question.epsilon,
        n=question.n,
        by_epsilon=question.by_epsilon,
    )


def fake_users_caption(question: TopKQuestion) -> str:
    """What the fake-user numbers assume, under their table (page and record)."""
    if question.attacker_chooses:
        reports = (
            "The fake users send the reports that need fewest of them: every one supports "
            "the target, and where a report must support other values the attacker picks "
            "them, as Cao, Jia and Gong's maximal-gain report does (at random) or to keep "
            "the values it must pass low, whichever needs fewer."
        )
    else:
        reports = (
            "The fake users send Cao, Jia and Gong's maximal-gain report, which supports the "
            f"target; {question.protocol} itself decides which other values a report "
            "supports (its hash or its row)."
        )
    return (
        f"{question.label!r} holds {format_share(question.share)} of the {question.n:,} "
        f"users. {reports} A count is the fewest fake users that put the target in the "
        f"top {question.k} at least half the time, each value's Base estimate taken as "
        "normal with its exact variance (NDSS Eq. 3). The Fake users page simulates every "
        "attack against every method."
    )


__all__ = [
    "caveat_words",
    "caveats_note",
    "clock_words",
    "extrapolation",
    "fake_users_caption",
    "fake_users_to_top_k_words",
    "itemset_words",
    "not_converged_words",
    "report_check_words",
    "run_in_words",
    "top_k_question_words",
]
