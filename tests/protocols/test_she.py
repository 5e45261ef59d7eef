"""SHE (Wang et al., USENIX Security 2017, Sec. 4.2): privacy of its density, its sums, files.

SHE's noise is discrete Laplace on a 1/64 grid, so its privacy is checked on the real
randomizer's reports against the discrete Laplace law computed independently (scipy's
``dlaplace``), its
sampler against the per-user path and the analytic moments, and its equivalent binomial
(the p and q every binomial-based method uses) against the identities it must satisfy.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import K_SIGMA, zipf_counts
from scipy import stats

from ldpcore.attacks.guessing import guess_rate
from ldpcore.collection.clients import randomize_file
from ldpcore.collection.report_files import aggregate_file, frame_to_reports, reports_to_frame
from ldpcore.errors import InputError
from ldpcore.postprocess import get_method, method_names
from ldpcore.protocols import SHE, get_protocol
from ldpcore.protocols.she import GRID_STEPS
from ldpcore.rng import SecureRandom


def _reports(epsilon: float, d: int, users: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, d, users)
    return values, SHE(epsilon=epsilon, domain_size=d).randomize(values, rng)


# ----------------------------------------------------------------- privacy (ε-LDP)
def _noise_law(epsilon: float) -> stats.rv_discrete:
    """The noise's steps K (y = value + K/64): scipy's discrete Laplace, ``P ∝ e^{−a|k|}``."""
    return stats.dlaplace(epsilon / (2 * GRID_STEPS))


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0, 10.0])
@pytest.mark.parametrize("source", ["numpy", "secure"])
def test_every_reports_probability_ratio_is_at_most_e_eps_and_reaches_it(
    epsilon: float, source: str
) -> None:
    """Every report is on the grid, and ln P(y|v) − ln P(y|w) ≤ ε from scipy's law."""
    d, users = 5, 4_000
    she = SHE(epsilon=epsilon, domain_size=d)
    values = np.random.default_rng(1).integers(0, d, users)
    rng = SecureRandom() if source == "secure" else np.random.default_rng(2)
    reports = she.randomize(values, rng)
    steps = reports * GRID_STEPS
    assert np.array_equal(steps, np.round(steps)), "a report off the grid leaks its value"
    law = _noise_law(epsilon)
    for v in range(d):
        for w in range(d):
            if v == w:
                continue
            # Independent of the code: the one-hot means under the discrete Laplace law.
            log_v = law.logpmf(steps[:, v] - GRID_STEPS) + law.logpmf(steps[:, w])
            log_w = law.logpmf(steps[:, v]) + law.logpmf(steps[:, w] - GRID_STEPS)
            ratio = log_v - log_w
            np.testing.assert_allclose(she.log_density_ratio(reports, v, w), ratio, atol=1e-9)
            assert ratio.max() <= epsilon * (1 + 1e-9)
            # Reached, not only bounded: y_v ≥ 1 and y_w ≤ 0 has probability about 1/4
            # for users of v, so the worst ratio is attained on the drawn reports.
            assert ratio.max() == pytest.approx(epsilon, rel=1e-9)
    assert she.worst_case_ratio() == pytest.approx(math.exp(epsilon))


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_each_coordinate_is_discrete_laplace_around_the_one_hot_vector(epsilon: float) -> None:
    """Chi-square of the noise steps, own coordinate and another, against scipy's law."""
    values, reports = _reports(epsilon, 4, 20_000, seed=3)
    law = _noise_law(epsilon)
    rows = np.arange(values.size)
    for steps in (
        reports[rows, values] * GRID_STEPS - GRID_STEPS,
        reports[rows, (values + 1) % 4] * GRID_STEPS,
    ):
        edges = np.concatenate([[-np.inf], np.arange(-600, 601, 50) + 0.5, [np.inf]])
        observed = np.histogram(steps, bins=edges)[0]
        expected = values.size * np.diff(law.cdf(edges))
        assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_the_distinguishing_event_has_probabilities_whose_ratio_is_e_eps() -> None:
    epsilon, users = 1.2, 80_000
    she = SHE(epsilon=epsilon, domain_size=3)
    rng = np.random.default_rng(4)
    law = _noise_law(epsilon)
    at_v = law.sf(-1) ** 2  # y_v = 1 + K/64 ≥ 1 and y_w = K'/64 ≤ 0
    for value, expected in ((0, at_v), (1, at_v * math.exp(-epsilon))):
        reports = she.randomize(np.full(users, value), rng)
        rate = she.distinguishing_event(reports, 0, 1).mean()
        assert abs(rate - expected) < K_SIGMA * math.sqrt(expected * (1 - expected) / users)


# ---------------------------------------------------------------- sums and estimates
@pytest.mark.parametrize("sampler,trials", [("fast", 4000), ("per-user", 400)])
def test_the_estimate_is_unbiased_with_variance_8_over_n_eps_squared(
    sampler: str, trials: int
) -> None:
    d, n, epsilon = 6, 300, 1.5
    she = SHE(epsilon=epsilon, domain_size=d)
    counts = zipf_counts(d, n)
    rng = np.random.default_rng(5)
    estimates = np.array(
        [
            she.estimate(she.sample_support_counts(counts, rng, sampler=sampler), n)  # type: ignore[arg-type]
            for _ in range(trials)
        ]
    )
    sigma2 = _noise_law(epsilon).var() / GRID_STEPS**2 / n  # ≈ 8/(nε²), Wang et al. Sec. 4.2
    assert sigma2 == pytest.approx(8.0 / (n * epsilon**2), rel=1e-4)
    z = (estimates.mean(axis=0) - counts / n) / math.sqrt(sigma2 / trials)
    assert np.abs(z).max() < K_SIGMA
    # The variance of a sample variance of near-Gaussian draws: 2σ⁴/(trials − 1).
    spread = (estimates.var(axis=0, ddof=1) - sigma2) / (sigma2 * math.sqrt(2 / (trials - 1)))
    assert np.abs(spread).max() < K_SIGMA
    np.testing.assert_allclose(she.variance(counts / n, n), sigma2, rtol=1e-12)


def test_fast_sums_are_the_per_user_sums_in_distribution() -> None:
    """A sum of n noise draws is a difference of two negative binomials: KS of the sums."""
    d = 3
    she = SHE(epsilon=0.8, domain_size=d)
    counts = np.array([25, 10, 5])
    rng = np.random.default_rng(6)
    fast = np.array([she.sample_support_counts(counts, rng) for _ in range(3000)])
    slow = np.array(
        [she.sample_support_counts(counts, rng, sampler="per-user") for _ in range(3000)]
    )
    for v in range(d):
        assert stats.ks_2samp(fast[:, v], slow[:, v]).pvalue > 1e-3


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 3.0, 8.0, 20.0])
def test_the_equivalent_binomial_has_she_s_mean_and_variance(epsilon: float) -> None:
    """p + q = 1 and pq/(p − q)² = σ²: Eq. 3 is SHE's variance, given counts or π."""
    she = SHE(epsilon=epsilon, domain_size=4)
    p, q = she.p, she.q
    sigma2 = _noise_law(epsilon).var() / GRID_STEPS**2
    assert p + q == pytest.approx(1.0, abs=1e-15) and p > q
    assert p * q / (p - q) ** 2 == pytest.approx(sigma2, rel=1e-9)
    # Users drawn from π: Var[S_v] = n(π(1 − π) + σ²); the binomial's c = nq + sS
    # has variance n·r(1 − r) with r = q + sπ. Both, for every π.
    for pi in (0.0, 0.1, 0.5, 0.9, 1.0):
        r = q + (p - q) * pi
        assert r * (1 - r) == pytest.approx((p - q) ** 2 * (pi * (1 - pi) + sigma2))


def test_every_method_runs_on_she_and_returns_a_finite_vector() -> None:
    d, n = 8, 500
    she = SHE(epsilon=1.0, domain_size=d)
    counts = zipf_counts(d, n)
    sums = she.sample_support_counts(counts, 7)
    estimate = she.estimate(sums, n)
    for name in method_names():
        result = get_method(name)(estimate, protocol=she, n=n, tallies=sums)
        assert result.shape == (d,) and np.all(np.isfinite(result)), name


# ------------------------------------------------------------------- report files
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_report_files_round_trip_exactly_and_sum_to_the_aggregate(
    tmp_path: Path, suffix: str
) -> None:
    d = 5
    she = get_protocol("SHE", epsilon=1.0, domain_size=d)
    values = tmp_path / "values.csv"
    pd.DataFrame({"value": np.random.default_rng(8).integers(0, d, 3_000)}).to_csv(
        values, index=False
    )
    reports = tmp_path / f"reports{suffix}"
    randomize_file(she, values, reports, rng=np.random.default_rng(9), chunk_rows=700)
    sums, users = aggregate_file(she, reports, chunk_rows=1_000)
    assert users == 3_000 and sums.dtype == np.float64
    read = pd.read_csv(reports, comment="#") if suffix == ".csv" else pd.read_parquet(reports)
    written = frame_to_reports(she, read, source="x")
    assert written.shape == (3_000, d)
    assert np.array_equal(written * GRID_STEPS, np.round(written * GRID_STEPS))
    np.testing.assert_allclose(sums, written.sum(axis=0), rtol=1e-12, atol=1e-9)
    # Grid numbers survive CSV text exactly.
    frame = reports_to_frame(she, written[:50], text=True)
    np.testing.assert_array_equal(frame_to_reports(she, frame, source="x"), written[:50])


def test_a_bad_report_cell_is_named() -> None:
    she = SHE(epsilon=1.0, domain_size=3)
    frame = pd.DataFrame({"y_0": ["0.5"], "y_1": ["oops"], "y_2": ["1"]})
    with pytest.raises(InputError, match="column y_1 must hold numbers"):
        frame_to_reports(she, frame, source="reports.csv")
    frame = pd.DataFrame({"y_0": [0.5], "y_1": [np.nan], "y_2": [1.0]})
    with pytest.raises(InputError, match="y_1 holds NaN"):
        frame_to_reports(she, frame, source="reports.csv")


def test_sums_that_are_not_a_vector_of_d_reals_are_refused() -> None:
    she = SHE(epsilon=1.0, domain_size=3)
    with pytest.raises(InputError, match="length 3"):
        she.estimate([1.0, 2.0], 10)
    with pytest.raises(InputError, match="finite"):
        she.estimate([1.0, np.inf, 2.0], 10)


# ------------------------------------------------------------------------- risk
@pytest.mark.parametrize("d", [2, 10, 1_000, 1_000_000])
def test_the_uniform_guess_rate_is_between_its_two_simple_bounds(d: int) -> None:
    """With many ties the MAP guess is nearly a uniform pick among the coordinates ≥ 1.

    That pick alone is right with ``½/(½ + (d − 1)·½e^{−ε/2})`` on average over the
    tied count's mean (Jensen's inequality makes the exact average of 1/(1+K) larger),
    and no attacker beats ``e^ε/d``.
    """
    epsilon = 2.0
    rate = guess_rate(SHE(epsilon=epsilon, domain_size=d), np.ones(d))
    assert 1 / d < rate <= math.exp(epsilon) / d * (1 + 1e-12)
    if d >= 1_000:
        tie_only = 0.5 / (0.5 + (d - 1) * 0.5 * math.exp(-epsilon / 2))
        assert tie_only <= rate <= tie_only * 1.01


# --------------------------------------------------------------------- fake users
def test_noise_only_fakes_dilute_the_target_as_the_gain_formula_says() -> None:
    """rpa: each fake adds only noise, so the target's estimate moves by −β·f_t on average."""
    from ldpcore.attacks import expected_gain  # noqa: PLC0415
    from ldpcore.attacks.gains import fake_reports, fake_support  # noqa: PLC0415

    d, n, fakes, trials = 6, 1_000, 250, 3_000
    she = SHE(epsilon=1.0, domain_size=d)
    counts = zipf_counts(d, n)
    target = np.array([2])
    beta = fakes / (n + fakes)
    rng = np.random.default_rng(12)
    gains = np.array(
        [
            she.estimate(
                she.sample_support_counts(counts, rng)
                + fake_support(she, "rpa", target, fakes, rng),
                n + fakes,
            )[2]
            - counts[2] / n
            for _ in range(trials)
        ]
    )
    expected = expected_gain(she, "rpa", target, counts / n, beta)
    assert expected == pytest.approx(-beta * counts[2] / n)
    sigma = math.sqrt(8 * (n + fakes) / 1.0**2) / (n + fakes)  # Var of S/(n + m)
    assert abs(gains.mean() - expected) < K_SIGMA * sigma / math.sqrt(trials)
    # The fast fake sums are the real fake reports' sums in distribution.
    fast = np.array([fake_support(she, "rpa", target, 30, rng)[0] for _ in range(2000)])
    slow = np.array([fake_reports(she, "rpa", target, 30, rng).sum(axis=0)[0] for _ in range(2000)])
    assert stats.ks_2samp(fast, slow).pvalue > 1e-3


def test_a_true_histogram_given_as_she_sums_is_said() -> None:
    from ldpcore.collection.estimates import read_collected  # noqa: PLC0415

    histogram = b"value,count\na,600\nb,300\nc,100\n"
    said = read_collected(histogram, protocol="SHE", epsilon=1.0, n=1000).notes
    assert any("looks like a histogram of true values" in note for note in said), said
    she = SHE(epsilon=1.0, domain_size=3)
    sums = she.sample_support_counts(np.array([600, 300, 100]), 3)
    rows = "".join(f"{label},{x!r}\n" for label, x in zip("abc", sums.tolist(), strict=True))
    honest = read_collected(f"value,count\n{rows}".encode(), protocol="SHE", epsilon=1.0, n=1000)
    assert honest.notes == () and np.allclose(honest.estimate, sums / 1000)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.5, 5.0])
@pytest.mark.parametrize("name", ["SHE", "THE", "OUE", "GRR"])
def test_the_papers_var_star_is_the_codes_f_free_variance(name: str, epsilon: float) -> None:
    """Wang et al. 2017's Var*, as the recipe writes it, against NDSS Eq. 5 with p and q."""
    from ldpcore.reproduce.histogram_encoding import PAPER_VAR_STAR  # noqa: PLC0415

    d = 64
    protocol = get_protocol(name, epsilon=epsilon, domain_size=d)
    # SHE's noise is on a 1/64 grid: its variance is below 8/ε² by (ε/128)²/12 relative.
    close = (epsilon / 128) ** 2 / 12 * 1.01 if name == "SHE" else 1e-9
    assert PAPER_VAR_STAR[name](epsilon, d) == pytest.approx(protocol.approx_variance(1), rel=close)


def test_wherever_she_s_numbers_are_shown_the_binomial_stand_in_is_said() -> None:
    from ldpcore.experiments.trials import ExperimentConfig  # noqa: PLC0415
    from ldpcore.present.sentences import settings_line  # noqa: PLC0415

    said = settings_line(ExperimentConfig(dataset="zipf:d=8", n=1000, protocol="SHE", epsilon=1))
    assert "the binomial with the same mean and variance as its sums" in said
    other = settings_line(ExperimentConfig(dataset="zipf:d=8", n=1000, protocol="OUE", epsilon=1))
    assert "binomial" not in other
