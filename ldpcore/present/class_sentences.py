"""The live class's words and tables: what the form promises, what the teacher reads.

Split from :mod:`ldpcore.present.sentences` by concept (the class's words, read from
:mod:`ldpcore.live.lesson`'s numbers); ``tests/live/test_class_rules.py`` holds them to
those numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ldpcore.formats import plain_html
from ldpcore.live.admission import BURST_REPORTS, BURST_SECONDS
from ldpcore.live.lesson import HALF_WIDTH, MOST_OF_THE_RANGE
from ldpcore.live.outlook import STEP_THREE_METHOD, VISIBLE_CHANGE, LargerClass
from ldpcore.live.poll import Poll
from ldpcore.live.reports import class_collected
from ldpcore.present.figures import percent_label

if TYPE_CHECKING:
    from ldpcore.live.doors import DoorState
    from ldpcore.live.lesson import ClassAdvice, ClassReading
    from ldpcore.live.outlook import LessonOutlook


def _share(x: float) -> str:
    return f"{x:.0%}"


def _reports(count: int) -> str:
    return f"{count:,} report{'' if count == 1 else 's'}"


def _wide(reading: ClassReading) -> str:
    """How wide the intervals are, in the numbers the table beside it shows.

    Examples
    --------
    >>> from ldpcore.live.lesson import ClassReading
    >>> r = ClassReading(24, 1.0, "GRR", "Norm-Sub", 0.95, "Car", 0.7, 0.3, 1.0, (), 0.72,
    ...                  0, 0, 1.0, 0.0, 1.0, 900, "Bus", 5, 0.417, 1.0)
    >>> _wide(r)
    'the intervals are wide, 72 points of 0–100% on average (from 42 to 100)'
    """
    if math.isnan(reading.narrowest) or math.isnan(reading.widest):
        return f"the intervals are wide, {reading.mean_width * 100:.0f} points of 0–100% on average"
    return (
        f"the intervals are wide, {reading.mean_width * 100:.0f} points of 0–100% on average "
        f"(from {reading.narrowest * 100:.0f} to {reading.widest * 100:.0f})"
    )


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
    first: the intervals are wide, 98 points of 0–100% on average. About 1,164 reports
    would narrow each
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
            _wide(reading)
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


def outlook_sentence(outlook: LessonOutlook) -> str:
    """What the lesson will show at these settings: the noise in Base, and the fix.

    Examples
    --------
    >>> from ldpcore.live.outlook import LessonOutlook
    >>> print(outlook_sentence(LessonOutlook("GRR", 1.0, 5, 30, 0.87, 0.86, 400)))
    ... # doctest: +NORMALIZE_WHITESPACE
    The lesson at these settings: in about 87% of classes like this one Base shows an
    option below 0% or above 100% (the noise), and in about 86% Norm-Sub moves an estimate
    by 5 points or more (the fix).
    >>> print(outlook_sentence(LessonOutlook("GRR", 6.0, 5, 30, 0.0, 0.0, 400)))
    ... # doctest: +NORMALIZE_WHITESPACE
    The lesson at these settings: in fewer than 1% of classes like this one Base shows an
    option below 0% or above 100% (the noise), and in fewer than 1% Norm-Sub moves an
    estimate by 5 points or more (the fix). The class will see little noise and little to
    fix: a smaller ε or more options show both.
    """
    said = (
        f"The lesson at these settings: in {_often(outlook.noise_shown)} of classes like "
        "this one Base shows an option below 0% or above 100% (the noise), and in "
        f"{_often(outlook.fix_shown)} {STEP_THREE_METHOD} moves an estimate by "
        f"{VISIBLE_CHANGE * 100:.0f} points or more (the fix)."
    )
    if outlook.noise_shown < 0.5 and outlook.fix_shown < 0.5:
        said += (
            " The class will see little noise and little to fix: a smaller ε or more "
            "options show both."
        )
    return said


def teaching_label(outlook: LessonOutlook) -> str:
    """The form's offer of the ε at which the class sees both the noise and the fix.

    Examples
    --------
    >>> from ldpcore.live.outlook import LessonOutlook
    >>> teaching_label(LessonOutlook("GRR", 1.0, 5, 30, 0.87, 0.86, 400))
    'Use ε = 1: Base shows the noise in about 87% of classes, and Norm-Sub the fix in about 86%'
    """
    return (
        f"Use ε = {outlook.epsilon:g}: Base shows the noise in {_often(outlook.noise_shown)} "
        f"of classes, and {STEP_THREE_METHOD} the fix in {_often(outlook.fix_shown)}"
    )


def separating_label(outlook: LessonOutlook) -> str:
    """The form's offer of the ε at which a majority stands apart, with what it costs.

    Examples
    --------
    >>> from ldpcore.live.outlook import LessonOutlook
    >>> separating_label(LessonOutlook("GRR", 6.0, 5, 30, 0.0, 0.0, 400))
    'Use ε = 6: a 60% majority stands apart, and Base shows the noise in fewer than 1% of classes'
    """
    return (
        f"Use ε = {outlook.epsilon:g}: a 60% majority stands apart, and Base shows the "
        f"noise in {_often(outlook.noise_shown)} of classes"
    )


def _often(share: float) -> str:
    return "fewer than 1%" if share < 0.01 else f"about {_rounded_percent(share)}"


def _base_flaws(reading: ClassReading) -> list[str]:
    flaws = []
    if reading.base_negative:
        flaws.append(f"{reading.base_negative} below 0%")
    if reading.base_above_one:
        flaws.append(f"{reading.base_above_one} above 100%")
    return flaws


#: A move of an option's share under this much is "little" (one percentage point).
LITTLE = 0.01


def _points(share: float) -> str:
    """A change of share in percentage points: ``12 percentage points``."""
    points = round(100 * share)
    return f"{points} percentage point{'' if points == 1 else 's'}"


def _changed(reading: ClassReading) -> str:
    flaws = _base_flaws(reading)
    if abs(reading.base_total - 1) > 0.005:
        flaws.append(f"summing to {_share(reading.base_total)}")
    if not flaws:
        if reading.moved < LITTLE:
            return (
                "Base's estimates were already shares that sum to 100%: "
                f"{reading.method} changed each by under {_points(LITTLE)}."
            )
        return (
            "Base's estimates were already shares that sum to 100%, yet "
            f"{reading.method} moved {reading.moved_most} by {_points(reading.moved)}: "
            "it reshapes the estimates, not only their sum."
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

    ``moves`` holds ``(method, the class's estimate, with the liars)``: each method's
    gain is the second minus the first, on the same real reports (Cao, Jia and Gong's
    definition).

    Examples
    --------
    >>> print(liars_words("Friday", 3, [("Base", 0.1, 0.38), ("Norm-Sub", 0.09, 0.35)], 20))
    ... # doctest: +NORMALIZE_WHITESPACE
    Simulated, not in the poll: 3 lying students who all send the report that pushes
    Friday most. Base's estimate of Friday goes from 10% to 38% (a gain of 28 points);
    Norm-Sub's from 9% to 35% (26 points). 3 fake reports beside 20 real ones. Nothing they
    "sent" was stored: the class's own answer is unchanged.
    """

    def points(before: float, after: float) -> str:
        return f"{(after - before) * 100:+.0f} points".lstrip("+")

    (first, before, after), *rest = moves
    said = (
        f"{first}'s estimate of {option} goes from {_share(before)} to {_share(after)} "
        f"(a gain of {points(before, after)})"
    )
    said += "".join(f"; {m}'s from {_share(b)} to {_share(a)} ({points(b, a)})" for m, b, a in rest)
    plural = "s" if liars != 1 else ""
    return (
        f"Simulated, not in the poll: {liars:,} lying student{plural} who all send the "
        f"report that pushes {option} most. {said}. {liars:,} fake report{plural} beside "
        f'{honest:,} real one{"s" if honest != 1 else ""}. Nothing they "sent" was '
        "stored: the class's own answer is unchanged."
    )


#: What anyone but a poll's teacher sees on the Class page.
TEACHERS_ONLY = (
    "This page is for teachers: it runs a class's poll. If you are a student, open the "
    "link or scan the QR code your teacher shows, or type the code on the join page."
)


def larger_class_words(larger: LargerClass, reports: int) -> str:
    """What the same noise does at a larger class's size, said from the settings alone.

    It names no option: the class's own reports support no leader when it is shown, and
    a simulation seeded by their estimate would present noise as an answer.

    Examples
    --------
    >>> from ldpcore.live.outlook import LargerClass
    >>> larger = LargerClass("GRR", 1.0, 5, 1000, 0.123, (0.1, 0.5), (0.0, 0.995), (0.0, 0.0), 200)
    >>> print(larger_class_words(larger, 24))  # doctest: +NORMALIZE_WHITESPACE
    Simulated from this poll's settings (GRR, ε = 1, 5 options), not from this class's
    answers: with 1,000 students each option's interval (95% for all options at once)
    would reach about ±12 points (with this class's 24 reports, about ±79). If one option
    truly led every other by 10 or 50 points, a class of 1,000 would name it in fewer
    than 1% and about 100% of classes, and name another option in fewer than 1% (200
    classes simulated per lead).
    """
    now = larger.half_width_at(reports)
    said_now = "more than ±100" if now > 1 else f"about ±{now * 100:.0f}"
    leads = [f"{lead * 100:.0f}" for lead in larger.leads]
    said_leads = ", ".join(leads[:-1]) + (" or " if len(leads) > 1 else "") + leads[-1]
    right = [_often(share) for share in larger.named_right]
    said_right = ", ".join(right[:-1]) + (" and " if len(right) > 1 else "") + right[-1]
    return (
        f"Simulated from this poll's settings ({larger.protocol}, ε = {larger.epsilon:g}, "
        f"{larger.options} options), not from this class's answers: with {larger.size:,} "
        f"students each option's interval (95% for all options at once) would reach about "
        f"±{larger.half_width * 100:.0f} points (with this class's {_reports(reports)}, "
        f"{said_now}). If one option truly led "
        f"every other by {said_leads} points, a class of {larger.size:,} would name it in "
        f"{said_right} of classes, and name another option in "
        f"{_often(max(larger.named_wrong))} ({larger.classes:,} classes simulated per lead)."
    )


#: The projector at the lesson's last step, whose simulation runs on the teacher's screen.
STEP_LIARS_PROJECTED = (
    "The teacher's screen adds simulated lying students; here is what the class's own "
    "reports say, post-processed."
)

#: What the seats per network address are, for the control that sets them.
SEATS_HELP = (
    "1: one report per network address (and per browser), so a student cannot answer "
    "again from a private window. In a computer lab or behind a school proxy several "
    "students share one address: set how many. Reports past an address's seats are "
    "stored but not counted; you count or discard them."
)


def seats_words(poll: Poll) -> str:
    """The poll's rule for one network address, as a clause.

    Examples
    --------
    >>> from ldpcore.live.poll import Poll
    >>> seats_words(Poll("ABCDEF", "Day?", ("a", "b"), "GRR", 1.0, 0.0, False, 30, 1))
    'one report counted per network address'
    >>> seats_words(Poll("ABCDEF", "Day?", ("a", "b"), "GRR", 1.0, 0.0, False, 30, 12))
    'up to 12 reports counted per network address (a lab)'
    """
    if poll.seats == 1:
        return "one report counted per network address"
    return f"up to {poll.seats:,} reports counted per network address (a lab)"


def turned_away_help(poll: Poll) -> str:
    """What the count of browsers turned away counts, and the rules that turned them away."""
    return (
        "Reports refused, each browser counted once per poll. The class size is "
        f"{poll.max_reports:,}; {seats_words(poll)}, and reports past that wait for you "
        "to count or discard them."
    )


def waiting_words(label: str, waiting: int, poll: Poll) -> str:
    """The notice of reports held for the teacher from one address, and what to do.

    Examples
    --------
    >>> from ldpcore.live.poll import Poll
    >>> waiting_words("df144f", 1, Poll("ABCDEF", "Day?", ("a", "b"), "GRR", 1.0, 0.0, False))
    ... # doctest: +NORMALIZE_WHITESPACE
    '1 report waits from address df144f, uncounted: that address has used its 1 seat.
    Count it if several students share that connection; discard it if one person
    answered again.'
    """
    them = "it" if waiting == 1 else "them"
    return (
        f"{_reports(waiting)} {'waits' if waiting == 1 else 'wait'} from address {label}, "
        f"uncounted: that address has used its {poll.seats:,} "
        f"seat{'' if poll.seats == 1 else 's'}. Count {them} if several students share "
        f"that connection; discard {them} if one person answered again."
    )


def removal_confirmation(label: str, reports: int, waiting: int) -> str:
    """The box a teacher ticks before removing an address: what removing it does.

    Examples
    --------
    >>> removal_confirmation("df144f", 10, 0)
    "Yes: delete address df144f's 10 reports and take nothing more from it"
    >>> removal_confirmation("df144f", 1, 2)
    "Yes: delete address df144f's 1 report and 2 waiting, and take nothing more from it"
    """
    held = f" and {waiting:,} waiting," if waiting else ""
    return f"Yes: delete address {label}'s {_reports(reports)}{held} and take nothing more from it"


#: Why a report was turned away, as the teacher reads it (one phrase per reason).
REFUSAL_WORDS: dict[str, str] = {
    "full": "the poll was full",
    "address": "their network address had too many answers waiting",
    "removed": "the teacher had removed their network address",
    "device": "their browser had already answered",
    "closed": "the poll was closed",
    "invalid": "the report was not one the protocol can send",
}


def turned_away_words(reasons: Mapping[str, int]) -> str:
    """Each reason browsers were turned away, with its count (empty when none were).

    Examples
    --------
    >>> turned_away_words({"full": 2, "closed": 0})
    'Turned away: 2 because the poll was full.'
    """
    said = [f"{n} because {REFUSAL_WORDS[r]}" for r, n in reasons.items() if n]
    return "Turned away: " + "; ".join(said) + "." if said else ""


def burst_words(label: str, reports: int) -> str:
    """The warning about a burst of reports from one network address."""
    return (
        f"Address {label} sent {reports} reports in a burst ({BURST_REPORTS} or more within "
        f"{BURST_SECONDS:g} s): one person answering again and again, or a lab answering "
        "together. You can remove its reports below."
    )


def door_words(state: DoorState, door: str) -> str:
    """Why a try at the passcode or a handover code was not checked, and what to do.

    Examples
    --------
    >>> from ldpcore.live.doors import DoorState
    >>> door_words(DoorState(False, 3.2, False, 5), "passcode")
    'Too many wrong passcodes from this address: wait 4 s before the next try.'
    >>> door_words(DoorState(False, float("inf"), True, 20), "handover")
    ... # doctest: +NORMALIZE_WHITESPACE
    'Too many wrong handover codes from this address: it is locked out. Whoever runs the
    server can let it try again (ldpcore poll unlock).'
    """
    what = "passcodes" if door == "passcode" else "handover codes"
    if state.locked:
        return (
            f"Too many wrong {what} from this address: it is locked out. Whoever runs the "
            "server can let it try again (ldpcore poll unlock)."
        )
    wait = max(1, math.ceil(state.wait_s))
    return f"Too many wrong {what} from this address: wait {wait} s before the next try."


def handover_words(code: str) -> str:
    """How to take a poll to another device with its handover code."""
    return (
        f"On the other device, open the Class page and type **{code}** under *Continue a "
        "poll from another device*, within ten minutes. It works once. Anyone who types it "
        "gets this poll's controls: do not show it to the class."
    )


def removal_effect(poll: Poll, rows: list[Any], kept: list[Any], label: str) -> str:
    """What removing one address's reports does to the count and to Base's estimates.

    The options are the teacher's words, shown as typed (no Markdown, LaTeX or colour).
    """
    gone = len(rows) - len(kept)
    head = (
        f"Removing address {label}'s {gone} report{'' if gone == 1 else 's'} leaves "
        f"{len(kept):,} of {len(rows):,}."
    )
    if not kept:
        return head + " No estimate is left."
    before = class_collected(poll, rows).estimate
    after = class_collected(poll, kept).estimate
    moves = sorted(zip(poll.options, before, after, strict=True), key=lambda m: -abs(m[2] - m[1]))[
        :3
    ]
    said = ", ".join(
        f"{plain_html(o)} {_rounded_percent(b)} → {_rounded_percent(a)}" for o, b, a in moves
    )
    return f"{head} Base's estimates move most for {said}."


def _rounded_percent(share: float) -> str:
    """A share in whole percent, rounded once as a table rounds it (0.475: "48%").

    Examples
    --------
    >>> _rounded_percent(0.475), _rounded_percent(-0.001), _rounded_percent(0.995)
    ('48%', '0%', '100%')
    """
    # A share within half a point of 0 reads "0%", not "-0%".
    return f"{0.0 if abs(share) < 0.005 else share:.0%}"


def percent_cell(share: float) -> str:
    """A share as a class table's cell says it, the same way as the sentence beside it."""
    return _rounded_percent(share)


def every_method(poll: Poll, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per option, one column per method: "estimate (low–high)"."""
    frame = pd.DataFrame({"option": list(poll.options)})
    for method, table in tables.items():
        frame[method] = [
            f"{percent_label(round(e, 3))} ({percent_label(round(lo, 3))}–"
            f"{percent_label(round(hi, 3))})"
            for e, lo, hi in zip(table["estimate"], table["low"], table["high"], strict=True)
        ]
    return frame


def liars_caption(liars: int, honest: int) -> str:
    """Under the table of every method's answer with simulated lying students.

    Examples
    --------
    >>> liars_caption(1, 1).split(" (")[0]
    "Every method's answer with 1 simulated lying student added to the class's 1 real report"
    """
    students = f"{liars:,} simulated lying student{'' if liars == 1 else 's'}"
    return (
        f"Every method's answer with {students} added to the class's "
        f"{honest:,} real report{'' if honest == 1 else 's'} (95% intervals for all options "
        "at once). Base takes a "
        "fake report at face value, as it takes an honest one; the table shows how far "
        "each method carries the lie."
    )


__all__ = [
    "TEACHERS_ONLY",
    "base_readout",
    "burst_words",
    "class_advice_sentence",
    "class_readout",
    "door_words",
    "every_method",
    "handover_words",
    "liars_caption",
    "liars_words",
    "outlook_sentence",
    "percent_cell",
    "removal_effect",
    "separating_label",
    "turned_away_help",
    "turned_away_words",
]
