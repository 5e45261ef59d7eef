"""Every question is read as its protocol's paper reads it, on every path that asks it.

A raw hierarchy answers a range from the fewest nodes that tile it (Kulkarni et al.,
VLDB 2019, Sec. 4.1): the runs and the attacks read it so (``readings.py``), and the
exact variances the pages quote are that reading's. An iterative method that stops at
its cap says so on the run, the command line and Choose ε.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import ldpcore.experiments.trials as trials_module
from ldpcore.advice.epsilon_search import choose_epsilon
from ldpcore.cli import main
from ldpcore.experiments import ExperimentConfig, run
from ldpcore.experiments.readings import post_process, query_answers, set_answer
from ldpcore.experiments.trials import exact_base_mse, trial_generator
from ldpcore.postprocess import get_method
from ldpcore.postprocess.smoothing import StoppedEM
from ldpcore.present.epsilon_sentences import epsilon_reason
from ldpcore.protocols.hierarchy import Hierarchy

#: A k·σ bound: a correct reading fails it about once in 10⁵ runs.
K_SIGMA = 4.5


def _tree_config(query: str, trials: int = 400) -> ExperimentConfig:
    return ExperimentConfig(
        dataset="zipf:d=64,s=1.1",
        n=20_000,
        protocol="TreeOUE",
        epsilon=1.0,
        query=query,
        methods=["Base"],
        trials=trials,
        seed=11,
    )


def test_a_run_reads_each_value_of_a_raw_tree_from_its_leaf() -> None:
    """The full query's measured MSE is the leaf's exact one (not the prefixes' twice)."""
    config = _tree_config("full")
    result = run(config)
    errors = result.trial_errors[0]  # Base's MSE per trial
    exact = exact_base_mse(config)
    assert exact is not None
    se = errors.std(ddof=1) / math.sqrt(errors.size)
    assert abs(errors.mean() - exact) <= K_SIGMA * se
    data, tree, _query = config.build()
    assert isinstance(tree, Hierarchy)
    values = np.arange(64)
    doubled = tree.prefix_difference_variances(data.frequencies(), data.n, values, values + 1)
    assert errors.mean() < 0.7 * doubled.mean()  # about half: the paper's reading


def test_a_run_reads_a_raw_tree_s_ranges_off_the_fewest_nodes() -> None:
    """Each range's spread over trials is the fewest nodes' exact variance (k·σ)."""
    config = _tree_config("range:length=10")
    result = run(config)
    data, tree, query = config.build()
    assert isinstance(tree, Hierarchy)
    starts = np.array([m[0] for m in query.members])
    stops = np.array([m[-1] + 1 for m in query.members])
    exact = tree.range_variances(data.frequencies(), data.n, starts, stops)
    answers = result.answers[0]
    measured = answers.var(axis=0, ddof=1)
    trials = answers.shape[0]
    # Each range's sample variance within k standard errors of its closed form ...
    assert np.all(np.abs(measured / exact - 1) <= K_SIGMA * math.sqrt(2 / trials))
    # ... and that closed form, not the prefix difference's, is the one the runs follow.
    other = tree.prefix_difference_variances(data.frequencies(), data.n, starts, stops)
    assert np.sum(np.log(measured / exact) ** 2) < np.sum(np.log(measured / other) ** 2)
    # Unbiased: the mean answer within k standard errors of the truth.
    truth = np.array([data.frequencies()[a:b].sum() for a, b in zip(starts, stops, strict=True)])
    assert np.all(np.abs(answers.mean(axis=0) - truth) <= K_SIGMA * np.sqrt(exact / trials))


def test_a_quantile_and_a_set_read_the_same_nodes_as_the_ranges() -> None:
    config = _tree_config("full", trials=1)
    data, tree, _ = config.build()
    tallies = tree.sample_tallies(data.counts, trial_generator(0, 0))
    estimate = tree.estimate_from_tallies(tallies, data.n)
    output = post_process(get_method("Base"), estimate, protocol=tree, n=data.n, tallies=tallies)
    assert output.parts is not None
    outputs = [part.estimate for part in output.parts]
    # A set of two runs is the sum of their fewest-node answers.
    members = np.array([3, 4, 5, 20, 21])
    both = tree.read_ranges(output.parts, outputs, [3, 20], [6, 22]).sum()
    assert set_answer(output, tree, members) == pytest.approx(both)
    # Each value's own answer off the fewest nodes is the raw estimate.
    values = np.arange(64)
    np.testing.assert_allclose(
        tree.read_ranges(output.parts, outputs, values, values + 1), estimate
    )
    # A quantile reads the prefixes off the fewest nodes, not the leaves' running sums.
    quantile = dataclasses.replace(config, query="quantile:q=0.5").build()[2]
    ends = np.arange(1, 65)
    prefixes = tree.read_ranges(output.parts, outputs, 0 * ends, ends)
    expected = quantile.answer(np.diff(prefixes, prepend=0.0))
    np.testing.assert_array_equal(query_answers(quantile, output, tree), expected)


def _capped_em(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs' methods, with EM's cap at 3 steps: its rule cannot stop it first."""
    real = trials_module.get_method

    def capped(name: str) -> object:
        return StoppedEM(max_iterations=3) if name == "EM" else real(name)

    monkeypatch.setattr(trials_module, "get_method", capped)


def _sw_config() -> ExperimentConfig:
    return ExperimentConfig(
        dataset="zipf:d=32,s=1.1",
        n=50_000,
        protocol="SW",
        epsilon=1.0,
        methods=["Base", "EM"],
        trials=3,
        seed=2,
    )


def test_em_at_its_cap_is_said_not_to_have_converged_by_the_run_and_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _sw_config()
    uncapped = run(config).summary.set_index("method")
    assert uncapped.loc["EM", "converged"] == 1.0  # the rule stops it before 50,000 steps
    _capped_em(monkeypatch)
    summary = run(config).summary.set_index("method")
    assert summary.loc["EM", "converged"] == 0.0 and summary.loc["Base", "converged"] == 1.0
    code = main(
        [
            "simulate",
            "--protocol",
            "SW",
            "--epsilon",
            "1",
            "--n",
            "50000",
            "--dataset",
            "zipf:d=32,s=1.1",
            "--methods",
            "Base,EM",
            "--trials",
            "3",
        ]
    )
    assert code == 0
    said = capsys.readouterr()
    assert "EM stopped at its iteration cap without converging in 100% of the trials" in (
        said.out + said.err
    )
    # SW's exact Base MSE is its own channel's, said so (not NDSS Eq. 3).
    assert "analytic Base MSE (the positions' multinomial, Li et al. Sec. 4)" in said.out


def test_choose_epsilon_says_which_method_stopped_at_its_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _capped_em(monkeypatch)
    config = dataclasses.replace(_sw_config(), query="range:length=8")
    answers = choose_epsilon(config, target_rmse=0.02, protocols=["SW"])
    assert answers[0].not_converged == ("EM",)
    assert answers[0].to_json_dict()["not_converged"] == ["EM"]
    assert "EM stopped at its step cap" in epsilon_reason(answers[0])


def test_an_exact_epsilon_names_where_its_protocol_s_variance_comes_from() -> None:
    """NDSS Eq. 3 for a flat oracle's estimator; a protocol with a variance of its own
    (the Square Wave, the trees, the wavelet, dBitFlipPM) names its paper instead."""
    from ldpcore.formats import epsilon_interval  # noqa: PLC0415
    from ldpcore.present.epsilon_sentences import users_needed_sentence  # noqa: PLC0415
    from ldpcore.protocols import PROTOCOLS  # noqa: PLC0415 (read at test time: toys)
    from ldpcore.protocols.base import FrequencyOracle  # noqa: PLC0415

    for name, cls in PROTOCOLS.items():
        own = cls.variance is not FrequencyOracle.variance
        assert (cls.variance_source != "NDSS Eq. 3") == own, name
        said = users_needed_sentence(name, "Base", 1.0, 1_000.0)
        assert f"(exact, {cls.variance_source})" in said, said
    sw = PROTOCOLS["SW"].variance_source
    assert epsilon_interval(0.5, 0.5, 0.5, exact=True, source=sw).endswith(f"(exact, {sw})")
    assert "NDSS" not in sw
