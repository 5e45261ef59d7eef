"""The ones-count test against fake users: its false alarms exactly, what it
catches and what it cannot see."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ldpcore.attacks.detection import screened, size_bounds, suspicious
from ldpcore.attacks.fakes import report_size_law, report_sizes
from ldpcore.attacks.gains import fake_reports
from ldpcore.errors import InputError
from ldpcore.protocols import get_protocol


@pytest.mark.parametrize("name", ["OUE", "SUE"])
def test_the_honest_size_law_is_the_randomizer_s(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=20)
    law = report_size_law(protocol)
    assert law is not None and law.sum() == pytest.approx(1.0)
    rng = np.random.default_rng(1)
    sizes = report_sizes(protocol, protocol.randomize(rng.integers(0, 20, size=40_000), rng))
    observed = np.bincount(sizes, minlength=21)
    expected = 40_000 * law
    keep = expected > 5  # chi-square cells with enough expected counts
    statistic = float(np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep]))
    assert stats.chi2.sf(statistic, keep.sum() - 1) > 1e-4


def test_honest_reports_are_flagged_no_more_often_than_the_false_alarm_rate() -> None:
    oue = get_protocol("OUE", epsilon=1.0, domain_size=64)
    bounds = size_bounds(oue, false_alarm=0.01)
    assert bounds is not None and bounds.rate <= 0.01
    rng = np.random.default_rng(2)
    reports = oue.randomize(rng.integers(0, 64, size=50_000), rng)
    flagged = suspicious(oue, reports, false_alarm=0.01).mean()
    # Within 4 binomial standard errors of the exact rate.
    assert abs(flagged - bounds.rate) <= 4 * np.sqrt(bounds.rate * (1 - bounds.rate) / 50_000)


def test_uniform_fake_reports_are_caught_and_padded_ones_are_not() -> None:
    oue = get_protocol("OUE", epsilon=1.0, domain_size=256)
    rng = np.random.default_rng(3)
    targets = np.array([5, 17])
    uniform = fake_reports(oue, "rpa", targets, 500, rng)
    padded = fake_reports(oue, "mga", targets, 500, rng)
    assert suspicious(oue, uniform).mean() > 0.99  # 128 ones against about 69
    assert not suspicious(oue, padded).any()  # the attacker counted too


def test_screening_removes_the_caught_fakes_from_the_estimate() -> None:
    """At d = 256 uniform reports have 128 ± 8 ones against an honest 69 ± 7: caught.
    (At d = 64, 32 ± 4 against 17 ± 3.5, the test lets most through: it needs d.)"""
    oue = get_protocol("OUE", epsilon=1.0, domain_size=256)
    rng = np.random.default_rng(4)
    honest = oue.randomize(rng.integers(0, 256, size=20_000), rng)
    fakes = fake_reports(oue, "rpa", np.array([3]), 2_000, rng)
    poisoned = np.concatenate([honest, fakes])
    estimate, dropped = screened(oue, poisoned)
    assert 1_990 <= dropped <= 2_005
    clean = oue.estimate(oue.aggregate(honest), 20_000)
    raw = oue.estimate(oue.aggregate(poisoned), 22_000)
    # Each uniform fake adds (½ − q)/(p − q) = 1 to every value's estimate over n + m.
    assert np.abs(raw - clean).mean() > 0.05
    assert np.abs(estimate - clean).max() < 0.01


def test_protocols_whose_reports_all_look_alike_flag_nothing() -> None:
    grr = get_protocol("GRR", epsilon=1.0, domain_size=16)
    reports = grr.randomize(np.arange(16), np.random.default_rng(5))
    assert size_bounds(grr) is None and not suspicious(grr, reports).any()
    with pytest.raises(InputError, match="a probability in"):
        size_bounds(grr, false_alarm=1.5)
