"""The Haar wavelet with Hadamard randomized response (Kulkarni et al., VLDB 2019, Sec. 4.4).

Seeded, k·σ bounds. References written here: the Haar coefficients of a histogram
node by node, the Hadamard matrix entry by entry, the rows' true bits counted user by
user, and simulation for the variances.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import K_SIGMA

from ldpcore.errors import InputError
from ldpcore.postprocess import default_method_names, get_method, method_names
from ldpcore.protocols import get_protocol
from ldpcore.protocols.haar import HaarHRR, HaarReports, _rows_by_halving


def _coefficients(leaves: np.ndarray) -> list[np.ndarray]:
    """Each level's (left half − right half) of every node, one node at a time."""
    size = leaves.size
    out = []
    span = size
    while span > 1:
        out.append(
            np.array(
                [
                    leaves[j : j + span // 2].sum() - leaves[j + span // 2 : j + span].sum()
                    for j in range(0, size, span)
                ]
            )
        )
        span //= 2
    return out


def _hadamard(k: int) -> np.ndarray:
    return np.array([[(-1) ** bin(r & j).count("1") for j in range(k)] for r in range(k)])


@pytest.mark.parametrize("d", [2, 5, 8, 13, 64])
def test_the_leaves_come_back_from_exact_coefficients(d: int) -> None:
    haar = HaarHRR(epsilon=1.0, domain_size=d)
    f = np.random.default_rng(d).dirichlet(np.ones(d))
    padded = np.concatenate([f, np.zeros(haar.padded - d)])
    np.testing.assert_allclose(haar.leaves_from(_coefficients(padded)), f, atol=1e-12)


def test_rows_by_halving_draws_each_row_s_true_bits_exactly() -> None:
    # 8 nodes; users at node j with sign ±: each picks a uniform row r and has the true
    # bit s·H[r, j]. The reference draws every user's row.
    left = np.array([40, 0, 7, 100, 3, 0, 55, 20])
    right = np.array([5, 60, 0, 30, 9, 80, 1, 0])
    h = _hadamard(8)
    expected_plus = np.zeros(8)
    for j in range(8):
        expected_plus += (left[j] * (h[:, j] == 1) + right[j] * (h[:, j] == -1)) / 8
    rng = np.random.default_rng(0)
    draws = np.array([np.stack(_rows_by_halving(left, right, rng)) for _ in range(3000)])
    assert np.all(draws.sum(axis=(1, 2)) == left.sum() + right.sum())
    plus = draws[:, 0, :]
    sd = np.sqrt(expected_plus / 3000)  # a sum of binomials: variance below its mean
    assert np.all(np.abs(plus.mean(axis=0) - expected_plus) <= K_SIGMA * sd)
    # Per-user reference: the same counts' law, drawn user by user.
    users = np.concatenate([np.repeat(np.arange(8), left), np.repeat(np.arange(8), right)])
    signs = np.concatenate([np.ones(left.sum()), -np.ones(right.sum())])
    reference = []
    for _ in range(600):
        rows = rng.integers(0, 8, users.size)
        bits = signs * h[rows, users]
        reference.append(np.bincount(rows[bits == 1], minlength=8))
    reference = np.array(reference)
    se = np.sqrt(plus.var(axis=0) / 3000 + reference.var(axis=0) / 600) + 1e-9
    assert np.all(np.abs(plus.mean(axis=0) - reference.mean(axis=0)) <= K_SIGMA * se)


@pytest.mark.parametrize(("d", "eps"), [(2, 1.0), (6, 0.5), (16, 2.0)])
def test_the_channel_is_a_level_a_row_and_a_bit_kept_with_p(d: int, eps: float) -> None:
    haar = HaarHRR(epsilon=eps, domain_size=d)
    channel = haar.channel_matrix()
    np.testing.assert_allclose(channel.sum(axis=0), 1.0, rtol=1e-12)
    assert haar.worst_case_ratio() == pytest.approx(math.exp(eps), rel=1e-12)
    p = math.exp(eps) / (1 + math.exp(eps))
    # The first outputs are level 1's (one row): its bit is +1 for the left half.
    half = haar.padded // 2
    for v in range(d):
        kept = p if v < half else 1 - p
        assert channel[0, v] == pytest.approx(kept / haar.height)


def test_fast_and_per_user_tallies_agree_and_the_estimate_is_unbiased() -> None:
    haar = HaarHRR(epsilon=1.0, domain_size=11)
    counts = np.array([300, 20, 0, 50, 700, 10, 0, 0, 90, 200, 130])
    n = int(counts.sum())
    rng = np.random.default_rng(1)
    fast = np.array([haar.sample_tallies(counts, rng) for _ in range(2000)])
    slow = np.array([haar.sample_tallies(counts, rng, sampler="per-user") for _ in range(500)])
    se = np.sqrt(fast.var(axis=0) / 2000 + slow.var(axis=0) / 500) + 1e-9
    assert np.all(np.abs(fast.mean(axis=0) - slow.mean(axis=0)) <= K_SIGMA * se)
    f = counts / n
    estimates = np.array([haar.estimate_from_tallies(t, n) for t in fast])
    variance = haar.variance(f, n)
    assert np.all(np.abs(estimates.mean(axis=0) - f) <= K_SIGMA * np.sqrt(variance / 2000))


def test_the_variance_of_values_and_ranges_is_the_simulated_one() -> None:
    haar = HaarHRR(epsilon=1.0, domain_size=11)
    counts = np.array([300, 20, 0, 50, 700, 10, 0, 0, 90, 200, 130])
    n = int(counts.sum())
    f = counts / n
    rng = np.random.default_rng(2)
    trials = 4000
    estimates = np.array(
        [haar.estimate_from_tallies(haar.sample_tallies(counts, rng), n) for _ in range(trials)]
    )
    band = K_SIGMA * math.sqrt(2 / trials)
    assert np.all(np.abs(estimates.var(axis=0) / haar.variance(f, n) - 1) <= band)
    starts, stops = np.array([0, 2, 3, 5, 0]), np.array([4, 9, 11, 6, 11])
    sums = np.stack([estimates[:, a:b].sum(axis=1) for a, b in zip(starts, stops, strict=True)])
    stated = haar.range_variances(f, n, starts, stops)
    assert np.all(np.abs(sums.var(axis=1) / stated - 1) <= band)
    # The fast per-value form is the range form on ranges of one value.
    ones = haar.range_variances(f, n, np.arange(11), np.arange(1, 12))
    np.testing.assert_allclose(haar.variance(f, n), ones, rtol=1e-10)


def test_a_long_range_reads_few_coefficients_and_beats_flat_oue() -> None:
    d, n = 256, 100_000
    counts = np.random.default_rng(3).multinomial(n, np.full(d, 1 / d))
    f = counts / n
    haar = HaarHRR(epsilon=1.0, domain_size=d)
    oue = get_protocol("OUE", epsilon=1.0, domain_size=d)
    wavelet = haar.range_variances(f, n, np.array([10]), np.array([210]))[0]
    flat = float(oue.variance(f, n)[10:210].sum())
    assert wavelet < flat / 5


def test_reports_are_checked_and_estimates_need_the_tallies() -> None:
    haar = HaarHRR(epsilon=1.0, domain_size=8)
    good = haar.randomize(np.arange(8), np.random.default_rng(0))
    assert int(haar.aggregate(good)[[0, 2, 3, 6, 7, 8, 9]].sum()) == 8
    with pytest.raises(InputError, match="levels must be in"):
        haar.aggregate(HaarReports(np.array([4]), np.array([0]), np.array([1])))
    with pytest.raises(InputError, match="bits must be"):
        haar.aggregate(HaarReports(np.array([1]), np.array([0]), np.array([0])))
    with pytest.raises(InputError, match="no support count"):
        haar.sample_support_counts(np.ones(8, dtype=np.int64))
    with pytest.raises(InputError, match="but n = 9"):
        haar.estimate_from_tallies(haar.aggregate(good), 9)


def test_methods_that_read_a_likelihood_or_support_counts_are_refused() -> None:
    assert "Norm-Sub" in default_method_names("HaarHRR")
    for refused in ("MLE", "IBU", "EM", "EMS", "Power", "MLE-Apx"):
        assert refused not in method_names("HaarHRR")
    haar = HaarHRR(epsilon=1.0, domain_size=8)
    tallies = haar.sample_tallies(np.full(8, 10), 0)
    with pytest.raises(InputError, match="declares none"):
        get_method("MLE")(np.zeros(8), protocol=haar, n=80, tallies=tallies)


def test_the_best_attacker_s_rate_is_the_enumerated_channel_s() -> None:
    from ldpcore.attacks.guessing import channel_guess_rate, guess_rate  # noqa: PLC0415

    for d, eps in ((2, 1.0), (5, 0.3), (13, 2.0), (32, 7.0)):
        haar = HaarHRR(epsilon=eps, domain_size=d)
        rng = np.random.default_rng(d)
        for prior in (rng.random(d) ** 4, np.ones(d), np.eye(d)[d - 1] + 1e-9):
            assert guess_rate(haar, prior) == pytest.approx(
                channel_guess_rate(haar, prior), rel=1e-12
            )
