"""Amplification by shuffling (FMT 2021) and repeated collection: the arithmetic, checked.

The numerical bound is checked against FMT's published example, against a slow
reference that enumerates the dominating pair's outcomes one by one (no tail formulas,
no threshold), and against the exact privacy loss of a real shuffled randomized response
(the bound must lie above it). The closed form is checked against its own condition.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ldpcore.advice.composition import repeated_cost
from ldpcore.advice.shuffling import (
    USERS_COMPUTED_MAX,
    closed_form_epsilon,
    closed_form_limit,
    numerical_epsilon,
    shuffle_delta,
    shuffled_epsilon,
)
from ldpcore.errors import InputError


def test_the_published_example() -> None:
    # FMT's companion README: n = 10⁵, ε₀ = 4, δ = 10⁻⁶ → numerical 0.1675–0.1728,
    # closed form ≤ 0.538.
    bound = shuffled_epsilon(4.0, 100_000, 1e-6)
    assert 0.1675 <= bound.numerical <= 0.1728
    assert bound.closed_form is not None and bound.closed_form <= 0.538
    assert bound.epsilon == bound.numerical
    # The bound holds at its own answer and fails just below it (it is the smallest).
    assert shuffle_delta(bound.numerical, 4.0, 100_000) <= 1e-6
    assert shuffle_delta(bound.numerical * 0.999, 4.0, 100_000) > 1e-6


def _reference_delta(epsilon: float, epsilon0: float, n: int) -> float:
    """D_{e^ε}(P‖Q) by enumerating every (C, K) outcome of FMT Thm 3.2's pair."""
    p = math.exp(epsilon0) / (math.exp(epsilon0) + 1)
    total = 0.0
    for c in range(n):
        weight = stats.binom.pmf(c, n - 1, math.exp(-epsilon0))
        for k in range(c + 2):  # first count K = A + Δ (P) or A + 1 − Δ (Q)
            a_one, a_zero = stats.binom.pmf(k - 1, c, 0.5), stats.binom.pmf(k, c, 0.5)
            under_p = a_one * p + a_zero * (1 - p)
            under_q = a_one * (1 - p) + a_zero * p
            total += weight * max(0.0, under_p - math.exp(epsilon) * under_q)
    return total


@pytest.mark.parametrize(("epsilon0", "n"), [(1.0, 40), (3.0, 60), (0.5, 25), (6.0, 80)])
@pytest.mark.parametrize("epsilon", [0.0, 0.2, 0.7])
def test_the_divergence_matches_a_slow_reference(epsilon0: float, n: int, epsilon: float) -> None:
    fast = shuffle_delta(epsilon, epsilon0, n)
    slow = _reference_delta(epsilon, epsilon0, n)
    # From above (the neglected tails are added whole), and tight.
    assert slow - 1e-12 <= fast <= slow + 1e-12


def _shuffled_rr_delta(epsilon: float, epsilon0: float, n: int) -> float:
    """The exact δ(ε) of n shuffled binary randomized responses, neighbours 0…0 / 10…0.

    The analyst sees the number of ones: Bin(n, q) against 1 + Bin(n−1, q) − … exactly.
    """
    keep = math.exp(epsilon0) / (math.exp(epsilon0) + 1)
    ones = np.arange(n + 1)
    rest = stats.binom.pmf(ones, n - 1, 1 - keep)  # the other users, all holding 0
    rest_shift = np.concatenate([[0.0], rest[:-1]])
    first_zero = keep * rest + (1 - keep) * rest_shift  # user 1 holds 0
    first_one = (1 - keep) * rest + keep * rest_shift  # user 1 holds 1
    return max(
        float(np.maximum(first_one - math.exp(epsilon) * first_zero, 0).sum()),
        float(np.maximum(first_zero - math.exp(epsilon) * first_one, 0).sum()),
    )


@pytest.mark.parametrize(("epsilon0", "n"), [(1.0, 200), (4.0, 2000), (2.0, 50)])
def test_the_bound_lies_above_a_real_shuffled_randomized_response(epsilon0: float, n: int) -> None:
    for epsilon in np.linspace(0.0, epsilon0, 9):
        assert _shuffled_rr_delta(epsilon, epsilon0, n) <= shuffle_delta(epsilon, epsilon0, n)
    delta = 1e-6
    central = numerical_epsilon(epsilon0, n, delta)
    assert _shuffled_rr_delta(central, epsilon0, n) <= delta
    assert central <= epsilon0  # shuffling never costs privacy


def test_the_closed_form_holds_only_under_its_condition() -> None:
    n, delta = 100_000, 1e-6
    limit = closed_form_limit(n, delta)
    assert limit == pytest.approx(math.log(n / (16 * math.log(4 / delta))))
    assert closed_form_epsilon(limit * 0.999, n, delta) is not None
    assert closed_form_epsilon(limit * 1.001, n, delta) is None
    # Where it applies, it bounds the same quantity from above, more loosely.
    for epsilon0 in (0.5, 1.0, 2.0, 4.0, 6.0):
        closed = closed_form_epsilon(epsilon0, n, delta)
        assert closed is not None
        assert closed >= numerical_epsilon(epsilon0, n, delta)
        assert shuffle_delta(closed, epsilon0, n) <= delta
    # Too few users for any ε₀: the limit is negative and nothing applies.
    assert closed_form_limit(100, 1e-6) < 0
    assert closed_form_epsilon(0.1, 100, 1e-6) is None


@settings(max_examples=30, deadline=None)
@given(
    epsilon0=st.floats(0.1, 8.0),
    n=st.integers(2, 10**7),
    delta=st.floats(1e-12, 1e-2),
    more=st.floats(1.05, 4.0),
)
def test_the_bound_grows_with_epsilon0_and_shrinks_with_n_and_delta(
    epsilon0: float, n: int, delta: float, more: float
) -> None:
    base = numerical_epsilon(epsilon0, n, delta)
    slack = 2e-4 * base + 1e-9  # the bisection's width, from above
    assert 0 <= base <= epsilon0
    assert numerical_epsilon(min(epsilon0 * more, 20.0), n, delta) >= base - slack
    assert numerical_epsilon(epsilon0, min(int(n * more) + 1, 10**8), delta) <= base + slack
    assert numerical_epsilon(epsilon0, n, min(delta * more, 0.5)) <= base + slack


def test_beyond_the_computed_users_the_bound_stays_valid() -> None:
    # More users only lower the bound: above 10⁹ it is computed at 10⁹, and the
    # quoted figure is the smaller of that and the closed form.
    big = shuffled_epsilon(1.0, 10**12, 1e-9)
    at_cap = shuffled_epsilon(1.0, USERS_COMPUTED_MAX, 1e-9)
    assert big.numerical == at_cap.numerical
    assert big.closed_form is not None and big.epsilon == min(big.numerical, big.closed_form)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0.0, 1000, 1e-6), "epsilon must be a finite number > 0"),
        ((-1.0, 1000, 1e-6), "epsilon must be a finite number > 0"),
        ((math.nan, 1000, 1e-6), "epsilon must be a finite number > 0"),
        ((1.0, 1, 1e-6), r"n \(users, one report each\) must be an integer >= 2"),
        ((1.0, 10.5, 1e-6), r"n \(users, one report each\) must be an integer >= 2"),
        ((1.0, 1000, 0.0), "strictly between 0 and 1"),
        ((1.0, 1000, 1.0), "strictly between 0 and 1"),
    ],
)
def test_bad_inputs_are_clear_errors(args: tuple[float, float, float], message: str) -> None:
    with pytest.raises(InputError, match=message):
        shuffled_epsilon(args[0], args[1], args[2])  # type: ignore[arg-type]


def test_the_composition_arithmetic() -> None:
    daily = repeated_cost(1.0, reports_per_period=1, periods=365)
    assert daily.reports == 365 and daily.basic == 365.0
    # Advanced composition (DRV 2010): 1·√(2·365·ln 10⁶) + 365·(e − 1) = 727.6, above 365.
    assert daily.advanced == pytest.approx(727.5986, rel=1e-6)
    assert daily.fresh == 365.0 and not daily.fresh_is_advanced
    # Small ε: 0.1·√(730 ln 10⁶) + 36.5·(e^0.1 − 1) = 10.0426 + 3.8387 = 13.8813 < 36.5.
    small = repeated_cost(0.1, periods=365)
    assert small.advanced == pytest.approx(13.8813, rel=1e-4)
    assert small.fresh == small.advanced and small.fresh_is_advanced
    # Hourly for a year: 8,760 reports.
    assert repeated_cost(0.5, reports_per_period=24, periods=365).basic == 4380.0
    # Memoized: ε per distinct value, never more than a fresh report each time.
    assert repeated_cost(2.0, periods=365, distinct_values=3).memoized == 6.0
    assert repeated_cost(2.0, periods=2, distinct_values=30).memoized == 4.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"periods": 2.5}, "periods must be an integer >= 1"),
        ({"periods": 0}, "periods must be an integer >= 1"),
        ({"reports_per_period": 1.5}, "reports per period must be an integer >= 1"),
        ({"distinct_values": 0}, "distinct values must be an integer >= 1"),
        ({"delta": 0.0}, "strictly between"),
    ],
)
def test_bad_cadences_are_clear_errors(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(InputError, match=message):
        repeated_cost(1.0, **kwargs)  # type: ignore[arg-type]


def test_every_combination_of_small_cases_stays_within_epsilon0() -> None:
    for epsilon0, n in itertools.product((0.1, 1.0, 5.0, 20.0), (2, 3, 10)):
        assert 0 <= numerical_epsilon(epsilon0, n, 1e-6) <= epsilon0
