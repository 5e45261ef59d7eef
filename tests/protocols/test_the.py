"""THE: its p and q against the Laplace law, its θ against a grid, its real
randomizer against the channel, and the ε its reports spend."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ldpcore.protocols import get_protocol
from ldpcore.protocols.the import best_theta, the_pq, variance_factor


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 4.0, 8.0])
def test_p_and_q_are_the_laplace_tails(epsilon: float) -> None:
    """An independent path: scipy's Laplace survival function at the threshold."""
    theta = best_theta(epsilon)
    noise = stats.laplace(scale=2.0 / epsilon)
    p, q = the_pq(epsilon, theta)
    assert p == pytest.approx(noise.sf(theta - 1.0), rel=1e-12)
    assert q == pytest.approx(noise.sf(theta), rel=1e-12)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0, 4.0, 8.0])
def test_the_threshold_minimises_the_variance_on_a_dense_grid(epsilon: float) -> None:
    grid = np.linspace(0.5, 1.0, 20_001)
    factors = np.array([variance_factor(epsilon, t) for t in grid])
    assert 0.5 <= best_theta(epsilon) <= 1.0
    assert variance_factor(epsilon, best_theta(epsilon)) <= factors.min() * (1 + 1e-9)
    # Unimodal on [½, 1] (what the golden-section search needs): falls, then rises.
    turn = int(np.argmin(factors))
    assert np.all(np.diff(factors[: turn + 1]) <= 1e-12)
    assert np.all(np.diff(factors[turn:]) >= -1e-12)


def test_the_real_randomizer_sets_bits_with_p_and_q() -> None:
    """Laplace noise and a threshold, per user: the own bit is 1 with p, others with q,
    within 4σ of 200,000 binomial draws each."""
    oracle = get_protocol("THE", epsilon=1.5, domain_size=6)
    users = 200_000
    values = np.random.default_rng(1).integers(0, 6, users)
    bits = oracle.randomize(values, np.random.default_rng(2))
    own = bits[np.arange(users), values]
    other = bits[np.arange(users), (values + 1) % 6]
    for rate, expected in ((own.mean(), oracle.p), (other.mean(), oracle.q)):
        sigma = math.sqrt(expected * (1 - expected) / users)
        assert abs(rate - expected) <= 4 * sigma, (rate, expected)
    # Bits of one report are independent: the pair (own, other) has p·q of (1, 1).
    both = float(np.mean(own & other))
    sigma = math.sqrt(oracle.p * oracle.q * (1 - oracle.p * oracle.q) / users)
    assert abs(both - oracle.p * oracle.q) <= 4 * sigma


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_the_reports_spend_less_than_epsilon_and_the_channel_says_how_much(
    epsilon: float,
) -> None:
    oracle = get_protocol("THE", epsilon=epsilon, domain_size=4)
    matrix = oracle.channel_matrix()  # every report of 4 bits, enumerated
    worst = float(np.max(matrix.max(axis=1) / matrix.min(axis=1)))
    assert worst == pytest.approx(math.exp(oracle.spent_epsilon()), rel=1e-9)
    assert oracle.spent_epsilon() < epsilon


def test_the_base_estimate_is_unbiased_with_the_analytic_variance() -> None:
    """Sampled Base estimates: mean within 4σ/√T of the truth, variance within 15%."""
    oracle = get_protocol("THE", epsilon=1.0, domain_size=8)
    counts = np.array([4000, 2500, 1500, 1000, 500, 300, 150, 50])
    n = int(counts.sum())
    rng = np.random.default_rng(3)
    trials = 2000
    estimates = np.array(
        [oracle.estimate(oracle.sample_support_counts(counts, rng), n) for _ in range(trials)]
    )
    truth = counts / n
    variance = oracle.variance(truth, n)
    assert np.all(np.abs(estimates.mean(0) - truth) <= 4 * np.sqrt(variance / trials))
    np.testing.assert_allclose(estimates.var(0, ddof=1), variance, rtol=0.15)
