"""Fake users: the attacks' gains against Cao, Jia and Gong's formulas and by
simulation, the fast draws against the fake reports themselves, and the reports' validity.

* Closed forms: Cao, Jia and Gong, USENIX Security 2021, Sec. 4 (GRR, OUE, OLH), written
  out here from the paper, against :func:`ldpcore.attacks.expected_gain`, which derives
  them for any protocol from its rates.
* Simulation: the mean poisoned estimate of every target over seeded trials within
  4 standard errors of ``f_t + gain_t``, the variance from NDSS Eq. (3) for the honest
  reports plus ``m ρ(1 − ρ)`` for the fake ones (exact where the fake reports are
  independent; an upper bound for GRR's maximal gain, whose fake reports are fixed).
* The fast sampler against the reports: each value's mean and variance of the fake
  support counts from both paths against ``m ρ`` and ``m ρ (1 − ρ)``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldpcore.attacks import AttackSpec, expected_gain, fake_rate, fakes, parse_attack, poison
from ldpcore.attacks.gains import fake_reports, fake_support
from ldpcore.collection.report_files import aggregate_file, csv_parameter_line, reports_to_frame
from ldpcore.errors import InputError
from ldpcore.protocols import get_protocol
from ldpcore.protocols.olh import hash_values

CAO_PROTOCOLS = ("GRR", "OUE", "OLH")
#: The shipped protocols (make test-toys adds a toy that describes no attack of its own).
SHIPPED = (
    "GRR",
    "OLH",
    "BLH",
    "OUE",
    "SUE",
    "SHE",
    "THE",
    "SS",
    "HR",
    "L-GRR",
    "L-OSUE",
    "L-SUE",
    "L-OUE",
    "L-SOUE",
    "dBitFlipPM",
)
DESCRIBED = ("GRR", "OUE", "SUE", "THE", "OLH", "BLH", "SS", "HR")


def _cao(name: str, kind: str, *, epsilon: float, d: int, r: int, f_t: float, beta: float) -> float:
    """The gains as Cao et al. state them (OLH's with its own p and q)."""
    e = math.exp(epsilon)
    if kind == "ria":
        return beta * (1 - f_t)
    if name == "GRR":
        if kind == "rpa":
            return beta * (r / d - f_t)
        return beta * (1 - f_t) + beta * (d - r) / (e - 1)
    if name == "OUE":
        if kind == "rpa":
            return beta * (r - f_t)
        return beta * (2 * r - f_t) + 2 * beta * r / (e - 1)
    protocol = get_protocol("OLH", epsilon=epsilon, domain_size=d)
    p, q = protocol.p, protocol.q
    return -beta * f_t if kind == "rpa" else beta * (r * (1 - q) / (p - q) - f_t)


@pytest.mark.parametrize("name", CAO_PROTOCOLS)
@pytest.mark.parametrize("kind", ["rpa", "ria", "mga"])
@pytest.mark.parametrize(("epsilon", "d", "r"), [(0.5, 16, 1), (1.0, 1024, 3), (4.0, 64, 2)])
def test_the_closed_form_gain_is_cao_et_al_s(
    name: str, kind: str, epsilon: float, d: int, r: int
) -> None:
    protocol = get_protocol(name, epsilon=epsilon, domain_size=d)
    truth = np.random.default_rng(d).dirichlet(np.ones(d))
    targets = np.arange(r) * 3
    beta = 0.05
    f_t = float(truth[targets].sum())
    expected = _cao(name, kind, epsilon=epsilon, d=d, r=r, f_t=f_t, beta=beta)
    assert expected_gain(protocol, kind, targets, truth, beta) == pytest.approx(expected, rel=1e-12)


def test_the_issue_s_headline_figure() -> None:
    """GRR, d = 1,024, ε = 1, 5% fake users on one target: a gain of about 29.8."""
    grr = get_protocol("GRR", epsilon=1.0, domain_size=1024)
    truth = np.full(1024, 1 / 1024)
    assert expected_gain(grr, "mga", [7], truth, 0.05) == pytest.approx(29.8, abs=0.05)


CASES = [
    (name, kind, epsilon, d, beta, r)
    for name in DESCRIBED
    for kind in ("rpa", "ria", "mga")
    for epsilon, d, beta, r in ((0.5, 32, 0.05, 1), (2.0, 64, 0.2, 3))
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: "-".join(map(str, case)))
def test_the_simulated_gain_is_the_closed_form(
    case: tuple[str, str, float, int, float, int],
) -> None:
    name, kind, epsilon, d, beta, r = case
    name, kind, epsilon, d, beta, r = case
    protocol = get_protocol(name, epsilon=epsilon, domain_size=d)
    n, trials = 20_000, 300
    truth = np.random.default_rng(1).dirichlet(np.full(d, 0.5))
    counts = np.random.default_rng(2).multinomial(n, truth)
    f = counts / n
    targets = np.array([1, 5, 9][:r])
    attack = AttackSpec(kind, beta=beta, targets=r)
    m = attack.fake_users(n)
    users = n + m
    p, q = protocol.p, protocol.q
    estimates = np.empty((trials, r))
    rng = np.random.default_rng(3)
    for trial in range(trials):
        found = poison(protocol, counts, attack, rng, targets=targets)
        assert found.users == users and found.fakes == m
        estimates[trial] = (found.support[targets] / users - q) / (p - q)
    rate = fake_rate(protocol, kind, targets)[targets]
    share = m / users
    mean = f[targets] + share * ((rate - q) / (p - q) - f[targets])
    honest = n * (q * (1 - q) + f[targets] * (p - q) * (1 - p - q))
    spread = np.sqrt((honest + m * rate * (1 - rate)) / trials) / (users * (p - q))
    assert np.all(np.abs(estimates.mean(axis=0) - mean) <= 4 * spread), (
        estimates.mean(axis=0),
        mean,
        spread,
    )
    # The closed form is the same gain, summed over the targets (β here is m / (n + m)).
    gain = expected_gain(protocol, kind, targets, f, share)
    assert gain == pytest.approx(float((mean - f[targets]).sum()), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", DESCRIBED)
def test_no_fake_users_is_exactly_the_honest_run(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=16)
    counts = np.arange(16) * 10
    honest = protocol.sample_support_counts(counts, np.random.default_rng(4))
    for kind in ("rpa", "ria", "mga"):
        found = poison(protocol, counts, AttackSpec(kind, beta=0.0, targets=2), 4)
        assert found.fakes == 0 and found.users == counts.sum()
        assert np.array_equal(found.support, honest)


@pytest.mark.parametrize("name", DESCRIBED)
@pytest.mark.parametrize("kind", ["rpa", "ria", "mga"])
def test_the_fast_fake_support_is_the_fake_reports_in_distribution(name: str, kind: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=12)
    targets = np.array([2, 7])
    fakes, trials = 200, 300
    rate = fake_rate(protocol, kind, targets)
    rng = np.random.default_rng(5)
    fast = np.array([fake_support(protocol, kind, targets, fakes, rng) for _ in range(trials)])
    slow = np.array(
        [
            protocol.aggregate(fake_reports(protocol, kind, targets, fakes, rng))
            for _ in range(trials)
        ]
    )
    variance = fakes * rate * (1 - rate)
    error = np.sqrt(np.maximum(variance, 1e-12) / trials)
    # Means within 4 standard errors; a fixed count (GRR's maximal gain) exactly.
    assert np.all(np.abs(fast.mean(axis=0) - fakes * rate) <= 4 * error + 1e-9)
    slack = np.zeros(12)
    if kind == "mga" and name in {"OLH", "BLH"}:
        # The real hash family is not the ideal hash: given that the targets collide,
        # the other values fall into their bucket a few per cent more or less often
        # than 1/g (here up to 7%). The targets' counts are exact either way.
        assert np.all(slow[:, targets] == fakes)
        slack = 0.1 * fakes * rate
    assert np.all(np.abs(slow.mean(axis=0) - fakes * rate) <= 4 * error + slack + 1e-9)
    # Variances: GRR's maximal gain is fixed; the others are sums of independent fakes.
    if not (name == "GRR" and kind == "mga"):
        moving = variance > 0
        ratio = fast.var(axis=0, ddof=1)[moving] / variance[moving]
        assert np.all((ratio > 0.7) & (ratio < 1.4)), ratio
        ratio = slow.var(axis=0, ddof=1)[moving] / variance[moving]
        assert np.all((ratio > 0.7) & (ratio < 1.4)), ratio


@pytest.mark.parametrize("name", DESCRIBED)
@pytest.mark.parametrize("kind", ["rpa", "ria", "mga"])
def test_fake_reports_are_valid_reports_and_survive_a_report_file(
    name: str, kind: str, tmp_path
) -> None:
    """The server cannot refuse them by format: they go through a report file and back."""
    protocol = get_protocol(name, epsilon=1.0, domain_size=10)
    targets = np.array([0, 4])
    reports = fake_reports(protocol, kind, targets, 50, np.random.default_rng(6))
    path = tmp_path / "fake.csv"
    path.write_text(csv_parameter_line(protocol) + "\n", encoding="utf-8")
    reports_to_frame(protocol, reports, text=True).to_csv(path, mode="a", index=False)
    counts, users = aggregate_file(protocol, path)
    assert users == 50 and np.array_equal(counts, protocol.aggregate(reports))
    if kind == "mga":
        assert np.all(counts[targets] >= (50 // 2 if name == "GRR" else 50))


def test_the_maximal_gain_hash_sends_every_target_to_the_reported_bucket() -> None:
    olh = get_protocol("OLH", epsilon=1.0, domain_size=100)
    targets = np.array([3, 40, 77])
    reports = fake_reports(olh, "mga", targets, 30, np.random.default_rng(7))
    hashed = hash_values(
        reports.multiplier[:, None], reports.offset[:, None], targets[None, :], olh.hash_range
    )
    assert np.all(hashed == reports.bucket[:, None])


def test_unary_encoding_s_maximal_gain_report_has_an_honest_number_of_ones() -> None:
    oue = get_protocol("OUE", epsilon=1.0, domain_size=64)
    reports = fake_reports(oue, "mga", np.array([1, 2, 3]), 20, np.random.default_rng(8))
    honest_ones = oue.p + 63 * oue.q
    assert np.all(reports.sum(axis=1) == math.floor(honest_ones))


def test_attack_specs_read_back_and_say_what_to_change() -> None:
    spec = parse_attack("MGA:beta=0.05, targets=3")
    assert spec == AttackSpec("mga", beta=0.05, targets=3) and parse_attack(str(spec)) == spec
    assert parse_attack("ria:fakes=500").fake_users(10_000) == 500
    assert AttackSpec("rpa", beta=0.2).fake_users(8_000) == 2_000  # 2,000 of 10,000
    assert spec.in_words() == "5% fake users, maximal gain on 3 targets (drawn at random)"
    for text in ("mga:beta=0.05,targets=2,pick=rarest", "ria:fakes=9,pick=Kale+3"):
        assert parse_attack(str(parse_attack(text))) == parse_attack(text)
    assert parse_attack("ria:fakes=9,pick=Kale+3").targets == 2
    for bad, message in (
        ("xyz:beta=0.1", "unknown attack 'xyz'"),
        ("mga:beta=0.7", "between 0 and 0.5"),
        ("mga:beta=0.1,fakes=3", "not both"),
        ("mga:targets=0", "at least 1"),
        ("mga:targets=1.5", "number of values"),
        ("mga:speed=2", "unknown attack option"),
        ("mga:targets=3,pick=a+b", "2 named target"),
    ):
        with pytest.raises(InputError, match=message):
            parse_attack(bad)


def test_every_registered_protocol_takes_every_attack() -> None:
    for name in SHIPPED:
        protocol = get_protocol(name, epsilon=1.0, domain_size=16)
        for kind in ("rpa", "ria", "mga"):
            if name == "SHE" and kind == "mga":  # real reports: no bounded maximal gain
                with pytest.raises(InputError, match="its gain has no bound"):
                    poison(protocol, np.full(16, 10), AttackSpec(kind, beta=0.1), 0)
                continue
            assert poison(protocol, np.full(16, 10), AttackSpec(kind, beta=0.1), 0).fakes == 18


def test_an_attack_a_protocol_does_not_describe_is_said() -> None:
    grr = get_protocol("GRR", epsilon=1.0, domain_size=16)
    with pytest.raises(InputError, match="does not describe the 'xyz' attack; it takes ria, mga"):
        fakes.support(grr, "xyz", np.array([1]), 5, np.random.default_rng(0))
    olh = get_protocol("BLH", epsilon=1.0, domain_size=64)
    with pytest.raises(InputError, match="use at most 17 targets"):
        fake_reports(olh, "mga", np.arange(30), 5, np.random.default_rng(0))


def test_the_shipped_list_is_the_registry_s() -> None:
    """A protocol added to the registry without its fake reports fails here."""
    import ldpcore.protocols  # noqa: PLC0415 (read at test time: the toys may be in)

    shipped = {
        name
        for name, cls in ldpcore.protocols.PROTOCOLS.items()
        if not cls.__module__.startswith("toy_") and cls.support_view
    }
    assert shipped == set(SHIPPED)


@pytest.mark.parametrize("name", ["TreeOUE", "TreeOLH"])
def test_value_attacks_on_a_hierarchy_point_to_its_range_attack(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=16)
    rng = np.random.default_rng(0)
    attack = AttackSpec("ria", beta=0.05, targets=2)
    for call in (
        lambda: poison(protocol, np.full(16, 10), attack, rng),
        lambda: fake_reports(protocol, "ria", [1, 2], 5, rng),
        lambda: expected_gain(protocol, "ria", [1, 2], np.full(16, 1 / 16), 0.05),
    ):
        with pytest.raises(InputError, match=r"not values: its fake users push a range up"):
            call()


def test_subset_selection_takes_more_targets_than_a_subset_holds_in_turn() -> None:
    ss = get_protocol("SS", epsilon=2.0, domain_size=32, k=3)
    targets = np.array([1, 4, 9, 16, 25])
    rate = fake_rate(ss, "mga", targets)
    assert np.allclose(rate[targets], 3 / 5) and rate.sum() == pytest.approx(3)
    reports = fake_reports(ss, "mga", targets, 10, np.random.default_rng(1))
    fast = fake_support(ss, "mga", targets, 10, np.random.default_rng(2))
    assert np.array_equal(ss.aggregate(reports), fast)
    assert np.array_equal(ss.aggregate(reports)[targets], [6, 6, 6, 6, 6])


@pytest.mark.parametrize(("name", "kind"), [("GRR", "rpa"), ("OLH", "mga"), ("OUE", "ria")])
def test_a_poisoned_collection_keeps_the_honest_run_s_own_reports(name: str, kind: str) -> None:
    """The honest part of a poisoned collection is exactly what an honest run draws from
    the same generator (the gain is measured against it), and the fake part is the fake
    sampler's next draw: the two add up to the support the aggregator sees."""
    protocol = get_protocol(name, epsilon=1.0, domain_size=6)
    counts = np.array([500, 300, 100, 60, 30, 10])
    targets = np.array([4, 5])
    poisoned = poison(protocol, counts, AttackSpec(kind, fakes=200, targets=2), 5, targets=targets)
    rng = np.random.default_rng(5)
    honest = protocol.sample_support_counts(counts, rng)
    fake = fake_support(protocol, kind, targets, 200, rng)
    np.testing.assert_array_equal(poisoned.honest_support, honest)
    np.testing.assert_array_equal(poisoned.support, honest + fake)
    assert (poisoned.users, poisoned.honest, poisoned.fakes) == (1200, 1000, 200)
