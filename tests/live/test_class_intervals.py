"""Intervals a class of five can trust.

The exact interval (ldpcore.postprocess.intervals.exact_intervals) is checked against
an independent slow path (each k's distribution by direct convolution, no FFT), its
coverage is measured on seeded classes at class sizes (a part of the grid here, the
whole grid with 200 classes per cell in the slow tier), every method's interval must
hold it, and the check is shown to have power: the score interval the page used before
fails it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from devtools.class_intervals import (
    CLASS_SIZES,
    COMPOSITIONS,
    EPSILONS,
    OPTIONS,
    PROTOCOLS,
    cell,
    composition,
)
from ldpcore.live.reports import live_protocols
from ldpcore.postprocess import default_method_names, estimates_with_intervals
from ldpcore.postprocess.intervals import (
    EXACT_MAX_N,
    _score_intervals,
    exact_intervals,
    frequency_intervals,
    support_counts,
)
from ldpcore.present.run_sentences import caveats_note
from ldpcore.protocols import get_protocol, protocol_names

#: Chance that a correct interval fails one cell's check (over all cells: ≤ 1e-3).
FALSE_ALARM = 1e-3


def floor(classes: int, cells: int, level: float = 0.95) -> float:
    """The lowest coverage a ≥ ``level`` interval shows in ``classes`` classes, but rarely.

    The ``FALSE_ALARM / cells`` quantile of Bin(classes, level), as a share.
    """
    return float(stats.binom.ppf(FALSE_ALARM / cells, classes, level)) / classes


def slow_interval(count: int, n: int, p: float, q: float, level: float) -> tuple[float, float]:
    """The exact interval by its definition, one k at a time (direct convolution).

    Every k neither of whose tails at ``count`` is at most ``(1 − level) / 2``; where that
    is no k or one k alone, joined with the k whose likelihood-ratio acceptance region
    (Feldman–Cousins: each k's counts by ``P(c | k) / max_k' P(c | k')``, kept until they
    hold ``level``) holds ``count``.
    """
    tail = (1 - level) / 2
    pmfs = [
        np.convolve(
            stats.binom.pmf(np.arange(k + 1), k, p), stats.binom.pmf(np.arange(n - k + 1), n - k, q)
        )
        for k in range(n + 1)
    ]
    kept = [
        k
        for k, pmf in enumerate(pmfs)
        if pmf[: count + 1].sum() > tail and pmf[count:].sum() > tail
    ]
    if len(kept) <= 1:
        best = [max(pmf[c] for pmf in pmfs) for c in range(n + 1)]
        for k, pmf in enumerate(pmfs):
            ranked = sorted(range(n + 1), key=lambda c: -(pmf[c] / best[c] if best[c] else 0.0))
            held = 0.0
            for c in ranked:
                if held >= level:
                    break
                held += pmf[c]
                if c == count:
                    kept.append(k)
    return min(kept) / n, max(kept) / n


@pytest.mark.parametrize("name", ["GRR", "OUE", "OLH", "SS", "HR"])
@pytest.mark.parametrize("n", [1, 2, 5, 17, 60])
def test_exact_intervals_match_their_definition(name: str, n: int) -> None:
    protocol = get_protocol(name, epsilon=1.5, domain_size=6)
    rng = np.random.default_rng(n)
    for _ in range(3):
        counts = protocol.sample_support_counts(rng.multinomial(n, np.full(6, 1 / 6)), rng)
        low, high = exact_intervals(counts, protocol=protocol, n=n, level=0.9)
        for v in range(6):
            assert (low[v], high[v]) == pytest.approx(
                slow_interval(int(counts[v]), n, protocol.p, protocol.q, 0.9)
            )


def test_support_counts_come_back_from_every_protocols_estimate() -> None:
    for name in protocol_names():
        protocol = get_protocol(name, epsilon=1.0, domain_size=9)
        if not protocol.support_view:  # no support count per value: nothing to come back
            continue
        counts = protocol.sample_support_counts(np.arange(9) * 3, 4)
        back = support_counts(protocol.estimate(counts, 108), protocol=protocol, n=108)
        if protocol.real_valued_reports:  # SHE's sums are no counts: the score interval
            assert back is None, name
            continue
        assert back is not None and np.array_equal(back, counts), name
    grr = get_protocol("GRR", epsilon=1.0, domain_size=3)
    # A typed estimate is not counts (the score interval is used), nor is a large n.
    assert support_counts([0.5, 0.3, 0.2], protocol=grr, n=10) is None
    assert support_counts(grr.estimate([400, 300, 301], 1001), protocol=grr, n=1001) is None
    assert EXACT_MAX_N < 1001


def _check_cells(classes: int, cells: list[tuple[str, int, float, int, str]]) -> None:
    least = floor(classes, len(cells))
    results = [cell(*c, classes=classes, seed=36) for c in cells]
    for found in results:
        where = (found.protocol, found.options, found.epsilon, found.n, found.composition)
        # Simultaneous 95%: each option and all options at once hold at least 95%.
        assert found.all_at_once >= least, (where, found.all_at_once, least)
        if found.n == 1:
            assert found.reported_holds_zero, where
    # The check has power: the score interval the page showed before fails it.
    assert min(found.score_worst for found in results) < least


def test_coverage_at_class_sizes_quick() -> None:
    cells = list(
        itertools.product(PROTOCOLS, (2, 7), (0.5, 4.0), (1, 5, 30), ("four in five", "even"))
    )
    _check_cells(200, cells)


@pytest.mark.slow
def test_coverage_at_class_sizes_full_grid() -> None:
    """The issue's grid: 3 protocols × 4 option counts × 4 ε × 6 class sizes × 3 classes."""
    cells = list(itertools.product(PROTOCOLS, OPTIONS, EPSILONS, CLASS_SIZES, COMPOSITIONS))
    assert len(cells) == 864
    _check_cells(200, cells)


def test_one_report_never_rules_out_that_it_was_someone_elses() -> None:
    """The issue's example: GRR, ε = 1, 7 options, one report of option 0."""
    grr = get_protocol("GRR", epsilon=1.0, domain_size=7)
    estimate = grr.estimate(np.eye(7, dtype=np.int64)[0], 1)
    for method in default_method_names():
        found = estimates_with_intervals(
            estimate, method=method, protocol=grr, n=1, simultaneous=True
        )
        assert found.low[0] == 0.0 and found.high[0] == 1.0, method
        # Per option (the CLI's default) too: a report of 0 from another option has
        # probability 6q = 0.69, far above the 2.5% a tail may reject.
        alone = estimates_with_intervals(estimate, method=method, protocol=grr, n=1)
        assert alone.low[0] == 0.0, method


@settings(max_examples=40, deadline=None)
@given(
    protocol=st.sampled_from(live_protocols()),
    method=st.sampled_from(default_method_names()),
    epsilon=st.sampled_from([0.5, 1.0, 2.0, 4.0]),
    n=st.sampled_from([1, 2, 5, 15, 60, EXACT_MAX_N]),
    d=st.integers(2, 10),
    seed=st.integers(0, 2**16),
)
def test_every_methods_interval_holds_the_exact_one(
    *, protocol: str, method: str, epsilon: float, n: int, d: int, seed: int
) -> None:
    """So the exact interval's coverage is a floor for every method the page shows."""
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
    rng = np.random.default_rng(seed)
    counts = oracle.sample_support_counts(rng.multinomial(n, rng.dirichlet(np.ones(d))), rng)
    estimate = oracle.estimate(counts, n)
    for simultaneous in (False, True):
        low, high = frequency_intervals(
            estimate, protocol=oracle, n=n, level=0.95, simultaneous=simultaneous
        )
        found = estimates_with_intervals(
            estimate, method=method, protocol=oracle, n=n, simultaneous=simultaneous
        )
        assert np.all(found.low <= low + 1e-12) and np.all(found.high >= high - 1e-12)


def test_bayes_at_class_sizes_holds_the_exact_interval_and_says_so() -> None:
    """Jeffreys' prior would overrule five reports; the page's interval cannot."""
    grr = get_protocol("GRR", epsilon=1.0, domain_size=7)
    truth = composition("four in five", 5, 7)
    estimate = grr.estimate(grr.sample_support_counts(truth, 1), 5)
    found = estimates_with_intervals(estimate, method="Bayes", protocol=grr, n=5)
    low, high = frequency_intervals(estimate, protocol=grr, n=5)
    assert np.all(found.low <= low) and np.all(found.high >= high)
    assert "widened to hold the exact 95% confidence interval" in caveats_note(found.caveats)


def test_the_score_interval_still_serves_large_collections() -> None:
    """Above EXACT_MAX_N nothing changed: the score interval, per value."""
    grr = get_protocol("GRR", epsilon=1.0, domain_size=4)
    estimate = grr.estimate(grr.sample_support_counts(np.array([500, 300, 150, 51]), 3), 1001)
    assert np.allclose(
        frequency_intervals(estimate, protocol=grr, n=1001),
        _score_intervals(estimate, protocol=grr, n=1001, level=0.95),
    )


def test_postprocess_at_class_size_through_the_command_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """One OUE report at ε = 4 (a non-holder sets a bit with chance 1.8%): per value the
    95% interval of a set bit may exclude 0; simultaneous over 4 values it may not."""
    import pandas as pd  # noqa: PLC0415
    from command import ldpcore  # noqa: PLC0415

    source = tmp_path / "counts.csv"
    source.write_text("value,count\na,1\nb,0\nc,0\nd,1\n")
    common = ["postprocess", "--protocol", "OUE", "--epsilon", "4", "--n", "1"]
    common += ["--method", "Norm-Sub", "--input", str(source)]
    alone = ldpcore(*common, "--interval", "0.95")
    together = ldpcore(*common, "--interval", "0.95", "--simultaneous")
    assert alone.returncode == 0 and together.returncode == 0, alone.stderr + together.stderr
    per_value = pd.read_csv(pd.io.common.StringIO(alone.stdout))
    joint = pd.read_csv(pd.io.common.StringIO(together.stdout))
    # q = 0.018 < 2.5%: the set bits' shares exclude 0 (down to Norm-Sub's own 50%).
    assert per_value["low"].tolist() == [0.5, 0.0, 0.0, 0.5]
    assert joint["low"].tolist() == [0.0] * 4  # q = 0.018 > 0.625%
    bad = ldpcore(*common, "--simultaneous")
    assert bad.returncode == 2 and "add --interval 0.95" in bad.stderr
