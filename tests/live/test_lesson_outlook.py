"""What a class will see before its poll starts: the outlook against a slow, independent
simulation, the form's defaults against the lesson's two aims, and the form's words.

The independent path randomizes each student's answer in GRR as the browser does (the
true option with probability p, otherwise one of the others at random), estimates by
NDSS Eq. 1's inversion and projects onto the simplex by its own bisection (Norm-Sub,
NDSS Sec. V-B): no line of ``ldpcore.live.outlook`` or of the protocols.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from apptest import app

from ldpcore.live.outlook import (
    LESSON_EPSILON,
    MOST_CLASSES,
    VISIBLE_CHANGE,
    lesson_outlook,
    teaching_epsilon,
    uneven_class,
)
from ldpcore.live.reports import LESSON_PRESET, PRESETS
from ldpcore.present.class_sentences import outlook_sentence


def _norm_sub(f: np.ndarray) -> np.ndarray:
    """max(f + δ, 0) summing to one, δ by bisection."""
    low, high = -1.0 - float(f.max()), 1.0 - float(f.min())
    for _ in range(200):
        middle = (low + high) / 2
        if np.maximum(f + middle, 0).sum() > 1:
            high = middle
        else:
            low = middle
    return np.maximum(f + (low + high) / 2, 0)


def _slow_outlook(epsilon: float, options: int, size: int, classes: int, seed: int):
    rng = np.random.default_rng(seed)
    p = math.exp(epsilon) / (math.exp(epsilon) + options - 1)
    q = (1 - p) / (options - 1)
    answers = np.repeat(np.arange(options), uneven_class(options, size))
    noise = fix = 0
    for _ in range(classes):
        reports = answers.copy()
        lie = rng.random(size) >= p
        # Another option, uniformly: a shift of 1 to options − 1 around the circle.
        reports[lie] = (answers[lie] + rng.integers(1, options, lie.sum())) % options
        counts = np.bincount(reports, minlength=options)
        base = (counts / size - q) / (p - q)
        noise += bool(np.any((base < 0) | (base > 1)))
        fix += bool(np.max(np.abs(_norm_sub(base) - base)) >= VISIBLE_CHANGE)
    return noise / classes, fix / classes


@pytest.mark.parametrize(("epsilon", "options"), [(1.0, 5), (2.0, 7), (0.5, 4)])
def test_the_outlook_is_what_classes_randomized_one_student_at_a_time_see(
    epsilon: float, options: int
) -> None:
    fast = lesson_outlook("GRR", epsilon, options, 30, classes=2000, seed=1)
    noise, fix = _slow_outlook(epsilon, options, 30, classes=2000, seed=2)
    for mine, theirs in ((fast.noise_shown, noise), (fast.fix_shown, fix)):
        # Two independent shares of 2,000 classes: 4 standard errors of their difference.
        spread = math.sqrt(2 * max(theirs * (1 - theirs), 1e-3) / 2000)
        assert abs(mine - theirs) <= 4 * spread, (epsilon, options, mine, theirs)


def test_an_uneven_class_has_every_student_and_falls() -> None:
    for options in (2, 5, 7, 50):
        for size in (1, 7, 30, 101):
            counts = uneven_class(options, size)
            assert counts.sum() == size and np.all(np.diff(counts) <= 0), (options, size)


def test_the_form_s_defaults_show_the_noise_and_the_fix_to_a_class_of_30() -> None:
    """The lesson's two aims, at the form's first settings (GRR, the lesson's question
    and ε): most classes see Base leave 0–100%, and most see Norm-Sub change it. The
    old default (ε = 6, seven options) showed neither."""
    options = len(PRESETS[LESSON_PRESET])
    lesson = lesson_outlook("GRR", LESSON_EPSILON, options, 30, classes=2000, seed=3)
    assert lesson.noise_shown >= 0.75 and lesson.fix_shown >= 0.75, lesson
    old = lesson_outlook("GRR", 6.0, 7, 30, classes=2000, seed=3)
    assert old.noise_shown < 0.05 and old.fix_shown < 0.05, old


def test_the_class_form_opens_at_the_lesson_and_says_what_each_epsilon_shows() -> None:
    at = app()
    at.run()
    at.switch_page("pages/class.py")
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="class-preset").value == LESSON_PRESET
    assert at.select_slider(key="class-epsilon").value == LESSON_EPSILON  # not steered
    options = len(PRESETS[LESSON_PRESET])
    said = " ".join(i.value for i in at.info)
    assert outlook_sentence(lesson_outlook("GRR", LESSON_EPSILON, options, 30)) in said
    at.select_slider(key="class-epsilon").set_value(6.0).run()
    said = " ".join(i.value for i in at.info)
    assert outlook_sentence(lesson_outlook("GRR", 6.0, options, 30)) in said
    assert "little noise and little to fix" in said
    # Back at the lesson's ε, the separating ε is offered as a choice, with its cost.
    at.select_slider(key="class-epsilon").set_value(LESSON_EPSILON).run()
    offer = next(b for b in at.button if b.key == "class-use-epsilon")
    assert "a 60% majority stands apart" in offer.label and "noise in" in offer.label
    offer.click().run()
    assert at.select_slider(key="class-epsilon").value == 6.0
    # At ε = 6 the lesson is offered back, one click: the ε that shows both to most
    # classes (never only the one that separates, which shows nothing to fix).
    back = next(b for b in at.button if b.key == "class-use-teaching-epsilon")
    assert back.label.startswith(f"Use ε = {LESSON_EPSILON:g}: Base shows the noise in")
    back.click().run()
    assert at.select_slider(key="class-epsilon").value == LESSON_EPSILON
    assert not any(b.key == "class-use-teaching-epsilon" for b in at.button)


def test_the_teaching_epsilon_shows_both_to_most_classes_and_is_the_largest_that_does() -> None:
    options = len(PRESETS[LESSON_PRESET])
    epsilons = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0)
    found = teaching_epsilon("GRR", options, 30, epsilons)
    assert found is not None
    assert min(found.noise_shown, found.fix_shown) >= MOST_CLASSES
    for larger in (e for e in epsilons if e > found.epsilon):
        other = lesson_outlook("GRR", larger, options, 30)
        assert min(other.noise_shown, other.fix_shown) < MOST_CLASSES
