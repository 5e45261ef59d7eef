"""dBitFlipPM's Base estimate is Ding, Kulkarni and Yekhanin's, with its own variance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import K_SIGMA, zipf_counts
from moments import draw_tallies

from ldpcore.errors import InputError
from ldpcore.protocols import get_protocol
from ldpcore.protocols.base import FrequencyOracle


def _ding_by_hand(reports: np.ndarray, k: int, d_bits: int, epsilon: float) -> np.ndarray:
    """Ding et al. (NeurIPS 2017, Sec. 3), user by user: each user who sampled ``v`` adds
    ``(b (e^{ε/2} + 1) − 1)/(e^{ε/2} − 1)``, and the sum is scaled by ``k / (n d')``."""
    half = math.exp(epsilon / 2)
    total = np.zeros(k)
    for row in reports:
        for value, bit in zip(row[:d_bits], row[d_bits:], strict=True):
            total[value] += (bit * (half + 1) - 1) / (half - 1)
    return total * k / (len(reports) * d_bits)


@pytest.mark.parametrize(("k", "d_bits", "epsilon"), [(9, 2, 1.0), (20, 5, 2.5), (6, 1, 0.7)])
def test_the_estimate_is_ding_et_al_s_from_the_reports(k: int, d_bits: int, epsilon: float):
    flip = get_protocol("dBitFlipPM", epsilon=epsilon, domain_size=k, d_bits=d_bits)
    values = np.random.default_rng(3).integers(0, k, size=400)
    reports = flip.randomize(values, np.random.default_rng(4))
    tallies = flip.tally(reports)
    np.testing.assert_array_equal(tallies[:k], flip.aggregate(reports))
    assert tallies[k:].sum() == 400 * d_bits
    np.testing.assert_allclose(
        flip.estimate_from_tallies(tallies, 400),
        _ding_by_hand(reports, k, d_bits, epsilon),
        rtol=0,
        atol=1e-12,
    )
    # From the bit counts alone only the generalized form is left.
    np.testing.assert_allclose(
        flip.estimate_from_tallies(tallies[:k], 400), flip.estimate(tallies[:k], 400)
    )


@pytest.mark.parametrize(
    ("k", "d_bits"),
    [
        (16, 2),
        (12, 12),
        pytest.param(32, 4, marks=pytest.mark.slow),
        pytest.param(64, 8, marks=pytest.mark.slow),
    ],
)
def test_base_mse_is_ding_et_al_s_variance(k: int, d_bits: int) -> None:
    """Simulated Base (fast tallies) at Ding et al.'s variance, value by value, and the
    generalized form on the same draws at its own (NDSS Eq. 3), larger by
    (e^{ε/2} + 1 − d'/k)/e^{ε/2} where f = 0."""
    epsilon, n, trials = 1.0, 5_000, 1_500
    flip = get_protocol("dBitFlipPM", epsilon=epsilon, domain_size=k, d_bits=d_bits)
    counts = zipf_counts(k, n, s=1.2)
    f = counts / n
    tallies = draw_tallies(flip, counts, trials, seed=17)
    ding = np.array([flip.estimate_from_tallies(t, n) for t in tallies])
    generalized = np.array([flip.estimate(t[:k], n) for t in tallies])
    for estimates, variance in (
        (ding, flip.variance(f, n)),
        (generalized, FrequencyOracle.variance(flip, f, n)),
    ):
        squared = (estimates - f) ** 2
        # The MSE of an unbiased estimate is its variance: within k·σ of the mean square.
        se = squared.std(axis=0, ddof=1) / math.sqrt(trials)
        assert np.all(np.abs(squared.mean(axis=0) - variance) < K_SIGMA * se)
    half = math.exp(epsilon / 2)
    ratio = FrequencyOracle.variance(flip, np.zeros(k), n) / flip.variance(np.zeros(k), n)
    assert ratio == pytest.approx(np.full(k, (half + 1 - d_bits / k) / half), rel=1e-12)
    assert flip.approx_variance(n) == pytest.approx(flip.variance(np.zeros(k), n)[0])


def test_fast_and_per_user_tallies_agree() -> None:
    flip = get_protocol("dBitFlipPM", epsilon=1.5, domain_size=10, d_bits=3)
    counts = zipf_counts(10, 300, s=1.1)
    fast = np.array(draw_tallies(flip, counts, 800, seed=1))
    slow = np.array(draw_tallies(flip, counts, 400, seed=2, sampler="per-user"))
    se = np.sqrt(fast.var(0, ddof=1) / 800 + slow.var(0, ddof=1) / 400)
    assert np.all(np.abs(fast.mean(0) - slow.mean(0)) < K_SIGMA * se)
    assert np.all(fast[:, 10:].sum(1) == 900) and np.all(slow[:, 10:].sum(1) == 900)


def test_tallies_that_cannot_be_are_refused() -> None:
    flip = get_protocol("dBitFlipPM", epsilon=1.0, domain_size=4, d_bits=2)
    with pytest.raises(InputError, match="more bits equal to 1"):
        flip.estimate_from_tallies([3, 0, 0, 0, 2, 2, 2, 2], 4)
    with pytest.raises(InputError, match="sample 8 values in all"):
        flip.estimate_from_tallies([1, 0, 0, 0, 2, 2, 2, 3], 4)
