"""The live class's sentences: what the form promises, and what the teacher reads out.

Split from :mod:`ldpcore.present.sentences` by concept (the class's words, read from
:mod:`ldpcore.live.lesson`'s numbers); ``tests/test_class_rules.py`` holds them to
those numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ldpcore.live.lesson import HALF_WIDTH, MOST_OF_THE_RANGE

if TYPE_CHECKING:
    from ldpcore.live.lesson import ClassAdvice, ClassReading


def _share(x: float) -> str:
    return f"{x:.0%}"


def _reports(count: int) -> str:
    return f"{count:,} report{'' if count == 1 else 's'}"


def class_readout(reading: ClassReading) -> str:
    """The sentence a teacher reads out: what the class says, how sure, what changed.

    A leader is named only when its interval lies wholly above every other option's
    (:attr:`~ldpcore.live.lesson.ClassReading.leads`); otherwise the sentence says the
    class cannot tell yet, and how many reports would.

    Examples
    --------
    >>> from ldpcore.live.lesson import ClassReading
    >>> print(class_readout(ClassReading(5, 1.0, "GRR", "Norm-Sub", 0.95, "Monday", 0.46,
    ...       0.0, 1.0, (), 0.98, 3, 1, 1.0, 0.0, 1.0, 1164, "Friday", 7)))
    ... # doctest: +NORMALIZE_WHITESPACE
    From 5 randomized reports (GRR, ε = 1), the class cannot tell yet which option comes
    first: every interval spans most of 0–100%. About 1,164 reports would narrow each
    interval to about ±10 points. Post-processing turned Base's estimates (3 below 0%, 1
    above 100%) into shares between 0% and 100% that sum to 100%.
    >>> print(class_readout(ClassReading(1, 4.0, "GRR", "Norm-Sub", 0.95, "Yes", 0.9,
    ...       0.6, 1.0, ("No",), 0.4, 0, 0, 1.0, 0.0, 1.0, 9, "No", 2)).split(". ")[0])
    ... # doctest: +NORMALIZE_WHITESPACE
    From 1 randomized report (GRR, ε = 4), Norm-Sub puts Yes first, at about 90% (95%
    interval, all options together: 60%–100%)
    """
    source = (
        f"From {reading.reports:,} randomized report{'' if reading.reports == 1 else 's'} "
        f"({reading.protocol}, ε = {reading.epsilon:g})"
    )
    if reading.leads:
        sure = (
            f"{source}, {reading.method} puts {reading.leader} first, at about "
            f"{_share(reading.share)} ({reading.level:.0%} interval, all options together: "
            f"{_share(reading.low)}–{_share(reading.high)}). Its interval lies wholly above "
            "every other option's, for all options at once."
        )
    else:
        why = (
            "every interval spans most of 0–100%"
            if reading.spans_most
            else (
                f"{reading.method}'s two largest estimates, {reading.leader} "
                f"({_share(reading.share)}) and {reading.runner_up}, have overlapping intervals"
            )
        )
        sure = f"{source}, the class cannot tell yet which option comes first: {why}."
    if reading.reports < reading.reports_needed:
        sure += (
            f" About {reading.reports_needed:,} reports would narrow each interval to about "
            f"±{HALF_WIDTH * 100:.0f} points."
        )
    return f"{sure} {_changed(reading)}"


def class_advice_sentence(advice: ClassAdvice) -> str:
    """What the poll's form says before it starts: what this class will be able to see.

    Examples
    --------
    >>> from ldpcore.live.lesson import class_advice
    >>> print(class_advice_sentence(class_advice("GRR", 1.0, 7, 20, epsilons=(1.0, 4.0, 6.0))))
    ... # doctest: +NORMALIZE_WHITESPACE
    With 20 students at ε = 1 and 7 options, every interval will span most of 0–100%: the
    class will see only noise. At ε = 6, 20 students separate a 60% majority from the rest.
    """
    who = f"{advice.size:,} student{'' if advice.size == 1 else 's'}"
    setting = f"With {who} at ε = {advice.epsilon:g} and {advice.options} options"
    reach = f"each interval will reach about ±{advice.half_width * 100:.0f} points"
    if advice.separates:
        less = (
            f" ε = {advice.smallest_epsilon:g} would already do, and would tell the server "
            "less about each student."
            if advice.smallest_epsilon is not None and advice.smallest_epsilon < advice.epsilon
            else ""
        )
        return (
            f"{setting}, {reach}: a 60% majority will stand apart from the rest "
            f"(it takes about {advice.needed:,} students).{less}"
        )
    if advice.half_width > MOST_OF_THE_RANGE:
        seen = f"{setting}, every interval will span most of 0–100%: the class will see only noise."
    else:
        seen = f"{setting}, {reach}: a 60% majority will not yet stand apart from the rest."
    if advice.smallest_epsilon is not None:
        offer = f"At ε = {advice.smallest_epsilon:g}, {who} separate a 60% majority from the rest"
    else:
        offer = f"No ε offered here lets {who} separate a 60% majority with {advice.protocol}"
    if advice.fewest_options_fit is not None:
        offer += f"; so would {advice.fewest_options_fit} options at ε = {advice.epsilon:g}"
    return f"{seen} {offer}."


def _base_flaws(reading: ClassReading) -> list[str]:
    flaws = []
    if reading.base_negative:
        flaws.append(f"{reading.base_negative} below 0%")
    if reading.base_above_one:
        flaws.append(f"{reading.base_above_one} above 100%")
    return flaws


def _changed(reading: ClassReading) -> str:
    flaws = _base_flaws(reading)
    if abs(reading.base_total - 1) > 0.005:
        flaws.append(f"summing to {_share(reading.base_total)}")
    if not flaws:
        return (
            "Base's estimates were already shares that sum to 100%: post-processing changed little."
        )
    consistent = reading.method_min >= -1e-9 and abs(reading.method_total - 1) <= 0.005
    into = (
        "into shares between 0% and 100% that sum to 100%"
        if consistent
        else f"into {reading.method}'s estimates (summing to {_share(reading.method_total)})"
    )
    return f"Post-processing turned Base's estimates ({', '.join(flaws)}) {into}."


def base_readout(reading: ClassReading) -> str:
    """The sentence for the Base step: the noise, before any post-processing.

    Examples
    --------
    >>> from ldpcore.live.lesson import ClassReading
    >>> base_readout(ClassReading(5, 1.0, "GRR", "Norm-Sub", 0.95, "Monday", 0.46,
    ...       0.0, 1.0, (), 0.98, 3, 1, 1.0, 0.0, 1.0, 1164)).split(".")[0]
    'Base, the unbiased estimate from 5 reports: 3 below 0% and 1 above 100%, summing to 100%'
    """
    flaws = _base_flaws(reading)
    state = " and ".join(flaws) if flaws else "all between 0% and 100%"
    return (
        f"Base, the unbiased estimate from {_reports(reading.reports)}: {state}, summing "
        f"to {_share(reading.base_total)}. Unbiased means right on average over many "
        "classes, not right for this one: the noise each browser added is still in it."
    )


def liars_words(
    option: str, liars: int, moves: Sequence[tuple[str, float, float]], honest: int
) -> str:
    """What simulated lying students did to each method's estimate of one option.

    ``moves`` holds ``(method, the class's estimate, with the liars)``.

    Examples
    --------
    >>> print(liars_words("Friday", 3, [("Base", 0.1, 0.38), ("Norm-Sub", 0.09, 0.35)], 20))
    ... # doctest: +NORMALIZE_WHITESPACE
    Simulated, not in the poll: 3 lying students who all send the report that pushes
    Friday most. Base's estimate of Friday goes from 10% to 38%; Norm-Sub's from 9% to 35%.
    3 fake reports beside 20 real ones. Nothing they "sent" was stored: the class's own
    answer is unchanged.
    """
    (first, before, after), *rest = moves
    said = f"{first}'s estimate of {option} goes from {_share(before)} to {_share(after)}"
    said += "".join(f"; {m}'s from {_share(b)} to {_share(a)}" for m, b, a in rest)
    plural = "s" if liars != 1 else ""
    return (
        f"Simulated, not in the poll: {liars:,} lying student{plural} who all send the "
        f"report that pushes {option} most. {said}. {liars:,} fake report{plural} beside "
        f'{honest:,} real one{"s" if honest != 1 else ""}. Nothing they "sent" was '
        "stored: the class's own answer is unchanged."
    )


__all__ = [
    "base_readout",
    "class_advice_sentence",
    "class_readout",
    "liars_words",
]
