"""How many fake users lift a rare value into the top k: the closed form
against a plain search and against simulated collections."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from ldpcore.attacks import AttackSpec, poison
from ldpcore.attacks.fakes import chosen_padding
from ldpcore.attacks.gains import fake_rate
from ldpcore.attacks.reach import (
    best_support_rate,
    fakes_for_top_k,
    fakes_to_enter_top_k,
    top_k_chance,
)
from ldpcore.data.datasets import zipf
from ldpcore.protocols import get_protocol


def _by_search(protocol, f, n, target, k, *, kind="mga", limit=10**6) -> int | None:
    """The slow path: the expected estimates at m = 0, 1, 2, … until the target is in."""
    g = (fake_rate(protocol, kind, [target]) - protocol.q) / (protocol.p - protocol.q)
    for m in range(limit):
        expected = (n * f + m * g) / (n + m)
        if np.sum(np.delete(expected, target) >= expected[target]) < k:
            return m
    return None


@pytest.mark.parametrize("protocol", ["GRR", "OUE", "OLH", "SS", "HR"])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_the_closed_form_is_the_search(protocol: str, epsilon: float) -> None:
    data = zipf(32, 5_000)
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=32)
    f = data.frequencies()
    for target, k in [(31, 5), (20, 1), (2, 3)]:
        found = fakes_to_enter_top_k(oracle, f, data.n, target=target, k=k)
        assert found == _by_search(oracle, f, data.n, target, k), (target, k)


def test_a_smaller_epsilon_needs_fewer_fake_users() -> None:
    data = zipf(256, 100_000)
    f = data.frequencies()
    for protocol in ("GRR", "OUE", "OLH"):
        needed = [
            fakes_to_enter_top_k(
                get_protocol(protocol, epsilon=e, domain_size=256), f, data.n, target=200, k=10
            )
            for e in (0.5, 1.0, 2.0, 4.0)
        ]
        assert None not in needed and needed == sorted(set(needed)), needed


def test_at_the_number_the_target_enters_about_half_the_time() -> None:
    """In expectation means a coin flip at m*, and mostly in (out) at 2m* (m*/2): seeded
    collections of GRR at ε = 2 (the target's chance at 2m* and m*/2 differ from ½ by
    several sd of its estimate, so the bounds hold with room)."""
    data = zipf(64, 20_000)
    oracle = get_protocol("GRR", epsilon=2.0, domain_size=64)
    f = data.frequencies()
    needed = fakes_to_enter_top_k(oracle, f, data.n, target=50, k=5)
    assert needed is not None and needed > 0
    rng = np.random.default_rng(4)

    def entered(fakes: int, trials: int = 200) -> float:
        inside = 0
        for _ in range(trials):
            poisoned = poison(
                oracle, data.counts, AttackSpec("mga", fakes=fakes, targets=1), rng, targets=[50]
            )
            estimate = oracle.estimate(poisoned.support, poisoned.users)
            inside += int(np.sum(np.delete(estimate, 50) >= estimate[50]) < 5)
        return inside / trials

    assert 0.25 <= entered(needed) <= 0.75
    assert entered(2 * needed) >= 0.9
    assert entered(needed // 2) <= 0.1


def test_already_in_or_never() -> None:
    oracle = get_protocol("GRR", epsilon=1.0, domain_size=4)
    assert fakes_to_enter_top_k(oracle, [0.5, 0.3, 0.15, 0.05], 1000, target=0, k=1) == 0
    # Random perturbed values give every value the same push: the last stays last.
    assert (
        fakes_to_enter_top_k(oracle, [0.5, 0.3, 0.15, 0.05], 1000, target=3, k=1, kind="rpa")
        is None
    )
    with pytest.raises(ValueError, match="k must be between 1 and d"):
        fakes_to_enter_top_k(oracle, [0.5, 0.3, 0.15, 0.05], 1000, target=3, k=4)


def _simulated_chance(oracle, counts, rate, fakes, *, target, k, trials) -> float:
    """Honest support drawn exactly, the fake reports' support ``rate · m`` added."""
    rng = np.random.default_rng(fakes)
    fake = np.rint(rate * fakes).astype(np.int64)
    inside = 0
    for _ in range(trials):
        estimate = oracle.estimate(
            oracle.sample_support_counts(counts, rng) + fake, counts.sum() + fakes
        )
        inside += int(np.sum(np.delete(estimate, target) > estimate[target]) < k)
    return inside / trials


@pytest.mark.parametrize(("protocol", "epsilon"), [("SS", 1.0), ("OUE", 0.5), ("GRR", 1.0)])
def test_the_chance_model_is_the_simulated_chance(protocol: str, epsilon: float) -> None:
    """top_k_chance (normal estimates, independent values) against seeded collections,
    at counts where the target is in about a quarter, half and most of the time."""
    data = zipf(60, 50_000, s=1.1)
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=60)
    f = data.frequencies()
    needed = fakes_for_top_k(oracle, f, data.n, target=45, k=8)
    assert needed is not None and needed > 0
    for fakes in (int(needed * 0.8), needed, int(needed * 1.3)):
        rate = best_support_rate(oracle, f, data.n, fakes, target=45, k=8)
        rate = fake_rate(oracle, "mga", [45]) if rate is None else rate
        model = top_k_chance(oracle, f, data.n, fakes, rate=rate, target=45, k=8)
        found = _simulated_chance(oracle, data.counts, rate, fakes, target=45, k=8, trials=600)
        assert abs(found - model) <= 4.5 * np.sqrt(model * (1 - model) / 600) + 0.03, (
            fakes,
            found,
            model,
        )


@pytest.mark.parametrize("protocol", ["SS", "OUE"])
def test_the_best_attacker_needs_no_more_than_any_single_report(protocol: str) -> None:
    """Brute force at d = 8: every report that supports the target and as many others as
    a maximal-gain report must (all of them sent by every fake user), searched for the
    fewest fake users that reach the top k half the time; the best attacker's count is
    at most the best of them, and at most Cao et al.'s random padding."""
    d, target, k = 8, 6, 3
    oracle = get_protocol(protocol, epsilon=1.0, domain_size=d)
    f = zipf(d, 2_000, s=1.0).frequencies()
    padding = chosen_padding(oracle, 1)
    best = fakes_for_top_k(oracle, f, 2_000, target=target, k=k)
    maximal = fakes_for_top_k(oracle, f, 2_000, target=target, k=k, kind="mga")
    assert best is not None and maximal is not None and best <= maximal

    def fewest(rate: np.ndarray) -> float:
        for m in range(0, 20_000, 5):
            if top_k_chance(oracle, f, 2_000, m, rate=rate, target=target, k=k) >= 0.5:
                return m
        return np.inf

    others = [v for v in range(d) if v != target]
    pure = []
    for chosen in combinations(others, padding):
        rate = np.zeros(d)
        rate[[target, *chosen]] = 1.0
        pure.append(fewest(rate))
    assert best <= min(pure) + 5  # the search above steps by 5


@pytest.mark.parametrize(("small", "large", "most"), [(40, 5, 12), (4, 3, 2)])
def test_counts_below_is_the_product_of_the_events_generating_polynomials(
    small: int, large: int, most: int
) -> None:
    """Every event multiplied in one at a time, written here: chances on both sides of
    one half, some repeated (as a long tail's equal counts are), several columns."""
    from ldpcore.attacks.reach import counts_below  # noqa: PLC0415

    rng = np.random.default_rng(9)
    chances = np.concatenate([rng.uniform(0, 0.5, (small, 3)), rng.uniform(0.3, 1.0, (large, 3))])
    times = rng.integers(1, most + 1, size=chances.shape[0])
    k = 7
    slow = np.zeros((k, 3))
    slow[0] = 1.0
    for chance, count in zip(chances, times, strict=True):
        for _ in range(count):
            slow = np.vstack(
                [slow[:1] * (1 - chance), slow[1:] * (1 - chance) + slow[:-1] * chance]
            )
    np.testing.assert_allclose(counts_below(chances, k, times), slow, rtol=1e-9, atol=1e-300)
    if small < 10:  # a case whose probabilities are not all tiny
        assert slow.sum(axis=0).min() > 0.05
