"""Bayes: the posterior mean under a Dirichlet prior, checked against what must be true.

* Small cases against the exact posterior mean, from an independent slow path: every
  likelihood here is a product of linear forms in π (cells ``Qπ``; a binomial's
  ``t_v`` and ``1 − t_v``), so expanding it into monomials and integrating each against
  the Dirichlet (``∫ Π π^(k+α−1) = B(k + α)``) gives the posterior mean exactly.
* Large n: the posterior mean and the MLE agree to a small fraction of the posterior's
  width (MLE paper, Theorem 3.3).
* Simulation-based calibration (slow tier): the rank of the true π among the draws is
  uniform when the data come from the prior and the model (Talts et al. 2018).
"""

from __future__ import annotations

import warnings
from functools import cached_property

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy import special, stats

from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.postprocess import JEFFREYS, UNIFORM, Bayes, get_method, informed_prior
from ldpcore.postprocess.caveats import Unsettled
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.postprocess.posterior_draws import pair_chains
from ldpcore.postprocess.prior import HYPERPRIOR_LOG_SD, LEARNED, hyperprior_centre
from ldpcore.present.run_sentences import caveat_words, caveats_note, not_converged_words
from ldpcore.protocols import get_protocol
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.walsh import hadamard_signs
from ldpcore.stats.diagnostics import split_rhat_and_ess
from ldpcore.stats.pair_gibbs import run as run_pairs
from ldpcore.stats.separable import SeparableLikelihood

# --- the exact posterior mean, by expansion ------------------------------------------


def _expansion(
    forms: list[tuple[NDArray[np.float64], int]], d: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The likelihood ``Π (c·π)^m`` as monomials: their exponents and log-coefficients."""
    degree = sum(power for _, power in forms)
    poly = np.zeros((degree + 1,) * d)
    poly[(0,) * d] = 1.0
    for coefficients, power in forms:
        for _ in range(power):
            grown = np.zeros_like(poly)
            for v in range(d):
                target = [slice(None)] * d
                source = [slice(None)] * d
                target[v] = slice(1, None)
                source[v] = slice(None, -1)
                grown[tuple(target)] += coefficients[v] * poly[tuple(source)]
            poly = grown / max(grown.max(), 1e-300)  # a constant factor cancels in the ratio
    exponents = np.indices(poly.shape).reshape(d, -1).T.astype(float)
    weights = poly.reshape(-1)
    keep = weights > 0
    return exponents[keep], np.log(weights[keep])


def exact_posterior_mean(
    forms: list[tuple[NDArray[np.float64], int]],
    alpha: NDArray[np.float64],
    expansion: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
) -> NDArray[np.float64]:
    """``E[π | data]`` for the likelihood ``Π (c·π)^m`` over ``forms`` and a Dirichlet(α).

    ``expansion``: :func:`_expansion` of ``forms``, when the caller has it already.
    """
    d = alpha.size
    exponents, log_weights = expansion if expansion is not None else _expansion(forms, d)
    shifted = exponents + alpha
    log_norm = special.gammaln(shifted).sum(axis=1) - special.gammaln(shifted.sum(axis=1))
    base = special.logsumexp(log_weights + log_norm)
    # B(a + e_j) / B(a) = a_j / Σa
    means = [
        np.exp(
            special.logsumexp(log_weights + log_norm + np.log(shifted[:, j] / shifted.sum(axis=1)))
            - base
        )
        for j in range(d)
    ]
    return np.array(means)


def exact_log_marginal(
    forms: list[tuple[NDArray[np.float64], int]], d: int, alphas: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``log ∫ L(π) Dir(π | α·1) dπ`` (up to one constant) for each symmetric ``α``.

    ``∫ Π π^(k + α − 1) / B(α) = B(k + α) / B(α)`` for each monomial.
    """
    exponents, log_weights = _expansion(forms, d)
    found = []
    for a in alphas:
        shifted = exponents + a
        log_beta = special.gammaln(shifted).sum(axis=1) - special.gammaln(shifted.sum(axis=1))
        prior_beta = d * special.gammaln(a) - special.gammaln(d * a)
        found.append(special.logsumexp(log_weights + log_beta) - prior_beta)
    return np.array(found)


def grr_forms(counts: NDArray[np.int64], p: float, q: float) -> list:
    d = counts.size
    return [(q + (p - q) * np.eye(d)[y], int(counts[y])) for y in range(d)]


def binomial_forms(counts: NDArray[np.int64], n: int, p: float, q: float) -> list:
    d = counts.size
    forms = []
    for v in range(d):
        hit = q + (p - q) * np.eye(d)[v]
        forms += [(hit, int(counts[v])), (1.0 - hit, n - int(counts[v]))]
    return forms


def check_against_exact(
    posterior_mean: NDArray[np.float64],
    standard_error: NDArray[np.float64],
    exact: NDArray[np.float64],
) -> None:
    # 4.5 Monte Carlo standard errors per value: a false alarm over all values and
    # cases here has probability below 1e-4.
    gap = np.abs(posterior_mean - exact)
    assert np.all(gap <= 4.5 * standard_error + 1e-9), (posterior_mean, exact, standard_error)


CASES = [
    ("GRR", 1.0, 3, 20, JEFFREYS),
    ("GRR", 2.0, 4, 12, UNIFORM),
    ("GRR", 0.5, 2, 30, informed_prior([3, 1], weight=8)),
    ("OLH", 1.0, 2, 10, JEFFREYS),
    ("OUE", 1.5, 3, 6, JEFFREYS),
    ("SS", 1.0, 3, 7, UNIFORM),
]


@pytest.mark.parametrize(("name", "epsilon", "d", "n", "prior"), CASES)
def test_posterior_mean_matches_the_exact_one_on_small_cases(
    name: str, epsilon: float, d: int, n: int, prior
) -> None:
    protocol = get_protocol(name, epsilon=epsilon, domain_size=d)
    rng = np.random.default_rng(d * n)
    true_counts = rng.multinomial(n, np.arange(1, d + 1) / np.arange(1, d + 1).sum())
    support = protocol.sample_support_counts(true_counts, rng)
    estimate = protocol.estimate(support, n)
    posterior = Bayes(prior=prior).posterior(estimate, protocol=protocol, n=n)
    alpha = prior.concentration(d)
    if name == "GRR":
        forms = grr_forms(support, protocol.p, protocol.q)
    else:  # every other protocol without tallies: the support counts' binomials
        forms = binomial_forms(support, n, protocol.p, protocol.q)
    check_against_exact(
        posterior.mean, posterior.standard_error(), exact_posterior_mean(forms, alpha)
    )
    assert posterior.converged


def test_hadamard_rows_and_unary_reports_match_the_exact_posterior_mean() -> None:
    """The exact likelihoods of HR's rows and of OUE's full reports (their tallies)."""
    rng = np.random.default_rng(5)
    hr = get_protocol("HR", epsilon=1.0, domain_size=3)
    rows = hr.sample_tallies(np.array([8, 4, 3]), rng)
    estimate = hr.estimate(hr.support_from_tallies(rows), 15)
    posterior = Bayes(prior=JEFFREYS).posterior(estimate, protocol=hr, n=15, tallies=rows)
    channel = (1.0 + (2 * hr.p - 1) * hadamard_signs(hr.order, 3)) / hr.order
    forms = [(channel[r], int(rows[r])) for r in range(hr.order)]
    exact = exact_posterior_mean(forms, np.full(3, 0.5))
    check_against_exact(posterior.mean, posterior.standard_error(), exact)

    oue = get_protocol("OUE", epsilon=2.0, domain_size=2)
    histogram = oue.sample_tallies(np.array([6, 3]), rng)
    estimate = oue.estimate(oue.support_from_tallies(histogram), 9)
    posterior = Bayes(prior=JEFFREYS).posterior(estimate, protocol=oue, n=9, tallies=histogram)
    bits = oue.support_matrix()
    low, high = (1 - oue.p) / (1 - oue.q), oue.p / oue.q
    forms = [(low + (high - low) * bits[y], int(histogram[y])) for y in range(len(bits))]
    exact = exact_posterior_mean(forms, np.full(2, 0.5))
    check_against_exact(posterior.mean, posterior.standard_error(), exact)


def test_the_reference_expansion_is_itself_right() -> None:
    """No data: the posterior is the prior, whose mean is α/Σα; one direct observation."""
    alpha = np.array([0.5, 1.5, 2.0])
    np.testing.assert_allclose(exact_posterior_mean([], alpha), alpha / alpha.sum())
    # Observing value 1 directly once (cells = π): Dirichlet(α + e_1).
    forms = [(np.eye(3)[1], 1)]
    expected = (alpha + np.eye(3)[1]) / (alpha.sum() + 1)
    np.testing.assert_allclose(exact_posterior_mean(forms, alpha), expected)


# --- the learned prior: the pair sampler at any α, and α itself ----------------------


def _small_case(
    name: str, epsilon: float, d: int, n: int, weights: NDArray[np.float64], *, seed: int
) -> tuple:
    protocol = get_protocol(name, epsilon=epsilon, domain_size=d)
    rng = np.random.default_rng(seed)
    true_counts = rng.multinomial(n, weights / weights.sum())
    support = protocol.sample_support_counts(true_counts, rng)
    estimate = protocol.estimate(support, n)
    if name == "GRR":
        forms = grr_forms(support, protocol.p, protocol.q)
    else:
        forms = binomial_forms(support, n, protocol.p, protocol.q)
    return protocol, support, estimate, forms


PAIR_CASES = [
    ("GRR", 1.0, 3, 20, 0.1),
    ("GRR", 1.0, 3, 20, 0.03),
    ("GRR", 2.0, 4, 12, 0.5),
    ("OLH", 1.0, 2, 10, 0.05),
    ("OUE", 1.5, 3, 6, 0.2),
    ("SS", 1.0, 3, 7, 1.0),
]


@pytest.mark.parametrize(("name", "epsilon", "d", "n", "alpha"), PAIR_CASES)
def test_the_pair_sampler_matches_the_exact_posterior_mean_at_any_concentration(
    name: str, epsilon: float, d: int, n: int, alpha: float
) -> None:
    """Down to α = 0.03, where HMC's ESS fell to 77 of 8,000 draws (benchmarks/README.md)."""
    protocol, support, estimate, forms = _small_case(
        name, epsilon, d, n, np.arange(1, d + 1, dtype=float), seed=d * n
    )
    misses = np.zeros(d) if name == "GRR" else n - support.astype(float)
    likelihood = SeparableLikelihood(
        support.astype(float), misses, protocol.p, protocol.q, estimate
    )
    rng = np.random.default_rng(11)
    log_pi = np.log(np.full((8, d), 1.0 / d))
    run_pairs(log_pi, np.full(d, alpha), likelihood, rng, steps=100, keep=False)
    draws, _, _ = run_pairs(log_pi, np.full(d, alpha), likelihood, rng, steps=2000, keep=True)
    assert draws is not None
    _, ess = split_rhat_and_ess(draws)
    flat = draws.reshape(-1, d)
    exact = exact_posterior_mean(forms, np.full(d, alpha))
    check_against_exact(flat.mean(axis=0), flat.std(axis=0) / np.sqrt(ess), exact)


def test_pairs_and_values_that_underflow_a_float_are_drawn_exactly() -> None:
    """A tiny α puts values at log π below −700, where π itself is 0 in a float.

    A pair whose sum underflows sees a likelihood flat in ``t`` to the last bit, so
    its draw must follow the prior's Beta(α_i, α_j) (the reference: scipy's Beta CDF,
    a Kolmogorov–Smirnov test on 4,000 chains), by Jöhnk's method where both α are at
    most 1 and by two Gamma draws where they are not; keep the pair's sum, and warn of
    nothing (pytest turns warnings into errors). A pair of an underflowing value and
    one with all the mass must not overflow either.
    """
    from ldpcore.stats.pair_moves import pair_step  # noqa: PLC0415

    chains, alpha = 4000, np.array([0.3, 0.7, 0.5, 1.5, 2.0])
    likelihood = SeparableLikelihood(
        np.array([0.0, 0.0, 40.0, 0.0, 0.0]), np.zeros(5), 0.6, 0.2, np.eye(5)[2]
    )
    log_pi = np.tile([-800.0, -801.0, 0.0, -900.0, -900.0], (chains, 1))
    rng = np.random.default_rng(5)
    for pair, shape in (((0, 1), (0.3, 0.7)), ((3, 4), (1.5, 2.0))):
        sums = np.logaddexp(log_pi[:, pair[0]], log_pi[:, pair[1]])
        pair_step(log_pi, (np.array([pair[0]]), np.array([pair[1]])), alpha, likelihood, rng)
        np.testing.assert_allclose(
            np.logaddexp(log_pi[:, pair[0]], log_pi[:, pair[1]]), sums, rtol=1e-12
        )
        t = np.exp(log_pi[:, pair[0]] - sums)
        assert stats.kstest(t, stats.beta(*shape).cdf).pvalue > 1e-3
    pair_step(log_pi, (np.array([0]), np.array([2])), alpha, likelihood, rng)
    assert np.isfinite(log_pi).all()
    assert np.allclose(special.logsumexp(log_pi, axis=1), 0.0)


@pytest.mark.parametrize(("a", "b"), [(0.02, 0.5), (0.3, 0.7), (1.0, 1.0), (0.005, 0.005)])
def test_johnks_beta_draws_follow_the_beta_in_logs(a: float, b: float) -> None:
    """The flat pairs' prior draws (Jöhnk's method, in logs) against the Beta's CDF.

    Tested on ``log(t / (1 − t))``, which both logs give to the last bit whichever end
    ``t`` is near (at α = 0.005 two fifths of the draws round to ``t = 1``, and a fortieth
    underflow ``t`` itself). Its CDF is the Beta's at ``expit(x)``; beyond ``|x| = 50``
    the Beta's tails ``y^a / (a B(a, b))`` at ``y = e^(−|x|)``, to a relative ``e^−50``.
    The two logs must also describe one ``t``: ``e^(log t) + e^(log(1 − t)) = 1``.
    """
    from ldpcore.stats.pair_moves import log_beta_small  # noqa: PLC0415

    rng = np.random.default_rng(17)
    size = 20_000
    lt, lu = log_beta_small(np.full(size, a), np.full(size, b), rng)
    np.testing.assert_allclose(np.logaddexp(lt, lu), 0.0, atol=1e-12)

    def cdf(x: NDArray[np.float64]) -> NDArray[np.float64]:
        low = np.exp(a * np.minimum(x, 0.0) - np.log(a) - special.betaln(a, b))
        high = -np.expm1(-b * np.maximum(x, 0.0) - np.log(b) - special.betaln(a, b))
        inner = np.clip(x, -50.0, 50.0)  # each side from its own tail: expit(37) rounds to 1
        middle = np.where(
            x < 0.0,
            stats.beta(a, b).cdf(special.expit(inner)),
            stats.beta(b, a).sf(special.expit(-inner)),
        )
        return np.where(x < -50.0, low, np.where(x > 50.0, high, middle))

    assert stats.kstest(lt - lu, cdf).pvalue > 1e-3


@pytest.mark.parametrize(("hits", "flat"), [((1.0, 0.0), True), ((30.0, 10.0), False)])
def test_both_pair_moves_draw_the_exact_conditional(hits: tuple[float, float], flat: bool) -> None:
    """One pair holding all the mass: after 30 moves, ``t`` follows its exact conditional.

    The conditional ``t^(α_i − 1) (1 − t)^(α_j − 1) e^(L(t))`` is integrated by quadrature
    (scipy's algebraic weight takes the singularity at 0) for a Kolmogorov–Smirnov test
    on 3,000 chains. One reports' likelihood is flat enough for the prior-proposal move
    (its reach at most ``_FLAT``) and one is not; the test checks it covers each.
    """
    from scipy import integrate  # noqa: PLC0415

    from ldpcore.stats.pair_moves import _FLAT, _PairEnds, pair_step  # noqa: PLC0415

    alpha = np.array([0.3, 0.7])
    likelihood = SeparableLikelihood(np.array(hits), np.zeros(2), 0.5, 0.3, np.array([0.5, 0.5]))
    pair = (np.array([0]), np.array([1]))
    one = np.ones((1, 1))
    value_i, _, bend_i = likelihood.terms(pair[0], one)
    value_j, _, bend_j = likelihood.terms(pair[1], one)
    reach = float(_PairEnds(value_i, bend_i, value_j, bend_j).reach(one, pair, likelihood)[0, 0])
    assert (reach <= _FLAT) == flat

    def weight(t: float) -> float:
        return float(np.exp(likelihood.value(np.array([[t, 1.0 - t]]))[0]) * (1 - t) ** -0.3)

    total = integrate.quad(weight, 0.0, 1.0, weight="alg", wvar=(-0.7, 0.0))[0]

    def cdf(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return (
            np.array([integrate.quad(weight, 0.0, v, weight="alg", wvar=(-0.7, 0.0))[0] for v in x])
            / total
        )

    rng = np.random.default_rng(23)
    log_pi = np.log(np.tile([0.5, 0.5], (3000, 1)))
    for _ in range(30):
        pair_step(log_pi, pair, alpha, likelihood, rng)
    np.testing.assert_allclose(np.logaddexp(log_pi[:, 0], log_pi[:, 1]), 0.0, atol=1e-12)
    t = np.exp(log_pi[:, 0])
    assert stats.kstest(t, cdf).pvalue > 1e-3


EMPIRICAL_CASES = [
    ("GRR", 2.0, 5, 12, np.array([1.0, 1 / 4, 1 / 9, 1 / 16, 1 / 25])),
    ("OUE", 3.0, 4, 8, np.array([1.0, 1 / 4, 1 / 9, 1 / 16])),
    ("GRR", 3.0, 5, 12, np.ones(5)),
]


def _integrated(
    forms: list[tuple[NDArray[np.float64], int]], d: int
) -> tuple[NDArray[np.float64], float, float]:
    """The exact hierarchical posterior: ``E[π]``, ``E[log α]`` and ``sd(log α)``.

    The expansion integrates π out in closed form for each α; quadrature over ``log α``
    on 240 points from 10⁻⁷ to 10⁵ (the hyperprior's tails: a grid from 0.0005 to 200
    cut them off and moved ``E[log α]`` by up to 0.1), skipping weights below 10⁻¹².
    """
    grid = np.linspace(np.log(1e-7), np.log(1e5), 240)
    log_weight = exact_log_marginal(forms, d, np.exp(grid))
    log_weight -= (grid - np.log(hyperprior_centre(d))) ** 2 / (2 * HYPERPRIOR_LOG_SD**2)
    weight = np.exp(log_weight - log_weight.max())
    weight /= weight.sum()
    expansion = _expansion(forms, d)
    mean = sum(
        (w * exact_posterior_mean(forms, np.full(d, np.exp(at)), expansion))
        for w, at in zip(weight, grid, strict=True)
        if w > 1e-12
    )
    centre = float(weight @ grid)
    return np.asarray(mean), centre, float(np.sqrt(weight @ (grid - centre) ** 2))


@pytest.mark.parametrize(("name", "epsilon", "d", "n", "weights"), EMPIRICAL_CASES)
def test_the_learned_prior_matches_the_exact_hierarchical_posterior(
    name: str, epsilon: float, d: int, n: int, weights: NDArray[np.float64]
) -> None:
    """The whole default pipeline against the exact posterior with α integrated out
    (:func:`_integrated`): the mean of every value within 4 Monte Carlo standard errors,
    and ``E[log α]`` within 4 of its own (``sd / √ESS`` of α's draws) plus 0.02 for the
    quadrature; ``sd(log α)`` within 15% (a sample sd from an ESS of 400 is off by about
    3.5%). A skewed truth and a flat one put ``E[log α]`` at −2.3 and +1.7.
    """
    protocol, _, estimate, forms = _small_case(name, epsilon, d, n, weights, seed=7)
    exact, log_alpha, log_sd = _integrated(forms, d)
    posterior = Bayes(prior=LEARNED).posterior(estimate, protocol=protocol, n=n)
    assert posterior.concentration is not None and posterior.converged
    check_against_exact(posterior.mean, posterior.standard_error(), exact)
    drawn = np.log(posterior.concentration.draws)
    error = drawn.std() / np.sqrt(posterior.concentration.ess)
    assert abs(drawn.mean() - log_alpha) <= 4 * error + 0.02, (drawn.mean(), log_alpha)
    assert abs(drawn.std() / log_sd - 1) <= 0.15, (drawn.std(), log_sd)


class _FirstSeen(SeparableLikelihood):
    """A likelihood whose first value counts as seen, whatever its reports say."""

    @cached_property
    def seen_mask(self) -> NDArray[np.bool_]:
        mask = np.zeros(self.hits.size, dtype=bool)
        mask[0] = True
        return mask


def test_the_concentration_moves_keep_the_hyperprior_where_the_reports_say_nothing() -> None:
    """With a flat likelihood the joint posterior is the prior: ``log α`` is the
    hyperprior's normal and every ``π_v`` has mean ``1/d``. All four α moves run (one
    value counted as seen, so the split move trades between the groups, and the refresh
    move, always accepted here, stays after warmup); an error in the non-centred move's
    Jacobian or its Gamma terms, or in the refresh's aggregate, moves the mean of
    ``log α`` by whole units, the bound is 4 Monte Carlo standard errors."""
    from ldpcore.stats.concentration import ConcentrationWalk, Hyperprior  # noqa: PLC0415

    d = 6
    likelihood = _FirstSeen(np.zeros(d), np.zeros(d), 0.6, 0.1, np.zeros(d))
    assert likelihood.clear == 1 and likelihood.unseen.tolist() == [1, 2, 3, 4, 5]
    hyper = Hyperprior(hyperprior_centre(d), HYPERPRIOR_LOG_SD)
    rng = np.random.default_rng(11)
    walk = ConcentrationWalk(np.full(16, np.log(hyper.centre)), hyper)
    log_pi = np.log(np.full((16, d), 1.0 / d))
    run_pairs(log_pi, walk, likelihood, rng, steps=300, keep=False)
    walk.settle()
    assert walk.refresh
    draws, trace, _ = run_pairs(log_pi, walk, likelihood, rng, steps=1500, keep=True)
    assert draws is not None and trace is not None
    rhat, ess = split_rhat_and_ess(np.concatenate([draws, trace[:, :, None]], axis=2))
    assert rhat.max() < 1.05 and ess.min() > 400, (rhat, ess)
    spread = HYPERPRIOR_LOG_SD / np.sqrt(ess[-1])
    assert abs(trace.mean() - np.log(hyper.centre)) <= 4 * spread, trace.mean()
    assert abs(trace.std() / HYPERPRIOR_LOG_SD - 1) <= 0.1, trace.std()
    means = draws.reshape(-1, d).mean(axis=0)
    errors = draws.reshape(-1, d).std(axis=0) / np.sqrt(ess[:d])
    assert np.all(np.abs(means - 1 / d) <= 4 * errors), (means, errors)


def test_the_values_counted_as_seen_are_the_ones_the_reports_rule_out_zero_for() -> None:
    """``seen_mask`` is a likelihood-ratio test at ``√(2 ln d)``, with the share fixed to
    within a fraction of itself. On GRR reports of three values among 1,024 (n = 10⁶,
    ε = 1), over 20 collections, the three are always seen and at most 10 of the 20,420
    absent values ever are (about 2 expected; a 2-sd rule would mark about 470). Four
    reports of 100 for one value (GRR, ε = 0.5, d = 64, whose estimate is far above 1)
    do not make it seen, nor do seven at ε = 2."""
    d, n = 1024, 1_000_000
    grr = get_protocol("GRR", epsilon=1.0, domain_size=d)
    counts = np.zeros(d, dtype=np.int64)
    counts[:3] = [500_000, 300_000, 200_000]
    false = 0
    for seed in range(20):
        tallies = grr.sample_tallies(counts, np.random.default_rng(seed))
        reference = grr.estimate(grr.support_from_tallies(tallies), n)
        likelihood = SeparableLikelihood(
            tallies.astype(float), np.zeros(d), grr.p, grr.q, reference
        )
        assert likelihood.seen_mask[:3].all()
        false += int(likelihood.seen_mask[3:].sum())
    assert false <= 10, false

    small = get_protocol("GRR", epsilon=0.5, domain_size=64)
    hits = np.zeros(64)
    hits[0], hits[1:49] = 4, 2  # 100 reports
    reference = small.estimate(hits, 100)
    assert reference[0] > 1
    likelihood = SeparableLikelihood(hits, np.zeros(64), small.p, small.q, reference)
    assert likelihood.clear == 0 and likelihood.unseen.size == 64
    # Seven reports of 100 at ε = 2 rule out 0 (likelihood ratio 11 > 2.9²), but the share
    # is 0.61 ± 0.29, not fixed: not seen either.
    sharp = get_protocol("GRR", epsilon=2.0, domain_size=64)
    hits = np.zeros(64)
    hits[0], hits[1:64], hits[1:31] = 7, 1, 2  # 100 reports
    reference = sharp.estimate(hits, 100)
    likelihood = SeparableLikelihood(hits, np.zeros(64), sharp.p, sharp.q, reference)
    assert likelihood.clear == 0


def test_the_refresh_move_is_dropped_only_where_warmup_refused_it() -> None:
    """``settle`` ends the warmup: the widths stop adapting, and the refresh move stays
    unless its acceptance over the last windows was below the floor."""
    from ldpcore.stats.concentration import ConcentrationWalk, Hyperprior  # noqa: PLC0415

    for rates, kept in (([0.3] * 3 + [0.0] * 5, False), ([0.0] * 3 + [0.05] * 5, True)):
        walk = ConcentrationWalk(np.zeros(4), Hyperprior(0.1, 2.5))
        walk.refreshed = list(rates)
        walk.settle()
        assert not walk.adapt and walk.refresh is kept


def test_the_learned_prior_samples_hr_rows_at_alpha_half_or_above() -> None:
    """HR's rows mix values (not separable): α is sampled on the support counts the
    estimate implies, and HMC, which needs α >= ½, samples the rows' exact likelihood at
    the larger of α's median and ½."""
    rng = np.random.default_rng(5)
    hr = get_protocol("HR", epsilon=1.0, domain_size=6)
    rows = hr.sample_tallies(np.array([40, 20, 10, 5, 0, 0]), rng)
    estimate = hr.estimate(hr.support_from_tallies(rows), 75)
    posterior = Bayes(prior=LEARNED).posterior(estimate, protocol=hr, n=75, tallies=rows)
    assert posterior.learned_prior and posterior.concentration is None
    assert posterior.sampled_alpha is not None and posterior.sampled_alpha >= 0.5
    assert posterior.chains is not None  # HMC's own record
    assert abs(posterior.mean.sum() - 1) < 1e-12


# --- large n, determinism, warnings, the domain cap -------------------------------


@pytest.mark.parametrize("name", ["GRR", "OLH"])
def test_at_large_n_the_posterior_mean_is_the_mle(name: str) -> None:
    """MLE paper, Theorem 3.3: both are efficient, so they differ by o(1/√n)."""
    d, n = 8, 10**6
    protocol = get_protocol(name, epsilon=2.0, domain_size=d)
    truth = np.linspace(1, 2, d) / np.linspace(1, 2, d).sum()
    support = protocol.sample_support_counts(np.round(truth * n).astype(int), 11)
    estimate = protocol.estimate(support, n)
    posterior = Bayes().posterior(estimate, protocol=protocol, n=n)
    mle = get_method("MLE")(estimate, protocol=protocol, n=n)
    spread = posterior.draws.reshape(-1, d).std(axis=0)
    gap = np.abs(posterior.mean - mle)
    assert np.all(gap <= 0.1 * spread + 4.5 * posterior.standard_error()), (gap, spread)


def test_one_input_gives_one_output_and_the_seed_changes_the_draws() -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=5)
    estimate = np.array([0.5, 0.3, 0.1, 0.05, 0.05])
    first = get_method("Bayes")(estimate, protocol=protocol, n=500)
    np.testing.assert_array_equal(first, get_method("Bayes")(estimate, protocol=protocol, n=500))
    other = Bayes(seed=1)(estimate, protocol=protocol, n=500)
    assert not np.array_equal(first, other)
    assert abs(first.sum() - 1) < 1e-12 and first.min() >= 0


def test_an_unsettled_sampler_is_said_next_to_its_intervals() -> None:
    """The pages show the interval's note, not Python warnings: a sampler that stopped
    before its checks passed is said there, with its Monte Carlo error (1/√ESS of a
    posterior sd); a library caller of ``posterior`` still gets the warning."""
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=6)
    estimate = np.array([0.4, 0.3, 0.1, 0.1, 0.05, 0.05])
    short = Bayes(draws=20, warmup=20, min_ess=10_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said in the note, not warned
        found = short.with_intervals(estimate, protocol=protocol, n=2_000, level=0.9)
    assert caveats_note(found.caveats).startswith("Bayes's sampler had not settled")
    with pytest.warns(NotConverged, match="had not settled") as caught:
        posterior = short.posterior(estimate, protocol=protocol, n=2_000)
    warned = caught[0].message
    assert isinstance(warned, NotConverged) and isinstance(warned.fact, Unsettled)
    # The fact is the posterior's own numbers; the words say them.
    assert warned.fact.values_ess == posterior.values_ess < 10_000
    noise = 1 / np.sqrt(posterior.values_ess)
    assert f"Monte Carlo noise of up to {noise:.0%} of a posterior sd (1% at" in (
        not_converged_words(warned)
    )
    settled = Bayes().with_intervals(estimate, protocol=protocol, n=2_000, level=0.9)
    assert not any(isinstance(c, Unsettled) for c in settled.caveats)


def test_not_converged_is_held_back_and_other_warnings_pass_on() -> None:
    """The front ends' helper: NotConverged messages are returned, not warned; any
    other warning still reaches the caller."""
    from ldpcore.postprocess.ibu import said_not_converged  # noqa: PLC0415

    def noisy() -> int:
        warnings.warn(NotConverged("stopped early"), stacklevel=1)
        warnings.warn(RuntimeWarning("something else"), stacklevel=1)
        return 7

    with pytest.warns(RuntimeWarning, match="something else") as caught:
        result, said = said_not_converged(noisy)
    assert (result, [str(w) for w in said]) == (7, ["stopped early"])
    assert not_converged_words(said[0]) == "stopped early"  # no fact: the message
    assert not any(issubclass(w.category, NotConverged) for w in caught)


def test_too_few_draws_warn_and_an_experiment_reports_convergence() -> None:
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=6)
    short = Bayes(draws=20, warmup=20, min_ess=10_000)
    with pytest.warns(NotConverged, match="effective sample size"):
        posterior = short.posterior(np.full(6, 1 / 6), protocol=protocol, n=100)
    assert not posterior.converged
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Bayes().posterior(np.full(6, 1 / 6), protocol=protocol, n=100)

    config = ExperimentConfig(
        dataset="zipf:d=6", n=1000, protocol="GRR", epsilon=1.0, methods=("Bayes",), trials=2
    )
    summary = run(config).summary
    assert summary.set_index("method").loc["Bayes", "converged"] == 1.0  # share converged


def test_bayes_is_chosen_by_name_and_refuses_what_it_cannot_do() -> None:
    config = ExperimentConfig(dataset="zipf:d=8", n=100, protocol="GRR", epsilon=1.0)
    assert "Bayes" not in config.methods
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=5000)
    with pytest.raises(InputError, match="Bayes handles domains of at most 4,096 values"):
        Bayes()(np.full(5000, 1 / 5000), protocol=protocol, n=10**6)
    with pytest.raises(InputError, match="chains must be an integer in"):
        Bayes(chains=1)
    with pytest.raises(InputError, match="prior must be"):
        Bayes(prior="Jeffreys")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="one count per value"):
        informed_prior([3])
    with pytest.raises(InputError, match="non-negative numbers"):
        informed_prior([3, -1])
    with pytest.raises(InputError, match="weight must be a number of users > 0"):
        informed_prior([3, 1], weight=0)
    with pytest.raises(InputError, match="the prior histogram has 2 values but the domain has 3"):
        Bayes(prior=informed_prior([3, 1]))(
            np.full(3, 1 / 3), protocol=get_protocol("GRR", epsilon=1.0, domain_size=3), n=10
        )
    assert (
        informed_prior([3, 1], weight=5000)
        .in_words(2)
        .startswith("an informed prior worth 5,000 users")
    )


def test_the_pair_sampler_adds_chains_only_where_its_steps_are_overhead() -> None:
    """2× to 3× the chains asked for; above 2× only while chains × values ≤ 3,000.

    And the learned posterior's draws come from that many chains.
    """
    for asked in (2, 4, 8, 16):
        counts = [pair_chains(asked, d) for d in (2, 5, 64, 248, 750, 1024, 4096)]
        assert counts == sorted(counts, reverse=True)  # fewer chains as d grows
        for d, chains in zip((2, 5, 64, 248, 750, 1024, 4096), counts, strict=True):
            assert 2 * asked <= chains <= 3 * asked
            assert chains == 2 * asked or chains * d <= 3_000
    assert pair_chains(4, 64) > pair_chains(4, 1024) == 8
    oracle = get_protocol("OUE", epsilon=2.0, domain_size=64)
    counts = np.random.default_rng(3).multinomial(10_000, np.full(64, 1 / 64))
    support = oracle.sample_support_counts(counts, np.random.default_rng(4))
    estimate = oracle.estimate(support, 10_000)
    posterior = Bayes().posterior(estimate, protocol=oracle, n=10_000)
    assert posterior.draws.shape[0] == pair_chains(4, 64)


@pytest.mark.parametrize("prior", ["learned", "Jeffreys"])
def test_simultaneous_intervals_draw_about_40_beyond_each_tail(
    prior: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The draws an interval's tails need (``40 / tail`` in all) are shared by every chain
    the sampler runs: enough, and not three times too many under the pair sampler's
    extra chains (a class's simultaneous intervals: 0.75 s instead of 2 s)."""
    grr = get_protocol("GRR", epsilon=1.0, domain_size=7)
    counts = np.array([12, 6, 3, 3, 3, 2, 1])
    estimate = grr.estimate(grr.sample_support_counts(counts, np.random.default_rng(5)), 30)
    drawn: list[tuple[int, int]] = []
    original = Bayes.posterior

    def spy(self: Bayes, *args: object, **kwargs: object) -> object:
        posterior = original(self, *args, **kwargs)  # type: ignore[arg-type]
        drawn.append(posterior.draws.shape[:2])
        return posterior

    monkeypatch.setattr(Bayes, "posterior", spy)
    sampler = Bayes(prior=LEARNED if prior == "learned" else JEFFREYS)
    sampler.with_intervals(estimate, protocol=grr, n=30, level=0.95, simultaneous=True)
    ((chains, per_chain),) = drawn
    tail = 0.05 / 7 / 2  # Bonferroni over 7 values, two-sided
    assert chains == (pair_chains(4, 7) if prior == "learned" else 4)
    assert 40 <= chains * per_chain * tail < 60


def test_split_rhat_and_ess_on_known_chains() -> None:
    """Independent draws: R̂ ≈ 1, ESS ≈ the draws; chains stuck apart: R̂ ≫ 1;
    an AR(1) chain: ESS ≈ N (1 − ρ)/(1 + ρ)."""
    rng = np.random.default_rng(0)
    iid = rng.standard_normal((4, 1000, 3))
    rhat, ess = split_rhat_and_ess(iid)
    assert np.all(np.abs(rhat - 1) < 0.01) and np.all((ess > 3000) & (ess < 5000))
    apart = iid + np.arange(4)[:, None, None]
    assert np.all(split_rhat_and_ess(apart)[0] > 1.5)
    rho = 0.9
    chain = np.zeros((4, 20_000, 1))
    noise = rng.standard_normal(chain.shape) * np.sqrt(1 - rho**2)
    for t in range(1, chain.shape[1]):
        chain[:, t] = rho * chain[:, t - 1] + noise[:, t]
    expected = 4 * 20_000 * (1 - rho) / (1 + rho)
    assert abs(split_rhat_and_ess(chain)[1][0] / expected - 1) < 0.15


# --- simulation-based calibration (slow tier) ---------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("model", ["GRR reports", "support binomials"])
def test_simulation_based_calibration(model: str) -> None:
    """Talts et al. 2018: draw π from the prior, data from the model, and rank the true π
    among (thinned) posterior draws; the ranks are uniform iff the sampler is right.

    240 prior draws, d = 3, 10 rank bins per value; a χ² test per value at 0.1%.
    """
    d, n, runs, bins = 3, 60, 240, 10
    protocol = get_protocol("GRR" if model == "GRR reports" else "OUE", epsilon=1.0, domain_size=d)
    rng = np.random.default_rng(2026)
    ranks = np.empty((runs, d), dtype=int)
    sampler = Bayes(prior=JEFFREYS, draws=400, warmup=300)
    for index in range(runs):
        pi = rng.dirichlet(np.full(d, 0.5))
        if model == "GRR reports":  # users iid from π, then GRR: reports ~ Mult(n, Qπ)
            support = rng.multinomial(n, protocol.q + (protocol.p - protocol.q) * pi)
        else:  # the binomial model itself: c_v ~ Bin(n, q + (p − q) π_v)
            support = rng.binomial(n, protocol.q + (protocol.p - protocol.q) * pi)
        estimate = protocol.estimate(support, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotConverged)
            posterior = sampler.posterior(estimate, protocol=protocol, n=n)
        thinned = posterior.draws[:, ::16].reshape(-1, d)  # 100 draws, nearly independent
        ranks[index] = (thinned < pi).sum(axis=0)
    for v in range(d):
        observed = np.bincount(ranks[:, v] * bins // (len(thinned) + 1), minlength=bins)
        assert stats.chisquare(observed).pvalue > 1e-3, (v, observed)


def _from_the_hyperprior(
    protocol: FrequencyOracle, n: int, rng: np.random.Generator, *, multinomial: bool
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """``α`` from the learned prior's hyperprior, ``π ~ Dirichlet(α)`` and support counts.

    The counts come from the model the pipeline assumes: GRR's reports (a multinomial
    over the cells ``q + (p − q) π``) or independent binomials.
    """
    d = protocol.domain_size
    alpha = float(np.exp(rng.normal(np.log(hyperprior_centre(d)), HYPERPRIOR_LOG_SD)))
    pi = rng.dirichlet(np.full(d, alpha))
    rates = protocol.q + (protocol.p - protocol.q) * pi
    counts = rng.multinomial(n, rates) if multinomial else rng.binomial(n, rates)
    return alpha, pi, counts.astype(float)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["GRR reports", "support binomials"])
def test_simulation_based_calibration_of_the_pair_sampler(model: str) -> None:
    """SBC (Talts et al. 2018) for the sampler the learned prior uses, across the α its
    hyperprior reaches: each of 240 runs draws log α from the hyperprior, π ~ Dirichlet(α)
    and data from the model, then ranks the true π among thinned draws at that α.

    A power check as for HMC: the same ranks against draws at a wrong α (eight times the
    true one) must fail the same test, or the test could not see a miscalibrated
    sampler. (At α = ½ whatever the truth, p fell only to 0.001–0.02: a prior that
    wrong is a small error at n = 60, d = 3.)
    """
    d, n, runs, bins = 3, 60, 240, 10
    protocol = get_protocol("GRR" if model == "GRR reports" else "OUE", epsilon=1.0, domain_size=d)
    rng = np.random.default_rng(2027)
    ranks = np.empty((2, runs, d), dtype=int)
    for index in range(runs):
        alpha, pi, support = _from_the_hyperprior(
            protocol, n, rng, multinomial=model == "GRR reports"
        )
        misses = np.zeros(d) if model == "GRR reports" else n - support
        estimate = protocol.estimate(support, n)
        likelihood = SeparableLikelihood(support, misses, protocol.p, protocol.q, estimate)
        for row, at in enumerate((alpha, 8 * alpha)):
            log_pi = np.log(np.full((4, d), 1.0 / d))
            run_pairs(log_pi, np.full(d, at), likelihood, rng, steps=50, keep=False)
            draws, _, _ = run_pairs(log_pi, np.full(d, at), likelihood, rng, steps=250, keep=True)
            assert draws is not None
            thinned = draws[:, ::10].reshape(-1, d)  # 100 draws, nearly independent
            ranks[row, index] = (thinned < pi).sum(axis=0)
    for v in range(d):
        observed = np.bincount(ranks[0, :, v] * bins // 101, minlength=bins)
        assert stats.chisquare(observed).pvalue > 1e-3, (v, observed)
    wrong = [
        stats.chisquare(np.bincount(ranks[1, :, v] * bins // 101, minlength=bins)).pvalue
        for v in range(d)
    ]
    assert min(wrong) < 1e-3, wrong


@pytest.mark.slow
@pytest.mark.parametrize("name", ["GRR", "OUE"])
def test_simulation_based_calibration_of_the_learned_prior(name: str) -> None:
    """SBC of the whole default pipeline, ``Bayes(prior=LEARNED)``, over its hyperprior.

    Each of 200 runs draws ``log α`` from the hyperprior, ``π ~ Dirichlet(α)`` and
    support counts from the model the pipeline assumes (GRR's reports: a multinomial;
    OUE without tallies: independent binomials), then ranks the true π, and the true α,
    among 99 thinned posterior draws. α is sampled with π, so the ranks are uniform
    exactly; when α was a plug-in (empirical Bayes, session 20) GRR's failed here
    (p = 1e-7 to 1e-3, from the runs whose true α was below 0.05). Power: the same runs
    ranked against draws at eight times α's posterior median must fail the same test.
    """
    from ldpcore.postprocess.base import Context  # noqa: PLC0415
    from ldpcore.postprocess.posterior_draws import _separable  # noqa: PLC0415

    d, n, runs, bins, kept = 4, 200, 200, 10, 99
    protocol = get_protocol(name, epsilon=1.0, domain_size=d)
    rng = np.random.default_rng(2028)
    ranks = np.empty((2, runs, d), dtype=int)
    alpha_ranks = np.empty(runs, dtype=int)
    for index in range(runs):
        alpha, pi, support = _from_the_hyperprior(protocol, n, rng, multinomial=name == "GRR")
        estimate = protocol.estimate(support, n)
        with warnings.catch_warnings():
            # A run whose α mixed a little short still ranks fairly; counted below.
            warnings.simplefilter("ignore", NotConverged)
            posterior = Bayes(prior=LEARNED).posterior(estimate, protocol=protocol, n=n)
        assert posterior.concentration is not None
        alphas = posterior.concentration.draws[:, ::8].reshape(-1)
        alpha_ranks[index] = (
            alphas[np.linspace(0, len(alphas) - 1, kept).astype(int)] < alpha
        ).sum()
        wrong_alpha = np.full(d, 8 * posterior.concentration.median)
        likelihood = _separable(
            protocol.likelihood_model(estimate, n), estimate, Context(protocol=protocol, n=n)
        )
        log_pi = np.log(np.full((4, d), 1.0 / d))
        run_pairs(log_pi, wrong_alpha, likelihood, rng, steps=50, keep=False)
        wrong, _, _ = run_pairs(log_pi, wrong_alpha, likelihood, rng, steps=250, keep=True)
        assert wrong is not None
        for row, draws in enumerate((posterior.draws, wrong)):
            thinned = draws[:, ::8].reshape(-1, d)
            chosen = thinned[np.linspace(0, len(thinned) - 1, kept).astype(int)]
            ranks[row, index] = (chosen < pi).sum(axis=0)
    for v in range(d):
        observed = np.bincount(ranks[0, :, v] * bins // (kept + 1), minlength=bins)
        assert stats.chisquare(observed).pvalue > 1e-3, (v, observed)
    observed = np.bincount(alpha_ranks * bins // (kept + 1), minlength=bins)
    assert stats.chisquare(observed).pvalue > 1e-3, ("α", observed)
    power = [
        stats.chisquare(np.bincount(ranks[1, :, v] * bins // (kept + 1), minlength=bins)).pvalue
        for v in range(d)
    ]
    assert min(power) < 1e-3, power


def test_the_prior_is_flagged_where_it_shapes_the_answer() -> None:
    """Zipf d = 64: GRR at ε = 0.5 and n = 10⁴ sees almost nothing per value, so Jeffreys'
    32 pseudo-users decide (credible intervals covered 42–47% of frequent values); OLH at
    ε = 2 and n = 10⁶ decides by itself (benchmarks/README.md, Coverage)."""
    from ldpcore.data.datasets import zipf  # noqa: PLC0415
    from ldpcore.postprocess import estimates_with_intervals  # noqa: PLC0415

    for name, epsilon, n, shaped in (("GRR", 0.5, 10_000, True), ("OLH", 2.0, 10**6, False)):
        data = zipf(64, n, 1.5)
        protocol = get_protocol(name, epsilon=epsilon, domain_size=64)
        estimate = protocol.estimate(protocol.sample_support_counts(data.counts, 4), n)
        posterior = Bayes().posterior(estimate, protocol=protocol, n=n)
        assert posterior.prior_shapes_answer is shaped, posterior.prior_pull
        found = estimates_with_intervals(estimate, method="Bayes", protocol=protocol, n=n)
        assert ("The prior shapes these numbers" in caveats_note(found.caveats)) is shaped
        shapes = posterior.prior_shapes()
        assert (shapes is not None) is shaped
        if shapes is not None:
            assert (shapes.seen, shapes.pull) == (posterior.seen, posterior.prior_pull)
            assert "prefer MLE or Norm-Sub" in caveat_words(shapes)


def test_credible_intervals_reach_zero_where_the_posterior_piles_up_there() -> None:
    """A value no report supports: the shortest interval starts at 0, not at a draw."""
    protocol = get_protocol("GRR", epsilon=2.0, domain_size=4)
    support = np.array([600, 300, 100, 0])
    estimate = protocol.estimate(support, 1000)
    posterior = Bayes().posterior(estimate, protocol=protocol, n=1000)
    low, high = posterior.interval(0.95)
    assert low[3] == 0.0 < posterior.mean[3] < high[3]
    assert 0 < low[0] < posterior.mean[0] < high[0] < 1
    flat = posterior.draws.reshape(-1, 4)
    inside = (flat >= low) & (flat <= high)
    assert np.all(np.abs(inside.mean(axis=0) - 0.95) < 0.01)  # each holds 95% of the draws


@pytest.mark.parametrize("prior", [LEARNED, JEFFREYS])
def test_draws_for_intervals_run_until_their_tails_have_mixed(prior: object) -> None:
    """Vehtari et al. 2021, Sec. 4.3: an interval's ends lie in the tails, which the bulk
    ESS does not see; draws that serve intervals run until the tail ESS passes too."""
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=8)
    truth = np.array([40, 25, 15, 8, 5, 4, 2, 1]) * 100
    estimate = protocol.estimate(protocol.sample_support_counts(truth, 3), int(truth.sum()))
    n = int(truth.sum())
    plain = Bayes(prior=prior).posterior(estimate, protocol=protocol, n=n)
    assert plain.tail_ess is None and plain.values_ess == float(plain.ess.min())
    tails = Bayes(prior=prior, for_intervals=True).posterior(estimate, protocol=protocol, n=n)
    assert tails.tail_ess is not None and tails.converged
    assert float(tails.tail_ess.min()) >= 400 and float(tails.ess.min()) >= 400
    assert tails.max_rhat <= 1.05
    # The mean's own Monte Carlo error uses the classic ESS of the draws themselves.
    assert tails.mean_ess.shape == (8,) and np.all(tails.mean_ess > 0)
