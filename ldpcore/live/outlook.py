"""What a class will see before its poll starts: the noise in Base, and the fix.

A live poll teaches two things at once: the noise each browser adds shows in Base's
estimate (an option below 0% or above 100%: NDSS Sec. IV's unbiased estimate is not a
distribution), and post-processing visibly changes it (Norm-Sub, NDSS Sec. V-B, the
Class page's method). Whether a class of ``size`` students sees either depends on ε, the
number of options and chance. :func:`lesson_outlook` says how often, over simulated
classes drawn exactly (each class's support counts from the protocol's own channel,
``FrequencyOracle.sample_support_counts``), so the form can say which of the two this
class will see, at any ε, without steering the teacher to one.

The simulated classes answer unevenly: shares falling linearly from the first option to
the last (4 options: 40%, 30%, 20%, 10%). A real class's answers are unknown before the
poll; an even spread shows the noise about as often (its estimates sit nearer 0% on
every option).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ldpcore.data.datasets import round_to_total
from ldpcore.live.reports import poll_protocol
from ldpcore.postprocess import get_method

#: Simulated classes per outlook: each share is then within about ±5 points (95%).
CLASSES = 400
#: A change by post-processing the class sees on a bar chart of shares: 5 points.
VISIBLE_CHANGE = 0.05
#: The method the Class page's third step shows.
STEP_THREE_METHOD = "Norm-Sub"
#: The form's first ε, with its five-option question (``reports.LESSON_PRESET``), in
#: GRR, the protocol a class reads most easily: of the ε offered it is the one at which a
#: class of 30 sees both the noise (about 90% of classes) and the fix (about 90%); at
#: ε = 2 they fall to about 31% and 7% (``benchmarks/bench_lesson_outlook.py``).
LESSON_EPSILON = 1.0


@dataclass(frozen=True)
class LessonOutlook:
    """How often a class of this kind sees the noise and the fix.

    Attributes
    ----------
    protocol, epsilon, options, size
        The poll's settings and the class size simulated.
    noise_shown : float
        Share of classes whose Base estimate has an option below 0% or above 100%.
    fix_shown : float
        Share of classes in which Norm-Sub moves some option's estimate by at least
        :data:`VISIBLE_CHANGE`.
    classes : int
        Classes simulated.
    """

    protocol: str
    epsilon: float
    options: int
    size: int
    noise_shown: float
    fix_shown: float
    classes: int


def uneven_class(options: int, size: int) -> NDArray[np.int64]:
    """A class's answers, falling linearly from the first option to the last.

    Examples
    --------
    >>> uneven_class(4, 30).tolist()
    [12, 9, 6, 3]
    """
    # The students left by rounding down go to the largest remainders.
    return round_to_total(np.arange(options, 0, -1, dtype=float), size)


def lesson_outlook(
    protocol: str,
    epsilon: float,
    options: int,
    size: int,
    *,
    classes: int = CLASSES,
    seed: int = 0,
) -> LessonOutlook:
    """Simulate ``classes`` classes of ``size`` students and count what they see.

    Parameters
    ----------
    protocol : str
        A protocol the browsers run (GRR, OUE, OLH).
    epsilon : float
        The poll's ε.
    options : int
        Number of options.
    size : int
        Students who answer (at least 1).
    classes : int
        Classes simulated (each drawn exactly, in O(options)).
    seed : int
        The simulation's seed: the same outlook for the same settings.
    """
    oracle = poll_protocol(protocol, epsilon, options)
    truth = uneven_class(options, max(1, size))
    n = int(truth.sum())
    rng = np.random.default_rng(seed)
    base = np.array(
        [oracle.estimate(oracle.sample_support_counts(truth, rng), n) for _ in range(classes)]
    )
    fixed = get_method(STEP_THREE_METHOD).apply_rows(base, protocol=oracle, n=n)
    noise = np.any((base < 0) | (base > 1), axis=1)
    moved = np.max(np.abs(fixed - base), axis=1) >= VISIBLE_CHANGE
    return LessonOutlook(
        protocol=protocol,
        epsilon=epsilon,
        options=options,
        size=n,
        noise_shown=float(noise.mean()),
        fix_shown=float(moved.mean()),
        classes=classes,
    )


#: "Most classes": the share of simulated classes that must see both the noise and the
#: fix for an ε to be offered as the lesson's.
MOST_CLASSES = 0.8


def teaching_epsilon(
    protocol: str, options: int, size: int, epsilons: tuple[float, ...]
) -> LessonOutlook | None:
    """Of ``epsilons``, the largest at which most classes see both the noise and the fix.

    The lesson's purpose is both; of the ε that show both to :data:`MOST_CLASSES` of
    classes, the largest gives the class the most accurate answer while it still sees
    the lesson. None when no ε shows both to most classes.

    Examples
    --------
    >>> teaching_epsilon("GRR", 5, 30, (0.5, 1.0, 2.0, 6.0)).epsilon
    1.0
    """
    seen = [lesson_outlook(protocol, e, options, size) for e in epsilons]
    both = [o for o in seen if min(o.noise_shown, o.fix_shown) >= MOST_CLASSES]
    return max(both, key=lambda o: o.epsilon) if both else None


#: The leads (share points between the true leader and every other option) at which the
#: larger class is shown: from a clear race to a landslide.
LEADS = (0.10, 0.20, 0.30, 0.50)
#: Simulated larger classes per lead: each share named within about ±7 points (95%).
LARGER_CLASSES = 200
#: The class a small room is compared with: one thousand students, a school year's
#: survey, where the same noise is about six times narrower than in a class of 30.
LARGER_CLASS = 1000


@dataclass(frozen=True)
class LargerClass:
    """What the same noise does at ``size`` students, from the poll's settings alone.

    Never from a class's own estimate: a small class's estimate is mostly noise, and a
    simulation seeded by it would present that noise as a larger class's answer.

    Attributes
    ----------
    protocol, epsilon, options, size
        The poll's settings, and the larger class simulated.
    half_width : float
        The 95% interval's half-width at ``size`` for an option holding an even share,
        for all options at once (NDSS Eq. 3 with Bonferroni), as the Class page's
        intervals are.
    leads : tuple of float
        The true leader's lead over every other option, per scenario.
    named_right, named_wrong : tuple of float
        Share of simulated classes whose read-out names the true leader, or another
        option, at each lead: named only when its simultaneous interval lies wholly
        above every other's (the Class page's rule, Norm-Sub's estimate).
    classes : int
        Classes simulated per lead.
    """

    protocol: str
    epsilon: float
    options: int
    size: int
    half_width: float
    leads: tuple[float, ...]
    named_right: tuple[float, ...]
    named_wrong: tuple[float, ...]
    classes: int

    def half_width_at(self, reports: int) -> float:
        """The same half-width at ``reports`` students (it shrinks as 1/√n)."""
        return self.half_width * (self.size / max(1, reports)) ** 0.5


def led_class(options: int, size: int, lead: float) -> NDArray[np.int64]:
    """A class whose first option leads every other by ``lead``, the others even.

    Examples
    --------
    >>> led_class(5, 1000, 0.1).tolist()
    [280, 180, 180, 180, 180]
    >>> led_class(4, 30, 0.5).tolist()
    [19, 4, 4, 3]
    """
    rest = (1.0 - lead) / options
    return round_to_total(np.array([rest + lead] + [rest] * (options - 1)), size)


def larger_class_outlook(
    protocol: str,
    epsilon: float,
    options: int,
    *,
    size: int = LARGER_CLASS,
    leads: tuple[float, ...] = LEADS,
    classes: int = LARGER_CLASSES,
    seed: int = 0,
) -> LargerClass:
    """Simulate ``classes`` classes of ``size`` at each lead and count what they name.

    Each class's support counts are drawn exactly from the protocol's channel; its
    Base estimate goes through Norm-Sub and the exact simultaneous intervals
    (:func:`ldpcore.postprocess.intervals.frequency_intervals`), and the leader is
    named as the Class page names one.
    """
    from ldpcore.postprocess.intervals import (  # noqa: PLC0415 (scipy)
        frequency_intervals,
        reports_for_half_width,
    )

    oracle = poll_protocol(protocol, epsilon, options)
    # Eq. 3 inverted gives n = C / h²; so at ``size`` users h = √(C / size).
    unit = reports_for_half_width(oracle, 1.0, share=1 / options, simultaneous=True)
    method = get_method(STEP_THREE_METHOD)
    rng = np.random.default_rng(seed)
    right, wrong = [], []
    for lead in leads:
        truth = led_class(options, size, lead)
        named = np.zeros(options + 1)  # named[v]: classes naming v; named[-1]: none
        for _ in range(classes):
            base = oracle.estimate(oracle.sample_support_counts(truth, rng), size)
            point = method(base, protocol=oracle, n=size)
            low, high = frequency_intervals(
                base, protocol=oracle, n=size, point=point, simultaneous=True
            )
            top = int(np.argmax(point))
            others = np.arange(options) != top
            named[top if np.all(high[others] < low[top]) else -1] += 1
        right.append(float(named[0] / classes))
        wrong.append(float(named[1:options].sum() / classes))
    return LargerClass(
        protocol=protocol,
        epsilon=epsilon,
        options=options,
        size=size,
        half_width=float((unit / size) ** 0.5),
        leads=tuple(leads),
        named_right=tuple(right),
        named_wrong=tuple(wrong),
        classes=classes,
    )


__all__ = [
    "CLASSES",
    "LARGER_CLASS",
    "LARGER_CLASSES",
    "LEADS",
    "LESSON_EPSILON",
    "MOST_CLASSES",
    "STEP_THREE_METHOD",
    "VISIBLE_CHANGE",
    "LargerClass",
    "LessonOutlook",
    "larger_class_outlook",
    "led_class",
    "lesson_outlook",
    "teaching_epsilon",
    "uneven_class",
]
