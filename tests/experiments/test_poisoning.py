"""Fake users against every method: the run, its closed form, its words and
the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from ldpcore.attacks import AttackSpec
from ldpcore.attacks.gains import fake_support
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.poisoning import run_attack
from ldpcore.experiments.trials import trial_generator
from ldpcore.postprocess import LDPRecover, get_method
from ldpcore.present.attack_sentences import attack_sentence
from ldpcore.protocols import protocol_class, protocol_names


def _config(protocol: str, trials: int = 120, **kwargs: object) -> ExperimentConfig:
    return ExperimentConfig(
        dataset="zipf:d=64",
        n=50_000,
        protocol=protocol,
        epsilon=1.0,
        trials=trials,
        methods=["Base", "Norm-Sub", "Norm-Mul", "Base-Pos"],
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("protocol", ["GRR", "OUE", "OLH", "HR"])
@pytest.mark.parametrize("kind", ["rpa", "ria", "mga"])
def test_base_s_measured_gain_is_the_closed_form(protocol: str, kind: str) -> None:
    result = run_attack(_config(protocol), AttackSpec(kind, beta=0.1, targets=2))
    base = result.gains[0]
    error = base.std(ddof=1) / np.sqrt(base.size)
    assert abs(base.mean() - result.expected) <= 4 * error + 1e-12, (base.mean(), result.expected)


def test_without_fake_users_every_method_s_gain_is_zero_and_its_bias_is_its_own() -> None:
    """After minus before with nothing added is exactly 0 for every method; what is left
    is each method's own error on the targets, Base's near 0 (unbiased)."""
    result = run_attack(_config("OUE", trials=60), AttackSpec("mga", beta=0.0, targets=2))
    assert result.fakes == 0 and result.expected == 0.0
    assert np.all(result.gains == 0.0)
    assert set(result.summary["effect"]) == {"reference", "the same as Base"}
    base = result.honest_bias[0]
    assert abs(base.mean()) <= 4 * base.std(ddof=1) / np.sqrt(base.size)


def test_methods_are_compared_with_base_on_the_same_trials() -> None:
    """Norm-Mul rescales a huge gain away (a measured property, Cao et al.'s setting)."""
    result = run_attack(_config("OUE", trials=60), AttackSpec("mga", beta=0.05, targets=3))
    table = result.summary.set_index("method")
    assert table.loc["Base", "effect"] == "reference"
    assert table.loc["Norm-Mul", "effect"] == "shrinks the gain"
    assert table.loc["Norm-Mul", "vs_base_high"] < 0
    words = attack_sentence(result)
    assert "Norm-Mul (−" in words and "in expectation (closed form)" in words
    assert "with them minus without them" in words
    assert f"{result.fakes:,} fake users" in words


def _after_minus_before(config: ExperimentConfig, attack: AttackSpec, targets: np.ndarray):
    """Cao et al.'s gain computed here, apart from the run: per trial, the honest users'
    support from the trial's generator, the fake users' next, every method applied to
    the estimate with and without them; LDPRecover last, told η = m/n."""
    data, protocol, _ = config.build()
    m = attack.fake_users(data.n)
    methods = [get_method(name) for name in config.methods]
    methods.append(LDPRecover(fake_share=m / data.n))
    gains = np.empty((len(methods), config.trials))
    for trial in range(config.trials):
        rng = trial_generator(config.seed, trial)
        honest = protocol.sample_support_counts(data.counts, rng)
        fake = fake_support(protocol, attack.kind, targets, m, rng)
        before = protocol.estimate(honest, data.n)
        after = protocol.estimate(honest + fake, data.n + m)
        for row, method in enumerate(methods):
            gains[row, trial] = (
                method(after, protocol=protocol, n=data.n + m)[targets].sum()
                - method(before, protocol=protocol, n=data.n)[targets].sum()
            )
    return gains


def _label(difference: np.ndarray) -> str:
    """The paired 95% t-interval's verdict, from scipy."""
    low, high = stats.t.interval(
        0.95, difference.size - 1, loc=difference.mean(), scale=stats.sem(difference)
    )
    if high < 0:
        return "shrinks the gain"
    if low > 0:
        return "amplifies the gain"
    return "no significant difference"


@pytest.mark.parametrize(
    ("protocol", "kind", "dataset"),
    [
        ("OUE", "ria", "zipf:d=48,s=1.2"),
        ("GRR", "rpa", "zipf:d=20,s=0.8"),
        ("OLH", "ria", "zipf:d=40"),
    ],
)
def test_effects_are_after_minus_before_as_cao_et_al_define_the_gain(
    protocol: str, kind: str, dataset: str
) -> None:
    """Three configurations no other test uses: the run's gains equal an after-minus-
    before computation written here, and each effect label is that computation's
    paired interval's verdict against Base."""
    config = ExperimentConfig(
        dataset=dataset, n=30_000, protocol=protocol, epsilon=0.8, trials=80, seed=11,
        methods=["Base", "Base-Pos", "Norm-Mul", "Norm-Cut", "Norm-Sub"],
    )  # fmt: skip
    attack = AttackSpec(kind, beta=0.05, targets=2)
    result = run_attack(config, attack)
    mine = _after_minus_before(config, attack, np.array(result.targets))
    np.testing.assert_allclose(result.gains, mine, rtol=0, atol=1e-12)
    table = result.summary.set_index("method")
    for row, name in enumerate(result.methods[1:], start=1):
        assert table.loc[name, "effect"] == _label(mine[row] - mine[0]), name


@pytest.mark.parametrize(
    "protocol", [name for name in protocol_names() if protocol_class(name).support_view]
)
def test_a_declared_no_op_is_the_same_as_base_under_attack(protocol: str) -> None:
    """Norm where a protocol's estimates already sum to one changes nothing: "the same as
    Base", never an effect read from rounding."""
    config = ExperimentConfig(
        dataset="zipf:d=8", n=4_000, protocol=protocol, epsilon=1.0, trials=4,
        methods=["Base", "Norm"],
    )  # fmt: skip
    _, oracle, _ = config.build()
    result = run_attack(config, AttackSpec("ria", beta=0.1, targets=1))
    effect = result.summary.set_index("method").loc["Norm", "effect"]
    if oracle.estimates_sum_to_one:
        assert effect == "the same as Base"
        assert np.max(np.abs(result.gains[1] - result.gains[0])) < 1e-12
    else:
        assert effect != "the same as Base"


def test_simulate_with_an_attack_prints_every_method_s_gain() -> None:
    command = [
        sys.executable, "-m", "ldpcore.cli", "simulate", "--protocol", "GRR", "--epsilon", "1",
        "--n", "20000", "--dataset", "zipf:d=32", "--methods", "Base,Norm-Sub", "--trials",
        "10", "--attack", "mga:beta=0.05,targets=1", "--format", "json",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["attack"] == "mga:beta=0.05,targets=1" and found["fake_users"] == 1053
    assert [m["method"] for m in found["methods"]] == ["Base", "Norm-Sub", "LDPRecover"]
    # GRR's maximal gain, Cao et al.: β(1 − f_T) + β(d − r)/(e^ε − 1)
    assert found["expected_base_gain"] > 0.05 * 31 / (np.e - 1)
    bad = subprocess.run(
        [*command[:-4], "--attack", "mga:beta=2"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2 and "between 0 and 0.5" in bad.stderr


def test_simulate_attacks_a_tree_s_range_and_refuses_a_scattered_one() -> None:
    command = [
        sys.executable, "-m", "ldpcore.cli", "simulate", "--protocol", "TreeOLH", "--epsilon",
        "1", "--n", "20000", "--dataset", "zipf:d=64", "--methods", "Base,Consistency",
        "--trials", "5", "--attack", "mga:beta=0.01,pick=20+21+22+23,aim=consistent",
        "--format", "json",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["targets"] == [20, 21, 22, 23]
    assert found["attack"] == "mga:beta=0.01,targets=4,pick=20+21+22+23,aim=consistent"
    table = {m["method"]: m for m in found["methods"]}
    assert set(table) == {"Base", "Consistency", "LDPRecover"}
    assert table["Consistency"]["influence"] > 1 and table["Base"]["gain"] > 0
    bad = subprocess.run(
        [*command[:-4], "--attack", "mga:beta=0.01,pick=20+22"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "name consecutive values" in bad.stderr


def test_each_query_is_answered_with_and_without_the_fake_users() -> None:
    """The set query's answer is the truth plus the gain; the maximal-gain attack on
    OUE puts its three targets among the top 10 of Base in every trial (Cao et al.'s
    closed form: about 0.47 in all, 0.16 each, above every honest value of Zipf d = 64
    but the first), and without the fake users the same honest reports give each method's own
    error on the targets, near 0 for Base (unbiased)."""
    result = run_attack(
        _config("OUE", trials=40), AttackSpec("mga", beta=0.05, targets=3), top_k=10
    )
    table = result.summary.set_index("method")
    assert table.loc["Base", "set_answer"] == pytest.approx(
        result.truth + table.loc["Base", "honest_bias"] + table.loc["Base", "gain"]
    )
    assert table.loc["Base", "in_top_k"] >= 2.5 and table.loc["Base", "top_k_any"] == 1.0
    honest = result.honest_bias[0]
    assert abs(honest.mean()) <= 4 * honest.std(ddof=1) / np.sqrt(honest.size)
    assert table.loc["Base", "honest_in_top_k"] < table.loc["Base", "in_top_k"]
    # The honest run is the poisoned one's honest part: without fake users they are one.
    none = run_attack(_config("OUE", trials=40), AttackSpec("mga", beta=0.0, targets=3))
    assert np.all(none.gains == 0.0)
    np.testing.assert_array_equal(none.in_top_k, none.honest_in_top_k)


def test_a_protocol_with_its_own_estimator_says_the_attack_uses_the_generalized_one() -> None:
    config = ExperimentConfig(
        dataset="zipf:d=16", n=5_000, protocol="dBitFlipPM", epsilon=1.0, trials=3,
        methods=["Base"],
    )  # fmt: skip
    words = attack_sentence(run_attack(config, AttackSpec("mga", beta=0.05, targets=1)))
    assert "dBitFlipPM's Base here is the generalized form" in words
    assert "Ding" in words
    other = run_attack(_config("OUE", trials=3), AttackSpec("mga", beta=0.05, targets=1))
    assert "generalized form" not in attack_sentence(other)


def test_targets_are_picked_at_random_the_rarest_or_by_name() -> None:
    """The least frequent values of Zipf d = 64 are the last two; named targets are
    labels (or 0-based values); an unknown name says what it could be; without fake
    users every method keeps its ranking (τ = 1)."""
    from ldpcore.attacks import parse_attack  # noqa: PLC0415

    config = _config("OUE", trials=4)
    rarest = run_attack(config, parse_attack("mga:beta=0.05,targets=2,pick=rarest"))
    assert rarest.targets == (62, 63)
    assert "pick=rarest" in str(rarest.attack) and "least frequent" in rarest.attack.in_words()
    named = run_attack(config, parse_attack("mga:beta=0.05,pick=3+17"))
    assert named.targets == (3, 17) and named.attack.targets == 2
    with pytest.raises(ValueError, match="no value 'kale' to target; name one of the labels"):
        run_attack(config, parse_attack("mga:beta=0.05,pick=kale"))
    with pytest.raises(ValueError, match="2 named target"):
        parse_attack("mga:beta=0.05,targets=3,pick=a+b")
    none = run_attack(config, parse_attack("mga:beta=0,pick=rarest"))
    np.testing.assert_allclose(none.kendall, 1.0, rtol=0, atol=1e-12)
    table = rarest.summary.set_index("method")
    assert 0 < table.loc["Base", "kendall_tau"] < 1  # the fake users moved the ranking


def test_post_pos_is_measured_on_the_set_answer_it_gives() -> None:
    """Post-Pos clamps the targets' total at zero: its gain is the clamped answers'
    difference, computed here by hand from Base's own totals on the same trials."""
    config = ExperimentConfig(
        dataset="zipf:d=100",
        n=10_000,
        protocol="OUE",
        epsilon=0.5,
        trials=80,
        methods=["Base", "Post-Pos"],
    )
    result = run_attack(config, AttackSpec("mga", beta=0.01, targets=2, pick="rarest"))
    base, post = result.methods.index("Base"), result.methods.index("Post-Pos")
    honest = result.honest_bias[base] + result.truth  # Base's targets' total, no fakes
    attacked = honest + result.gains[base]  # and with them
    assert np.any(honest < 0), "no trial's total went negative: the check would be vacuous"
    by_hand = np.maximum(attacked, 0.0) - np.maximum(honest, 0.0)
    np.testing.assert_allclose(result.gains[post], by_hand, atol=1e-12)
    effect = result.summary.set_index("method").loc["Post-Pos", "effect"]
    assert effect != "the same as Base"
