"""Accuracy targets in people's words: the margin, checked by simulation.

The margin of :mod:`ldpcore.advice.targets` is computed from a normal model of each
answer's error. These tests hold it to closed forms where they exist, and to the
coverage actually reached by simulation (the per-user sampler, an independent path
from the fast sampler the search uses), with k·σ bounds from the binomial variance of
a measured share.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
from scipy import stats

from ldpcore.advice import choose_epsilon
from ldpcore.advice.targets import AccuracyTarget, margin, parse_target
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import exact_base_variances, run
from ldpcore.formats import round_up


def test_the_margin_of_normal_errors_is_the_normal_quantile() -> None:
    """One unbiased answer with σ = 1: ±1.96 holds 95% of the time; k independent ones
    at once: the Šidák quantile Φ⁻¹((1 + 0.95^{1/k})/2); each of k with σ = 1 … k: the
    largest σ decides (1.96 k)."""
    one = margin(np.zeros((1, 1)), np.ones((1, 1)), kind="each", level=0.95)
    assert one[0] == pytest.approx(stats.norm.ppf(0.975), abs=1e-9)
    for k in (2, 10, 100):
        together = margin(np.zeros((1, k)), np.ones((1, k)), kind="all", level=0.95)
        sidak = stats.norm.ppf((1 + 0.95 ** (1 / k)) / 2)
        assert together[0] == pytest.approx(sidak, abs=1e-9)
        # "each" averages over the answers: the same for identical answers.
        each = margin(np.zeros((1, k)), np.ones((1, k)), kind="each", level=0.95)
        assert each[0] == pytest.approx(stats.norm.ppf(0.975), abs=1e-9)
        spread = margin(np.zeros((1, k)), np.arange(1.0, k + 1)[None], kind="each", level=0.95)
        assert spread[0] == pytest.approx(k * stats.norm.ppf(0.975), abs=1e-9)


def test_a_biased_answer_s_margin_is_its_bias_plus_the_tail_it_leaves() -> None:
    """Bias b, σ: the margin w solves Φ((w−b)/σ) − Φ((−w−b)/σ) = level (checked by the
    normal distribution directly), and a sure answer (σ = 0) needs just |b|."""
    w = margin(np.array([[0.5]]), np.array([[1.0]]), kind="each", level=0.9)[0]
    inside = stats.norm.cdf(w - 0.5) - stats.norm.cdf(-w - 0.5)
    assert inside == pytest.approx(0.9, abs=1e-9)
    sure = margin(np.array([[-0.02]]), np.array([[0.0]]), kind="all", level=0.95)[0]
    assert sure == pytest.approx(0.02, abs=1e-12)


COUNTRIES_TOP10 = ExperimentConfig(
    dataset="countries",
    n=1_000_000,
    protocol="GRR",
    epsilon=2.0,
    query="topk:k=10",
    methods=("Base",),
    trials=3000,
    seed=11,
)


@pytest.mark.parametrize("protocol", ["GRR", "OUE"])
@pytest.mark.parametrize("kind", ["each", "all"])
def test_base_s_exact_margin_is_met_as_often_as_it_says(protocol: str, kind: str) -> None:
    """Base's margin from Eq. 3's variances, against 3,000 simulated trials: the share
    of answers within it (each) or of trials with every answer within it (all) is 95%
    within 4 binomial standard errors."""
    config = dataclasses.replace(COUNTRIES_TOP10, protocol=protocol)
    variances = exact_base_variances(config)
    assert variances is not None
    target = AccuracyTarget(kind, 0.005)
    w = target.exact_base(variances)
    result = run(config)
    inside = np.abs(result.answers[0] - result.truth) <= w
    se = math.sqrt(0.95 * 0.05 / config.trials)
    if kind == "all":
        share = inside.all(axis=1).mean()
    else:
        # Every value on its own: the one with the largest variance is within ±w 95% of
        # the time, and no value less often.
        per_value = inside.mean(axis=0)
        assert per_value.min() >= 0.95 - 4 * se
        share = per_value[np.argmax(variances)]
    assert abs(share - 0.95) <= 4 * se, (share, se)


def test_the_simulated_margin_errs_on_the_safe_side_with_an_honest_standard_error() -> None:
    """The search's margin for Base from 20 trials, against the exact margin (Eq. 3)
    over 16 seeds. "all" is unbiased within 4 standard errors of the mean; "each" takes
    the largest of ten per-value margins, which the noise of each value's variance pulls
    up: it may overstate (more ε, the safe side) by at most 25%, never understate by
    more than the mean's 4 standard errors. The grouped-jackknife SE is of the size of
    the margin's spread over seeds (ratio in [0.5, 2])."""
    config = dataclasses.replace(COUNTRIES_TOP10, trials=20)
    variances = exact_base_variances(config)
    assert variances is not None
    for kind in ("each", "all"):
        target = AccuracyTarget(kind, 0.005)
        exact = target.exact_base(variances)
        found, ses = [], []
        for seed in range(16):
            result = run(dataclasses.replace(config, seed=seed))
            value, se = target.statistic(result.answers, result.truth)
            found.append(float(value[0]))
            ses.append(float(se[0]))
        mean, spread = float(np.mean(found)), float(np.std(found, ddof=1))
        of_mean = spread / math.sqrt(len(found))
        assert mean >= exact - 4 * of_mean, (kind, mean, exact)
        if kind == "all":
            assert abs(mean - exact) <= 4 * of_mean, (mean, exact)
        else:
            assert mean <= 1.25 * exact, (mean, exact)
        assert 0.5 <= float(np.mean(ses)) / spread <= 2.0, (kind, np.mean(ses), spread)


@pytest.mark.parametrize("kind", ["each", "all"])
def test_the_epsilon_printed_meets_the_target_by_simulation(kind: str) -> None:
    """The Choose ε answer rounded up as printed: at that ε the recommended method's
    answers meet the target by simulation (3,000 fresh trials, another seed), the
    measured coverage at least 95% minus 3 binomial standard errors."""
    config = dataclasses.replace(
        COUNTRIES_TOP10, methods=("Base", "Norm-Sub", "Base-Cut"), trials=10
    )
    target = AccuracyTarget(kind, 0.005)
    for answer in choose_epsilon(config, target=target, protocols=["GRR", "OLH"]):
        assert answer.epsilon is not None
        printed = round_up(answer.epsilon)
        check = dataclasses.replace(
            config,
            protocol=answer.protocol,
            epsilon=printed,
            methods=(answer.method,),
            trials=3000,
            seed=99,
        )
        result = run(check)
        inside = np.abs(result.answers[0] - result.truth) <= target.size
        share = inside.mean(axis=0).min() if kind == "each" else inside.all(axis=1).mean()
        se = math.sqrt(0.95 * 0.05 / check.trials)
        assert share >= 0.95 - 3 * se, (answer.protocol, answer.method, printed, share)


def test_targets_read_from_text_and_say_what_is_wrong() -> None:
    for spec in ("each:0.005", "all:0.01,level=0.9", "rmse:0.002"):
        assert parse_target(spec).spec() == spec
    assert parse_target("ALL: 0.005").kind == "all"
    for bad, words in (
        ("within", "kind:size"),
        ("each:", "kind:size"),
        ("each:half", "needs numbers"),
        ("each:5", "must be in (0, 1)"),
        ("most:0.01", "unknown accuracy target"),
        ("each:0.01,level=1.5", "level must be in"),
        ("each:0.01,confidence=0.9", "one option"),
    ):
        with pytest.raises(InputError, match=re.escape(words)):
            parse_target(bad)


def test_the_target_in_words_says_what_is_measured() -> None:
    assert (
        AccuracyTarget("each", 0.005).in_words()
        == "each value asked about within ±0.5 percentage points of the truth, 95% of the time"
    )
    assert AccuracyTarget("all", 0.005).in_words(10).startswith("all 10 values within ±0.5")
    assert (
        AccuracyTarget("rmse", 0.005).in_words() == "root-mean-square error ≤ 0.5 percentage points"
    )
