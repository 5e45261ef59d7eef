"""The attacker's view: Bayes-optimal guess rates, checked three independent ways.

1. Against ``Σ_y max_v π_v Q[y, v]`` over the explicitly enumerated channel (small d).
2. OLH against an ideal hash family enumerated in full (all ``g^d`` functions).
3. Against the real randomizers: simulate users, let a MAP attacker guess from
   each report, compare the success rate with the formula within k·σ.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from conftest import K_SIGMA
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpcore.attacks.guessing import guess_rate
from ldpcore.protocols import (
    GRR,
    DBitFlipPM,
    UnaryEncoding,
    get_protocol,
    protocol_class,
    protocol_names,
)
from ldpcore.protocols.olh import hash_values

ENUMERABLE = ("GRR", "OUE", "SUE", "SS", "HR")


def _enumerated(protocol_name: str, epsilon: float, prior: np.ndarray) -> float:
    oracle = get_protocol(protocol_name, epsilon=epsilon, domain_size=prior.size)
    channel = oracle.channel_matrix()
    return float(np.max(channel * prior[None, :], axis=1).sum())


@settings(max_examples=60)
@given(
    name=st.sampled_from(ENUMERABLE),
    d=st.integers(2, 9),
    epsilon=st.floats(0.05, 6.0),
    concentration=st.floats(0.1, 5.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_closed_forms_match_the_enumerated_channel(
    name: str, d: int, epsilon: float, concentration: float, seed: int
) -> None:
    prior = np.random.default_rng(seed).dirichlet(np.full(d, concentration))
    oracle = get_protocol(name, epsilon=epsilon, domain_size=d)
    assert guess_rate(oracle, prior) == pytest.approx(_enumerated(name, epsilon, prior), abs=1e-12)


@pytest.mark.parametrize("name", ENUMERABLE)
def test_ties_and_zero_prior_entries(name: str) -> None:
    for prior in (np.full(6, 1 / 6), np.array([0.5, 0.5, 0, 0, 0, 0]), np.eye(6)[2]):
        oracle = get_protocol(name, epsilon=1.0, domain_size=6)
        assert guess_rate(oracle, prior) == pytest.approx(_enumerated(name, 1.0, prior), abs=1e-12)


@pytest.mark.parametrize(("d", "g", "epsilon"), [(3, 2, 0.7), (4, 3, 1.5), (5, 2, 2.5)])
def test_olh_matches_the_ideal_hash_family_enumerated(d: int, g: int, epsilon: float) -> None:
    prior = np.random.default_rng(d).dirichlet(np.ones(d))
    e = math.exp(epsilon)
    total = 0.0
    for function in itertools.product(range(g), repeat=d):
        hashed = np.array(function)
        for bucket in range(g):
            likelihood = np.where(hashed == bucket, e, 1.0) / (e + g - 1)
            total += float(np.max(likelihood * prior))
    exact = total / g**d
    oracle = get_protocol("OLH", epsilon=epsilon, domain_size=d, g=g)
    assert guess_rate(oracle, prior) == pytest.approx(exact, rel=1e-9)


def _map_guesses(name: str, oracle, reports, prior: np.ndarray) -> np.ndarray:
    """The MAP guess for every report, computed from the report itself (slow path)."""
    return np.argmax(_likelihood(name, oracle, reports, prior.size) * prior[None, :], axis=1)


def _likelihood(name: str, oracle, reports, d: int) -> np.ndarray:
    """``P(report | v)`` up to a factor per report, one row per report, one column per v."""
    e = math.exp(oracle.epsilon)
    if oracle.composite:  # a hierarchy: the level's oracle reads its node, v its ancestor's
        rows = np.empty((len(reports.levels), d))
        for level, (inner, part) in enumerate(
            zip(oracle.levels, reports.reports, strict=True), start=1
        ):
            ancestors = np.arange(d) // oracle.layout.span(level)
            found = _likelihood(inner.name, inner, part, inner.domain_size)
            rows[reports.levels == level] = found[:, ancestors]
        return rows
    if isinstance(oracle, GRR):  # GRR-shaped channels (GRR, L-GRR): own p, others q
        likelihood = np.where(reports[:, None] == np.arange(d)[None, :], oracle.p, oracle.q)
    elif isinstance(oracle, UnaryEncoding):  # unary encodings: independent bits
        likelihood = np.where(reports, oracle.p, 1 - oracle.p) * np.where(
            reports, 1 / oracle.q, 1 / (1 - oracle.q)
        )
    elif name == "SS":
        likelihood = np.ones((len(reports), d))
        np.put_along_axis(likelihood, reports, e, axis=1)
    elif name == "HR":
        columns = np.arange(1, d + 1)[None, :]
        negative = np.bitwise_count(reports[:, None] & columns) & 1
        likelihood = np.where(negative == 1, 1 - oracle.p, oracle.p)
    elif name == "OLH":  # hash every candidate value with the report's own hash function
        values = np.arange(d)[None, :]
        hashed = hash_values(
            reports.multiplier[:, None], reports.offset[:, None], values, oracle.hash_range
        )
        likelihood = np.where(hashed == reports.bucket[:, None], e, 1.0)
    elif isinstance(oracle, DBitFlipPM):  # sampled values weighed by e^{±ε/2}, others 1
        m = oracle.sampled
        picks, bits = reports[:, :m], reports[:, m:]
        likelihood = np.ones((len(reports), d))
        rows = np.repeat(np.arange(len(reports)), m)
        likelihood[rows, picks.ravel()] = np.where(
            bits.ravel() == 1, math.exp(oracle.epsilon / 2), math.exp(-oracle.epsilon / 2)
        )
    elif name == "HaarHRR":  # the bit is v's Haar sign times H[row, v's node], kept with p
        padded = 1 << max(1, math.ceil(math.log2(d)))
        spans = padded >> (reports.levels - 1)
        values = np.arange(d)[None, :]
        node = values // spans[:, None]
        sign = np.where(values % spans[:, None] < spans[:, None] // 2, 1, -1)
        entry = 1 - 2 * (np.bitwise_count(reports.rows[:, None] & node) & 1)
        likelihood = np.where(sign * entry == reports.bits[:, None], e, 1.0)
    elif oracle.real_valued_reports:  # SHE: each coordinate's Laplace density, ratio form
        likelihood = np.exp(oracle.epsilon / 2 * np.clip(2 * reports - 1, -1, 1))
    else:
        # Any other protocol whose report is one output (a registered toy, a new one):
        # its channel row, enumerated (small d only).
        likelihood = oracle.channel_matrix()[np.asarray(reports, dtype=np.int64)]
    return likelihood


@pytest.mark.parametrize("name", [n for n in protocol_names() if n != "BLH"])
def test_real_randomizers_are_guessed_no_better_than_the_formula(name: str) -> None:
    d, epsilon, users = 12, 1.5, 40_000
    prior = np.sort(np.random.default_rng(7).dirichlet(np.full(d, 3.0)))[::-1]
    oracle = get_protocol(name, epsilon=epsilon, domain_size=d)
    generator = np.random.default_rng(11)
    values = generator.choice(d, size=users, p=prior)
    reports = oracle.randomize(values, generator)
    rate = float(np.mean(_map_guesses(name, oracle, reports, prior) == values))
    expected = guess_rate(oracle, prior)
    sigma = math.sqrt(expected * (1 - expected) / users)
    assert abs(rate - expected) < K_SIGMA * sigma, (name, rate, expected)
    # The report helps, and never beyond what e^ε allows: rate <= e^ε · prior-only rate.
    assert expected > prior.max() + 0.01
    assert prior.max() - 1e-12 <= expected <= math.exp(epsilon) * prior.max() + 1e-12


def test_scales_to_large_domains() -> None:
    prior = np.arange(1, 100_001, dtype=float) ** -1.1
    for name in protocol_names():
        most = protocol_class(name).max_domain
        if most is not None and most < prior.size:  # SW: at most 2,048 values
            continue
        rate = guess_rate(get_protocol(name, epsilon=2.0, domain_size=prior.size), prior)
        assert prior.max() / prior.sum() <= rate <= math.exp(2.0) * prior.max() / prior.sum()


@pytest.mark.parametrize(
    ("prior", "message"),
    [([0.5, 0.5], "needs 3 entries"), ([1, -1, 1], "non-negative"), ([0, 0, 0], "not all zero")],
)
def test_bad_priors(prior, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        guess_rate(get_protocol("GRR", epsilon=1.0, domain_size=3), prior)
