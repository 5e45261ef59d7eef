"""HR's row-likelihood MLE with Newton steps by conjugate gradients.

Above d = 64 HR's rows are climbed with a Newton step solved by conjugate gradients on
Hessian products (two FWHTs each). These tests hold it to references that share none
of that code: a generic optimiser on the explicit channel matrix, the KKT conditions
read from the explicit matrix, and EM with only the diagonal-curvature step (the path
used before).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import zipf_counts
from scipy import optimize

from ldpcore.postprocess import get_method
from ldpcore.postprocess.ibu import IBU, run_em
from ldpcore.protocols import get_protocol
from ldpcore.protocols.likelihoods import HadamardRowModel


def _rows(d: int, n: int, epsilon: float, seed: int) -> tuple[object, np.ndarray, np.ndarray]:
    protocol = get_protocol("HR", epsilon=epsilon, domain_size=d)
    rows = protocol.sample_tallies(zipf_counts(d, n, s=1.3), seed)
    estimate = protocol.estimate(protocol.support_from_tallies(rows), n)
    return protocol, rows, estimate


class _DiagonalOnly(HadamardRowModel):
    """The same likelihood with no full Newton step: EM and its diagonal step only."""

    def newton_step(self, pi: np.ndarray, multiplier: np.ndarray) -> None:
        return None


@pytest.mark.slow  # a generic optimiser on the explicit channel: about 20 s a case
@pytest.mark.parametrize("epsilon", [0.5, 4.0])
def test_row_mle_matches_a_generic_optimiser_on_the_explicit_channel(epsilon: float) -> None:
    d, n = 100, 20_000  # K = 128 rows: above the dense-Newton limit (d <= 64)
    protocol, rows, estimate = _rows(d, n, epsilon, seed=3)
    mine = get_method("MLE")(estimate, protocol=protocol, n=n, tallies=rows)
    channel = protocol.channel_matrix()  # K × d, built from the signs directly
    h = rows.astype(float)

    def loglik(x: np.ndarray) -> float:
        return float(h @ np.log(channel @ x))

    result = optimize.minimize(
        lambda x: -loglik(x),
        np.full(d, 1 / d),
        jac=lambda x: -(channel.T @ (h / (channel @ x))),
        method="SLSQP",
        bounds=[(0.0, 1.0)] * d,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1.0}],
        options={"ftol": 1e-14, "maxiter": 3000},
    )
    generic = np.clip(result.x, 0.0, None) / np.clip(result.x, 0.0, None).sum()
    # The MLE is at least as likely as the generic optimiser's answer, and near it.
    assert loglik(mine) >= loglik(generic) - 1e-7
    np.testing.assert_allclose(mine, generic, atol=2e-4)


@pytest.mark.parametrize(("epsilon", "n"), [(0.5, 10**5), (2.0, 10**6), (6.0, 10**6)])
def test_row_mle_meets_the_kkt_conditions_of_the_explicit_channel(epsilon: float, n: int) -> None:
    d = 2000  # K = 2048: the channel matrix is 2048 × 2000, small enough to build
    protocol, rows, estimate = _rows(d, n, epsilon, seed=7)
    mine = get_method("MLE")(estimate, protocol=protocol, n=n, tallies=rows)
    gradient = protocol.channel_matrix().T @ (rows / (protocol.channel_matrix() @ mine))
    # ∂L/∂π = n on the support (the multiplier of Σπ = 1), at most n off it.
    support = mine > 0
    np.testing.assert_allclose(gradient[support], n, rtol=1e-7)
    assert gradient[~support].max() <= n * (1 + 1e-7)


@pytest.mark.parametrize(("epsilon", "d"), [(1.0, 2000), (4.0, 5000)])
def test_row_mle_agrees_with_em_on_its_diagonal_step(epsilon: float, d: int) -> None:
    n = 10**6
    protocol, rows, estimate = _rows(d, n, epsilon, seed=11)
    model = protocol.likelihood_model(estimate, n, rows.astype(float))
    fast = run_em(model, tolerance=1e-15, kkt_tolerance=1e-13)
    slow = run_em(
        _DiagonalOnly(rows.astype(float), order=protocol.order, domain_size=d, p=protocol.p),
        tolerance=1e-15,
        kkt_tolerance=1e-13,
    )
    assert fast.converged and slow.converged
    assert np.abs(fast.frequencies - slow.frequencies).max() <= 1e-6
    assert fast.log_likelihood >= slow.log_likelihood - 1e-9 * abs(slow.log_likelihood)
    # The reason for the Newton step: a handful of steps where EM's took about a hundred.
    assert fast.iterations * 5 <= slow.iterations, (fast.iterations, slow.iterations)


def test_ibu_on_the_rows_equals_the_mle_at_large_d() -> None:
    d, n = 16_384, 10**6
    protocol, rows, estimate = _rows(d, n, 1.0, seed=2)
    result = IBU().solve(estimate, protocol=protocol, n=n, tallies=rows)
    mle = get_method("MLE")(estimate, protocol=protocol, n=n, tallies=rows)
    assert result.converged
    assert np.abs(result.frequencies - mle).max() <= 1e-6
    history = np.array(result.history)
    assert np.all(np.diff(history) >= -1e-12 * np.abs(history).max())
    # The warm start (the projected Base estimate: no closed form here) saves steps and
    # reaches the same top as the papers' start from uniform.
    cold = IBU(warm_start=False).solve(estimate, protocol=protocol, n=n, tallies=rows)
    assert cold.converged and result.iterations < cold.iterations
    assert np.abs(result.frequencies - cold.frequencies).max() <= 1e-6


@pytest.mark.parametrize(("d", "epsilon"), [(256, 1.0), (2048, 4.0)])
def test_the_mle_from_the_projected_base_estimate_is_the_mle_from_uniform(
    d: int, epsilon: float
) -> None:
    """MLE starts EM at the projected Base estimate (fewer Newton steps at large
    d); the likelihood is concave, so the top it reaches is the one from uniform."""
    from ldpcore.postprocess.base import Context  # noqa: PLC0415
    from ldpcore.postprocess.mle import context_model, maximum_likelihood  # noqa: PLC0415

    n = 10**5
    protocol = get_protocol("HR", epsilon=epsilon, domain_size=d)
    rows = protocol.sample_tallies(zipf_counts(d, n), 7).astype(float)
    estimate = protocol.estimate(protocol.support_from_tallies(rows), n)
    model = context_model(estimate, Context(protocol=protocol, n=n, tallies=rows))
    from_uniform = maximum_likelihood(model)
    from_base = maximum_likelihood(model, start=estimate)
    assert np.abs(from_base - from_uniform).max() <= 1e-6
    values = model.value_and_gradient(np.vstack([from_uniform, from_base]))[0]
    assert abs(values[1] - values[0]) <= 1e-9 * abs(values[0])
    # And it is what the method returns.
    method = get_method("MLE")(estimate, protocol=protocol, n=n, tallies=rows)
    np.testing.assert_array_equal(method, from_base)
