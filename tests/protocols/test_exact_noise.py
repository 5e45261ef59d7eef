"""SHE's noise drawn exactly: Bernoulli(e^{−γ}) and discrete Laplace from uniform integers.

The sampler's output law is held against the law computed independently (scipy's
``dlaplace``) by χ² tests, it is shown to use no floating-point draw at all (a source
that has only integers runs it), and SHE's worst ratio is read from the law that runs.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import K_SIGMA
from scipy import stats

from ldpcore.errors import InputError
from ldpcore.protocols import SHE
from ldpcore.protocols.exact_noise import (
    bernoulli_exp,
    discrete_laplace,
    discrete_laplace_pmf,
    dyadic_rate,
)
from ldpcore.protocols.she import GRID_STEPS, noise_epsilon
from ldpcore.rng import SecureRandom


class IntegersOnly:
    """A source with uniform integers and nothing else: a float draw would fail."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def integers(self, low, high, size=None, dtype=np.int64, endpoint=False):
        return self._rng.integers(low, high, size=size, dtype=dtype, endpoint=endpoint)


@pytest.mark.parametrize(("u", "t"), [(0, 9), (1, 1), (3, 7), (7, 7), (1, 1 << 52), (5, 128)])
def test_bernoulli_exp_has_probability_e_to_minus_u_over_t(u: int, t: int) -> None:
    draws = 200_000
    found = bernoulli_exp(IntegersOnly(u + t), np.full(draws, u), t).mean()
    chance = math.exp(-u / t)
    assert abs(found - chance) <= K_SIGMA * math.sqrt(chance * (1 - chance) / draws) + 1e-12


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 5.0])
@pytest.mark.parametrize("source", ["integers only", "secure"])
def test_the_noise_is_discrete_laplace_exactly(epsilon: float, source: str) -> None:
    """χ² of the steps against scipy's law (cells with expectation ≥ 20, tails pooled)."""
    rate = dyadic_rate(epsilon / (2 * GRID_STEPS))
    draws = 60_000 if source == "secure" else 200_000
    rng = SecureRandom() if source == "secure" else IntegersOnly(int(epsilon * 10))
    steps = discrete_laplace(rng, draws, rate)
    law = stats.dlaplace(float(rate))
    edge = int(law.ppf(0.995))
    cells = np.arange(-edge, edge + 1)
    observed = np.array([np.sum(steps < -edge), *[np.sum(steps == k) for k in cells]])
    observed = np.append(observed, np.sum(steps > edge))
    expected = np.array([law.cdf(-edge - 1), *law.pmf(cells), law.sf(edge)]) * draws
    # Pool neighbouring cells so each expects at least 20 draws.
    pooled_o, pooled_e, o_acc, e_acc = [], [], 0.0, 0.0
    for o, e in zip(observed, expected, strict=True):
        o_acc, e_acc = o_acc + o, e_acc + e
        if e_acc >= 20:
            pooled_o.append(o_acc)
            pooled_e.append(e_acc)
            o_acc = e_acc = 0.0
    pooled_o[-1] += o_acc
    pooled_e[-1] += e_acc
    pooled_e = np.array(pooled_e) * draws / np.sum(pooled_e)
    assert stats.chisquare(pooled_o, pooled_e).pvalue > 1e-5
    np.testing.assert_allclose(discrete_laplace_pmf(cells, rate), law.pmf(cells), rtol=1e-9)


class NoFloats(SecureRandom):
    """The OS's secure source, as a real client has it, with its float draw taken away."""

    def random(self, size=None):
        raise AssertionError("the randomizer drew a float")


def test_she_s_randomizer_draws_no_float() -> None:
    """What runs for a real user is integers only: no 53-bit uniform, no logarithm."""
    she = SHE(epsilon=1.0, domain_size=6)
    reports = she.randomize(np.arange(6).repeat(50), NoFloats())
    steps = reports * GRID_STEPS
    assert np.array_equal(steps, np.round(steps))


@pytest.mark.parametrize("epsilon", [0.25, 1.0, 0.1, 3.7, 8.0])
def test_the_worst_ratio_is_read_from_the_law_that_runs(epsilon: float) -> None:
    """e^{ε'} with ε' the dyadic ε the noise is drawn at: ε itself where ε is a multiple
    of 2⁻⁴⁵, else at most 2⁻⁴⁵ below it; never above e^ε (δ = 0)."""
    she = SHE(epsilon=epsilon, domain_size=4)
    exact = noise_epsilon(epsilon)
    assert Fraction(exact) * (1 << 45) == int(Fraction(exact) * (1 << 45))
    assert 0 <= epsilon - exact < 2**-45
    if epsilon in (0.25, 1.0, 8.0):
        assert exact == epsilon
    assert she.worst_case_ratio() == pytest.approx(math.exp(exact), rel=1e-12)
    assert she.worst_case_ratio() <= math.exp(epsilon) * (1 + 1e-15)


def test_rates_that_cannot_be_drawn_exactly_are_refused() -> None:
    with pytest.raises(InputError, match="noise rate"):
        dyadic_rate(1e-18)
    with pytest.raises(InputError, match="numerator"):
        bernoulli_exp(np.random.default_rng(0), np.array([5]), 4)
