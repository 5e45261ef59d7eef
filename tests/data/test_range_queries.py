"""Questions about an ordered domain: every range of a length, and quantiles."""

from __future__ import annotations

import numpy as np
import pytest

from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.queries.specs import parse_query


def test_every_range_of_a_length_sums_its_values() -> None:
    f = np.random.default_rng(0).dirichlet(np.ones(12))
    query = parse_query("range:length=5", true_frequencies=f)
    assert len(query.labels) == 8 and query.labels[0] == "[0, 4]" and query.labels[-1] == "[7, 11]"
    by_hand = [f[a : a + 5].sum() for a in range(8)]
    np.testing.assert_allclose(query.answer(f), by_hand)
    stacked = np.stack([f, f[::-1]])
    np.testing.assert_allclose(
        query.answer(stacked)[1], [f[::-1][a : a + 5].sum() for a in range(8)]
    )


def test_a_range_longer_than_the_domain_says_how_long_it_may_be() -> None:
    with pytest.raises(InputError, match="at most 12"):
        parse_query("range:length=13", true_frequencies=np.ones(12) / 12)


@pytest.mark.parametrize(
    ("levels", "values"),
    [
        ("quantile:q=0.5", [0.1, 0.3, 0.2, 0.4]),
        ("quantile", [0.05] * 20),
        ("quantile:q=0.25", [0.0, 0.0, 0.5, 0.5]),
    ],
)
def test_a_quantile_is_the_first_value_the_running_share_reaches(
    levels: str, values: list[float]
) -> None:
    f = np.array(values)
    query = parse_query(levels, true_frequencies=f)
    running = np.cumsum(f)
    for level, answer in zip(query.levels, query.answer(f), strict=True):
        # By definition, one value at a time, with the rounding of a running sum allowed.
        first = next(i for i, total in enumerate(running) if total >= level - 1e-12)
        assert answer == first


def test_a_negative_estimate_is_read_by_its_running_maximum() -> None:
    # Base's running sum can go down; the quantile is where it first reaches the level.
    estimate = np.array([0.3, 0.3, -0.2, 0.4, 0.2])
    query = parse_query("quantile:q=0.55", true_frequencies=np.ones(5) / 5)
    assert query.answer(estimate)[0] == 1
    assert (
        parse_query("quantile:q=0.99", true_frequencies=np.ones(5) / 5).answer(np.full(5, 0.1))[0]
        == 4
    )  # never reached: the last value


def test_quantile_labels_name_the_median_and_percentiles() -> None:
    query = parse_query("quantile", true_frequencies=np.ones(10) / 10)
    assert query.labels[4] == "median" and query.labels[0] == "10th percentile"


@pytest.mark.parametrize("query", ["range:length=16", "quantile", "prefix"])
@pytest.mark.parametrize("protocol", ["OUE", "TreeOUE"])
def test_ordered_questions_run_on_flat_and_tree_protocols(query: str, protocol: str) -> None:
    config = ExperimentConfig(
        dataset="zipf:d=64", n=20_000, protocol=protocol, epsilon=1.0, query=query, trials=4
    )
    result = run(config)
    assert np.all(np.isfinite(result.answers))
    # The consistency step reconciles a tree's levels: "all" has it on a tree only.
    tree = config.oracle().composite
    assert set(result.summary["method"]) >= {"Base", "Norm-Sub"}
    assert ("Consistency" in set(result.summary["method"])) == tree


def test_choose_epsilon_answers_a_target_on_ranges_for_flat_and_tree_protocols() -> None:
    from ldpcore.advice import choose_epsilon  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=64",
        n=50_000,
        protocol="OUE",
        epsilon=1.0,
        query="range:length=16",
        methods=("Base", "Consistency"),
        trials=6,
    )
    answers = choose_epsilon(config, target_rmse=0.02, protocols=["OUE", "TreeOUE"])
    assert [a.protocol for a in answers] == ["OUE", "TreeOUE"]
    for answer in answers:
        assert answer.epsilon is not None and 0 < answer.epsilon < 20


def test_a_histogram_of_numbers_is_put_in_numeric_order_on_request() -> None:
    from ldpcore.data.datasets import Dataset  # noqa: PLC0415

    data = Dataset(
        "ages",
        ("40", "9", "1,000", "25", "9.5"),
        np.array([4, 1, 7, 2, 3]),
        ("a", "b", "c", "d", "e"),
    )
    ordered = data.by_number()
    assert ordered is not None
    assert ordered.labels == ("9", "9.5", "25", "40", "1,000")
    assert ordered.counts.tolist() == [1, 3, 2, 4, 7]
    assert ordered.groups == ("b", "e", "d", "a", "c")
    assert ordered.by_number() is ordered  # already in order: itself
    words = Dataset("w", ("b", "a"), np.array([1, 2]))
    assert words.by_number() is None
