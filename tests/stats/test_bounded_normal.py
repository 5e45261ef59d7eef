"""Feldman–Cousins intervals for a normal mean bounded at zero: their coverage at every
mean, against a slow construction of the paper's own, and never empty or a point; and the
frequency intervals built on them near zero."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ldpcore.postprocess.intervals import frequency_intervals
from ldpcore.protocols import get_protocol
from ldpcore.stats.bounded_normal import GRID_STEP, feldman_cousins


@pytest.mark.parametrize("level", [0.9, 0.95, 0.999])
def test_each_mean_is_covered_at_the_level(level: float) -> None:
    rng = np.random.default_rng(7)
    draws = 40_000
    bound = 4 * np.sqrt(level * (1 - level) / draws)  # four binomial standard errors
    for mu in (0.0, 0.05, 0.3, 1.0, 1.6, 2.5, 4.0, 9.0):
        x = rng.normal(mu, 1.0, draws)
        low, high = feldman_cousins(x, level)
        covered = float(((low <= mu + GRID_STEP) & (mu - GRID_STEP <= high)).mean())
        assert abs(covered - level) <= bound, (mu, covered)


def _slow_interval(x0: float, level: float) -> tuple[float, float]:
    """The paper's recipe, on grids: each mean keeps the outcomes of largest likelihood
    ratio until their probability reaches the level; the interval is every mean kept."""
    xs = np.arange(-10.0, 16.0, 0.002)
    kept = []
    for mu in np.arange(0.0, 8.0, 0.01):
        ratio = stats.norm.pdf(xs - mu) / stats.norm.pdf(xs - np.maximum(xs, 0.0))
        order = np.argsort(-ratio, kind="stable")
        mass = np.cumsum(stats.norm.pdf(xs[order] - mu) * 0.002)
        region = xs[order[: np.searchsorted(mass, level) + 1]]
        if region.min() <= x0 <= region.max():
            kept.append(mu)
    return min(kept), max(kept)


@pytest.mark.parametrize("x", [-3.0, -1.0, 0.5, 1.8, 3.0])
def test_the_belt_matches_the_paper_s_construction(x: float) -> None:
    low, high = feldman_cousins([x], 0.95)
    slow_low, slow_high = _slow_interval(x, 0.95)
    assert low[0] == pytest.approx(slow_low, abs=0.015)
    assert high[0] == pytest.approx(slow_high, abs=0.015)


def test_never_empty_never_a_point_and_rising_with_the_observation() -> None:
    x = np.linspace(-12.0, 15.0, 2701)
    low, high = feldman_cousins(x, 0.95)
    assert np.all(low >= 0.0) and np.all(high - low > 0.1)
    assert np.all(np.diff(low) >= 0) and np.all(np.diff(high) >= 0)
    # Far above zero it is the central interval.
    far = x > 10
    assert np.allclose(high[far] - x[far], 1.959964, atol=1e-6)


def test_frequency_intervals_near_zero_cover_rare_values_and_never_say_none() -> None:
    """OUE, ε = 1, n = 10⁵, d = 64, a third of the values held by one user and a third by
    none: 300 seeded collections. No interval is a point, and each value's 95% interval
    covers it at least 95% of the time, within four standard errors."""
    d, n = 64, 100_000
    counts = np.zeros(d, np.int64)
    counts[: d // 3] = 1
    counts[2 * d // 3 :] = (n - d // 3) // (d - 2 * d // 3)
    counts[-1] += n - counts.sum()
    truth = counts / n
    oracle = get_protocol("OUE", epsilon=1.0, domain_size=d)
    held = []
    for seed in range(300):
        estimate = oracle.estimate(oracle.sample_support_counts(counts, seed), n)
        low, high = frequency_intervals(estimate, protocol=oracle, n=n)
        assert np.all(high - low > 1e-5), seed
        held.append((low <= truth) & (truth <= high))
    covered = np.array(held).mean(axis=0)
    floor = 0.95 - 4 * np.sqrt(0.95 * 0.05 / 300)
    assert covered[: 2 * d // 3].min() >= floor, covered[: 2 * d // 3]
