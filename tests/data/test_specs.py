"""Typed specs: parsed once, one canonical text, equal settings equal values.

Round-trips are property tests (``parse(str(spec)) == spec`` for generated specs, and
``str`` is a fixed point of parse for written variants); equal settings make equal
configs with one fingerprint; the simulate JSON of a canonical config is unchanged by
spelling.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldpcore import bounds
from ldpcore.data.datasets import bundled_names
from ldpcore.data.specs import (
    BundledData,
    UniformData,
    ZipfData,
    parse_dataset_spec,
)
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.queries.specs import (
    QUERY_KINDS,
    FullQuery,
    GroupsQuery,
    IntervalQuery,
    PrefixQuery,
    QuantileQuery,
    RangeQuery,
    SetQuery,
    TopKQuery,
    parse_query_spec,
    query_usage,
)

domain = st.integers(bounds.DOMAIN_SIZE_MIN, bounds.DOMAIN_SIZE_MAX)
exponents = st.floats(0, 10, allow_nan=False)
rhos = st.floats(1e-6, 1, allow_nan=False, exclude_min=False)
samples = st.integers(1, 10_000)

datasets = st.one_of(
    st.builds(ZipfData, domain, exponents),
    st.builds(UniformData, domain),
    st.sampled_from([BundledData(name) for name in bundled_names()]),
)
queries = st.one_of(
    st.just(FullQuery()),
    st.builds(TopKQuery, st.integers(1, 10**6)),
    st.builds(SetQuery, rhos, samples),
    st.just(GroupsQuery()),
    st.builds(GroupsQuery, st.from_regex(r"[a-z][a-z0-9_./]{0,20}", fullmatch=True)),
    st.just(PrefixQuery()),
    st.builds(IntervalQuery, samples),
    st.builds(RangeQuery, st.integers(1, 10**6)),
    st.just(QuantileQuery()),
    st.builds(QuantileQuery, st.floats(1e-9, 1 - 1e-9, allow_nan=False)),
)


@given(datasets)
def test_dataset_specs_round_trip(spec: object) -> None:
    assert parse_dataset_spec(str(spec)) == spec
    assert str(parse_dataset_spec(str(spec))) == str(spec)


@given(queries)
def test_query_specs_round_trip(spec: object) -> None:
    assert parse_query_spec(str(spec)) == spec
    assert str(parse_query_spec(str(spec))) == str(spec)


@given(
    d=domain,
    s=st.sampled_from(["1", "1.0", "1.00", "1e0", " 1 "]),
    kind=st.sampled_from(["zipf", "Zipf", "ZIPF"]),
)
def test_spellings_of_one_dataset_are_one_value(d: int, s: str, kind: str) -> None:
    spec = parse_dataset_spec(f"{kind}:D={d}, s={s}")
    assert spec == ZipfData(d, 1.0) and str(spec) == f"zipf:d={d},s=1"


@pytest.mark.parametrize(
    ("parse", "written", "canonical"),
    [
        (parse_dataset_spec, "zipf:d=8", "zipf:d=8,s=1.5"),
        (parse_dataset_spec, "uniform:d=16.0", "uniform:d=16"),
        (parse_query_spec, "Full", "full"),
        (parse_query_spec, "topk:k=10.0", "topk:k=10"),
        (parse_query_spec, "set:rho=0.1", "set:rho=0.1,samples=10"),
        (parse_query_spec, "interval", "interval:samples=10"),
        (parse_query_spec, "groups", "groups"),
        (parse_query_spec, "range:length=8.0", "range:length=8"),
        (parse_query_spec, "quantile:q=0.50", "quantile:q=0.5"),
    ],
)
def test_defaults_are_written_out(
    parse: Callable[[str], object], written: str, canonical: str
) -> None:
    assert str(parse(written)) == canonical


def test_equal_settings_are_equal_configs_with_one_fingerprint() -> None:
    a = ExperimentConfig(dataset="Zipf:d=8,s=1", n=100, protocol="olh", epsilon=1, query="Full")
    b = ExperimentConfig(dataset="zipf:d=8,s=1.0", n=100, protocol="OLH", epsilon=1.0)
    assert a == b and hash(a) == hash(b) and a.fingerprint == b.fingerprint
    c = dataclasses.replace(b, query="topk:k=3")
    assert c != b and c.fingerprint != b.fingerprint
    assert c.query == TopKQuery(3)


def test_the_json_says_the_canonical_spec_whatever_the_spelling() -> None:
    common = {"n": 2000, "protocol": "GRR", "epsilon": 2.0, "trials": 2}
    written = ExperimentConfig(dataset="ZIPF:d=16", query="TopK:k=3.0", **common)
    canonical = ExperimentConfig(dataset="zipf:d=16,s=1.5", query="topk:k=3", **common)
    first = json.dumps(run(written).to_json_dict())
    assert first == json.dumps(run(canonical).to_json_dict())
    assert '"dataset": "zipf:d=16,s=1.5"' in first and '"query": "topk:k=3"' in first


def test_a_bundled_spec_reads_its_file_once() -> None:
    spec = BundledData("countries")
    config = ExperimentConfig(dataset=spec, n=1000, protocol="GRR", epsilon=1.0)
    first = config.build()[0]
    assert "loaded" in vars(spec)  # kept with the value, so later builds reuse it
    moved = dataclasses.replace(config, epsilon=2.0)
    assert moved.dataset is spec and moved.build()[0].counts.tolist() == first.counts.tolist()


def test_help_lists_every_registered_kind() -> None:
    usage = query_usage()
    assert all(cls.usage in usage for cls in QUERY_KINDS.values())
    with pytest.raises(ValueError, match="unknown query") as caught:
        parse_query_spec("median")
    assert all(cls.usage in str(caught.value) for cls in QUERY_KINDS.values())
