"""The Square Wave (Li et al., SIGMOD 2020) and its estimators EM and EMS.

Every statistical check is seeded and bounded by k·σ. The references are written here,
independently of the code: the channel as an explicit matrix built position by position,
EM and EMS with dense matrices and the smoothing matrix built row by row, exact
multinomial moments for the samplers.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import K_SIGMA

from ldpcore.attacks.guessing import channel_guess_rate, guess_rate
from ldpcore.errors import InputError
from ldpcore.postprocess import default_method_names, get_method, method_names
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import get_protocol
from ldpcore.protocols.square_wave import (
    DOMAIN_MAX,
    SquareWave,
    _uniform_shifts,
    continuous_half_width,
)
from ldpcore.serving.settings import Settings


def _channel(sw: SquareWave) -> np.ndarray:
    """``P(y | v)`` position by position: ``p`` when ``v ≤ y ≤ v + 2b``, else ``q``."""
    e = math.exp(sw.epsilon)
    q = 1.0 / ((2 * sw.b + 1) * e + sw.domain_size - 1)
    out = np.empty((sw.domain_size + 2 * sw.b, sw.domain_size))
    for y in range(out.shape[0]):
        for v in range(sw.domain_size):
            out[y, v] = e * q if v <= y <= v + 2 * sw.b else q
    return out


def _smooth_matrix(d: int) -> np.ndarray:
    """Li et al.'s smoothing: each row the binomial (1, 2, 1) cut to the domain, rescaled."""
    rows = np.zeros((d, d))
    for i in range(d):
        for j, w in zip((i - 1, i, i + 1), (1.0, 2.0, 1.0), strict=True):
            if 0 <= j < d:
                rows[i, j] = w
    return rows / rows.sum(axis=1, keepdims=True)


def _reference_em(
    counts: np.ndarray, channel: np.ndarray, *, smooth: bool, tau: float = 1e-3
) -> np.ndarray:
    """EM (and EMS) from uniform with dense matrices, stopped when |Δ log L| < τ."""
    d = channel.shape[1]
    s = _smooth_matrix(d)
    pi = np.full(d, 1.0 / d)
    old = counts @ np.log(channel @ pi)
    for step in range(1, 10_001):
        pi = pi * (channel.T @ (counts / (channel @ pi)))
        pi /= pi.sum()
        if smooth:
            pi = s @ pi
            pi /= pi.sum()
        new = counts @ np.log(channel @ pi)
        if step > 1 and abs(new - old) < tau:
            return pi
        old = new
    raise AssertionError("the reference did not stop")


def _bump(d: int) -> np.ndarray:
    x = np.arange(d)
    f = np.exp(-0.5 * ((x - 0.4 * d) / (d / 8 + 1)) ** 2)
    return f / f.sum()


# ------------------------------------------------------------------ the mechanism
def test_the_half_width_is_li_et_al_s_and_behaves_at_its_limits() -> None:
    for eps in (0.5, 1.0, 2.0, 4.0):
        e = math.exp(eps)
        expected = (eps * e - e + 1) / (2 * e * (e - 1 - eps))
        assert continuous_half_width(eps) == pytest.approx(expected, rel=1e-12)
    assert continuous_half_width(1e-3) == pytest.approx(0.5, abs=1e-3)
    widths = [continuous_half_width(eps) for eps in (0.01, 0.1, 1.0, 5.0, 20.0)]
    assert widths == sorted(widths, reverse=True) and widths[-1] < 1e-6
    assert SquareWave(epsilon=1.0, domain_size=100).b == math.floor(100 * widths[2])


@pytest.mark.parametrize(("d", "eps"), [(2, 1.0), (9, 0.5), (16, 1.0), (40, 3.0), (7, 12.0)])
def test_the_channel_is_the_square_wave_and_its_ratio_is_e_to_the_epsilon(
    d: int, eps: float
) -> None:
    sw = SquareWave(epsilon=eps, domain_size=d)
    reference = _channel(sw)
    np.testing.assert_allclose(sw.channel_matrix(), reference, rtol=1e-14)
    np.testing.assert_allclose(reference.sum(axis=0), 1.0, rtol=1e-12)
    assert sw.worst_case_ratio() == pytest.approx(math.exp(eps), rel=1e-12)
    assert (sw.p, sw.q) == pytest.approx((reference.max(), reference.min()), rel=1e-14)


def test_the_client_randomizer_draws_the_channel() -> None:
    sw = SquareWave(epsilon=1.0, domain_size=12)
    reference = _channel(sw)
    users = 40_000
    for v in (0, 5, 11):
        positions = sw.randomize(np.full(users, v), np.random.default_rng(v))
        seen = np.bincount(positions, minlength=sw.outputs)
        expected = users * reference[:, v]
        assert np.all(np.abs(seen - expected) <= K_SIGMA * np.sqrt(expected)), v
    # The secure generator (the default) draws positions in range.
    secure = sw.randomize(np.arange(12))
    assert secure.min() >= 0 and secure.max() < sw.outputs


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8, 13, 17, 33])
def test_uniform_shifts_move_each_user_uniformly(width: int) -> None:
    counts = np.zeros(width + 6, dtype=np.int64)
    counts[:4] = (3000, 0, 1500, 500)
    rng = np.random.default_rng(width)
    draws = np.array([_uniform_shifts(counts, width, rng) for _ in range(400)])
    assert np.all(draws.sum(axis=1) == counts.sum())
    expected = np.zeros(counts.size)
    for start, users in enumerate(counts[:4]):
        expected[start : start + width] += users / width
    # Each position's count is a sum of independent binomials; its variance is below its mean.
    assert np.all(np.abs(draws.mean(axis=0) - expected) <= K_SIGMA * np.sqrt(expected / 400) + 1e-9)


def test_fast_and_per_user_tallies_have_the_exact_multinomial_moments() -> None:
    sw = SquareWave(epsilon=1.0, domain_size=10)
    counts = np.array([400, 30, 0, 90, 600, 5, 0, 0, 120, 255])
    n = int(counts.sum())
    reference = _channel(sw)
    mean = reference @ counts
    covariance = sum(
        c * (np.diag(reference[:, v]) - np.outer(reference[:, v], reference[:, v]))
        for v, c in enumerate(counts)
    )
    for sampler, trials in (("fast", 4000), ("per-user", 600)):
        rng = np.random.default_rng(3)
        draws = np.array([sw.sample_tallies(counts, rng, sampler=sampler) for _ in range(trials)])
        assert np.all(draws.sum(axis=1) == n)
        sd = np.sqrt(np.diag(covariance) / trials)
        assert np.all(np.abs(draws.mean(axis=0) - mean) <= K_SIGMA * sd), sampler
        if sampler == "fast":
            seen = np.cov(draws.T)
            scale = np.sqrt(np.outer(np.diag(covariance), np.diag(covariance)))
            # Each covariance's standard error is about sqrt(2/trials) of its scale.
            assert np.all(np.abs(seen - covariance) <= K_SIGMA * scale * math.sqrt(2 / trials))


def test_base_is_unbiased_with_the_variance_it_states_on_values_and_ranges() -> None:
    sw = SquareWave(epsilon=1.0, domain_size=16)
    counts = np.round(_bump(16) * 20_000).astype(np.int64)
    n = int(counts.sum())
    f = counts / n
    rng = np.random.default_rng(5)
    trials = 3000
    estimates = np.array(
        [sw.estimate_from_tallies(sw.sample_tallies(counts, rng), n) for _ in range(trials)]
    )
    variance = sw.variance(f, n)
    assert np.all(np.abs(estimates.mean(axis=0) - f) <= K_SIGMA * np.sqrt(variance / trials))
    # A variance's estimate over T trials has relative standard error sqrt(2/T).
    band = K_SIGMA * math.sqrt(2 / trials)
    assert np.all(np.abs(estimates.var(axis=0) / variance - 1) <= band)
    starts, stops = np.array([0, 3, 5, 0]), np.array([4, 11, 6, 16])
    sums = np.stack([estimates[:, a:b].sum(axis=1) for a, b in zip(starts, stops, strict=True)])
    stated = sw.range_variances(f, n, starts, stops)
    assert np.all(np.abs(sums.var(axis=1) / stated - 1) <= band)
    # Against the inverse written out: aᵀ Σ a for the range's row sum a.
    inverse = np.linalg.pinv(_channel(sw))
    m = _channel(sw) @ f
    row = inverse[3:11].sum(axis=0)
    assert stated[1] == pytest.approx((row**2 @ m - (row @ m) ** 2) / n, rel=1e-8)
    # The whole domain's sum is known to be one up to the inversion's own noise.
    assert stated[3] >= 0.0


def test_estimates_need_the_positions_and_their_users() -> None:
    sw = SquareWave(epsilon=1.0, domain_size=8)
    with pytest.raises(InputError, match="no support count"):
        sw.sample_support_counts(np.ones(8, dtype=np.int64))
    with pytest.raises(InputError, match="positions"):
        sw.estimate(np.ones(8), 8)
    with pytest.raises(InputError, match="length 12"):
        sw.estimate_from_tallies(np.ones(8, dtype=np.int64), 8)
    with pytest.raises(InputError, match="count 12 reports, but n = 13"):
        sw.estimate_from_tallies(np.ones(12, dtype=np.int64), 13)
    with pytest.raises(InputError, match=f"at most {DOMAIN_MAX:,} values"):
        SquareWave(epsilon=1.0, domain_size=DOMAIN_MAX + 1)
    with pytest.raises(InputError, match="half_width must be at most d"):
        SquareWave(epsilon=1.0, domain_size=8, half_width=9)
    assert get_protocol("SW", epsilon=1.0, domain_size=8, half_width=0).outputs == 8


def test_the_best_attacker_s_rate_is_the_enumerated_channel_s() -> None:
    for d, eps in ((2, 1.0), (9, 0.3), (40, 2.0), (64, 6.0)):
        sw = SquareWave(epsilon=eps, domain_size=d)
        prior = np.random.default_rng(d).random(d) ** 3
        assert guess_rate(sw, prior) == pytest.approx(channel_guess_rate(sw, prior), rel=1e-12)


# ------------------------------------------------------------------ its estimators
def test_the_window_likelihood_is_the_dense_multinomial_s() -> None:
    sw = SquareWave(epsilon=1.0, domain_size=20)
    counts = np.round(_bump(20) * 5000).astype(np.int64)
    tallies = sw.sample_tallies(counts, 2)
    model = sw.likelihood_model(np.zeros(20), int(counts.sum()), tallies)
    channel = _channel(sw)
    pi = np.random.default_rng(1).dirichlet(np.ones(20))
    multiplier, value = model.multiplier_and_value(pi)
    np.testing.assert_allclose(multiplier, channel.T @ (tallies / (channel @ pi)) / counts.sum())
    assert value == pytest.approx(tallies @ np.log(channel @ pi), rel=1e-12)
    np.testing.assert_allclose(model.em_multiplier(pi), multiplier, rtol=1e-12)
    weights = tallies / (channel @ pi) ** 2
    np.testing.assert_allclose(model.curvature(pi), (channel**2).T @ weights, rtol=1e-10)
    _, gradients = model.value_and_gradient(pi[np.newaxis])
    np.testing.assert_allclose(gradients[0], channel.T @ (tallies / (channel @ pi)), rtol=1e-12)


@pytest.mark.parametrize("name", ["EM", "EMS"])
@pytest.mark.parametrize(("d", "eps", "n"), [(12, 1.0, 3000), (30, 2.0, 20_000), (25, 0.5, 800)])
def test_em_and_ems_are_li_et_al_s(name: str, d: int, eps: float, n: int) -> None:
    sw = SquareWave(epsilon=eps, domain_size=d)
    counts = np.random.default_rng(d).multinomial(n, _bump(d))
    tallies = sw.sample_tallies(counts, 9)
    out = get_method(name)(sw.estimate_from_tallies(tallies, n), protocol=sw, n=n, tallies=tallies)
    expected = _reference_em(tallies.astype(float), _channel(sw), smooth=name == "EMS")
    np.testing.assert_allclose(out, expected, atol=1e-10)


def test_ems_removes_most_of_the_noise_of_a_smooth_distribution() -> None:
    sw = SquareWave(epsilon=1.0, domain_size=64)
    n = 100_000
    f = _bump(64)
    counts = np.random.default_rng(0).multinomial(n, f)
    truth = counts / n
    rng = np.random.default_rng(1)
    errors: dict[str, list[float]] = {"Base": [], "Norm-Sub": [], "EM": [], "EMS": []}
    for _ in range(10):
        tallies = sw.sample_tallies(counts, rng)
        estimate = sw.estimate_from_tallies(tallies, n)
        for name, found in errors.items():
            out = get_method(name)(estimate, protocol=sw, n=n, tallies=tallies)
            found.append(float(np.sum((out - truth) ** 2)))
    mean = {name: np.mean(found) for name, found in errors.items()}
    # Measured here: EMS about 1/500 of Base's error and 1/50 of EM's; asserted loosely.
    assert mean["EMS"] < mean["EM"] / 5 < mean["Base"] / 5
    assert mean["EMS"] < mean["Norm-Sub"] / 20


def test_em_says_when_its_cap_stops_it() -> None:
    sw = SquareWave(epsilon=1.0, domain_size=30)
    counts = np.random.default_rng(0).multinomial(10**6, _bump(30))
    tallies = sw.sample_tallies(counts, 0)
    method = get_method("EM")
    capped = type(method)(max_iterations=5)
    with pytest.warns(NotConverged, match="cap of 5 steps"):
        capped(np.zeros(30), protocol=sw, n=10**6, tallies=tallies)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NotConverged)
        method(np.zeros(30), protocol=sw, n=10**6, tallies=tallies)  # the rule stops it


# ------------------------------------------------------- which methods run on it
def test_all_methods_follow_the_protocol() -> None:
    assert {"EM", "EMS"} <= set(default_method_names("SW"))
    for refused in ("MLE-Apx", "Power", "PowerNS", "Bayes", "LDPRecover", "MLE", "IBU"):
        assert refused not in default_method_names("SW")
        assert refused not in method_names("SW")
    # The (p, q) protocols' "all" is what it was: no EM or EMS on categories.
    assert "EMS" not in default_method_names() and "EMS" not in default_method_names("GRR")
    assert "EMS" in method_names("GRR")  # chosen by name it runs there too
    assert "EMS" not in default_method_names("TreeOUE")


@pytest.mark.parametrize(
    ("method", "words"),
    [("Power", "support count through p and q"), ("MLE", "100,000 steps"), ("IBU", "EMS")],
)
def test_a_method_that_cannot_run_on_sw_is_refused_in_words(method: str, words: str) -> None:
    sw = SquareWave(epsilon=1.0, domain_size=8)
    tallies = sw.sample_tallies(np.full(8, 10), 0)
    with pytest.raises(InputError, match=words):
        get_method(method)(np.zeros(8), protocol=sw, n=80, tallies=tallies)


def test_the_sidebar_runs_what_the_protocol_takes_and_names_what_it_leaves_out() -> None:
    untouched = Settings(protocol="SW", d=64)
    assert untouched.runnable_methods() == (default_method_names("SW"), ())
    assert untouched.config().methods == default_method_names("SW")
    picked = Settings(protocol="SW", d=64, methods=("Base", "Power", "EMS"))
    assert picked.runnable_methods() == (("Base", "EMS"), ("Power",))
    with pytest.raises(InputError, match="none of the methods picked runs on SW"):
        Settings(protocol="SW", d=64, methods=("Power",)).config()
    assert Settings(protocol="OUE", d=64).config().methods == default_method_names()


# --------------------------------------------------------------- on every path
def test_sweeping_protocols_runs_each_what_it_can_at_the_domain() -> None:
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.experiments.sweeps import with_parameter  # noqa: PLC0415
    from ldpcore.protocols import protocol_names  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=64", n=1000, protocol="OUE", epsilon=1.0, methods=("Base", "Power")
    )
    assert with_parameter(config, "protocol", "SW").methods == ("Base",)
    assert with_parameter(config, "protocol", "GRR").methods == ("Base", "Power")
    assert "SW" in protocol_names(DOMAIN_MAX) and "SW" not in protocol_names(DOMAIN_MAX + 1)
    assert protocol_names(10**6) == tuple(p for p in protocol_names() if p != "SW")


def test_the_command_line_runs_sw_with_its_own_methods_and_says_what_it_leaves_out() -> None:
    from command import ldpcore  # noqa: PLC0415

    done = ldpcore(
        "simulate", "--protocol", "SW", "--epsilon", "1", "--n", "5000", "--dataset", "ages",
        "--query", "range:length=10", "--trials", "2", "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"EMS"' in done.stdout and '"Power"' not in done.stdout
    refused = ldpcore(
        "simulate", "--protocol", "SW", "--epsilon", "1", "--n", "5000", "--dataset", "ages",
        "--methods", "Base,MLE",
    )  # fmt: skip
    assert refused.returncode == 2 and "100,000 steps" in refused.stderr
    wide = ldpcore(
        "advise-epsilon", "--protocol", "all", "--n", "1000", "--dataset", "zipf:d=3000",
        "--target-rmse", "0.05", "--methods", "Base", "--trials", "2", "--format", "json",
    )  # fmt: skip
    assert wide.returncode == 0, wide.stderr
    assert "SW: at most 2,048 values, and this data has 3,000" in wide.stdout
