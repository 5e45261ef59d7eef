"""Post-processing methods: registry, invariants from their own metadata, exact solutions."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import zipf_counts
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize

from ldpcore.postprocess import (
    IBU,
    BaseCut,
    get_method,
    method_class,
    method_names,
    project_to_simplex,
    resolve_method_name,
)
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.postprocess.mle_apx import mle_apx
from ldpcore.postprocess.power import (
    PowerTables,
    fit_power_law_exponent,
    posterior_mean_counts,
    power_calibrate,
    power_sum,
)
from ldpcore.protocols import get_protocol, protocol_class, protocol_names
from ldpcore.protocols.likelihood_maxima import support_binomial_mle

ALL = method_names()


# --- registry ---------------------------------------------------------------


def test_registry_lists_every_method_of_the_papers_in_their_order() -> None:
    # In this order (NDSS 2020's, then the MLE paper's), with Base first; the registry
    # may hold more (tests register a toy method).
    papers = (
        "Base",
        "Base-Pos",
        "Post-Pos",
        "Base-Cut",
        "Norm",
        "Norm-Mul",
        "Norm-Cut",
        "Norm-Sub",
        "MLE-Apx",
        "Power",
        "PowerNS",
        "MLE",
        "IBU",
    )
    assert ALL[0] == "Base" and [name for name in ALL if name in papers] == list(papers)


@pytest.mark.parametrize("name", ALL)
def test_names_case_insensitive_and_metadata(name: str) -> None:
    assert resolve_method_name(name.upper()) == name
    method = get_method(f" {name.lower()} ")
    meta = method.metadata()
    assert meta["method"] == name
    for key in ("description", "complexity", "reference", "bias"):
        assert meta[key]
    assert meta["non-negative"] in {"yes", "no", "almost"}
    assert meta["sums to one"] in {"yes", "no", "almost"}


def test_cls_is_norm_sub_and_unknown_names_list_the_valid_ones() -> None:
    assert resolve_method_name("cls") == "Norm-Sub"
    with pytest.raises(ValueError, match="unknown post-processing method 'Norm-Add'") as info:
        get_method("Norm-Add")
    for name in ALL:
        assert name in str(info.value)


def test_bad_method_options() -> None:
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        BaseCut(alpha=0)
    with pytest.raises(ValueError, match="tolerance must be"):
        IBU(tolerance=-1.0)
    with pytest.raises(ValueError, match="max_iterations must be an integer"):
        IBU(max_iterations=0)


def test_bad_estimates_are_rejected() -> None:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=3)
    method = get_method("Norm-Sub")
    with pytest.raises(ValueError, match="length 3"):
        method([0.5, 0.5], protocol=protocol, n=10)
    with pytest.raises(ValueError, match="NaN or inf"):
        method([0.5, math.nan, 0.5], protocol=protocol, n=10)
    with pytest.raises(ValueError, match=r"n must be an integer in \[1,"):
        method([0.5, 0.2, 0.3], protocol=protocol, n=0)


# --- invariants, from each method's own metadata -------------------------------

# Flat protocols: a composite one (a hierarchy) is post-processed level by level from its
# tallies, so an arbitrary vector is not one of its estimates; its levels' outputs keep
# these invariants (tests/protocols/test_hierarchy.py).
PROTOCOLS = [name for name in protocol_names() if protocol_class(name).support_view]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, float, int, np.ndarray]:
    protocol = draw(st.sampled_from(PROTOCOLS))
    epsilon = draw(st.sampled_from([0.1, 0.5, 1.0, 3.0, 8.0]))
    n = draw(st.sampled_from([1, 7, 1000, 10**6]))
    d = draw(st.integers(min_value=2, max_value=40))
    kind = draw(st.sampled_from(["random", "ties", "negative", "zeros", "spike"]))
    if kind == "random":
        values = draw(st.lists(st.floats(-1.0, 1.5), min_size=d, max_size=d))
    elif kind == "ties":
        pool = draw(st.lists(st.floats(-0.3, 0.6), min_size=1, max_size=3))
        values = [pool[draw(st.integers(0, len(pool) - 1))] for _ in range(d)]
    elif kind == "negative":
        values = draw(st.lists(st.floats(-2.0, -1e-6), min_size=d, max_size=d))
    elif kind == "zeros":
        values = [0.0] * d
    else:
        values = [0.0] * d
        values[draw(st.integers(0, d - 1))] = draw(st.floats(0.5, 3.0))
    return protocol, epsilon, n, np.array(values, dtype=float)


#: Methods whose output is exact (Bayes is a Monte Carlo estimate: order and ties hold
#: only up to its Monte Carlo error; tests/postprocess/test_bayes.py checks it statistically).
EXACT = tuple(name for name in ALL if not method_class(name).stochastic)


@pytest.mark.parametrize("name", EXACT)
@given(case=cases())
def test_invariants_from_metadata(name: str, case: tuple[str, float, int, np.ndarray]) -> None:
    protocol_name, epsilon, n, estimate = case
    protocol = get_protocol(protocol_name, epsilon=epsilon, domain_size=estimate.size)
    method = get_method(name)
    before = estimate.copy()
    with warnings.catch_warnings():
        # EM stopped by Li et al.'s rule may reach its step cap first, and says so; its
        # last iterate must keep the invariants all the same.
        warnings.simplefilter("ignore", NotConverged)
        out = method(estimate, protocol=protocol, n=n)
    np.testing.assert_array_equal(estimate, before)  # never mutates its input
    assert out.shape == estimate.shape and np.all(np.isfinite(out))
    if method.nonnegative == "yes":
        assert out.min() >= 0.0
    if method.sums_to_one == "yes":
        assert abs(out.sum() - 1.0) <= 1e-12
    if method.sums_to_one == "almost":
        assert out.sum() <= 1.0 + 1e-12
    if not method.keeps_order:
        return
    # Order preservation (NDSS Sec. IV-F): f̃_a ≤ f̃_b implies f'_a ≤ f'_b.
    order = np.argsort(estimate, kind="stable")
    assert np.all(np.diff(out[order]) >= -1e-12 * max(1.0, np.abs(out).max()))
    ties = estimate[:, None] == estimate[None, :]
    assert np.all(np.abs(out[:, None] - out[None, :])[ties] <= 1e-12)


@pytest.mark.parametrize("name", [name for name in EXACT if method_class(name).by_default])
@given(case=cases(), rows=st.integers(1, 4))
def test_a_stack_of_estimates_gives_each_estimate_s_answer_bit_for_bit(
    name: str, case: tuple[str, float, int, np.ndarray], rows: int
) -> None:
    # A simulation post-processes its trials as one stack: each row's answer
    # must be the one a call on that row alone gives, whatever else is in the stack, or
    # a run's numbers would depend on how its trials were chunked.
    protocol_name, epsilon, n, estimate = case
    protocol = get_protocol(protocol_name, epsilon=epsilon, domain_size=estimate.size)
    method = get_method(name)
    stack = np.stack([np.roll(estimate, r) * (1.0 + 0.25 * r) for r in range(rows)])
    before = stack.copy()
    together = method.apply_rows(stack, protocol=protocol, n=n)
    np.testing.assert_array_equal(stack, before)  # never mutates its input
    one_by_one = np.stack([method(row, protocol=protocol, n=n) for row in stack])
    np.testing.assert_array_equal(together, one_by_one)


def test_a_stack_must_be_one_estimate_per_row() -> None:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=3)
    with pytest.raises(ValueError, match=r"\(k, 3\) array"):
        get_method("Norm-Sub").apply_rows([0.5, 0.2, 0.3], protocol=protocol, n=10)
    with pytest.raises(ValueError, match="NaN or inf"):
        get_method("Norm").apply_rows([[0.5, math.nan, 0.5]], protocol=protocol, n=10)


@pytest.mark.parametrize("name", ALL)
def test_huge_domain(name: str) -> None:
    d = 1_000_000
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    counts = zipf_counts(d, 10**8, s=1.1)
    estimate = protocol.estimate(protocol.sample_support_counts(counts, 3), 10**8)
    method = get_method(name)
    if method.max_domain is not None and d > method.max_domain:
        with pytest.raises(ValueError, match=f"{name} handles domains of at most .* use MLE"):
            method(estimate, protocol=protocol, n=10**8)
        return
    out = method(estimate, protocol=protocol, n=10**8)
    assert np.all(np.isfinite(out))


# --- exact solutions against independent solvers ------------------------------


def _slsqp_simplex(objective, gradient, d: int, start: np.ndarray) -> np.ndarray:
    result = optimize.minimize(
        objective,
        start,
        jac=gradient,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * d,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1.0, "jac": lambda x: np.ones(d)}],
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    # At this precision SLSQP may end on a line-search failure; what matters is that
    # it returns a feasible point near the optimum, which the callers compare against.
    assert abs(result.x.sum() - 1) < 1e-8 and result.x.min() >= -1e-10, result.message
    return result.x


@given(st.lists(st.floats(-0.5, 0.8), min_size=2, max_size=25))
def test_norm_sub_is_the_constrained_least_squares_solution(values: list[float]) -> None:
    f = np.array(values)
    mine = project_to_simplex(f)
    # Independent: the dual is a 1-D monotone equation Σ max(f + δ, 0) = 1, solved by
    # bracketing root search, then checked against a generic QP solver.
    delta = optimize.brentq(
        lambda s: np.maximum(f + s, 0).sum() - 1, -2 - f.max(), 2 - f.min(), xtol=1e-15
    )
    np.testing.assert_allclose(mine, np.maximum(f + delta, 0), atol=1e-9)
    # And a generic active-set solver: NNLS with the sum constraint as a heavy extra row.
    weight = 1e5
    design = np.vstack([np.eye(f.size), np.full((1, f.size), weight)])
    qp, _ = optimize.nnls(design, np.append(f, weight))
    np.testing.assert_allclose(mine, qp, atol=1e-6)


@pytest.mark.parametrize("protocol_name", ["OLH", "OUE", "GRR", "HR", "BLH"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mle_apx_satisfies_kkt(protocol_name: str, seed: int) -> None:
    d, n = 64, 10_000
    protocol = get_protocol(protocol_name, epsilon=1.0, domain_size=d)
    f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), seed), n)
    p, q = protocol.p, protocol.q
    a, b = q * (1 - q), (p - q) * (1 - p - q)
    out = mle_apx(f_tilde, p, q)
    assert abs(out.sum() - 1) < 1e-12 and out.min() >= 0
    # Gradient of Σ (f' − f̃)² / (A + f' B) (the Gaussian exponent, up to constants).
    diff = out - f_tilde
    var = a + out * b
    grad = 2 * diff / var - diff**2 * b / var**2
    support = out > 0
    mu = -grad[support].mean()
    np.testing.assert_allclose(grad[support], -mu, rtol=0, atol=1e-9 * max(1, abs(mu)))
    assert np.all(grad[~support] + mu >= -1e-9 * max(1, abs(mu)))  # λ_v ≥ 0 off the support


def _support_binomial_loglik(pi: np.ndarray, c: np.ndarray, n: int, p: float, q: float) -> float:
    t = q + (p - q) * pi
    return float(np.sum(c * np.log(t) + (n - c) * np.log1p(-t)))


@pytest.mark.parametrize("protocol_name", ["GRR", "OLH", "OUE", "SS"])
def test_mle_matches_a_generic_optimizer(protocol_name: str) -> None:
    d, n = 12, 5_000
    protocol = get_protocol(protocol_name, epsilon=1.5, domain_size=d)
    counts = zipf_counts(d, n, s=1.3)
    support = protocol.sample_support_counts(counts, 11)
    f_tilde = protocol.estimate(support, n)
    mine = get_method("MLE")(f_tilde, protocol=protocol, n=n)
    p, q = protocol.p, protocol.q
    c = support.astype(float)
    if protocol_name == "GRR":  # multinomial over the reported values

        def loglik(x: np.ndarray) -> float:
            return float(np.sum(c * np.log(q + (p - q) * x)))

        def grad(x: np.ndarray) -> np.ndarray:
            return c * (p - q) / (q + (p - q) * x)
    else:

        def loglik(x: np.ndarray) -> float:
            return _support_binomial_loglik(x, c, n, p, q)

        def grad(x: np.ndarray) -> np.ndarray:
            t = q + (p - q) * x
            return (p - q) * (c / t - (n - c) / (1 - t))

    generic = _slsqp_simplex(lambda x: -loglik(x), lambda x: -grad(x), d, np.full(d, 1 / d))
    np.testing.assert_allclose(mine, generic, atol=1e-6)
    assert loglik(mine) >= loglik(generic) - 1e-9


@pytest.mark.parametrize("protocol_name", ["OLH", "OUE", "SS", "HR"])
@pytest.mark.parametrize(
    ("epsilon", "d", "n"), [(0.2, 64, 300), (1.0, 1024, 10**6), (6.0, 8, 10**4)]
)
def test_support_binomial_mle_finds_the_multiplier_brent_finds(
    protocol_name: str, epsilon: float, d: int, n: int
) -> None:
    """The Newton search against Brent's method on the same monotone equation (the path
    the MLE used before): the same frequencies to rounding."""
    protocol = get_protocol(protocol_name, epsilon=epsilon, domain_size=d)
    support = protocol.sample_support_counts(zipf_counts(d, n, s=1.3), 5)
    model = protocol.likelihood_model(protocol.estimate(support, n), n)
    c, p, q = model.counts, model.p, model.q

    def frequencies(m: float) -> np.ndarray:
        # The one root of m t² − (m + n) t + c = 0 in [0, 1], by numpy's polynomial roots.
        t = [
            [r.real for r in np.roots([m, -(m + n), cv]) if -1e-12 <= r.real <= 1 + 1e-12]
            for cv in c
        ]
        assert all(len(roots) == 1 for roots in t)
        return np.clip((np.array([roots[0] for roots in t]) - q) / (p - q), 0.0, 1.0)

    slope_q = c / q - (n - c) / (1 - q)
    slope_p = c / p - (n - c) / (1 - p)
    m = optimize.brentq(
        lambda x: frequencies(x).sum() - 1.0, slope_p.min() - 1, slope_q.max() + 1, xtol=1e-10
    )
    reference = frequencies(m) / frequencies(m).sum()
    np.testing.assert_allclose(
        support_binomial_mle(model.counts, n=model.n, p=model.p, q=model.q), reference, atol=1e-9
    )


@pytest.mark.parametrize(
    ("protocol_name", "use_rows"),
    [("GRR", False), ("OLH", False), ("OUE", False), ("SS", False), ("HR", True), ("HR", False)],
)
@pytest.mark.parametrize("accelerate", [True, False])
def test_ibu_is_monotone_and_converges_to_mle(
    protocol_name: str, use_rows: bool, accelerate: bool
) -> None:
    d, n = 30, 20_000
    protocol = get_protocol(protocol_name, epsilon=1.0, domain_size=d)
    tallies = protocol.sample_tallies(zipf_counts(d, n), 5)
    f_tilde = protocol.estimate(protocol.support_from_tallies(tallies), n)
    rows = tallies if use_rows else None
    ibu = IBU(
        accelerate=accelerate,
        max_iterations=100_000 if accelerate else 3_000,
        warm_start=False,  # the climb itself, from the uniform distribution
    )
    with warnings.catch_warnings():
        # Plain EM may stop at its 3,000-step cap here (it says so: NotConverged).
        warnings.simplefilter("ignore", NotConverged)
        result = ibu.solve(f_tilde, protocol=protocol, n=n, tallies=rows)
    history = np.array(result.history)
    # Never lowers the likelihood (allow float noise relative to |L|).
    assert np.all(np.diff(history) >= -1e-12 * np.abs(history[:-1]).max())
    mle = get_method("MLE")(f_tilde, protocol=protocol, n=n, tallies=rows)
    if accelerate:
        assert result.converged
        assert np.abs(result.frequencies - mle).max() <= 1e-6
    else:
        # Plain EM is slow (that is why it is accelerated); it must still head for the MLE.
        model = protocol.likelihood_model(f_tilde, n, None if rows is None else rows.astype(float))
        uniform = np.full(d, 1 / d)
        assert result.log_likelihood > model.log_likelihood(uniform)
        start_gap = np.abs(uniform - mle).max()
        assert np.abs(result.frequencies - mle).max() <= start_gap / 2


def test_ibu_fast_on_the_paper_setting() -> None:
    d, n = 1024, 10**6
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), 0), n)
    result = IBU(warm_start=False).solve(f_tilde, protocol=protocol, n=n)
    mle = get_method("MLE")(f_tilde, protocol=protocol, n=n)
    assert result.converged and np.abs(result.frequencies - mle).max() <= 1e-6
    assert result.iterations < 200


@pytest.mark.parametrize("interior", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_diagonal_newton_step_solves_its_quadratic_model_on_the_simplex(
    seed: int, interior: bool
) -> None:
    """Against a slow reference: bisection for the multiplier λ of Σ δ = 0, and no random
    feasible step does better on the quadratic ``g·δ − ½ Σ h δ²`` (Σ δ = 0, π + δ ≥ 0).

    ``interior``: a step that pins no value (the all-free shortcut) or one that pins
    some (the sorted search)."""
    from ldpcore.protocols.simplex_newton import diagonal_newton  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    d = 12
    pi = rng.dirichlet(np.full(d, 0.4))
    curvature = 10.0 ** rng.uniform(-1, 4, d)  # curvatures orders of magnitude apart
    if interior:
        pi = 0.5 * pi + 0.5 / d
        gradient = rng.normal(0.0, 0.02, d) * curvature * pi  # small moves: none reach 0
    else:
        pi[rng.random(d) < 0.3] = 0.0  # some values at the edge already
        pi /= pi.sum()
        gradient = rng.normal(0.0, 10.0, d)
    step = diagonal_newton(pi, gradient, curvature)
    assert step is not None
    assert bool(np.all(pi + step > 0)) == interior

    def at(lam: float) -> np.ndarray:
        return np.maximum(-pi, (gradient - lam) / curvature)

    lam = optimize.brentq(lambda x: at(x).sum(), -1e6, 1e6, xtol=1e-14, rtol=1e-15)
    np.testing.assert_allclose(step, at(lam), atol=1e-9)
    assert abs(step.sum()) <= 1e-12 and np.all(pi + step >= -1e-15)

    def value(delta: np.ndarray) -> float:
        return float(gradient @ delta - 0.5 * np.sum(curvature * delta**2))

    for _ in range(200):  # feasible rivals: mixtures of the step and random simplex moves
        rival = rng.dirichlet(np.ones(d)) - pi
        mix = rng.uniform(0, 1)
        assert value(step) >= value(mix * rival + (1 - mix) * step) - 1e-12


@pytest.mark.parametrize("protocol_name", ["GRR", "OLH", "OUE", "SS", "HR"])
def test_ibu_warm_started_at_the_exact_maximum_confirms_it(protocol_name: str) -> None:
    """From the closed-form maximiser EM stops at once; from uniform it climbs to the same
    point (HR's support-count binomials have one too; its rows, none: no warm start)."""
    d, n = 256, 10**5
    protocol = get_protocol(protocol_name, epsilon=2.0, domain_size=d)
    f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), 4), n)
    warm = IBU().solve(f_tilde, protocol=protocol, n=n)
    cold = IBU(warm_start=False).solve(f_tilde, protocol=protocol, n=n)
    assert warm.converged and cold.converged
    assert warm.iterations <= 2 < cold.iterations
    assert np.abs(warm.frequencies - cold.frequencies).max() <= 1e-6
    assert warm.log_likelihood >= cold.log_likelihood - 1e-9 * abs(cold.log_likelihood)


@pytest.mark.parametrize(
    ("protocol_name", "tallies"),
    [("GRR", False), ("OLH", False), ("OUE", True), ("HR", True), ("HR", False)],
)
def test_ibu_from_mle_output_is_ibu_bit_for_bit(protocol_name: str, tallies: bool) -> None:
    """A run of MLE and IBU hands MLE's maximiser to IBU: the answer is IBU's
    own, bit for bit, with or without an exact maximiser (HR's rows and OUE's reports
    have none, and IBU then climbs from uniform either way)."""
    from ldpcore.errors import InputError  # noqa: PLC0415
    from ldpcore.postprocess.base import Context  # noqa: PLC0415

    d, n = 8 if tallies and protocol_name == "OUE" else 64, 10**4
    protocol = get_protocol(protocol_name, epsilon=1.0, domain_size=d)
    rng = np.random.default_rng(3)
    rows = protocol.sample_tallies(zipf_counts(d, n), rng) if tallies else None
    support = (
        protocol.support_from_tallies(rows)
        if tallies
        else protocol.sample_support_counts(zipf_counts(d, n), rng)
    )
    f_tilde = protocol.estimate(support, n)
    mle = get_method("MLE")(f_tilde, protocol=protocol, n=n, tallies=rows)
    for ibu in (IBU(), IBU(warm_start=False)):
        alone = ibu(f_tilde, protocol=protocol, n=n, tallies=rows)
        handed = ibu.from_parent(mle, f_tilde, Context(protocol=protocol, n=n, tallies=rows))
        np.testing.assert_array_equal(handed, alone)
    with pytest.raises(InputError, match="only with its estimate and context"):
        IBU().from_parent(mle)


@pytest.mark.parametrize("seed", range(4))
def test_diagonal_newton_step_sends_values_without_curvature_to_zero(seed: int) -> None:
    """Values the likelihood is linear in (GRR's values no report names: curvature 0)
    go to 0 when their slope is below λ; the others solve the curved values' model,
    against bisection on Σ δ = 0. Such values used to make the step None."""
    from ldpcore.protocols.simplex_newton import diagonal_newton  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    d = 16
    pi = rng.dirichlet(np.ones(d))
    curvature = 10.0 ** rng.uniform(0, 3, d)
    gradient = rng.normal(0.0, 5.0, d)
    flat = rng.random(d) < 0.4
    flat[0] = False
    curvature[flat] = 0.0
    gradient[flat] = -1e3  # well below any λ: the likelihood falls as they grow
    step = diagonal_newton(pi, gradient, curvature)
    assert step is not None
    np.testing.assert_array_equal(step[flat], -pi[flat])

    def total(lam: float) -> float:
        curved = ~flat
        return float(
            np.maximum(-pi[curved], (gradient[curved] - lam) / curvature[curved]).sum()
            - pi[flat].sum()
        )

    lam = optimize.brentq(total, -1e6, 1e6, xtol=1e-14, rtol=1e-15)
    expected = np.maximum(-pi, (gradient - lam) / np.where(flat, 1.0, curvature))
    expected[flat] = -pi[flat]
    np.testing.assert_allclose(step, expected, atol=1e-9)
    # A flat value whose slope is above λ: the model rises without bound, so no step.
    gradient[np.flatnonzero(flat)[:1]] = 1e6
    assert diagonal_newton(pi, gradient, curvature) is None


def test_ibu_at_grr_with_most_values_unreported_converges() -> None:
    """GRR at d = 100,000 and n = 10⁶: most values have no report. Plain EM's steps
    crawled (3,000 without converging, 27 s); the diagonal step converges in a few."""
    d, n = 100_000, 10**6
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=d)
    f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), 1), n)
    result = IBU(warm_start=False).solve(f_tilde, protocol=protocol, n=n)
    mle = get_method("MLE")(f_tilde, protocol=protocol, n=n)  # exact (Appendix B)
    assert result.converged and result.iterations < 30
    assert np.abs(result.frequencies - mle).max() <= 1e-6


@pytest.mark.parametrize("protocol_name", ["OLH", "OUE", "GRR", "SS"])
def test_ibu_converges_in_few_steps_at_high_epsilon(protocol_name: str) -> None:
    """At ε = 10 the curvatures differ by orders of magnitude. A Euclidean projection of
    the Newton step took 38–817 EM steps over these 30 draws at OLH (OUE 37–1,071, SS
    33–242, GRR 25–38); the exact diagonal Newton step takes 8–17."""
    d, n = 1024, 10**6
    protocol = get_protocol(protocol_name, epsilon=10.0, domain_size=d)
    steps = []
    for seed in range(30):
        f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), seed), n)
        result = IBU(warm_start=False).solve(f_tilde, protocol=protocol, n=n)
        mle = get_method("MLE")(f_tilde, protocol=protocol, n=n)
        assert result.converged and np.abs(result.frequencies - mle).max() <= 1e-6
        steps.append(result.iterations)
    assert max(steps) <= 24, sorted(steps)


# --- Power -----------------------------------------------------------------------


@pytest.mark.parametrize(("n", "b"), [(1, 1.5), (15, 0.0), (16, 0.7), (5000, 1.0), (10**5, 2.5)])
def test_power_sum_matches_direct_sum(n: int, b: float) -> None:
    direct = float(np.sum(np.arange(1, n + 1, dtype=float) ** -b))
    assert power_sum(n, b) == pytest.approx(direct, rel=1e-11)


def test_fitted_prior_has_the_requested_mean() -> None:
    n = 10**6
    a = fit_power_law_exponent(n / 1024, n)
    assert power_sum(n, a - 1) / power_sum(n, a) == pytest.approx(n / 1024, rel=1e-9)
    assert fit_power_law_exponent(n, n) == 0.0  # mean above (n+1)/2: flattest prior


@pytest.mark.parametrize("noise_sd", [0.7, 30.0, 400.0])
def test_posterior_mean_matches_brute_force(noise_sd: float) -> None:
    n, a = 40_000, 1.4
    observed = np.array([-3 * noise_sd, -5.0, 0.0, 3.0, 80.0, 300.0, 2_500.0, 20_000.0, 39_999.0])
    fast = posterior_mean_counts(observed, exponent=a, noise_sd=noise_sd, n=n)
    x = np.arange(1, n + 1, dtype=float)
    for c, value in zip(observed, fast, strict=True):
        log_w = -a * np.log(x) - (x - c) ** 2 / (2 * noise_sd**2)
        w = np.exp(log_w - log_w.max())
        exact = (w * x).sum() / w.sum()
        assert abs(value - exact) <= 2e-5 * max(1.0, noise_sd)


def test_power_tabulation_agrees_with_direct_evaluation() -> None:
    d, n = 2048, 10**6
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), 1), n)
    tabulated = power_calibrate(f_tilde, p=protocol.p, q=protocol.q, n=n)
    s = math.sqrt(n * protocol.q * (1 - protocol.q)) / (protocol.p - protocol.q)
    a = fit_power_law_exponent(n / d, n)
    direct = posterior_mean_counts(n * f_tilde, exponent=a, noise_sd=s, n=n) / n
    assert np.abs(tabulated - direct).max() * n <= 1e-3 * s


@pytest.mark.parametrize(
    ("protocol_name", "epsilon", "d"), [("OLH", 1.0, 1024), ("OUE", 3.0, 512), ("GRR", 0.5, 300)]
)
def test_power_table_shared_by_trials_matches_direct_evaluation(
    protocol_name: str, epsilon: float, d: int
) -> None:
    """One table serves every trial of a run: each answer within 5·10⁻⁴ s of the direct sum
    (the spline it replaced: 3.7·10⁻⁴ s at the Explorer's defaults, over 30 trials)."""
    n = 10**6
    protocol = get_protocol(protocol_name, epsilon=epsilon, domain_size=d)
    p, q = protocol.p, protocol.q
    s = math.sqrt(n * q * (1 - q)) / (p - q)
    a = fit_power_law_exponent(n / d, n)
    tables = PowerTables()
    for seed in range(8):
        f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), seed), n)
        shared = power_calibrate(f_tilde, p=p, q=q, n=n, tables=tables)
        direct = posterior_mean_counts(n * f_tilde, exponent=a, noise_sd=s, n=n) / n
        assert np.abs(shared - direct).max() * n <= 5e-4 * s
    assert len(tables.tables) == 1


def test_power_answer_does_not_depend_on_what_the_table_saw_before() -> None:
    """The interpolant is local, so a table grown by a wide trial gives the same answer
    as a fresh one, bit for bit: trials grouped differently give the same numbers."""
    d, n = 1024, 10**6
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), 3), n)
    fresh = power_calibrate(f_tilde, p=protocol.p, q=protocol.q, n=n)
    tables = PowerTables()
    wide = np.concatenate([f_tilde[:-2], [-0.05, 0.9]])  # grows the table both ways
    power_calibrate(wide, p=protocol.p, q=protocol.q, n=n, tables=tables)
    knots = tables.tables[next(iter(tables.tables))]._knots.size
    after = power_calibrate(f_tilde, p=protocol.p, q=protocol.q, n=n, tables=tables)
    assert np.array_equal(fresh, after)
    s = math.sqrt(n * protocol.q * (1 - protocol.q)) / (protocol.p - protocol.q)
    a = fit_power_law_exponent(n / d, n)
    grown = power_calibrate(wide, p=protocol.p, q=protocol.q, n=n, tables=tables)
    direct = posterior_mean_counts(n * wide, exponent=a, noise_sd=s, n=n) / n
    assert np.abs(grown - direct).max() * n <= 5e-4 * s
    assert tables.tables[next(iter(tables.tables))]._knots.size == knots  # nothing new needed


def test_power_direct_sums_reused_across_trials_are_the_same_numbers() -> None:
    """Few distinct counts (ε = 10): each is summed directly once per run and reused; a
    trial's answer is bit for bit what a fresh run gives it."""
    d, n = 1024, 10**6
    protocol = get_protocol("OLH", epsilon=10.0, domain_size=d)
    p, q = protocol.p, protocol.q
    trials = [
        protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), seed), n)
        for seed in range(4)
    ]
    assert all(np.unique(f).size <= 256 for f in trials)  # the direct path
    tables = PowerTables()
    for f_tilde in trials:
        shared = power_calibrate(f_tilde, p=p, q=q, n=n, tables=tables)
        assert np.array_equal(shared, power_calibrate(f_tilde, p=p, q=q, n=n))


def test_power_method_ships_to_a_worker_without_its_tables() -> None:
    import pickle  # noqa: PLC0415

    method = get_method("Power")
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=512)
    n = 10**5
    f_tilde = protocol.estimate(protocol.sample_support_counts(zipf_counts(512, n), 1), n)
    before = method(f_tilde, protocol=protocol, n=n)
    copy = pickle.loads(pickle.dumps(method))
    assert copy._tables.tables == {} and method._tables.tables
    np.testing.assert_array_equal(copy(f_tilde, protocol=protocol, n=n), before)


def test_ibu_with_as_many_values_as_users_stays_finite() -> None:
    """Regression: GRR with n ≈ d leaves values no report supports; the Newton-scaled
    extrapolation then divided by ~0 and overflowed (found by the IBU Table 1 recipe)."""
    from ldpcore.data.datasets import zipf  # noqa: PLC0415
    from ldpcore.protocols import get_protocol  # noqa: PLC0415

    oracle = get_protocol("GRR", epsilon=4.0, domain_size=1000)
    counts = zipf(1000, 1000, s=1.0).counts
    tallies = oracle.sample_tallies(counts, 7)
    estimate = oracle.estimate(oracle.support_from_tallies(tallies), 1000)
    result = get_method("IBU")(estimate, protocol=oracle, n=1000, tallies=tallies)
    mle = get_method("MLE")(estimate, protocol=oracle, n=1000, tallies=tallies)
    assert np.all(np.isfinite(result)) and abs(result.sum() - 1) < 1e-12
    assert np.abs(result - mle).max() < 1e-6


@pytest.mark.parametrize(
    ("estimate", "expected"),
    [
        ([1.2, 0.1, -0.3], [1.0, 0.0, 0.0]),  # the paper's rule would return all zeros
        ([0.7, 0.7, 0.1, -0.5], [0.5, 0.5, 0.0, 0.0]),  # a tied top group shares the cap
        ([0.6, 0.3, 0.2, -0.1], [0.6, 0.3, 0.0, 0.0]),  # elsewhere: the paper's rule, no rescale
        ([0.5, 0.3, -0.2], [0.5, 0.3, 0.0]),  # positives sum to at most 1: clip only
    ],
)
def test_norm_cut_keeps_the_top_group_when_it_alone_exceeds_one(
    estimate: list[float], expected: list[float]
) -> None:
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=len(estimate))
    result = get_method("Norm-Cut")(np.array(estimate), protocol=protocol, n=1000)
    np.testing.assert_allclose(result, expected, atol=1e-15)


@pytest.mark.parametrize("name", ALL)
def test_an_absurd_estimate_is_refused_not_turned_into_nan(name: str) -> None:
    """1e308 everywhere made MLE-Apx return NaN and Norm-Sub raise IndexError."""
    protocol = get_protocol("GRR", epsilon=5.0, domain_size=16)
    with pytest.raises(ValueError, match="frequency estimates, at most"):
        get_method(name)(np.ones(16) * 1e308, protocol=protocol, n=10**12)


@pytest.mark.parametrize("name", ["MLE", "IBU"])
def test_an_estimate_that_implies_no_reports_gives_the_uniform_distribution(name: str) -> None:
    """GRR, d = 2, n = 1 and every share at −¼: the counts the estimate implies are all
    negative, clipped to 0, so the likelihood is flat. Hypothesis found the division by
    zero this used to warn with (pytest turns warnings into errors)."""
    grr = get_protocol("GRR", epsilon=3.0, domain_size=2)
    found = get_method(name)(np.array([-0.25, -0.25]), protocol=grr, n=1)
    np.testing.assert_array_equal(found, [0.5, 0.5])
