"""What a class's poll says, as numbers a teacher can read out.

:func:`read_class` turns the Class page's tables (one per method, from
:func:`ldpcore.collection.estimates.consistent_estimates_and_caveats`) into a
:class:`ClassReading`: which option leads and how sure that is, whether the reports can
yet tell the options apart, how many reports would, and what post-processing changed
in Base's estimate. The words are :func:`ldpcore.present.class_sentences.class_readout`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ldpcore.live.reports import poll_protocol
from ldpcore.postprocess import default_method_names, get_method
from ldpcore.postprocess.intervals import reports_for_half_width

if TYPE_CHECKING:
    import pandas as pd

    from ldpcore.live.poll import Poll

#: The resolution "enough reports" is stated for: each interval about ±10 points, so
#: options 20 points apart separate.
HALF_WIDTH = 0.10
#: Mean interval width above which the intervals "span most of 0–100%".
MOST_OF_THE_RANGE = 0.5


@dataclass(frozen=True)
class ClassReading:
    """A poll's results in the numbers the read-out needs.

    Attributes
    ----------
    reports, epsilon, protocol, method, level
        What the estimates rest on and which method is read.
    leader : str
        The option with the largest estimate (the first, if several tie).
    share, low, high : float
        The leader's estimate and interval.
    ahead_of : tuple of str
        Options whose whole interval lies below the leader's: the ones the reports tell
        apart from it. Empty: the reports cannot yet separate the options.
    mean_width : float
        The intervals' mean width (a share).
    base_negative, base_above_one : int
        Options whose Base estimate is below 0 or above 1.
    base_total : float
        Base's estimates summed (GRR's always sum to 1; the others' need not).
    method_min, method_total : float
        The method's smallest estimate and their sum.
    reports_needed : int
        Reports at this ε for intervals of about ±:data:`HALF_WIDTH` at an even share
        (NDSS Eq. 3 inverted: :func:`~ldpcore.postprocess.intervals.reports_for_half_width`).
    runner_up : str
        The option with the second largest estimate.
    options : int
        How many options the poll has.
    narrowest, widest : float
        The narrowest and the widest interval's width (shares): the sentence beside the
        table says the range its cells show, not only their mean.
    moved, moved_most : float, str
        How far the method moved an option's estimate from Base's, at most (a share),
        and which option: the step's words follow how far each method moved.
    """

    reports: int
    epsilon: float
    protocol: str
    method: str
    level: float
    leader: str
    share: float
    low: float
    high: float
    ahead_of: tuple[str, ...]
    mean_width: float
    base_negative: int
    base_above_one: int
    base_total: float
    method_min: float
    method_total: float
    reports_needed: int
    runner_up: str = ""
    options: int = 0
    narrowest: float = math.nan
    widest: float = math.nan
    moved: float = 0.0
    moved_most: str = ""

    @property
    def leads(self) -> bool:
        """Whether the leader's interval lies wholly above every other option's.

        Only then does the read-out name a leader.
        """
        return self.options > 1 and len(self.ahead_of) == self.options - 1

    @property
    def separated(self) -> bool:
        """Whether the reports tell the leader apart from at least one other option."""
        return bool(self.ahead_of)

    @property
    def spans_most(self) -> bool:
        """Whether the intervals are, on average, wider than half of 0–100%."""
        return self.mean_width > MOST_OF_THE_RANGE


def lesson_methods(poll: Poll) -> tuple[str, ...]:
    """The default methods that change a poll's Base estimate, Base first.

    A method that returns Base unchanged for the poll's protocol (the consistency step,
    on a flat protocol) would show the class a "fix" that fixes nothing.
    """
    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    return tuple(
        name
        for name in default_method_names()
        if name == "Base" or not get_method(name).is_no_op(protocol)
    )


def read_class(
    table: pd.DataFrame, *, poll: Poll, method: str, reports: int, level: float = 0.95
) -> ClassReading:
    """Read one method's table of a poll (``value, base_estimate, estimate, low, high``).

    The intervals are the page's: simultaneous over the options, so "ahead of" holds
    for every option named at once.
    """
    estimate = table["estimate"].to_numpy(dtype=float)
    low = table["low"].to_numpy(dtype=float)
    high = table["high"].to_numpy(dtype=float)
    base = table["base_estimate"].to_numpy(dtype=float)
    order = np.argsort(-estimate, kind="stable")
    top = int(order[0])
    below = (high < low[top]) & (np.arange(estimate.size) != top)
    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    needed = reports_for_half_width(
        protocol, HALF_WIDTH, level=level, share=1 / len(poll.options), simultaneous=True
    )
    return ClassReading(
        reports=reports,
        epsilon=poll.epsilon,
        protocol=poll.protocol,
        method=method,
        level=level,
        leader=str(table["value"].iloc[top]),
        share=float(estimate[top]),
        low=float(low[top]),
        high=float(high[top]),
        ahead_of=tuple(str(v) for v in table["value"][below]),
        mean_width=float(np.mean(high - low)),
        base_negative=int(np.sum(base < 0)),
        base_above_one=int(np.sum(base > 1)),
        base_total=float(base.sum()),
        method_min=float(estimate.min()),
        method_total=float(estimate.sum()),
        reports_needed=max(1, math.ceil(needed)),
        runner_up=str(table["value"].iloc[int(order[1])]) if estimate.size > 1 else "",
        options=int(estimate.size),
        narrowest=float(np.min(high - low)),
        widest=float(np.max(high - low)),
        moved=float(np.max(np.abs(estimate - base))),
        moved_most=str(table["value"].iloc[int(np.argmax(np.abs(estimate - base)))]),
    )


#: The share a clear majority holds, and so the gap it must show over the next option.
MAJORITY = 0.6


@dataclass(frozen=True)
class ClassAdvice:
    """What a class of this size will see, said before the poll starts.

    Attributes
    ----------
    size, options, protocol, epsilon
        The form's class size, number of options, protocol and ε.
    half_width : float
        About how far each 95% interval (all options at once) reaches either side of a
        share near one half, with ``size`` reports.
    needed : int
        Reports for a 60% majority to stand apart: each interval within ±10 points, so
        60% and 40% no longer overlap (:func:`reports_to_separate`).
    smallest_epsilon : float or None
        The smallest of the offered ε at which ``size`` reports separate it (None: none).
    fewest_options_fit : int or None
        At this ε, the most options a class of this size separates a majority among
        (None: not even 2).
    """

    size: int
    options: int
    protocol: str
    epsilon: float
    half_width: float
    needed: int
    smallest_epsilon: float | None
    fewest_options_fit: int | None

    @property
    def separates(self) -> bool:
        """Whether this class size separates a 60% majority at this ε."""
        return self.size >= self.needed


def reports_to_separate(protocol: str, epsilon: float, options: int) -> int:
    """Reports for a 60% majority to stand apart from the rest (the users-needed rule).

    Simultaneous 95% intervals of about ±:data:`HALF_WIDTH` at a share of one half (NDSS
    Eq. 3 inverted, :func:`~ldpcore.postprocess.intervals.reports_for_half_width`): the
    majority's interval then stays above 50% and the next option's below.

    Examples
    --------
    >>> reports_to_separate("GRR", 4.0, 3)  # 16.1: rounded up
    17
    """
    chosen = poll_protocol(protocol, epsilon, options)
    needed = reports_for_half_width(chosen, HALF_WIDTH, share=0.5, simultaneous=True)
    return max(1, math.ceil(needed))


def class_advice(
    protocol: str, epsilon: float, options: int, size: int, *, epsilons: tuple[float, ...]
) -> ClassAdvice:
    """What ``size`` students will see at ``epsilon`` with ``options`` options.

    ``epsilons`` are the ε the form offers; the smallest that separates a 60% majority
    for this class size is named.
    """
    needed = reports_to_separate(protocol, epsilon, options)
    smallest = next(
        (e for e in sorted(epsilons) if reports_to_separate(protocol, e, options) <= size), None
    )
    fit = next(
        (k for k in range(options, 1, -1) if reports_to_separate(protocol, epsilon, k) <= size),
        None,
    )
    return ClassAdvice(
        size=size,
        options=options,
        protocol=protocol,
        epsilon=epsilon,
        half_width=HALF_WIDTH * math.sqrt(needed / max(size, 1)),
        needed=needed,
        smallest_epsilon=smallest,
        fewest_options_fit=fit,
    )


__all__ = [
    "HALF_WIDTH",
    "MAJORITY",
    "ClassAdvice",
    "ClassReading",
    "class_advice",
    "lesson_methods",
    "read_class",
    "reports_to_separate",
]
