"""Repeated collection: the memoized chains' budgets, T-round sampler, variance and attack.

Every statistical check is seeded, with k·σ bounds from the analytic variance, and each
formula is checked against a path that does not use it: the report sequences enumerated,
the per-user simulation, the published closed forms.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from conftest import K_SIGMA

from ldpcore.attacks.guessing import guess_rate
from ldpcore.errors import InputError
from ldpcore.protocols import PROTOCOLS, Memoized, get_protocol, protocol_class
from ldpcore.protocols.repeated import (
    average_variance,
    epsilon_after,
    lifetime_epsilon,
    one_shot_form,
    sample_rounds,
)
from ldpcore.protocols.rounds import Chain

MEMOIZED = [name for name, cls in PROTOCOLS.items() if issubclass(cls, Memoized)]
CHAINED = [
    name
    for name in PROTOCOLS
    if get_protocol(name, epsilon=1.0, domain_size=4).rounds_chain() is not None
]


def test_the_shipped_memoized_chains_are_registered() -> None:
    assert {"L-GRR", "L-OSUE", "L-SUE", "L-OUE", "L-SOUE"} <= set(MEMOIZED)


@pytest.mark.parametrize("name", MEMOIZED)
@pytest.mark.parametrize(("epsilon", "lifetime"), [(0.5, 1.0), (1.0, 2.0), (1.0, 5.0), (3.0, 4.0)])
def test_one_report_spends_eps1_and_the_memo_eps_inf(
    name: str, epsilon: float, lifetime: float
) -> None:
    try:
        protocol = get_protocol(name, epsilon=epsilon, domain_size=6, epsilon_inf=lifetime)
    except InputError as error:
        # An OUE-like fresh round keeps a one with ½ at best, so one report cannot spend
        # all of ε∞: the message names the most it can, and that much is reached.
        most = float(str(error).split("at most ")[1].split(" ")[0])
        assert protocol_class(name).fresh_round.kind == "optimized" and most < epsilon
        protocol = get_protocol(name, epsilon=most * 0.999, domain_size=6, epsilon_inf=lifetime)
        epsilon = most * 0.999
    # One report: the enumerated channel's worst ratio is e^ε₁ exactly.
    assert math.log(protocol.worst_case_ratio()) == pytest.approx(epsilon, rel=1e-9)
    # The memo: its own channel (the first round) is at ε∞.
    first = protocol.first_round(epsilon=lifetime, domain_size=6)
    assert protocol.chain.p1 == first.p and protocol.chain.q1 == first.q
    assert lifetime_epsilon(protocol) == pytest.approx(lifetime, rel=1e-12)


def _sequence_probabilities(chain: Chain, rounds: int) -> np.ndarray:
    """``P[s, v]``: every sequence of ``rounds`` reports, each memo summed over (slow path)."""
    d = chain.domain_size
    if chain.shape == "value":
        memos = [np.eye(d, dtype=bool)[m] for m in range(d)]
        first = np.full((d, d), chain.q1)
        np.fill_diagonal(first, chain.p1)  # first[m, v] = P(memo m | value v)
        outputs = list(itertools.product(range(d), repeat=rounds))

        def given_memo(sequence: tuple[int, ...], m: int) -> float:
            q2 = (1 - chain.p2) / (d - 1)
            return math.prod(chain.p2 if y == m else q2 for y in sequence)

        return np.array(
            [
                [sum(first[m, v] * given_memo(s, m) for m in range(d)) for v in range(d)]
                for s in outputs
            ]
        )
    memos = [np.array(bits, dtype=bool) for bits in itertools.product([0, 1], repeat=d)]
    outputs = list(itertools.product(memos, repeat=rounds))
    table = np.zeros((len(outputs), d))
    for v in range(d):
        for memo in memos:
            own = np.where(np.arange(d) == v, chain.p1, chain.q1)
            weight = np.prod(np.where(memo, own, 1 - own))
            for index, sequence in enumerate(outputs):
                keep = np.where(memo, chain.p2, chain.q2)
                table[index, v] += weight * math.prod(
                    float(np.prod(np.where(y, keep, 1 - keep))) for y in sequence
                )
    return table


@pytest.mark.parametrize("name", ["L-GRR", "L-OSUE", "L-SOUE", "GRR", "OUE"])
@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_epsilon_after_t_reports_is_the_worst_sequence_s(name: str, rounds: int) -> None:
    d = 3
    protocol = get_protocol(name, epsilon=0.8, domain_size=d)
    chain = protocol.rounds_chain()
    assert chain is not None
    table = _sequence_probabilities(chain, rounds)
    assert table.sum(axis=0) == pytest.approx(np.ones(d), abs=1e-12)
    worst = max(
        float(np.max(table[:, v] / table[:, w])) for v in range(d) for w in range(d) if v != w
    )
    assert epsilon_after(protocol, rounds) == pytest.approx(math.log(worst), rel=1e-9)


@pytest.mark.parametrize("name", CHAINED)
def test_epsilon_after_grows_to_the_lifetime_bound_and_no_further(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=16)
    spent = [epsilon_after(protocol, t) for t in (1, 2, 5, 30, 365)]
    assert spent[0] == pytest.approx(protocol.spent_epsilon(), rel=1e-9)
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(spent))
    if isinstance(protocol, Memoized):
        assert spent[-1] <= protocol.epsilon_inf * (1 + 1e-9)
        assert spent[-1] == pytest.approx(protocol.epsilon_inf, rel=1e-3)
    else:
        assert spent[-1] == pytest.approx(365 * protocol.spent_epsilon(), rel=1e-12)
        assert lifetime_epsilon(protocol) == math.inf


def test_the_fresh_rounds_match_the_published_closed_forms() -> None:
    e1, ei, d = 1.0, 2.5, 10
    # L-OSUE (Arcolezi et al., Sec. 3): p₂ = (1 − e^{ε₁+ε∞}) / (e^{ε₁} − e^{ε∞} − e^{ε₁+ε∞} + 1).
    osue = get_protocol("L-OSUE", epsilon=e1, domain_size=d, epsilon_inf=ei).chain
    expected = (1 - math.exp(e1 + ei)) / (math.exp(e1) - math.exp(ei) - math.exp(e1 + ei) + 1)
    assert osue.p2 == pytest.approx(expected, rel=1e-12)
    assert osue.q2 == pytest.approx(1 - expected, rel=1e-12)
    # L-GRR: one report's ratio [p₁p₂ + (1 − p₁)q₂]/[q₁p₂ + (1 − q₁)q₂] = e^{ε₁} is linear in
    # p₂ (q₂ = (1 − p₂)/(d − 1)); solved by hand here.
    lgrr = get_protocol("L-GRR", epsilon=e1, domain_size=d, epsilon_inf=ei).chain
    p1, q1, k = lgrr.p1, lgrr.q1, math.exp(e1)
    # a·p₂ + b·(1 − p₂)/(d − 1) = k·(c·p₂ + g·(1 − p₂)/(d − 1)), a = p₁, b = 1 − p₁, ...
    a, b, c, g = p1, 1 - p1, q1, 1 - q1
    p2 = (k * g - b) / ((d - 1) * (a - k * c) - b + k * g)
    assert lgrr.p2 == pytest.approx(p2, rel=1e-10)
    # RAPPOR's chain: two symmetric rounds make a symmetric report, SUE at ε₁ itself.
    sue = get_protocol("L-SUE", epsilon=e1, domain_size=d, epsilon_inf=ei)
    same = get_protocol("SUE", epsilon=e1, domain_size=d)
    assert (sue.p, sue.q) == pytest.approx((same.p, same.q), rel=1e-12)


def test_a_lifetime_budget_below_one_report_s_is_refused() -> None:
    with pytest.raises(InputError, match=r"epsilon_inf .* must be at least epsilon"):
        get_protocol("L-GRR", epsilon=2.0, domain_size=8, epsilon_inf=1.0)
    # ε∞ = ε₁: the fresh round keeps everything (GRR's form can), or cannot (OUE's keeps ½).
    equal = get_protocol("L-GRR", epsilon=1.0, domain_size=8, epsilon_inf=1.0)
    assert equal.chain.p2 == 1.0
    with pytest.raises(InputError, match="one report's ε can be at most"):
        get_protocol("L-OUE", epsilon=1.0, domain_size=8, epsilon_inf=1.0)
    with pytest.raises(InputError, match="epsilon_inf must be a number"):
        get_protocol("L-OSUE", epsilon=1.0, domain_size=8, epsilon_inf=float("nan"))
    default = get_protocol("L-OSUE", epsilon=15.0, domain_size=8)
    assert default.epsilon_inf == 20.0  # twice ε₁, within the accepted range


@pytest.mark.parametrize("name", CHAINED)
def test_the_average_s_variance_is_eq3_at_one_round(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.2, domain_size=8)
    f = np.linspace(1, 8, 8) / 36
    assert average_variance(protocol, f, 5000, 1) == pytest.approx(
        protocol.variance(f, 5000), rel=1e-12
    )


@pytest.mark.parametrize("name", ["L-GRR", "L-OSUE", "L-SOUE", "GRR", "OUE", "OLH"])
def test_t_rounds_fast_and_per_user_agree_with_the_formulas(name: str) -> None:
    """Each round's counts, the rounds' covariance and the average's variance, both paths."""
    d, n, rounds, trials = 5, 400, 6, 1500
    protocol = get_protocol(name, epsilon=1.0, domain_size=d)
    counts = np.array([160, 100, 80, 40, 20])
    f = counts / n
    rng = np.random.default_rng(57)
    for sampler in ("fast", "per-user"):
        draws = np.stack(
            [sample_rounds(protocol, counts, rounds, rng, sampler=sampler) for _ in range(trials)]
        )  # (trials, rounds, d)
        estimates = (draws / n - protocol.q) / (protocol.p - protocol.q)
        # Every round is unbiased with Eq. 3's variance.
        one = protocol.variance(f, n)
        mean = estimates.mean(axis=(0, 1))
        assert np.all(np.abs(mean - f) < K_SIGMA * np.sqrt(one / (trials * rounds) * rounds))
        per_round = estimates[:, 0, :].var(axis=0, ddof=1)
        spread = one * math.sqrt(2 / (trials - 1))
        assert np.all(np.abs(per_round - one) < K_SIGMA * spread), (sampler, per_round, one)
        # The average over the rounds: the permanent round's share stays.
        average = estimates.mean(axis=1).var(axis=0, ddof=1)
        expected = average_variance(protocol, f, n, rounds)
        spread = expected * math.sqrt(2 / (trials - 1))
        assert np.all(np.abs(average - expected) < K_SIGMA * spread), (sampler, average, expected)


def test_memoization_keeps_the_average_from_converging() -> None:
    """The floor: averaging 365 rounds helps a one-shot protocol 365×, a memoized one far less."""
    f = np.full(16, 1 / 16)
    fresh = get_protocol("GRR", epsilon=1.0, domain_size=16)
    memo = get_protocol("L-GRR", epsilon=1.0, domain_size=16, epsilon_inf=2.0)
    assert average_variance(fresh, f, 10_000, 365) == pytest.approx(fresh.variance(f, 10_000) / 365)
    gain = memo.variance(f, 10_000) / average_variance(memo, f, 10_000, 365)
    assert np.all((gain > 1) & (gain < 10)), gain


def test_rounds_are_checked() -> None:
    protocol = get_protocol("L-GRR", epsilon=1.0, domain_size=4)
    for bad in (0, 1.5, 10**6):
        with pytest.raises(InputError, match="rounds must be an integer"):
            sample_rounds(protocol, [1, 2, 3, 4], bad, 0)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["L-GRR", "L-OSUE"])
def test_averaging_learns_no_more_than_the_memo_allows(name: str) -> None:
    """A user's 200 reports averaged: right about as often as the memo alone allows."""
    d, users = 8, 20_000
    protocol = get_protocol(name, epsilon=0.5, domain_size=d, epsilon_inf=1.5)
    fresh = get_protocol(name.replace("L-", "").replace("OSUE", "OUE"), epsilon=0.5, domain_size=d)
    rng = np.random.default_rng(3)
    values = rng.integers(0, d, size=users)
    bound = guess_rate(protocol.first_round(epsilon=1.5, domain_size=d), np.ones(d))
    memo_rate = float(np.mean(protocol.chain.guesses_after(values, 200, rng) == values))
    sigma = math.sqrt(bound * (1 - bound) / users)
    assert memo_rate <= bound + K_SIGMA * sigma
    assert memo_rate >= bound - 0.03  # 200 reports reveal nearly all of the memo
    # Without memoization the same ε₁ per report reveals the value.
    chain = fresh.rounds_chain()
    assert chain is not None
    assert float(np.mean(chain.guesses_after(values, 1000, rng) == values)) > 0.99
    # One report: the guess is right no more often than one report's channel allows.
    one = float(np.mean(protocol.chain.guesses_after(values, 1, rng) == values))
    limit = guess_rate(protocol, np.ones(d))
    assert abs(one - limit) < K_SIGMA * math.sqrt(limit * (1 - limit) / users)


def test_dbitflip_pm_sends_one_response_per_value_every_round() -> None:
    """Permanent memoization: the same counts each round, ε spent once, no averaging gain."""
    flip = get_protocol("dBitFlipPM", epsilon=1.0, domain_size=16, d_bits=3)
    counts = np.arange(1, 17) * 10
    rounds = sample_rounds(flip, counts, 12, 5)
    assert np.all(rounds == rounds[0])
    again = sample_rounds(flip, counts, 12, 5, sampler="per-user")
    assert np.all(again == again[0]) and again.sum() > 0
    assert epsilon_after(flip, 1000) == lifetime_epsilon(flip) == 1.0
    f = counts / counts.sum()
    assert average_variance(flip, f, 1360, 12) == pytest.approx(flip.variance(f, 1360))
    # Its fresh form composes and averages as independent rounds do.
    fresh = one_shot_form(flip)(epsilon=1.0, domain_size=16, d_bits=3)
    assert epsilon_after(fresh, 30) == pytest.approx(30.0) and math.isinf(lifetime_epsilon(fresh))
    assert average_variance(fresh, f, 1360, 12) == pytest.approx(flip.variance(f, 1360) / 12)
    assert not np.all(sample_rounds(fresh, counts, 3, 5) == sample_rounds(fresh, counts, 3, 5)[0])


@pytest.mark.parametrize("d_bits", [1, 2, 4])
def test_dbitflip_pm_spends_eps_with_two_bits_and_half_with_one(d_bits: int) -> None:
    flip = get_protocol("dBitFlipPM", epsilon=2.0, domain_size=6, d_bits=d_bits)
    assert math.log(flip.worst_case_ratio()) == pytest.approx(flip.spent_epsilon())
    assert flip.spent_epsilon() == (2.0 if d_bits >= 2 else 1.0)
    from ldpcore.protocols import ratio_from_matrix  # noqa: PLC0415

    assert ratio_from_matrix(flip.channel_matrix()) == pytest.approx(flip.worst_case_ratio())
    # Ding et al.'s p and q: a sampled value's bit, times the chance it is sampled.
    a = math.exp(1.0) / (math.exp(1.0) + 1)
    assert (flip.p, flip.q) == pytest.approx((d_bits / 6 * a, d_bits / 6 * (1 - a)))
