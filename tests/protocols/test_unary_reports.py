"""OUE/SUE on full reports (MLE paper, Sec. 5): the report histogram and its exact MLE.

At d <= 12 the tallies of a unary encoding are the histogram of the 2^d possible bit
vectors. Both samplers are held against the exact multinomial moments of that
histogram, and the MLE against a generic constrained optimiser of the same likelihood.
"""

from __future__ import annotations

import numpy as np
import pytest
from moments import assert_moments
from scipy import optimize

from ldpcore import trial_generators
from ldpcore.postprocess import get_method
from ldpcore.protocols import get_protocol
from ldpcore.protocols.unary import FULL_REPORTS_MAX_D


def _histograms(name: str, counts: np.ndarray, trials: int, sampler: str) -> np.ndarray:
    protocol = get_protocol(name, epsilon=1.0, domain_size=counts.size)
    return np.array(
        [
            protocol.sample_tallies(counts, rng, sampler=sampler)  # type: ignore[arg-type]
            for rng in trial_generators(11, trials)
        ]
    )


@pytest.mark.parametrize("name", ["OUE", "SUE"])
@pytest.mark.parametrize(("sampler", "trials"), [("fast", 3000), ("per-user", 600)])
def test_report_histogram_matches_its_exact_law(name: str, sampler: str, trials: int) -> None:
    counts = np.array([60, 25, 15])
    protocol = get_protocol(name, epsilon=1.0, domain_size=3)
    channel = protocol.channel_matrix()  # Q[y, v], rows read in binary (bit j = value j)
    mean = channel @ counts
    cov = sum(
        n * (np.diag(channel[:, v]) - np.outer(channel[:, v], channel[:, v]))
        for v, n in enumerate(counts)
    )
    samples = _histograms(name, counts, trials, sampler)
    assert samples.shape == (trials, 8) and np.all(samples.sum(axis=1) == counts.sum())
    # The last cell is determined by the others (the total is fixed): leave it out.
    assert_moments(samples[:, :-1], mean[:-1], cov[:-1, :-1], f"{name} {sampler}")


def test_support_counts_from_the_histogram_are_the_reports_column_sums() -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=5)
    reports = protocol.randomize(np.array([0, 1, 1, 4, 2, 2, 2]), np.random.default_rng(3))
    histogram = np.bincount(protocol.report_index(reports), minlength=32)
    assert protocol.support_from_tallies(histogram).tolist() == protocol.aggregate(reports).tolist()
    # Above the cap the tallies are the support counts, as for the other protocols.
    large = get_protocol("OUE", epsilon=1.0, domain_size=FULL_REPORTS_MAX_D + 1)
    tallies = large.sample_tallies(np.full(large.domain_size, 10), 1)
    assert tallies.shape == (large.domain_size,)


@pytest.mark.parametrize("name", ["OUE", "SUE"])
@pytest.mark.parametrize("seed", [0, 1])
def test_full_report_mle_matches_a_generic_optimiser(name: str, seed: int) -> None:
    protocol = get_protocol(name, epsilon=2.0, domain_size=4)
    counts = np.array([500, 300, 150, 50])
    histogram = protocol.sample_tallies(counts, seed)
    n = int(counts.sum())
    estimate = protocol.estimate(protocol.support_from_tallies(histogram), n)
    ours = get_method("MLE")(estimate, protocol=protocol, n=n, tallies=histogram)
    channel = protocol.channel_matrix()

    def negative(pi: np.ndarray) -> float:
        return -float(histogram @ np.log(np.maximum(channel @ pi, 1e-300)))

    best = optimize.minimize(
        negative,
        np.full(4, 0.25),
        method="SLSQP",
        bounds=[(0, 1)] * 4,
        constraints=[{"type": "eq", "fun": lambda pi: pi.sum() - 1}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert negative(ours) <= negative(best.x) + 1e-6
    np.testing.assert_allclose(ours, best.x, atol=2e-4)
    # IBU climbs the same likelihood to the same point.
    ibu = get_method("IBU")(estimate, protocol=protocol, n=n, tallies=histogram)
    np.testing.assert_allclose(ibu, ours, atol=1e-6)
    # And it is not the support-count MLE (that one ignores how the bits co-occur).
    composite = get_method("MLE")(estimate, protocol=protocol, n=n)
    assert np.abs(composite - ours).max() > 1e-6


def test_a_bad_report_histogram_is_refused() -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=3)
    estimate = np.full(3, 1 / 3)
    with pytest.raises(ValueError, match="summing to n=10"):
        get_method("MLE")(estimate, protocol=protocol, n=10, tallies=np.ones(8))


@pytest.mark.parametrize(("epsilon", "n"), [(0.2, 100), (0.4, 10**6), (2.0, 10**6)])
def test_em_on_full_reports_converges_to_the_kkt_point(epsilon: float, n: int) -> None:
    """Plain EM crawls here (thousands of steps; some never met the KKT test); the full
    Newton step with its pinned zeros gets there in a few, and the point is the MLE."""
    from ldpcore.postprocess.ibu import run_em  # noqa: PLC0415

    protocol = get_protocol("OUE", epsilon=epsilon, domain_size=10)
    for generator in trial_generators(2019, 25):
        counts = generator.multinomial(n, generator.dirichlet(np.full(10, 0.5)))
        histogram = protocol.sample_tallies(counts, generator).astype(float)
        model = protocol.likelihood_model(np.zeros(10), n, histogram)
        result = run_em(model, tolerance=1e-15, kkt_tolerance=1e-13, max_iterations=200)
        assert result.converged and result.iterations < 50
        assert np.all(np.diff(result.history) >= -1e-9 * abs(result.history[0]))
        g = model.em_multiplier(result.frequencies)
        support = result.frequencies > 1e-9
        # KKT: g = 1 on the support, g <= 1 off it (to the precision L can resolve).
        assert np.abs(g[support] - 1).max() < 1e-6 and g[~support].max(initial=0) < 1 + 1e-6


def test_above_the_cap_the_likelihood_never_enumerates_the_reports() -> None:
    """SUE at d = 40 (2^40 reports): the tallies are support counts and the MLE uses
    their binomials; building the 2^d model would exhaust memory."""
    protocol = get_protocol("SUE", epsilon=1.0, domain_size=40)
    counts = np.full(40, 50)
    tallies = protocol.sample_tallies(counts, 3)
    estimate = protocol.estimate(protocol.support_from_tallies(tallies), int(counts.sum()))
    for method in ("MLE", "IBU"):
        out = get_method(method)(estimate, protocol=protocol, n=int(counts.sum()), tallies=tallies)
        assert out.shape == (40,) and abs(out.sum() - 1) < 1e-9
