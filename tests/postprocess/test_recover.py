"""LDPRecover: its steps against a slow reference written here, its mixture identity on
every protocol, its learned total against the fake users' true one, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

from ldpcore.attacks import AttackSpec, poison
from ldpcore.attacks.gains import fake_support
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.poisoning import run_attack
from ldpcore.experiments.trials import trial_generator
from ldpcore.postprocess import LDPRecover, NormSub
from ldpcore.postprocess.recover import malicious_frequencies
from ldpcore.protocols import get_protocol


def _slow_projection(x: list[float]) -> list[float]:
    """The nearest point of the simplex, by bisection on the KKT shift (no sorting)."""
    low, high = -max(x) - 1.0, 1.0 - min(x) + 1.0
    for _ in range(200):
        mid = (low + high) / 2
        total = sum(max(v + mid, 0.0) for v in x)
        low, high = (mid, high) if total < 1.0 else (low, mid)
    return [max(v + (low + high) / 2, 0.0) for v in x]


def _slow_recover(poisoned: list[float], eta: float) -> list[float]:
    """Sun et al.'s three steps, value by value."""
    raised = [v > 0 for v in poisoned] if any(v > 0 for v in poisoned) else [True] * len(poisoned)
    fake_total = ((1 + eta) * sum(poisoned) - 1) / eta
    per_value = fake_total / sum(raised)
    genuine = [
        (1 + eta) * v - eta * (per_value if up else 0.0)
        for v, up in zip(poisoned, raised, strict=True)
    ]
    return _slow_projection(genuine)


@pytest.mark.parametrize("eta", [0.01, 0.05, 0.25, 3.0])
def test_ldprecover_is_its_three_steps(eta: float) -> None:
    rng = np.random.default_rng(7)
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=40)
    for _ in range(5):
        poisoned = rng.normal(0.025, 0.04, 40)
        got = LDPRecover(fake_share=eta)(poisoned, protocol=protocol, n=1000)
        np.testing.assert_allclose(got, _slow_recover(poisoned.tolist(), eta), atol=1e-12)
        assert got.min() >= 0 and abs(got.sum() - 1) < 1e-12


def test_with_no_fake_users_assumed_it_is_norm_sub() -> None:
    protocol = get_protocol("OLH", epsilon=2.0, domain_size=30)
    poisoned = np.random.default_rng(1).normal(0.03, 0.05, 30)
    np.testing.assert_array_equal(
        LDPRecover(fake_share=0.0)(poisoned, protocol=protocol, n=500),
        NormSub()(poisoned, protocol=protocol, n=500),
    )


@pytest.mark.parametrize("name", ["GRR", "OUE", "OLH", "SS", "HR"])
def test_the_poisoned_estimate_is_the_mixture_the_estimator_undoes(name: str) -> None:
    """Base is linear in the support counts: f̃_Z = (n f̃_X + m f̃_Y)/(n + m) (Sec. IV)."""
    protocol = get_protocol(name, epsilon=1.0, domain_size=32)
    rng = np.random.default_rng(3)
    n, m = 5_000, 400
    honest = protocol.sample_support_counts(rng.multinomial(n, np.full(32, 1 / 32)), rng)
    fakes = fake_support(protocol, "ria", np.array([3, 9]), m, rng)
    poisoned = protocol.estimate(honest + fakes, n + m)
    mixture = (n * protocol.estimate(honest, n) + m * protocol.estimate(fakes, m)) / (n + m)
    np.testing.assert_allclose(poisoned, mixture, atol=1e-12)
    eta = m / n
    np.testing.assert_allclose(
        (1 + eta) * poisoned - eta * protocol.estimate(fakes, m),
        protocol.estimate(honest, n),
        atol=1e-12,
    )


def test_the_learned_fake_total_is_unbiased() -> None:
    """Uniform fake OUE reports support d/2 values: their estimates total
    (d/2 − dq)/(p − q); the total learned from the poisoned sums averages to it (4σ)."""
    d, n, m = 64, 20_000, 1_000
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=d)
    truth = (d / 2 - d * protocol.q) / (protocol.p - protocol.q)
    rng = np.random.default_rng(11)
    learned = []
    for _ in range(300):
        honest = protocol.sample_support_counts(rng.multinomial(n, np.full(d, 1 / d)), rng)
        fakes = fake_support(protocol, "rpa", np.array([0]), m, rng)
        poisoned = protocol.estimate(honest + fakes, n + m)
        learned.append(malicious_frequencies(poisoned, m / n).sum())
    mean, error = np.mean(learned), np.std(learned, ddof=1) / np.sqrt(len(learned))
    assert abs(mean - truth) < 4 * error, (mean, truth, error)


@pytest.mark.parametrize("share", [-0.1, 100.0, float("nan"), "0.05", True])
def test_an_impossible_share_is_refused_in_words(share: object) -> None:
    with pytest.raises(InputError, match="fake users per honest user"):
        LDPRecover(fake_share=share)  # type: ignore[arg-type]


def test_every_attack_run_shows_ldprecover_told_the_attack_s_share() -> None:
    config = ExperimentConfig(
        dataset="zipf:d=40",
        n=20_000,
        protocol="OUE",
        epsilon=1.0,
        trials=20,
        methods=["Base", "Norm-Sub"],
    )
    attack = AttackSpec("rpa", beta=0.05, targets=2)
    result = run_attack(config, attack)
    assert result.methods == ("Base", "Norm-Sub", "LDPRecover")
    # The first trial again, by hand: the same draw, LDPRecover told η = m/n on both runs.
    data, protocol, _ = config.build()
    targets = np.array(result.targets)
    drawn = poison(protocol, data.counts, attack, trial_generator(config.seed, 0), targets=targets)
    told = LDPRecover(fake_share=result.fakes / data.n)
    after = told(protocol.estimate(drawn.support, drawn.users), protocol=protocol, n=drawn.users)
    before = told(protocol.estimate(drawn.honest_support, data.n), protocol=protocol, n=data.n)
    gain = after[targets].sum() - before[targets].sum()
    assert result.gains[-1, 0] == pytest.approx(gain, abs=1e-12)
    assert result.summary.set_index("method").loc["LDPRecover", "effect"] == "shrinks the gain"


def test_without_the_targets_it_is_norm_sub_of_the_stretched_estimate() -> None:
    """Said as it is: the learned fake mass is one constant on the values estimated above
    zero, which the projection removes anyway. Equal to Norm-Sub of (1 + η) f̃ exactly
    when neither projection keeps a value estimated at or below zero; different only
    there (the simplex then needs mass on such a value), and both cases occur."""
    from ldpcore.postprocess.normalization import project_to_simplex  # noqa: PLC0415
    from ldpcore.postprocess.recover import genuine_estimate  # noqa: PLC0415

    rng = np.random.default_rng(7)
    equal = differ = 0
    for eta in (0.01, 0.05, 0.2):
        for _ in range(600):
            d = int(rng.integers(3, 50))
            noise = float(rng.choice([0.005, 0.05, 0.2]))
            f = rng.dirichlet(np.ones(d)) + rng.normal(0.0, noise, d)
            recovered = project_to_simplex(genuine_estimate(f, eta))
            stretched = project_to_simplex((1 + eta) * f)
            keeps_nonpositive = bool(
                np.any((stretched > 0) & (f <= 0)) or np.any((recovered > 0) & (f <= 0))
            )
            same = bool(np.max(np.abs(recovered - stretched)) <= 1e-12)
            assert same != keeps_nonpositive, (eta, f)
            equal += same
            differ += not same
    assert equal > 0 and differ > 0
