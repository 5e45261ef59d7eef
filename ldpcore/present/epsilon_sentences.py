"""The Choose ε answer in words.

The sentence, each protocol's row and reason, the proper-distribution option with its
interval, and the users needed at a fixed ε. The page, its decision record, the
notebook and ``ldpcore choose-epsilon`` say them the same way because they all call
these; the general sentences they build on (a paired comparison, a verdict's headline)
are :mod:`ldpcore.present.sentences`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

from ldpcore.advice.targets import Kind
from ldpcore.bounds import EPSILON_RANGE
from ldpcore.formats import epsilon_interval, format_epsilon, ratio_range
from ldpcore.present.sentences import BASES, comparison_words, verdict_headline
from ldpcore.queries.specs import QuerySpec, parse_query_spec

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from ldpcore.advice.epsilon_answer import ConsistentOption, EpsilonAnswer


def option_words(option: ConsistentOption) -> str:
    """A consistent method offered at Base's ε, with what its paired interval allows.

    Examples
    --------
    >>> from ldpcore.advice.epsilon_answer import ConsistentOption
    >>> from ldpcore.stats.compare import Comparison
    >>> c = Comparison("Norm-Sub", "Base", 1.12, 0.97, 1.33, False, False, False, 10)
    >>> option_words(ConsistentOption("Norm-Sub", 0.0049, c))
    "Norm-Sub gives a proper distribution; at this ε its MSE is between 0.97× and 1.33× Base's (RMSE 0.49 percentage points; paired 95% interval)"
    >>> far = ConsistentOption("Norm-Sub", 0.0053, c, 0.005, 0.4123, searched_to=0.774)
    >>> option_words(far).split("; ")[-1]
    "that is above your target of 0.5 percentage points (RMSE), so it does not meet it at this ε: it meets it from about ε = 0.413 (no 95% interval: its band's top stays above the target at every ε searched, up to ε = 0.774)"
    """  # noqa: E501
    c = option.comparison
    measured = (
        "at this ε"
        if option.measured_at is None
        else f"at ε = {format_epsilon(option.measured_at)}, the largest searched (Base "
        "meets the target at none)"
    )
    text = (
        f"{option.method} gives a proper distribution; {measured} its MSE is "
        # In percentage points, the target's unit (0.0049 in share units read as a share).
        f"{ratio_range(c.low, c.high, BASES)} (RMSE {100 * option.rmse_at_epsilon:.2g} "
        "percentage points; paired 95% interval)"
    )
    if c.worse:
        text += ", significantly more than Base's"
    within = option.kind != "rmse" and option.error_at_epsilon is not None
    if within:
        # A "within ±x" target: say its margin, in the target's own words.
        together = " all at once" if option.kind == "all" else ""
        text += (
            f"; its answers are within ±{_beside(option.error, option.target)} percentage "
            f"points{together} "
            f"{100 * option.level:g}% of the time"
        )
    if option.meets_target is True:
        text += "; that meets your target"
    elif option.meets_target is False and option.target is not None:
        where = (
            f"it meets it from about ε = {format_epsilon(option.epsilon_for_target)}"
            + _reach_interval(option)
            if option.epsilon_for_target is not None
            else f"it does not meet it for any ε searched, up to ε = {_searched(option)}"
        )
        asked = (
            f"±{100 * option.target:g} percentage points"
            if within
            else f"{100 * option.target:g} percentage points (RMSE)"
        )
        if option.error > option.target:
            text += f"; that is above your target of {asked}, so it does not meet it {measured}: "
        else:
            text += (
                f"; that is within your target of {asked}, but not by more than the "
                "simulation can tell (the upper end of its 95% band is above it): "
            )
        text += where
    return text


def _beside(error: float, target: float | None) -> str:
    """``error`` in percentage points, its digits comparing with ``target`` as it does.

    Two significant digits, more where those would print the target's own number (±1
    against a target of ±1 when the error is 1.04).

    Examples
    --------
    >>> _beside(0.0104, 0.01), _beside(0.0063, 0.005), _beside(0.00996, 0.01)
    ('1.04', '0.63', '0.996')
    """
    points = 100 * error
    if target is None:
        return f"{points:.2g}"
    asked = float(f"{100 * target:g}")
    for digits in range(2, 7):
        printed = f"{points:.{digits}g}"
        if (float(printed) > asked) == (points > asked) and float(printed) != asked:
            return printed
    return printed


def _searched(option: ConsistentOption) -> str:
    """The largest ε the search evaluated, as a clause names it.

    The range's end when a record does not say.
    """
    return format_epsilon(EPSILON_RANGE[1] if option.searched_to is None else option.searched_to)


def _reach_interval(option: ConsistentOption) -> str:
    """The option's ε interval as " (95% interval 0.8–1.1)", or "" if not crossed."""
    low, high = option.epsilon_low, option.epsilon_high
    if low is None or high is None:
        # Say why there is no interval, so every such clause reads alike.
        return (
            " (no 95% interval: its band's top stays above the target at every ε "
            f"searched, up to ε = {_searched(option)})"
        )
    # The point is where the mean crosses: about half the time the truth lies above it.
    # The interval's upper end is the ε to copy when the target must hold.
    return (
        f" (95% interval {format_epsilon(low)}–{format_epsilon(high)}; to be sure of it, "
        f"ε = {format_epsilon(high)})"
    )


def epsilon_headline(answer: EpsilonAnswer, target: str) -> str:
    """The Choose ε answer in one line, its number first: what a page opens on.

    ``target`` is the question in words (the target, the query and the users). The
    reasons, the consistent option and the intervals' caveats follow it on the page
    (:func:`epsilon_sentence`).
    """
    if answer.epsilon is None:
        return (
            f"No protocol searched meets the target ({target}) within the ε searched: relax "
            "the target or collect from more users."
        )
    reach, base = _epsilons(answer)
    if answer.post_processing_helps:
        return (
            f"Smallest ε to have {target}: **{reach}**, with {answer.protocol} + "
            f"{answer.method} (without post-processing: {base})."
        )
    return (
        f"Smallest ε to have {target}: **{reach}**, with {answer.protocol}; no post-processing "
        "needed."
    )


def _epsilons(answer: EpsilonAnswer) -> tuple[str, str]:
    """The answer's ε and Base's, each in words with its interval (or exact, with its source).

    Where post-processing does not help the answer's ε is Base's, exact where Base's is.
    """
    exact: dict[str, Any] = {"exact": answer.base_exact, "source": answer.variance_source}
    base = epsilon_interval(
        answer.base_epsilon, answer.base_epsilon_low, answer.base_epsilon_high, **exact
    )
    # A method's ε is simulated, never exact; Base's own may be (Eq. 3).
    helped: dict[str, Any] = {} if answer.post_processing_helps else exact
    reach = epsilon_interval(answer.epsilon, answer.epsilon_low, answer.epsilon_high, **helped)
    return reach, base


def epsilon_sentence(answer: EpsilonAnswer, n_users: int) -> str:
    """The Choose ε answer in one sentence, with its intervals (the page and the record).

    It follows from ``post_processing_helps``: the gain over Base is claimed only when
    the paired comparison and the two ε intervals both say so; otherwise the ε is
    Base's and a consistent method is offered at it with its cost.
    """
    if answer.epsilon is None:
        return (
            f"With {n_users:,} users no protocol meets the target for ε up to "
            f"{EPSILON_RANGE[1]:g}; relax the target or collect from more users."
        )
    reach, base = _epsilons(answer)
    if answer.post_processing_helps and answer.comparison is not None:
        return (
            f"With {n_users:,} users, {answer.protocol} + {answer.method} meets your target "
            f"from {reach}; without post-processing you would need {base} "
            f"({answer.method}: {comparison_words(answer.comparison)})."
        )
    text = (
        f"With {n_users:,} users, {answer.protocol} without post-processing (Base) meets "
        f"your target from {reach}; no post-processing method measurably lowers the ε "
        "needed for this query."
    )
    if answer.consistent_option is not None:
        # The option's words say what it gives ("For a proper distribution: Norm-Sub gives
        # a proper distribution" said it twice).
        text += f" {option_words(answer.consistent_option)}."
    return text


#: Where Choose ε's stated 95% ε interval was measured to cover materially less than
#: 95% (benchmarks/README.md, "Choose ε's ε intervals"; 200 searches per row, the true
#: crossing from 400 trials per point): a method recommended over Base for a set query.
SET_QUERY_INTERVAL_NOTE = (
    "Measured: for a set query, a method's stated 95% ε interval held the true crossing "
    "in only 60% of searches (48–70%; Zipf d = 256, OLH, PowerNS recommended), against "
    "93–99% for Base and for single-value queries (benchmarks/README.md). A method is "
    "recommended when its trials look good, and its interval then leans low: read it as "
    "a rough range, and check the method at that ε with more trials."
)


def interval_note(answer: EpsilonAnswer, query: str | QuerySpec) -> str:
    """The measured caveat to put next to ``answer``'s ε interval, or "" where it covers.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> helps = SimpleNamespace(post_processing_helps=True)
    >>> interval_note(helps, "set:rho=0.1") == SET_QUERY_INTERVAL_NOTE
    True
    >>> interval_note(helps, "full"), interval_note(helps, "topk:k=10")
    ('', '')
    """
    spec = parse_query_spec(query) if isinstance(query, str) else query
    if answer.post_processing_helps and not spec.single_values:
        return SET_QUERY_INTERVAL_NOTE
    return ""


def epsilon_reason(answer: EpsilonAnswer) -> str:
    """Why Choose ε recommends this method for this protocol, in one sentence.

    A second says which iterative methods stopped at their step cap in the search.
    """
    reason = _reason(answer)
    if answer.not_converged:
        names = " and ".join(answer.not_converged)
        its = "its" if len(answer.not_converged) == 1 else "their"
        reason += (
            f" {names} stopped at {its} step cap, not by {its} stopping rule, in some trials "
            f"of the search: {its} numbers there are those of the last step."
        )
    return reason


def _reason(answer: EpsilonAnswer) -> str:
    if answer.same_as is not None:
        twin = dataclasses.replace(answer, same_as=None)
        return (
            f"One report of {answer.protocol} is one report of {answer.same_as} at the same "
            f"ε, so it has {answer.same_as}'s answer. {epsilon_reason(twin)}"
        )
    if answer.post_processing_helps and answer.comparison is not None:
        c = answer.comparison
        return (
            f"{c.method} has {comparison_words(c)} at ε = {answer.compared_at:.3g}, "
            "and needs a smaller ε than Base with both intervals apart."
        )
    # Base is the answer: say so first, so that a method the comparison at Base's ε
    # favours is not read as the recommendation this row makes.
    return (
        f"Base: no method needs a smaller ε with both intervals apart. At Base's ε: "
        f"{verdict_headline(answer.verdict)}"
    )


def answers_table(answers: Sequence[EpsilonAnswer]) -> pd.DataFrame:
    """One row per protocol: the smallest ε with and without post-processing, in words."""
    import pandas as pd  # noqa: PLC0415 (the command line's help loads this module, not pandas)

    return pd.DataFrame(
        {
            "protocol": [a.protocol for a in answers],
            "recommended method": [a.method for a in answers],
            "smallest ε": [
                epsilon_interval(
                    a.epsilon,
                    a.epsilon_low,
                    a.epsilon_high,
                    exact=a.base_exact and not a.post_processing_helps,
                    source=a.variance_source,
                )
                for a in answers
            ],
            "without post-processing (Base)": [
                epsilon_interval(
                    a.base_epsilon,
                    a.base_epsilon_low,
                    a.base_epsilon_high,
                    exact=a.base_exact,
                    source=a.variance_source,
                )
                for a in answers
            ],
            "post-processing helps": ["yes" if a.post_processing_helps else "no" for a in answers],
            "a proper distribution at this ε": [
                "—" if a.consistent_option is None else option_words(a.consistent_option)
                for a in answers
            ],
            "why": [epsilon_reason(a) for a in answers],
        }
    )


#: The table's columns whose sentences a cell can cut off: given in full below it.
LONG_COLUMNS = ("why", "a proper distribution at this ε")


def answers_in_full(table: pd.DataFrame) -> str:
    """Every long cell of :func:`answers_table`, in full, a protocol a line (markdown).

    A table cell cuts a sentence where its width runs out, so each of
    :data:`LONG_COLUMNS` is also said whole, where nothing can cut it.
    """
    lines = []
    for _, row in table.iterrows():
        said = [f"- **{row['protocol']}**: {row['why']}"]
        option = row[LONG_COLUMNS[1]]
        if option != "—":  # its own words say it gives a proper distribution
            said.append(f"*The consistent option:* {option}")
        lines.append("  \n  ".join(said))  # a line break within the protocol's item
    return "\n".join(lines)


def users_needed_sentence(
    protocol: str,
    method: str,
    epsilon: float,
    users: float | None,
    between: tuple[float | None, float | None] | None = None,
) -> str:
    """The reverse search's answer: users needed at a fixed ε (markdown, bold count).

    ``between`` is a simulated answer's range (the search cannot tell within it), said
    with "about"; without it the count is exact (Base's, from the protocol's exact
    variance: NDSS Eq. 3 for a flat oracle).

    Examples
    --------
    >>> users_needed_sentence("OLH", "Base", 1.0, 560_301.0)
    'OLH + Base at ε = 1: **560,301 users** (exact, NDSS Eq. 3).'
    >>> users_needed_sentence("OLH", "Norm-Sub", 1.0, 12_345.2, (11_000.0, 13_900.2))
    'OLH + Norm-Sub at ε = 1: **about 12,346 users** (simulated: between 11,000 and 13,901).'
    """
    from ldpcore.protocols import protocol_class  # noqa: PLC0415 (the registry, at call time)

    if users is None:
        return f"{protocol} + {method} at ε = {epsilon:g}: **more than 10⁹ users**."
    if between is None:
        return (
            f"{protocol} + {method} at ε = {epsilon:g}: **{math.ceil(users):,} users** "
            f"(exact, {protocol_class(protocol).variance_source})."
        )
    low, high = between
    spread = (
        f" (simulated: between {math.ceil(low):,} and {math.ceil(high):,})"
        if low is not None and high is not None
        else " (simulated)"
    )
    return (
        f"{protocol} + {method} at ε = {epsilon:g}: **about {math.ceil(users):,} users**{spread}."
    )


#: The accuracy targets Choose ε offers, in the words people use, with what
#: each means exactly (the help under the control).
TARGET_CHOICES: dict[Kind, str] = {
    "each": "Each value within ±x, 95% of the time",
    "all": "All values within ±x at once, 95% of the time",
    "rmse": "Root-mean-square error at most x",
}
TARGET_HELP = (
    "**Each value within ±x**: every value asked about, on its own, is within ±x "
    "percentage points of the truth in at least 95% of collections; the value whose "
    "estimate varies most (for most protocols the most frequent) decides. "
    "**All values within ±x at once**: in 95% of collections every value asked about is "
    "within ±x together; needs more ε, and is the promise to make when a whole table "
    "will be published. **Root-mean-square error**: the typical error over the values "
    "asked about; an estimate is within ±x only about 68% of the time, not 95%."
)


__all__ = [
    "LONG_COLUMNS",
    "SET_QUERY_INTERVAL_NOTE",
    "answers_in_full",
    "answers_table",
    "epsilon_reason",
    "epsilon_sentence",
    "interval_note",
    "option_words",
    "users_needed_sentence",
]
