"""R̂ and ESS (Vehtari et al. 2021) against a published implementation, exact values and a slow path.

* Reference values: ArviZ (``arviz-stats`` 0.8.0, ``array_stats.rhat(method="rank")`` and
  ``ess(method="bulk" | "tail")``), an implementation written independently of this one,
  on chains this file draws from a fixed seed.
* Exact values: a Gaussian AR(1) chain's integrated autocorrelation time is
  ``(1 + φ)/(1 − φ)``, and its indicator ``X ≤ q``'s follows from the bivariate normal
  (``P(X_0 ≤ q, X_t ≤ q)`` at correlation ``φ^t``): the bulk and tail ESS they imply.
* A slow path: ranks by ``scipy.stats.rankdata``, autocovariances by direct sums, and
  Geyer's initial monotone sequence in a loop.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy import special, stats

from ldpcore.stats.diagnostics import (
    RANKED_NUMBERS,
    gated,
    mixing,
    rank_normalise,
    split_rhat_and_ess,
    thinned,
)


def _ar1(phi: float, chains: int, n: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """Stationary Gaussian AR(1) chains ``(chains, n)`` with unit variance."""
    x = np.empty((chains, n))
    x[:, 0] = rng.standard_normal(chains)
    noise = rng.standard_normal((chains, n)) * math.sqrt(1 - phi**2)
    for t in range(1, n):
        x[:, t] = phi * x[:, t - 1] + noise[:, t]
    return x


def _reference_chains() -> tuple[list[str], NDArray[np.float64]]:
    rng = np.random.default_rng(2021)
    cases = {
        "AR(1), φ = 0.5": _ar1(0.5, 4, 1000, rng),
        "AR(1), φ = 0.9": _ar1(0.9, 4, 1000, rng),
        "Cauchy draws": rng.standard_cauchy((4, 1000)),
    }
    scale = rng.standard_normal((4, 1000))
    scale[3] *= 3  # one chain three times as wide: the folded R̂ sees it
    cases["one chain wider"] = scale
    shift = rng.standard_normal((4, 1000))
    shift[0] += 1  # one chain displaced: the bulk R̂ and ESS see it
    cases["one chain shifted"] = shift
    return list(cases), np.stack(list(cases.values()), axis=-1)


#: ArviZ's rank R̂, bulk ESS and tail ESS (5% and 95%) on :func:`_reference_chains`.
ARVIZ = {
    "AR(1), φ = 0.5": (1.001989, 1163.770, 2624.204),
    "AR(1), φ = 0.9": (1.028998, 242.870, 506.380),
    "Cauchy draws": (1.000301, 3896.085, 3917.453),
    "one chain wider": (1.135712, 3866.414, 37.741),
    "one chain shifted": (1.091085, 28.025, 122.752),
}


def test_r_hat_bulk_and_tail_ess_match_arviz() -> None:
    names, chains = _reference_chains()
    found = mixing(chains, tails=True)
    assert found.tail_ess is not None
    for k, name in enumerate(names):
        rhat, bulk, tail = ARVIZ[name]
        assert found.rhat[k] == pytest.approx(rhat, abs=1e-5), name
        # The ESS differ by at most 0.7% (how the last autocorrelation pair is summed).
        assert found.bulk_ess[k] == pytest.approx(bulk, rel=0.01), name
        assert found.tail_ess[k] == pytest.approx(tail, rel=0.01), name


def test_the_folded_r_hat_sees_a_chain_that_is_only_wider() -> None:
    names, chains = _reference_chains()
    classic, _ = split_rhat_and_ess(chains)
    ranked = mixing(chains).rhat
    wider = names.index("one chain wider")
    # Same mean in every chain: the classic R̂ passes it, the rank-normalised one does not.
    assert classic[wider] < 1.01
    assert ranked[wider] > 1.05


def _tail_tau(phi: float, quantile: float, lags: int) -> float:
    """The indicator ``X ≤ q``'s integrated autocorrelation time for a Gaussian AR(1)."""
    q = stats.norm.ppf(quantile)
    p = quantile
    total = 1.0
    for t in range(1, lags):
        r = phi**t
        if r < 1e-12:
            break
        joint = stats.multivariate_normal(mean=[0, 0], cov=[[1, r], [r, 1]]).cdf([q, q])
        total += 2 * (joint - p * p) / (p * (1 - p))
    return total


@pytest.mark.parametrize("phi", [0.3, 0.8])
def test_bulk_and_tail_ess_of_ar1_chains_are_their_exact_values(phi: float) -> None:
    rng = np.random.default_rng(7)
    chains, n, repeats = 4, 4000, 12
    draws = np.stack([_ar1(phi, chains, n, rng) for _ in range(repeats)], axis=-1)
    found = mixing(draws, tails=True)
    assert found.tail_ess is not None
    size = chains * n
    bulk = size * (1 - phi) / (1 + phi)
    tail = size / max(_tail_tau(phi, q, 200) for q in (0.05, 0.95))
    # Averaged over 12 independent sets of chains: each estimate's spread is about 5%
    # (measured over these seeds), so the mean's is about 1.5%; 5% is over 3 of them.
    assert float(found.bulk_ess.mean()) == pytest.approx(bulk, rel=0.05)
    assert float(found.tail_ess.mean()) == pytest.approx(tail, rel=0.08)
    assert float(np.abs(found.rhat - 1).max()) < 0.02


def _slow_ess(x: NDArray[np.float64]) -> float:
    """ESS of split chains ``(m, n)`` by direct sums (BDA3, Eq. 11.7–11.8; Geyer 1992)."""
    m, n = x.shape
    means = x.mean(axis=1)
    within = float(np.mean([np.var(chain, ddof=1) for chain in x]))
    var_plus = (n - 1) / n * within + float(np.var(means, ddof=1))
    rho = []
    for t in range(n):
        acov = np.mean([np.dot(c[: n - t] - c.mean(), c[t:] - c.mean()) / n for c in x])
        rho.append(1.0 - (within - acov) / var_plus)
    rho[0] = 1.0
    pairs = []
    for k in range(n // 2):
        pair = rho[2 * k] + rho[2 * k + 1]
        if pair <= 0:
            break
        pairs.append(min(pair, pairs[-1]) if pairs else pair)
    tau = max(-1.0 + 2.0 * sum(pairs), 1.0 / math.log10(m * n))
    return m * n / tau


def _slow_rhat(x: NDArray[np.float64]) -> float:
    n = x.shape[1]
    within = float(np.mean([np.var(chain, ddof=1) for chain in x]))
    var_plus = (n - 1) / n * within + float(np.var(x.mean(axis=1), ddof=1))
    return math.sqrt(var_plus / within)


def _slow_scores(x: NDArray[np.float64]) -> NDArray[np.float64]:
    ranks = stats.rankdata(x.ravel(), method="average").reshape(x.shape)
    return special.ndtri((ranks - 0.375) / (x.size + 0.25))


def test_mixing_equals_a_slow_path_with_ties() -> None:
    rng = np.random.default_rng(3)
    # Rounded to a grid, so that many draws tie (as the sampler's floored shares do).
    draws = np.round(np.cumsum(rng.normal(size=(3, 61, 4)), axis=1), 0)
    draws[:, :, 3] = 1e-304  # a value that never moves: R̂ 1 and the full size
    found = mixing(draws, tails=True)
    assert found.tail_ess is not None
    half = draws.shape[1] // 2
    for v in range(3):
        column = draws[:, :, v]
        split = np.concatenate((column[:, :half], column[:, -half:]), axis=0)
        z = _slow_scores(split)
        folded = _slow_scores(np.abs(split - np.median(split)))
        assert found.rhat[v] == pytest.approx(max(_slow_rhat(z), _slow_rhat(folded)), rel=1e-9)
        assert found.bulk_ess[v] == pytest.approx(_slow_ess(z), rel=1e-5)
        tails = [_slow_ess((split <= np.quantile(split, q)).astype(float)) for q in (0.05, 0.95)]
        assert found.tail_ess[v] == pytest.approx(min(tails), rel=1e-5)
    assert (found.rhat[3], found.bulk_ess[3]) == (1.0, 2 * 3 * half)


def test_rank_normalise_gives_tied_draws_their_average_rank() -> None:
    x = np.random.default_rng(1).integers(0, 5, size=(3, 40, 4)).astype(float)
    expected = np.stack([_slow_scores(x[:, :, v]) for v in range(4)], axis=-1)
    np.testing.assert_allclose(rank_normalise(x), expected, rtol=0, atol=1e-12)


def test_the_gate_refuses_on_the_classic_numbers_and_thins_large_draws() -> None:
    rng = np.random.default_rng(11)
    stuck = 10.0 * np.arange(4.0)[:, None, None] + rng.normal(size=(4, 200, 3))
    refused = gated(stuck, min_ess=100, max_rhat=1.05)
    assert not refused.ranked and not refused.passes(100, 1.05)
    mixed = gated(rng.normal(size=(4, 500, 3)), min_ess=100, max_rhat=1.05, tails=True)
    assert mixed.ranked and mixed.passes(100, 1.05) and mixed.tail_ess is not None
    big = np.zeros((8, 1000, 1024))
    kept = thinned(big)
    assert kept.size <= RANKED_NUMBERS < big.size and kept.base is big


def test_a_thinned_chain_s_ess_errs_low() -> None:
    # MacEachern and Berliner (1994): the whole chain's mean is at least as precise.
    rng = np.random.default_rng(5)
    draws = np.stack([_ar1(0.9, 4, 4000, rng) for _ in range(8)], axis=-1)
    whole = mixing(draws).bulk_ess
    every_fourth = mixing(draws[:, ::4]).bulk_ess
    assert float(every_fourth.mean()) < float(whole.mean())
