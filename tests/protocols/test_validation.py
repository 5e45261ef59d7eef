"""Every parameter a person can get wrong raises ValueError naming it and its range."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldpcore import bounds
from ldpcore.errors import InputError
from ldpcore.protocols import get_protocol, protocol_names
from ldpcore.rng import as_generator

ALL = protocol_names()


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("epsilon", [0, -1.0, math.nan, math.inf, -math.inf, "1", None, True])
def test_bad_epsilon(name: str, epsilon: object) -> None:
    with pytest.raises(ValueError, match="epsilon must be"):
        get_protocol(name, epsilon=epsilon, domain_size=8)  # type: ignore[arg-type]


def test_epsilon_range_is_stated() -> None:
    with pytest.raises(ValueError, match=rf"\[{bounds.EPSILON_MIN}, {bounds.EPSILON_MAX}\]"):
        get_protocol("GRR", epsilon=bounds.EPSILON_MAX * 2, domain_size=8)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("d", [1, 0, -5, 2.5, math.nan, "8", bounds.DOMAIN_SIZE_MAX + 1])
def test_bad_domain_size(name: str, d: object) -> None:
    with pytest.raises(ValueError, match=r"domain_size must be an integer in \[2, "):
        get_protocol(name, epsilon=1.0, domain_size=d)  # type: ignore[arg-type]


def test_whole_float_domain_size_is_accepted() -> None:
    assert get_protocol("GRR", epsilon=1.0, domain_size=8.0).domain_size == 8  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [0, -3, 1.5])
def test_bad_n(n: object) -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=4)
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, "):
        protocol.estimate([1, 1, 1, 1], n)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, "):
        protocol.approx_variance(n)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([1, 2, 3], r"length 4 \(one entry per domain value\)"),
        ([1, -2, 3, 4], "entry 1 is -2"),
        ([1, 2.5, 3, 4], "fractional"),
        ([1, np.nan, 3, 4], "NaN or inf"),
        ([[1, 2], [3, 4]], "1-D array of length 4"),
        (["a", "b", "c", "d"], "whole numbers"),
        ([True, False, True, True], "whole numbers"),
    ],
)
def test_bad_counts(counts: object, message: str) -> None:
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=4)
    with pytest.raises(ValueError, match=message):
        protocol.sample_support_counts(counts)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        protocol.estimate(counts, 10)  # type: ignore[arg-type]


def test_all_zero_counts_means_no_users() -> None:
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=4)
    with pytest.raises(ValueError, match="n must be an integer"):
        protocol.sample_support_counts([0, 0, 0, 0])


def test_support_counts_cannot_exceed_n() -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=4)
    with pytest.raises(ValueError, match="at most 10; entry 2 is 11"):
        protocol.estimate([1, 2, 11, 3], 10)


def test_bad_sampler_and_rng() -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=4)
    with pytest.raises(ValueError, match="sampler must be one of fast, per-user"):
        protocol.sample_support_counts([1, 1, 1, 1], sampler="slow")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rng must be"):
        as_generator("seed")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rng must be"):
        as_generator(True)  # type: ignore[arg-type]


def test_per_user_path_has_a_size_limit() -> None:
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=2)
    with pytest.raises(ValueError, match="use sampler='fast'"):
        protocol.sample_support_counts([bounds.PER_USER_N_MAX, 1], sampler="per-user")


@pytest.mark.parametrize("name", ALL)
def test_bad_user_values(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=4)
    with pytest.raises(ValueError, match=r"integer indices in \[0, 3\]"):
        protocol.randomize(np.array([0, 4]))
    with pytest.raises(ValueError, match=r"integer indices in \[0, 3\]"):
        protocol.randomize(np.array([-1, 2]))
    with pytest.raises(ValueError, match="integer indices"):
        protocol.randomize(np.array([0.5]))


@pytest.mark.parametrize("name", ALL)
def test_inputs_are_not_mutated(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=6)
    counts = np.array([5, 4, 3, 2, 1, 0])
    before = counts.copy()
    # A protocol outside the (p, q) view has tallies only; the others' support counts
    # are read too.
    flat = protocol.support_view
    draw = protocol.sample_support_counts if flat else protocol.sample_tallies
    read = protocol.estimate if flat else protocol.estimate_from_tallies
    draw(counts, 0)
    support = draw(counts, 0, sampler="per-user")
    kept = support.copy()
    read(support, int(counts.sum()))
    np.testing.assert_array_equal(counts, before)
    np.testing.assert_array_equal(support, kept)


def test_wrong_types_are_input_errors_not_type_errors() -> None:
    """these raised a bare TypeError."""
    from ldpcore.advice import choose_epsilon  # noqa: PLC0415
    from ldpcore.collection.estimates import read_collected  # noqa: PLC0415
    from ldpcore.errors import InputError  # noqa: PLC0415
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415

    config = ExperimentConfig(dataset="zipf:d=8", n=1000, protocol="GRR", epsilon=1.0)
    with pytest.raises(InputError, match="list of protocol names"):
        choose_epsilon(config, target_rmse=0.01, protocols=None)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="expected the file's bytes"):
        read_collected(None, protocol="GRR", epsilon=1.0, n=10)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ALL)
def test_support_counts_are_refused_in_one_voice_outside_the_pq_view(name: str) -> None:
    """Every protocol whose tallies do not count values refuses the three support-count
    calls with the base's one message, naming what its tallies count."""
    protocol = get_protocol(name, epsilon=1.0, domain_size=8)
    counts = np.full(8, 3)
    if protocol.support_view:
        assert protocol.sample_support_counts(counts, 0).shape == (8,)
        return
    for call in (
        lambda: protocol.sample_support_counts(counts, 0),
        lambda: protocol.sample_support_counts(counts, 0, sampler="per-user"),
        lambda: protocol.estimate(counts, 24),
        lambda: protocol.support_from_tallies(protocol.sample_tallies(counts, 0)),
    ):
        with pytest.raises(InputError, match=f"its tallies count {protocol.tallies_count}"):
            call()
