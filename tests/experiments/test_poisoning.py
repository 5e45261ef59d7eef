"""Fake users against every method: the run, its closed form, its words and
the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from ldpcore.attacks import AttackSpec
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.poisoning import run_attack
from ldpcore.present.run_sentences import attack_sentence


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


def test_without_fake_users_the_gain_is_each_method_s_own_error() -> None:
    result = run_attack(_config("OUE", trials=60), AttackSpec("mga", beta=0.0, targets=2))
    assert result.fakes == 0 and result.expected == 0.0
    base = result.gains[0]
    assert abs(base.mean()) <= 4 * base.std(ddof=1) / np.sqrt(base.size)


def test_methods_are_compared_with_base_on_the_same_trials() -> None:
    """Norm-Mul rescales a huge gain away (a measured property, Cao et al.'s setting);
    Base-Pos cannot touch targets whose estimates are far above 0."""
    result = run_attack(_config("OUE", trials=60), AttackSpec("mga", beta=0.05, targets=3))
    table = result.summary.set_index("method")
    assert table.loc["Base", "effect"] == "reference"
    assert table.loc["Norm-Mul", "effect"] == "shrinks the gain"
    assert table.loc["Norm-Mul", "vs_base_high"] < 0
    assert table.loc["Base-Pos", "vs_base"] == 0.0
    words = attack_sentence(result)
    assert "Norm-Mul (−" in words and "in expectation (closed form)" in words
    assert f"{result.fakes:,} fake users" in words


def test_simulate_with_an_attack_prints_every_method_s_gain() -> None:
    command = [
        sys.executable, "-m", "ldpcore.cli", "simulate", "--protocol", "GRR", "--epsilon", "1",
        "--n", "20000", "--dataset", "zipf:d=32", "--methods", "Base,Norm-Sub", "--trials",
        "10", "--attack", "mga:beta=0.05,targets=1", "--format", "json",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found["attack"] == "mga:beta=0.05,targets=1" and found["fake_users"] == 1053
    assert [m["method"] for m in found["methods"]] == ["Base", "Norm-Sub"]
    # GRR's maximal gain, Cao et al.: β(1 − f_T) + β(d − r)/(e^ε − 1)
    assert found["expected_base_gain"] > 0.05 * 31 / (np.e - 1)
    bad = subprocess.run(
        [*command[:-4], "--attack", "mga:beta=2"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2 and "between 0 and 0.5" in bad.stderr


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
        result.truth + table.loc["Base", "gain"]
    )
    assert table.loc["Base", "in_top_k"] >= 2.5 and table.loc["Base", "top_k_any"] == 1.0
    honest = result.honest_gains[0]
    assert abs(honest.mean()) <= 4 * honest.std(ddof=1) / np.sqrt(honest.size)
    assert table.loc["Base", "honest_in_top_k"] < table.loc["Base", "in_top_k"]
    # The honest run is the poisoned one's honest part: without fake users they are one.
    none = run_attack(_config("OUE", trials=40), AttackSpec("mga", beta=0.0, targets=3))
    np.testing.assert_array_equal(none.gains, none.honest_gains)
    np.testing.assert_array_equal(none.in_top_k, none.honest_in_top_k)
