"""Subset Selection's fast sampler (``ldpcore.protocols._halving``) against exact references.

Three independent references: the exact moments of the enumerated channel
(small d), closed-form moments of the subset channel (any d, any n), and a
column-by-column sweep (the sampler this one replaced, kept here as a second
exact algorithm).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import K_SIGMA, exact_count_moments, zipf_counts
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import hypergeom

from ldpcore import bounds, trial_generators
from ldpcore.collection.report_files import frame_to_reports, report_columns, reports_to_frame
from ldpcore.errors import InputError
from ldpcore.protocols import SubsetSelection, get_protocol
from ldpcore.protocols._halving import SplitKernels, multivariate_hypergeometric_rows, outcomes


def column_sweep(protocol: SubsetSelection, true_counts: np.ndarray, rng) -> np.ndarray:
    """Exact SS support counts column by column (valid while the kept pool is < 10^9).

    A user that needs ``r`` more picks among ``R`` remaining columns takes the
    current one with probability ``r/R``; kept users of a later value see one
    column fewer, and at their own column a uniform set of them (a multivariate
    hypergeometric over their histogram) is counted and freed.
    """
    d, k = protocol.domain_size, protocol.subset_size
    kept = rng.binomial(true_counts, protocol.mixture_weight)
    n, n_kept = int(true_counts.sum()), int(kept.sum())
    state = np.zeros((2, k + 1), dtype=np.int64)  # [own value ahead, free] x picks left
    state[0, k - 1] = n_kept
    state[1, k] = n - n_kept
    r = np.arange(k + 1, dtype=np.float64)
    support = np.zeros(d, dtype=np.int64)
    for j in range(d):
        taken = rng.multivariate_hypergeometric(state[0], kept[j]) if kept[j] else 0
        state[0] -= taken
        remaining = np.array([[max(d - j - 1, 1)], [d - j]], dtype=np.float64)
        picked = rng.binomial(state, np.minimum(r / remaining, 1.0))
        support[j] = kept[j] + picked.sum()
        state -= picked
        state[:, :-1] += picked[:, 1:]
        state[1] += taken
    return support


def closed_form_moments(protocol: SubsetSelection, true_counts: np.ndarray):
    """Mean and covariance of SS support counts from the channel's pair probabilities.

    A user of value ``u`` supports ``u`` with probability ``p``; given that, the
    other ``k − 1`` picks are a uniform subset of the other ``d − 1`` values,
    otherwise ``k`` of them are. So for ``v ≠ w`` both other than ``u``,
    ``P(v, w) = p (k−1)(k−2)/((d−1)(d−2)) + (1−p) k(k−1)/((d−1)(d−2))`` and
    ``P(u, w) = p (k−1)/(d−1)``.
    """
    d, k, p, q = protocol.domain_size, protocol.subset_size, protocol.p, protocol.q
    counts = true_counts.astype(float)
    n = counts.sum()
    mean = counts * p + (n - counts) * q
    both_other = (p * (k - 1) * (k - 2) + (1 - p) * k * (k - 1)) / ((d - 1) * (d - 2))
    own_and_other = p * (k - 1) / (d - 1)
    # Cov(c_v, c_w) = Σ_u n_u [P_u(v, w) − P_u(v) P_u(w)], split by u = v, u = w, other.
    pv = np.where(np.eye(d, dtype=bool), p, q)  # P_u(v) for row u, column v
    cov = np.zeros((d, d))
    for u in range(d):
        pair = np.full((d, d), both_other)
        pair[u, :] = pair[:, u] = own_and_other
        cov += counts[u] * (pair - np.outer(pv[u], pv[u]))
    np.fill_diagonal(cov, counts * p * (1 - p) + (n - counts) * q * (1 - q))
    return mean, cov


def _draws(protocol, counts, trials, seed, sampler=None):
    draw = sampler or protocol.sample_support_counts
    out = np.array([draw(counts, g) for g in trial_generators(seed, trials)])
    # Every report names exactly k values: the total is fixed, every trial.
    assert np.all(out.sum(axis=1) == counts.sum() * protocol.subset_size)
    return out


def _assert_moments_of(samples, mean, cov, label):
    """Means and variances only (of the columns of ``samples``), k·σ each."""
    t = samples.shape[0]
    var = np.diag(cov)
    z_mean = (samples.mean(axis=0) - mean) / np.sqrt(var / t)
    assert np.abs(z_mean).max() < K_SIGMA, f"{label}: mean off by {np.abs(z_mean).max():.1f}σ"
    z_var = (samples.var(axis=0, ddof=1) - var) / (var * np.sqrt(2 / (t - 1)))
    assert np.abs(z_var).max() < K_SIGMA, f"{label}: variance off by {np.abs(z_var).max():.1f}σ"


def _assert_moments(samples, mean, cov, label):
    t = samples.shape[0]
    var = np.diag(cov)
    z_mean = (samples.mean(axis=0) - mean) / np.sqrt(var / t)
    assert np.abs(z_mean).max() < K_SIGMA, f"{label}: mean off by {np.abs(z_mean).max():.1f}σ"
    emp = np.cov(samples, rowvar=False)
    # Near-normal sampling errors of the sample (co)variances.
    se = np.sqrt((np.outer(var, var) + cov**2) / t)
    z = np.abs(emp - cov) / se
    assert z.max() < K_SIGMA, f"{label}: a (co)variance off by {z.max():.1f}σ"


def test_closed_form_moments_equal_the_enumerated_channel() -> None:
    protocol = get_protocol("SS", epsilon=0.8, domain_size=7, k=3)
    counts = zipf_counts(7, 500)
    mean, cov = closed_form_moments(protocol, counts)
    exact_mean, exact_cov = exact_count_moments(protocol, counts)
    np.testing.assert_allclose(mean, exact_mean, rtol=1e-12)
    np.testing.assert_allclose(cov, exact_cov, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("d,k", [(2, 1), (3, 1), (5, 2), (7, 3), (12, 4), (13, 11)])
@pytest.mark.parametrize("n", [40, 10**11])
def test_uneven_splits_match_exact_moments(d: int, k: int, n: int) -> None:
    # Odd sizes split unevenly; n = 1e11 puts more than 1e9 kept users in one pool.
    protocol = get_protocol("SS", epsilon=1.3, domain_size=d, k=k)
    counts = zipf_counts(d, n)
    mean, cov = exact_count_moments(protocol, counts)
    _assert_moments(_draws(protocol, counts, 1500, seed=d * 100 + k), mean, cov, str(protocol))


@pytest.mark.slow  # thousands of draws at the largest n: about 17 s in all
@pytest.mark.parametrize("d,epsilon", [(64, 1.0), (100, 0.3), (257, 4.0)])
def test_large_domains_at_the_largest_n_match_closed_form_moments(d: int, epsilon: float) -> None:
    protocol = get_protocol("SS", epsilon=epsilon, domain_size=d)
    counts = zipf_counts(d, bounds.N_USERS_MAX, s=1.1)
    mean, cov = closed_form_moments(protocol, counts)
    samples = _draws(protocol, counts, 600, seed=d)
    # Covariances enter through set sums: 12 random sets of each size class, so the
    # number of comparisons (and the chance of a 4.5σ fluke among them) stays small.
    rng = np.random.default_rng(d)
    sets = np.array([rng.permutation(d) < size for size in (2, d // 4, d // 2) for _ in range(4)])
    weights = np.vstack([np.eye(d), sets.astype(float)])
    _assert_moments_of(
        samples @ weights.T, weights @ mean, weights @ cov @ weights.T, str(protocol)
    )


def test_agrees_with_the_column_sweep() -> None:
    d, n, trials = 33, 100_000, 1200
    protocol = get_protocol("SS", epsilon=1.0, domain_size=d)
    counts = zipf_counts(d, n)
    fast = _draws(protocol, counts, trials, seed=1)
    sweep = _draws(
        protocol, counts, trials, seed=2, sampler=lambda c, g: column_sweep(protocol, c, g)
    )
    se = np.sqrt((fast.var(axis=0) + sweep.var(axis=0)) / trials)
    assert np.all(np.abs(fast.mean(axis=0) - sweep.mean(axis=0)) < K_SIGMA * se)
    # Variances: the F-ratio's log is ≈ normal with SE √(2/(t−1) · 2).
    log_ratio = np.log(fast.var(axis=0, ddof=1) / sweep.var(axis=0, ddof=1))
    assert np.all(np.abs(log_ratio) < K_SIGMA * np.sqrt(4 / (trials - 1)))


@given(
    d=st.integers(2, 300),
    k_share=st.floats(0.0, 1.0),
    epsilon=st.floats(0.01, 12.0),
    log_n=st.floats(0.0, 12.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_report_names_k_values(d, k_share, epsilon, log_n, seed) -> None:
    k = 1 + round(k_share * (d - 2))
    protocol = get_protocol("SS", epsilon=epsilon, domain_size=d, k=k)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(max(1, round(10**log_n)), rng.dirichlet(np.ones(d) * 0.3))
    c = protocol.sample_support_counts(counts, rng)
    n = int(counts.sum())
    assert c.sum() == n * k
    assert np.all(c >= 0) and np.all(c <= n)


@pytest.mark.parametrize("population_max", [10**9, 60])
def test_multivariate_hypergeometric_rows(population_max: int) -> None:
    # 60 forces the thinning path for these rows (totals 70 and 200).
    counts = np.array([[10, 0, 25, 5, 30], [100, 50, 0, 25, 25]])
    sample = np.array([31, 120])
    trials = 4000
    rng = np.random.default_rng(7)
    draws = np.array(
        [
            multivariate_hypergeometric_rows(counts, sample, rng, population_max=population_max)
            for _ in range(trials)
        ]
    )
    assert np.all(draws.sum(axis=2) == sample) and np.all((draws >= 0) & (draws <= counts))
    total = counts.sum(axis=1, keepdims=True)
    share = counts / total
    s = sample[:, None]
    mean = s * share
    var = s * share * (1 - share) * (total - s) / (total - 1)
    live = var > 0
    z = (draws.mean(axis=0) - mean)[live] / np.sqrt(var[live] / trials)
    assert np.abs(z).max() < K_SIGMA
    ratio = draws.var(axis=0, ddof=1)[live] / var[live]
    assert np.abs(ratio - 1).max() < K_SIGMA * np.sqrt(2 / (trials - 1)) * 1.5  # heavier tails


@pytest.mark.parametrize("population,good", [(1024, 512), (1023, 511), (17, 9), (2, 1), (5, 0)])
def test_split_kernels_are_the_hypergeometric_law(population: int, good: int) -> None:
    kernels = SplitKernels(population)
    picks = np.arange(0, min(population, 300) + 1)
    probs, modes = kernels.rows(population, good, picks)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-12)
    law = np.zeros((picks.size, good + 1))
    row, slot = np.nonzero(probs)
    np.add.at(law, (row, outcomes(modes[row], slot)), probs[row, slot])
    expected = hypergeom.pmf(np.arange(good + 1)[None, :], population, good, picks[:, None])
    np.testing.assert_allclose(law, expected, atol=1e-13)
    # Most likely first: the first slot holds the mode.
    assert np.all(probs[:, 0] >= probs.max(axis=1) * (1 - 1e-12))
    # The cache answers a sub-range from the same table, and does not travel in pickles.
    again, _ = kernels.rows(population, good, picks[1:3])
    np.testing.assert_array_equal(again, probs[1:3])
    assert pickle.loads(pickle.dumps(kernels))._tables == {}


@pytest.mark.parametrize("d,epsilon", [(64, 1.0)])
def test_small_chunks_and_uncached_kernels_keep_the_exact_moments(
    monkeypatch: pytest.MonkeyPatch, d: int, epsilon: float
) -> None:
    """The bounded-memory paths (many chunks, kernel rows built per request) draw from
    the same law; at the defaults they only engage at d ≈ 10⁵ and above."""
    from ldpcore.protocols import _halving  # noqa: PLC0415

    monkeypatch.setattr(_halving, "_CHUNK_ENTRIES", 400)
    monkeypatch.setattr(_halving, "_CACHE_ENTRIES_MAX", 500)
    protocol = get_protocol("SS", epsilon=epsilon, domain_size=d)
    counts = zipf_counts(d, bounds.N_USERS_MAX, s=1.1)
    mean, cov = closed_form_moments(protocol, counts)
    samples = _draws(protocol, counts, 300, seed=d + 7)
    rng = np.random.default_rng(d)
    sets = np.array([rng.permutation(d) < size for size in (2, d // 4, d // 2) for _ in range(4)])
    weights = np.vstack([np.eye(d), sets.astype(float)])
    _assert_moments_of(
        samples @ weights.T, weights @ mean, weights @ cov @ weights.T, str(protocol)
    )


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_wide_subsets_are_one_bit_column_and_round_trip(tmp_path, suffix: str) -> None:
    from ldpcore.collection.clients import randomize_file  # noqa: PLC0415
    from ldpcore.collection.report_files import aggregate_file  # noqa: PLC0415
    from ldpcore.protocols.subset_selection import ITEM_COLUMNS_MAX  # noqa: PLC0415

    d = 2000
    protocol = get_protocol("SS", epsilon=1.0, domain_size=d)
    assert protocol.subset_size > ITEM_COLUMNS_MAX
    assert report_columns(protocol) == ("subset",)
    values = np.random.default_rng(0).integers(0, d, 300)
    source = tmp_path / "values.csv"
    source.write_text("value\n" + "\n".join(map(str, values)) + "\n")
    reports = tmp_path / f"reports{suffix}"
    randomize_file(protocol, source, reports, rng=np.random.default_rng(2), chunk_rows=70)
    # The same reports, randomized in memory with the same generator and batches.
    rng = np.random.default_rng(2)
    direct = np.concatenate(
        [protocol.randomize(values[i : i + 70], rng) for i in range(0, values.size, 70)]
    )
    counts, users = aggregate_file(protocol, reports)
    assert users == 300
    np.testing.assert_array_equal(counts, protocol.aggregate(direct))
    assert counts.sum() == 300 * protocol.subset_size
    # A file made with another k is refused by its parameters, and a row whose subset
    # has the wrong size by its contents, each with a message that says what to check.
    other = get_protocol("SS", epsilon=1.0, domain_size=d, k=protocol.subset_size - 1)
    with pytest.raises(InputError, match="k = 538"):
        aggregate_file(other, reports)
    frame = reports_to_frame(protocol, direct[:3], text=True)
    with pytest.raises(InputError, match="subset must hold k = 537"):
        frame_to_reports(other, frame, source="reports.csv")
    np.testing.assert_array_equal(
        np.sort(frame_to_reports(protocol, frame, source="reports.csv"), axis=1),
        np.sort(direct[:3], axis=1),
    )
