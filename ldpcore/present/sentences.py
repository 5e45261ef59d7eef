"""Comparisons and verdicts in words, the same on every page, record and command.

Pages, the Choose ε record, notebooks and the command line say the same thing the
same way because they all call these: a paired comparison in words, a verdict's and a
sweep's headline, gains in users, what was simulated, and the notes under tables (the
sentences of one page or feature are its own module: :mod:`ldpcore.present`). It sits
above the results it describes (the comparisons, the experiments, the advice), which
hold numbers and decisions only; the number formats every layer may use are the leaf
:mod:`ldpcore.formats`. Nothing here computes a statistic: each function words what it
is given.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ldpcore.formats import (
    format_count,
    format_number,
    format_ratio,
    format_times,
    ratio_range,
)
from ldpcore.protocols import protocol_class
from ldpcore.queries.specs import QuerySpec, parse_query_spec

#: What a ratio of MSEs is of, as a sentence says it.
BASES, JEFFREYS = "Base's", "Jeffreys'"

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd

    from ldpcore.advice.sweeps import SweepVerdict
    from ldpcore.advice.verdicts import Verdict
    from ldpcore.experiments.config import ExperimentConfig
    from ldpcore.stats.compare import Comparison


def comparison_words(comparison: Comparison) -> str:
    """A paired comparison in words, with its interval ("3.1× lower MSE (2.8–3.4×)").

    Never "1.0× lower": a difference that is not significant is said to be none.

    Examples
    --------
    >>> from ldpcore.stats.compare import Comparison
    >>> comparison_words(Comparison("PowerNS", "Base", 0.25, 0.2, 0.3, True, False, False, 5))
    '4× lower MSE than Base (3.33×–5×)'
    """
    c = comparison
    if c.no_op:
        return f"the same answers as {c.reference}"
    if c.better:
        return f"{format_times(_inverse(c.ratio))} lower MSE than {c.reference} ({_gains(c)})"
    if c.worse:
        return (
            f"{format_times(c.ratio)} higher MSE than {c.reference} "
            f"({format_times(c.low)}–{format_times(c.high)})"
        )
    if c.negligible:
        return (
            f"about the same MSE as {c.reference} (ratio "
            f"{format_ratio(c.ratio, c.low, c.high)}: a real difference, but "
            "within the practical margin)"
        )
    return (
        f"no significant difference from {c.reference} (MSE ratio "
        f"{format_ratio(c.ratio, c.low, c.high)})"
    )


def gain_words(comparison: Comparison) -> str:
    """A significant gain over Base, as a headline says it to a newcomer.

    The error is named in words and Base is said to be the raw estimates, with the
    paired interval.

    Examples
    --------
    >>> from ldpcore.stats.compare import Comparison
    >>> gain_words(Comparison("PowerNS", "Base", 0.25, 0.2, 0.3, True, False, False, 5))
    "mean squared error is 4× lower than the raw estimates' (Base; 3.33×–5×, paired 95% interval)"
    """
    c = comparison
    return (
        f"mean squared error is {format_times(_inverse(c.ratio))} lower than the raw "
        f"estimates' ({c.reference}; {_gains(c)}, {c.interval})"
    )


def _gains(comparison: Comparison) -> str:
    """A gain's interval as factors, the least first ("3.33×–5×")."""
    low, high = _inverse(comparison.high), _inverse(comparison.low)
    return f"{format_times(low)}–{format_times(high)}"


def _inverse(value: float) -> float:
    return 1.0 / value if value > 0 else math.inf


def ranking_note(verdict: Verdict, ranks: Mapping[str, int]) -> str:
    """Why the named method is not the first row of a table ranked by mean MSE ("" if it is).

    A table ranked by mean MSE on these trials and a recommendation that rests on paired
    intervals can name different methods; said, the order no longer reads as a
    contradiction.

    Examples
    --------
    >>> from ldpcore.advice.verdicts import Verdict
    >>> v = Verdict("Norm-Sub", False, [], [], "Norm-Mul", "the full distribution")
    >>> print(ranking_note(v, {"Norm-Mul": 1, "Norm-Sub": 2, "Base": 3}))
    ... # doctest: +NORMALIZE_WHITESPACE
    The table is ranked by mean MSE on these trials, which is not a recommendation here:
    no method is more accurate than Base by more than 5%, so Norm-Sub (rank 2) is named as
    the first method that gives a proper distribution without being significantly less
    accurate than Base.
    """
    rank = ranks.get(verdict.recommended)
    if rank is None or rank == 1:
        return ""
    named = f"{verdict.recommended} (rank {rank})"
    if verdict.helps:
        above = sorted((m for m, r in ranks.items() if r < rank), key=ranks.__getitem__)
        listed = ", ".join(above)
        return (
            f"The table is ranked by mean MSE on these trials; {named} is named because it "
            f"is the most accurate of the methods significantly more accurate than Base, "
            f"and {listed} {'is' if len(above) == 1 else 'are'} not: "
            f"{'its' if len(above) == 1 else 'their'} paired interval with Base reaches 1 "
            "or lies within the 5% margin."
        )
    if verdict.recommended == "Base":
        return (
            "The table is ranked by mean MSE on these trials, which is not a recommendation "
            f"here: no method is more accurate than Base by more than 5%, and each method "
            "that gives a proper distribution is significantly less accurate than Base or "
            f"puts the values asked far from their true total, so {named}, the raw "
            "estimates, is named."
        )
    return (
        "The table is ranked by mean MSE on these trials, which is not a recommendation "
        f"here: no method is more accurate than Base by more than 5%, so {named} is named as "
        "the first method that gives a proper distribution without being significantly "
        "less accurate than Base."
    )


def method_caveat(method: str) -> str:
    """The warning that goes beside a recommended method ("" if it has none).

    Examples
    --------
    >>> method_caveat("Norm-Sub"), method_caveat("Norm-Mul").split(",")[0]
    ('', 'Caveat: Norm-Mul shrinks every value by one factor')
    """
    from ldpcore.postprocess import method_class  # noqa: PLC0415

    caveat = method_class(method).caveat
    return f"Caveat: {caveat}." if caveat else ""


def verdict_headline(verdict: Verdict) -> str:
    """What a verdict recommends, in one sentence (the query in the verdict's words).

    Then why a method with a lower MSE is not the one (:func:`too_biased_words`).
    """
    said = _verdict_sentence(verdict)
    refused = too_biased_words(verdict)
    return f"{said} {refused}" if refused else said


def too_biased_words(verdict: Verdict) -> str:
    """Why a method whose MSE is lower is not recommended: its answers' total is off.

    Examples
    --------
    >>> from ldpcore.advice.verdicts import Verdict
    >>> from ldpcore.stats.compare import Comparison
    >>> mul = Comparison("Norm-Mul", "Base", 0.54, 0.45, 0.66, True, False, False, 20)
    >>> found = Verdict("Norm-Sub", True, [mul], [], "Norm-Mul", "the top-10", {"Norm-Mul": 0.31})
    >>> too_biased_words(found)
    "Norm-Mul's MSE is lower than Base's, but it puts the values asked at 0.31× their true total (69% too low): not recommended."
    """  # noqa: E501
    by_name = {c.method: c for c in verdict.against_base}
    lines = []
    for method, factor in verdict.too_biased.items():
        compared = by_name.get(method)
        if method != verdict.best and (compared is None or not compared.better):
            continue  # never in the running: nothing to explain
        off = f"{abs(1 - factor):.0%} too {'low' if factor < 1 else 'high'}"
        lower = (
            f"{method}'s MSE is lower than Base's"
            if compared is not None and compared.better
            else f"{method} has the lowest MSE"
        )
        lines.append(
            f"{lower}, but it puts the values asked at {format_times(factor)} their true "
            f"total ({off}): not recommended."
        )
    return " ".join(lines)


def _verdict_sentence(verdict: Verdict) -> str:
    query = verdict.query
    by_name = {c.method: c for c in verdict.against_base}
    if verdict.helps:
        chosen = by_name[verdict.recommended]
        return f"For {query}, {chosen.method}'s {gain_words(chosen)}."
    # A gain that is real but within the practical margin is not a reason to switch.
    small_gain = any((c.better or c.negligible) and c.ratio < 1 for c in verdict.against_base)
    if verdict.recommended == "Base":
        how = "more than 5%" if small_gain else "significantly"
        return (
            f"For {query}, no post-processing method is {how} more accurate "
            "than Base here; Base is recommended."
        )
    # Not significant is not free: with few trials a 1.3× higher MSE can go undetected,
    # so the sentence says what the interval still allows.
    cost = by_name[verdict.recommended]
    if small_gain:
        return (
            f"Post-processing changes the accuracy of {query} by less than 5% here: about "
            f"the same as Base. {verdict.recommended} gives a proper distribution, with an "
            f"MSE {ratio_range(cost.low, cost.high, BASES)} ({cost.interval})."
        )
    return (
        f"Post-processing does not change the accuracy of {query} here "
        f"significantly; {verdict.recommended} gives a proper distribution, with an MSE "
        f"{ratio_range(cost.low, cost.high, BASES)} ({cost.interval})."
    )


def sweep_headline(found: SweepVerdict) -> str:
    """Runs of neighbouring points with the same best method, in one sentence."""
    if not found.has_base:
        return "Add Base to the methods to compare them with it."
    best_at, label = found.best_at, found.label
    runs: list[tuple[str | None, list[object], list[tuple[float, float]]]] = []
    for value, method, gain in best_at:
        if runs and runs[-1][0] == method:
            runs[-1][1].append(value)
            runs[-1][2].append(gain)
        else:
            runs.append((method, [value], [gain]))

    def where(values: list[object]) -> str:
        if len(values) == 1:
            return f"at {label} = {values[0]}"
        return f"for {label} from {values[0]} to {values[-1]}"

    if all(method is None for method, _, _ in runs):
        return (
            f"No post-processing method is significantly more accurate than Base at any "
            f"{label} tested."
        )
    parts = []
    for method, values, gains in runs:
        if method is None:
            parts.append(f"no method is significantly more accurate than Base {where(values)}")
        else:
            points = [g for g, _ in gains]
            span = (
                format_times(points[0])
                if len(points) == 1
                else f"{format_times(min(points))} to {format_times(max(points))}"
            )
            sure = format_times(min(g for _, g in gains))
            parts.append(
                f"{method} is the most accurate of the methods significantly more accurate "
                f"than Base {where(values)}: {span} lower mean squared "
                f"error, at least {sure} with 95% confidence"
            )
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


#: Said where a page's methods leave out Base, the reference every comparison needs.
ADD_BASE = (
    "Add Base to the methods (sidebar, *Methods, trials and seed*) to compare the others with it."
)


def recommendation_words(
    verdict: Verdict, *, explain: bool = False, users: int | None = None
) -> str:
    """A paired comparison's recommendation, as a page's banner says it.

    With ``users`` (full-domain queries, where Base's MSE falls as 1/n) a gain is also
    said in users: as accurate as Base with n / ratio of them, with the interval.
    ``explain`` adds what the recommended method does; its caveat, if any, closes it.
    """
    from ldpcore.postprocess import method_class  # noqa: PLC0415 (as method_caveat)

    text = f"Recommended: **{verdict.recommended}**. {verdict_headline(verdict)}"
    chosen = next((c for c in verdict.against_base if c.method == verdict.recommended), None)
    if users and verdict.helps and chosen is not None:
        text += " " + in_users(users, chosen)
    if explain:
        text += f" {method_class(verdict.recommended).explanation}"
    if caveat := method_caveat(verdict.recommended):
        text += f" **{caveat}**"
    return text


def in_users(n: int, comparison: Comparison) -> str:
    """A significant gain at ``n`` users said in users, with the paired interval.

    Base's MSE falls as 1/n (NDSS Eq. 3), so MSE ratio R to Base is Base's accuracy
    with n / R users (NDSS Sec. V-C's equivalent users).

    Examples
    --------
    >>> from ldpcore.stats.compare import Comparison
    >>> in_users(10_000, Comparison("PowerNS", "Base", 0.25, 0.2, 0.3, True, False, False, 5))
    'As accurate as Base would be with about 40,000 users (33,300 to 50,000).'
    """
    most = format_count(n / comparison.low) if comparison.low > 0 else "unboundedly many"
    fewest = format_count(n / comparison.high) if math.isfinite(comparison.high) else "0"
    return (
        f"As accurate as Base would be with about {format_count(n / comparison.ratio)} "
        f"users ({fewest} to {most})."
    )


def users_saved_sentence(frame: pd.DataFrame, n: int) -> str:
    """What the best method is worth in users at ``n``, from an ``n`` sweep, with its interval.

    Base's MSE falls as 1/n (NDSS Eq. 3), so a method with MSE ratio R to Base on the same
    trials is as accurate as Base with about n/R users (NDSS Sec. V-C's equivalent users);
    the interval is the paired ratio's, inverted.
    """
    point = frame[frame["n"] == n]
    others = point[point["method"] != "Base"]
    if others.empty or "Base" not in set(point["method"]):
        return "Add Base and another method to see what post-processing is worth in users."
    lower = others[others["mse_vs_base"] == "lower"]
    if lower.empty:
        return (
            f"At n = {n:,}, no method is significantly more accurate than Base, so "
            "post-processing saves no users measurably here."
        )
    top = lower.loc[lower["mse"].idxmin()]
    gain = 1.0 / float(top["mse_ratio_to_base"])
    most = format_times(1.0 / float(top["ratio_low"])) if top["ratio_low"] > 0 else "∞×"
    return (
        f"At n = {n:,}, {top['method']} is as accurate as Base would be with about "
        f"{format_times(gain)} as many users (≈ {format_count(gain * n)}; "
        f"{format_times(1.0 / float(top['ratio_high']))}–{most}, paired 95% interval)."
    )


def query_in_words(query: str | QuerySpec) -> str:
    """``topk:k=10`` → "the top-10 values", for headlines (the kind's own words)."""
    return parse_query_spec(query).in_words()


def prior_sentence(label: str, found: Comparison) -> str:
    """One informed prior's paired comparison with Jeffreys' (the Learn page's demo)."""
    if found.better:
        verdict = "a significantly lower error than Jeffreys'"
    elif found.worse:
        verdict = "a significantly higher error than Jeffreys'"
    elif found.negligible:
        verdict = "about the same error as Jeffreys'"
    else:
        verdict = "no significant difference from Jeffreys' on these trials"
    return (
        f"{label}: MSE {format_number(found.ratio)}× Jeffreys' "
        f"({ratio_range(found.low, found.high, JEFFREYS)}, paired 95% interval over "
        f"{found.trials} trials): {verdict}."
    )


#: How the per-value intervals are made, for captions and the CLI (ldpcore.postprocess.intervals).
INTERVAL_NOTE = (
    "Intervals: 95% for each true frequency, from the Base estimate's exact variance "
    "(NDSS Eq. 3; a score interval), widened to hold the method's estimate, so they are "
    "valid whatever the method; measured to cover 93.5–98% for frequent and rare "
    "values alike (benchmarks/README.md, Coverage). They describe the collection's "
    "noise, not errors in the settings above."
)

#: How Bayes's intervals are made (ldpcore.postprocess.estimates_with_intervals).
CREDIBLE_NOTE = (
    "Intervals: 95% equal-tailed posterior (credible) intervals under the chosen prior: "
    "given the reports and the prior, each true frequency lies inside with probability "
    "95%. Measured with Jeffreys' prior where the reports decide (no warning shown): they "
    "held the true frequency 92–97% of the time for frequent values and 93–100% for rare "
    "ones (benchmarks/README.md, Coverage). A wrong prior makes them miss more."
)

#: Why an estimate outside [0, 1] is not inside its interval.
BASE_OUTSIDE_NOTE = (
    "Some estimates lie outside [0, 1] (this method is unbiased, not consistent): "
    "their intervals stop at 0 or 1, since no frequency lies beyond, and so do not "
    "contain those estimates."
)


def settings_line(config: ExperimentConfig) -> str:
    """What was simulated, in one line: the CLI's header and the Explorer's caption.

    Examples
    --------
    >>> from ldpcore.experiments.trials import ExperimentConfig
    >>> settings_line(ExperimentConfig(dataset="zipf:d=8", n=1000, protocol="olh", epsilon=1))
    'OLH, ε = 1, n = 1,000, zipf:d=8,s=1.5, query full, 30 trials, seed 0'
    """
    extras = "".join(f", {name} = {value:g}" for name, value in config.params)
    line = (
        f"{config.protocol}, ε = {config.epsilon:g}{extras}, n = {config.n:,}, {config.dataset}, "
        f"query {config.query}, {config.trials} trials, seed {config.seed}"
    )
    if protocol_class(config.protocol).real_valued_reports:
        # Said wherever its numbers are: the binomial-based methods model its sums.
        line += (
            f". {config.protocol}'s reports are real numbers: MLE-Apx, Power, PowerNS, MLE, "
            "IBU, Bayes and the intervals use the binomial with the same mean and variance "
            "as its sums, not its exact likelihood"
        )
    return line


def not_converged_sentence(method: str, share_stuck: float) -> str:
    """An iterative method that stopped at its cap in some trials (never a silent cap).

    Examples
    --------
    >>> not_converged_sentence("IBU", 0.1)
    'IBU stopped at its iteration cap without converging in 10% of the trials; its numbers are those of its last iterate, not of the method.'
    """  # noqa: E501
    return (
        f"{method} stopped at its iteration cap without converging in {share_stuck:.0%} of "
        "the trials; its numbers are those of its last iterate, not of the method."
    )


PAIRED_NOTE = (
    "Every method is compared with Base on the same trials (paired). Intervals are 95% "
    "intervals for the MSE ratio (a studentized bootstrap over the trials), simultaneous "
    "over the methods, and their coverage is measured (benchmarks/README.md, Coverage). "
    "A method is called better only when its whole interval lies below 1 and beyond a 5% "
    "margin (a real but smaller difference reads 'about the same'); a method that "
    "returns Base's answers unchanged is never credited."
)
