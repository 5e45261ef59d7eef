"""An interval on every estimate: coverage, bounds, the CLI contract.

The intervals (ldpcore.postprocess.intervals) are score intervals for the true frequency from the
Base estimate's exact variance, widened to hold the method's estimate. They are checked
here against simulated collections (coverage for frequent and for rare values), as a
property over protocols, methods, ε and n, against the defining equation, and through
``ldpcore postprocess --interval``.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from command import ldpcore
from hypothesis import given
from hypothesis import strategies as st
from scipy import special

from ldpcore.data.datasets import zipf
from ldpcore.errors import InputError
from ldpcore.postprocess import estimates_with_intervals, method_class, method_names
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.postprocess.intervals import (
    CREDIBLE_LEVEL_MAX,
    base_variance_terms,
    frequency_intervals,
)
from ldpcore.protocols import get_protocol, protocol_class, protocol_names
from ldpcore.stats.bounded_normal import feldman_cousins


@pytest.mark.parametrize(
    "method",
    # Bayes samples a posterior per collection (about 50 s here): the slow tier.
    ["Base", "Norm-Sub", "MLE", "PowerNS", pytest.param("Bayes", marks=pytest.mark.slow)],
)
def test_coverage_for_frequent_and_rare_values(method: str) -> None:
    """GRR, d = 8, ε = 1, n = 2,000, Zipf(1.5): 100 seeded collections; 95% intervals
    cover between 90% and 99% of the time for the top value and for the bottom half.

    Bayes's are credible intervals under Jeffreys' prior, checked here for their
    frequentist coverage at one fixed truth."""
    data = zipf(8, 2000, 1.5)
    truth = data.frequencies()
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=8)
    order = np.argsort(-truth, kind="stable")
    frequent, rare = order[:1], order[4:]
    held = []
    for seed in range(100):
        rng = np.random.default_rng(seed)
        estimate = protocol.estimate(protocol.sample_support_counts(data.counts, rng), data.n)
        found = estimates_with_intervals(estimate, method=method, protocol=protocol, n=data.n)
        held.append((found.low <= truth) & (truth <= found.high))
    covered = np.array(held)
    assert 0.90 <= covered[:, frequent].mean() <= 0.99, covered[:, frequent].mean()
    assert 0.90 <= covered[:, rare].mean() <= 0.99, covered[:, rare].mean()


@given(
    # Flat protocols: a hierarchy's intervals are refused in words (test_hierarchy.py).
    protocol=st.sampled_from([p for p in protocol_names() if protocol_class(p).support_view]),
    method=st.sampled_from(method_names()),
    epsilon=st.sampled_from([0.1, 0.5, 1.0, 3.0, 8.0]),
    n=st.sampled_from([10, 1000, 10**6]),
    d=st.integers(2, 12),
    seed=st.integers(0, 2**16),
    level=st.sampled_from([0.5, 0.9, 0.95, 0.999]),
)
def test_intervals_lie_in_the_unit_interval_and_hold_their_estimate(
    *, protocol: str, method: str, epsilon: float, n: int, d: int, seed: int, level: float
) -> None:
    """What every method's intervals promise (Bayes's are credible intervals, to 99%)."""
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
    counts = np.random.default_rng(seed).multinomial(n, np.full(d, 1 / d))
    estimate = oracle.estimate(oracle.sample_support_counts(counts, seed), n)
    if method_class(method).interval_kind == "credible" and level > CREDIBLE_LEVEL_MAX:
        with pytest.raises(InputError, match="credible intervals go up to 99%"):
            estimates_with_intervals(estimate, method=method, protocol=oracle, n=n, level=level)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotConverged)  # a short chain still gives bounds
        found = estimates_with_intervals(estimate, method=method, protocol=oracle, n=n, level=level)
    low, high, point = found.low, found.high, found.point
    assert np.all((low >= 0) & (low <= high) & (high <= 1))
    inside = (point >= 0) & (point <= 1)
    assert np.all((low <= point) & (point <= high) | ~inside)


def test_bounds_solve_the_score_equation() -> None:
    """Interior bounds satisfy (f̃ − f)² = z² (A + B f), with A and B from NDSS Eq. 3, or,
    near zero, are the bounded-mean interval's (Feldman–Cousins in units of √A) where
    that one reaches further."""
    for name in ("GRR", "OUE", "HR"):  # B > 0, B < 0 and SUE-like cases
        oracle = get_protocol(name, epsilon=1.0, domain_size=16)
        estimate = np.array([0.3, 0.1, 0.02, 0.005, -0.03] + [0.605 / 11] * 11)
        low, high = frequency_intervals(estimate, protocol=oracle, n=10_000, level=0.9)
        a, b = base_variance_terms(oracle, 10_000)
        # A and B from the per-value variance of Bin(n f, p) + Bin(n (1 − f), q), directly.
        p, q, n = oracle.p, oracle.q, 10_000
        f = 0.2
        direct = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)
        assert a + b * f == pytest.approx(direct, rel=1e-12)
        z = float(special.ndtri(0.95))
        bounded = [v * math.sqrt(a) for v in feldman_cousins(estimate / math.sqrt(a), 0.9)]
        for bound, near in zip((low, high), bounded, strict=True):
            interior = (bound > 0) & (bound < 1)
            lhs = (estimate - bound) ** 2
            rhs = z**2 * (a + b * bound)
            score = np.isclose(lhs, rhs, rtol=1e-9)
            assert np.all((score | np.isclose(bound, near, rtol=1e-12))[interior])
            # Far from zero (the top value) the score interval stands alone.
            assert score[0], name
        # The value estimated below zero is not "certainly none".
        assert high[4] > 0.001, name


def test_postprocess_writes_an_interval_for_every_value(tmp_path: Path) -> None:
    source = tmp_path / "estimates.csv"
    source.write_text("value,estimate\na,0.5\nb,0.3\nc,0.25\nd,-0.05\n")
    common = ["postprocess", "--protocol", "GRR", "--epsilon", "1", "--n", "20000"]
    for method in ("Norm-Sub", "Base", "Bayes"):
        done = ldpcore(*common, "--method", method, "--input", str(source), "--interval", "0.95")
        assert done.returncode == 0, done.stderr
        table = pd.read_csv(pd.io.common.StringIO(done.stdout))
        assert list(table.columns) == ["value", "frequency", "low", "high"]
        assert (table["low"].ge(0) & table["low"].le(table["high"]) & table["high"].le(1)).all()
        inside = table["frequency"].between(0, 1)
        assert table.loc[inside, "low"].le(table.loc[inside, "frequency"]).all()
        assert table.loc[inside, "high"].ge(table.loc[inside, "frequency"]).all()
    # Without --interval the contract is unchanged.
    plain = ldpcore(*common, "--method", "Base", "--input", str(source))
    assert plain.stdout.splitlines()[0] == "value,frequency"
    bad = ldpcore(*common, "--method", "Base", "--input", str(source), "--interval", "95")
    assert bad.returncode == 2 and "0.95 for 95%" in bad.stderr
    assert math.isfinite(float(table["high"].iloc[0]))


def test_postprocess_takes_bayes_prior_from_a_histogram(tmp_path: Path) -> None:
    """``--prior FILE --prior-weight USERS``: matched by value; every misuse explained."""
    source = tmp_path / "counts.csv"
    source.write_text("value,count\na,700\nb,200\nc,100\n")
    prior = tmp_path / "census.csv"
    prior.write_text("value,count\nc,10\nb,30\na,60\nz,5\n")
    common = ["postprocess", "--protocol", "GRR", "--epsilon", "1", "--n", "1000"]
    common += ["--input", str(source), "--interval", "0.9"]

    def table(*extra: str) -> pd.DataFrame:
        done = ldpcore(*common, "--method", "Bayes", *extra)
        assert done.returncode == 0, done.stderr
        return pd.read_csv(pd.io.common.StringIO(done.stdout)).set_index("value")

    weak = table()
    informed = table("--prior", str(prior), "--prior-weight", "5000")
    # The weak prior follows the reports (a ≈ 1); 5,000 users of prior pull towards 60/30/10.
    assert weak.loc["a", "frequency"] > 0.95
    assert abs(informed.loc["a", "frequency"] - 0.6) < abs(weak.loc["a", "frequency"] - 0.6)
    for found in (weak, informed):
        assert (found["low"].le(found["frequency"]) & found["frequency"].le(found["high"])).all()
    for extra, message in (
        (("--method", "MLE", "--prior", str(prior)), "are for --method Bayes, not MLE"),
        (("--method", "Bayes", "--prior-weight", "10"), "goes with a histogram file"),
        (("--method", "Bayes", "--prior", str(tmp_path / "no.csv")), "that exists"),
        (("--method", "Bayes", "--interval", "0.999"), "credible intervals go up to 99%"),
    ):
        done = ldpcore(*common, *extra)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
