"""One verdict rule: every label the tool prints follows it from its own numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldpcore.attacks import AttackSpec
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.poisoning import run_attack
from ldpcore.experiments.trials import run
from ldpcore.stats.compare import JUDGEMENTS, MARGIN, judge, judge_difference

positive = st.floats(min_value=0.01, max_value=100, allow_nan=False)


@given(a=positive, b=positive, margin=st.sampled_from([0.0, MARGIN, 0.2]))
def test_the_rule_read_from_its_definition(a: float, b: float, margin: float) -> None:
    low, high = min(a, b), max(a, b)
    said = judge(low, high, margin=margin)
    assert said in JUDGEMENTS
    within = 1 / (1 + margin) <= low and high <= 1 + margin
    if low <= 1 <= high:
        assert said == "no significant difference"
    elif within:
        assert said == "about the same"
    else:
        assert said == ("lower" if high < 1 else "higher")


@given(
    low=st.floats(-1, 1, allow_nan=False),
    width=st.floats(0, 1, allow_nan=False),
    reference=st.floats(0.001, 1, allow_nan=False),
)
def test_a_difference_is_judged_on_its_reference_s_scale(
    low: float, width: float, reference: float
) -> None:
    high = low + width
    assert judge_difference(low, high, reference) == judge(
        1 + low / reference, 1 + high / reference
    )


def test_every_gain_verdict_under_attack_follows_the_rule() -> None:
    config = ExperimentConfig(
        dataset="zipf:d=64",
        n=50_000,
        protocol="OUE",
        epsilon=1.0,
        trials=60,
        methods=["Base", "Norm-Sub", "Norm", "Base-Pos", "Power"],
    )
    summary = run_attack(config, AttackSpec("mga", beta=0.05, targets=3)).summary
    reference = float(summary.loc[summary["method"] == "Base", "gain"].iloc[0])
    words = {
        "lower": "shrinks the gain",
        "higher": "amplifies the gain",
        "about the same": "about the same",
        "no significant difference": "no significant difference",
    }
    checked = 0
    for row in summary.itertuples():
        if row.effect in {"reference", "the same as Base"}:
            continue
        assert row.effect == words[judge_difference(row.vs_base_low, row.vs_base_high, reference)]
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("protocol", ["GRR", "OUE"])
def test_every_mse_verdict_of_a_run_follows_the_rule(protocol: str) -> None:
    config = ExperimentConfig(
        dataset="zipf:d=32", n=5_000, protocol=protocol, epsilon=1.0, trials=30
    )
    summary = run(config).summary
    for row in summary.itertuples():
        if row.mse_vs_base in {"reference", "same answers"}:
            continue
        assert row.mse_vs_base == judge(row.ratio_low, row.ratio_high), row.method
