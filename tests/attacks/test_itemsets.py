"""The frequent-itemset detection: its statistic, its bound on honest collections'
false alarms, the itemset it finds under the maximal-gain attack, and its refusals."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ldpcore.attacks.fakes import reports as fake_reports
from ldpcore.attacks.itemsets import (
    contains_itemset,
    detect,
    grow_itemsets,
    kept_channel,
    pair_counts,
    pair_statistics,
    pair_threshold,
    screened_by_itemsets,
)
from ldpcore.errors import InputError
from ldpcore.protocols import get_protocol


def test_the_pair_statistic_is_its_definition() -> None:
    """T_uv = Σ_i (b_iu − q)(b_iv − q), report by report, as the module defines it."""
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=6)
    rng = np.random.default_rng(0)
    reports = protocol.randomize(rng.integers(0, 6, 300), rng)
    centred = reports.astype(float) - protocol.q
    slow = np.array([[sum(row[u] * row[v] for row in centred) for v in range(6)] for u in range(6)])
    np.fill_diagonal(slow, 0.0)
    np.testing.assert_allclose(
        pair_statistics(protocol, pair_counts(protocol, reports)), slow, atol=1e-9
    )


@pytest.mark.parametrize("name", ["OUE", "SUE"])
def test_honest_pairs_centre_on_zero_whatever_the_distribution(name: str) -> None:
    """Most users hold value 0: the pairs with 0 still average 0 (4σ over 400 collections)."""
    protocol = get_protocol(name, epsilon=1.0, domain_size=5)
    rng = np.random.default_rng(1)
    weights = np.array([0.7, 0.2, 0.05, 0.05, 0.0])
    stats = []
    for _ in range(400):
        values = rng.choice(5, size=1_000, p=weights)
        counts = pair_counts(protocol, protocol.randomize(values, rng))
        stats.append(pair_statistics(protocol, counts)[np.triu_indices(5, 1)])
    stats_array = np.array(stats)
    mean = stats_array.mean(axis=0)
    error = stats_array.std(axis=0, ddof=1) / math.sqrt(len(stats))
    assert np.all(np.abs(mean) < 4 * error), (mean, error)


def test_the_threshold_is_bernstein_s_root() -> None:
    protocol = get_protocol("OUE", epsilon=2.0, domain_size=50)
    p, q, n, alpha = protocol.p, protocol.q, 10_000, 1e-3
    t = pair_threshold(protocol, n, alpha)
    spread = q * (1 - q) * max(q * (1 - q), p * (1 - p) + (p - q) ** 2)
    bound = math.exp(-(t**2) / (2 * (n * spread + (1 - q) ** 2 * t / 3)))
    assert bound == pytest.approx(alpha / (50 * 49 / 2), rel=1e-9)


def test_honest_collections_raise_fewer_alarms_than_the_bound() -> None:
    """α = 0.3 so that alarms would be seen: 300 honest collections flag at most
    α of the time (3σ), and in fact far fewer (Bernstein and the union bound are loose)."""
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=8)
    rng = np.random.default_rng(2)
    alarms = 0
    for _ in range(300):
        values = rng.zipf(1.4, 800) % 8
        check = detect(protocol, pair_counts(protocol, protocol.randomize(values, rng)), 0.3)
        alarms += bool(check.itemsets)
    assert alarms / 300 <= 0.3 + 3 * math.sqrt(0.3 * 0.7 / 300)


@pytest.mark.parametrize("name", ["OUE", "SUE"])
def test_the_maximal_gain_attack_s_targets_are_the_itemset_found(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=64)
    rng = np.random.default_rng(3)
    n, m, targets = 30_000, 1_000, np.array([4, 21, 50])
    honest = protocol.randomize(rng.zipf(1.3, n) % 64, rng)
    reports = np.concatenate([honest, fake_reports(protocol, "mga", targets, m, rng)])
    check = detect(protocol, pair_counts(protocol, reports))
    assert check.itemsets == (tuple(targets.tolist()),)
    flagged = contains_itemset(protocol, reports, check.itemsets)
    assert flagged[n:].all()
    # Honest reports dropped with them: about p·q² of them at most (4σ above the bound).
    share = flagged[:n].mean()
    assert share <= check.honest_share + 4 * math.sqrt(check.honest_share / n)


def test_itemsets_grow_as_cliques_of_flagged_pairs() -> None:
    flagged = np.zeros((7, 7), dtype=bool)
    for u, v in [(0, 1), (0, 2), (1, 2), (4, 5), (2, 4)]:
        flagged[u, v] = flagged[v, u] = True
    strength = np.where(flagged, 1.0, 0.0)
    strength[0, 1] = strength[1, 0] = 5.0
    found = grow_itemsets(flagged, strength)
    assert found[0] == [0, 1, 2] and sorted(found[1:]) == [[2, 4], [4, 5]]


@pytest.mark.parametrize("name", ["GRR", "OLH", "SS"])
def test_protocols_whose_bits_are_not_independent_are_refused_in_words(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=16)
    reports = protocol.randomize(np.arange(16), np.random.default_rng(4))
    with pytest.raises(InputError, match="unary-encoding reports"):
        pair_counts(protocol, reports)


def test_an_impossible_false_alarm_is_refused() -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=16)
    with pytest.raises(InputError, match="probability in"):
        pair_threshold(protocol, 100, 1.5)


def test_the_kept_channel_is_every_report_enumerated() -> None:
    """Overlapping itemsets at d = 5: every one of the 32 reports, by brute force."""
    protocol = get_protocol("SUE", epsilon=1.5, domain_size=5)
    itemsets = ((1, 3), (3, 4))
    channel, kept = kept_channel(protocol, itemsets)
    p, q = protocol.p, protocol.q
    slow_channel, slow_kept = np.zeros((5, 5)), np.zeros(5)
    for x in range(5):
        for bits in itertools.product([0, 1], repeat=5):
            rates = [p if v == x else q for v in range(5)]
            chance = math.prod(r if b else 1 - r for r, b in zip(rates, bits, strict=True))
            if any(all(bits[v] for v in itemset) for itemset in itemsets):
                continue
            slow_kept[x] += chance
            slow_channel[:, x] += chance * np.array(bits)
    np.testing.assert_allclose(channel, slow_channel, atol=1e-15)
    np.testing.assert_allclose(kept, slow_kept, atol=1e-15)


def test_the_screened_estimate_is_unbiased_once_the_fakes_are_caught() -> None:
    """Maximal-gain fakes all caught: the targets' screened estimate centres on their
    truth (4σ over 60 collections), where dropping the reports alone pulls it below."""
    d, n, m = 32, 20_000, 800
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=d)
    rng = np.random.default_rng(5)
    weights = np.arange(d, 0, -1, dtype=float) ** 1.2
    weights /= weights.sum()
    values = rng.choice(d, size=n, p=weights)
    truth = np.bincount(values, minlength=d) / n
    targets = np.array([7, 19])
    screened, dropped_only = [], []
    for _ in range(60):
        honest = protocol.randomize(values, rng)
        reports = np.concatenate([honest, fake_reports(protocol, "mga", targets, m, rng)])
        estimate, _, check = screened_by_itemsets(protocol, reports)
        assert check.itemsets == (tuple(targets.tolist()),)
        screened.append(estimate[targets].sum())
        kept = reports[~contains_itemset(protocol, reports, check.itemsets)]
        dropped_only.append(protocol.estimate(protocol.aggregate(kept), len(kept))[targets].sum())
    error = np.std(screened, ddof=1) / math.sqrt(60)
    assert abs(np.mean(screened) - truth[targets].sum()) < 4 * error
    assert np.mean(dropped_only) < truth[targets].sum() - 10 * error
