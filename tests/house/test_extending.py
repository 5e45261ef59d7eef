"""The recipes of ARCHITECTURE.md, proved: a protocol, a method or a query kind is one file.

``tests/toy_protocol.py`` (PadRR), ``tests/toy_method.py`` (Shrink) and
``tests/toy_query.py`` (blocks) are registered
in temporary registries (the read-only registries are swapped for the test and
restored after it); nothing else in ldpcore knows them. Every part that handles
protocols or methods then runs on them: both samplers against the exact moments,
report files through the command line, the privacy audit and the ε grid, the Learn
walkthrough, the likelihood methods, the comparisons and the figures.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest
from conftest import exact_count_moments, zipf_counts
from hypothesis import given
from hypothesis import strategies as st
from moments import assert_moments, draw_counts
from toy_method import Shrink
from toy_protocol import PAD_RR_FORMAT, PadRR, pad_rr_guess_rate
from toy_query import BlocksQuery
from toy_registry import toys_wanted

import ldpcore.attacks.guessing
import ldpcore.collection.formats
import ldpcore.postprocess
import ldpcore.protocols
import ldpcore.queries.specs
from ldpcore.cli import main
from ldpcore.collection.audit import audit
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.learn.walkthrough import walkthrough
from ldpcore.postprocess import default_method_names, get_method, method_names
from ldpcore.present import figures
from ldpcore.protocols import get_protocol, protocol_names
from ldpcore.queries.specs import parse_query_spec, query_kinds, query_usage


@pytest.fixture
def toys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """PadRR, Shrink and blocks registered for one test (the registries are restored after)."""
    protocols = MappingProxyType({**ldpcore.protocols.PROTOCOLS, "PadRR": PadRR})
    methods = MappingProxyType({**ldpcore.postprocess.METHODS, "Shrink": Shrink})
    kinds = MappingProxyType({**ldpcore.queries.specs.QUERY_KINDS, "blocks": BlocksQuery})
    monkeypatch.setattr(ldpcore.protocols, "PROTOCOLS", protocols)
    monkeypatch.setattr(ldpcore.postprocess, "METHODS", methods)
    monkeypatch.setattr(ldpcore.queries.specs, "QUERY_KINDS", kinds)
    guesses = MappingProxyType({**ldpcore.attacks.guessing.GUESS_RATES, PadRR: pad_rr_guess_rate})
    monkeypatch.setattr(ldpcore.attacks.guessing, "GUESS_RATES", guesses)
    formats = MappingProxyType({**ldpcore.collection.formats.REPORT_FORMATS, PadRR: PAD_RR_FORMAT})
    monkeypatch.setattr(ldpcore.collection.formats, "REPORT_FORMATS", formats)
    yield


@pytest.mark.skipif(toys_wanted(), reason="this run registered the toys on purpose")
def test_the_toys_are_unknown_without_the_registry() -> None:
    """The proof is only worth something if nothing else knows the toys."""
    assert "PadRR" not in protocol_names() and "Shrink" not in method_names()
    assert "blocks" not in query_kinds()
    with pytest.raises(ValueError, match="unknown protocol"):
        get_protocol("PadRR", epsilon=1.0, domain_size=4)
    with pytest.raises(ValueError, match="unknown query"):
        ExperimentConfig(
            dataset="zipf:d=8,s=1", n=100, protocol="GRR", epsilon=1.0, query="blocks:size=2"
        )


def test_parameters_come_from_the_declaration(toys: None) -> None:
    assert get_protocol("padrr", epsilon=1.0, domain_size=4, pad=3).outputs == 7
    config = ExperimentConfig(
        dataset="zipf:d=8,s=1", n=100, protocol="PadRR", epsilon=1.0, params={"pad": 2}
    )
    assert config.params == (("pad", 2),) and config.to_dict()["pad"] == 2
    with pytest.raises(ValueError, match="pad applies to PadRR only, not OLH"):
        get_protocol("OLH", epsilon=1.0, domain_size=4, pad=3)
    with pytest.raises(ValueError, match="pad must be"):
        ExperimentConfig(
            dataset="zipf:d=8,s=1", n=100, protocol="PadRR", epsilon=1.0, params={"pad": -1}
        )


@pytest.mark.parametrize("sampler", ["fast", "per-user"])
def test_both_samplers_match_the_exact_moments(toys: None, sampler: str) -> None:
    protocol = get_protocol("PadRR", epsilon=1.0, domain_size=6, pad=3)
    counts = zipf_counts(6, 3000)
    mean, cov = exact_count_moments(protocol, counts)
    samples = draw_counts(
        protocol, counts, 400 if sampler == "fast" else 150, seed=5, sampler=sampler
    )
    assert_moments(samples, mean, cov, f"PadRR {sampler}")


@pytest.mark.parametrize("sampler", ["fast", "per-user"])
def test_an_experiment_runs_every_method_on_the_toy(toys: None, sampler: str) -> None:
    config = ExperimentConfig(
        dataset="zipf:d=16,s=1.2",
        n=5000,
        protocol="PadRR",
        epsilon=1.0,
        params={"pad": 4},
        trials=6,
        sampler=sampler,
    )
    result = run(config)
    summary = result.summary.set_index("method")
    assert set(summary.index) == set(default_method_names()) and "Shrink" in summary.index
    assert np.all(np.isfinite(summary["mse"]))
    # Base is unbiased with NDSS Eq. (3)'s variance: its MSE is near the analytic one.
    assert summary.loc["Base", "mse"] == pytest.approx(result.analytic["base_mse"], rel=0.5)
    # The decoys break "sums to one": Norm is not declared a no-op here.
    assert summary.loc["Norm", "mse_vs_base"] != "same answers"


def test_report_files_through_the_command_line(toys: None, tmp_path: Path) -> None:
    values = tmp_path / "values.csv"
    pd.DataFrame({"value": np.arange(2000) % 5}).to_csv(values, index=False)
    common = ["--protocol", "PadRR", "--epsilon", "2", "--domain-size", "5", "--pad", "2"]
    for fmt in ("csv", "parquet"):
        reports, counts = tmp_path / f"reports.{fmt}", tmp_path / f"counts-{fmt}.csv"
        _cli("randomize", *common, "--input", str(values), "--output", str(reports), "--seed", "3")
        frame = pd.read_csv(reports, comment="#") if fmt == "csv" else pd.read_parquet(reports)
        assert list(frame.columns) == ["output"] and frame["output"].max() < 7
        _cli("aggregate", *common, "--input", str(reports), "--output", str(counts))
        aggregated = pd.read_csv(counts)
        protocol = get_protocol("PadRR", epsilon=2.0, domain_size=5, pad=2)
        expected = protocol.aggregate(frame["output"].to_numpy())
        assert aggregated["count"].tolist() == expected.tolist()
    # A report outside [0, d + pad) is refused with a message, not a traceback.
    pd.DataFrame({"output": [0, 9]}).to_csv(tmp_path / "bad.csv", index=False)
    code, err = _cli("aggregate", *common, "--input", str(tmp_path / "bad.csv"), check=False)
    assert code == 2 and "output must be in [0, 7)" in err


def test_audit_and_the_privacy_grid(toys: None) -> None:
    result = audit(
        get_protocol("PadRR", epsilon=1.0, domain_size=4, pad=2),
        runs=20_000,
        rng=np.random.default_rng(1),
    )
    assert result.passed, result.verdict
    for epsilon in (0.1, 1.0, 4.0):
        for d, pad in ((2, 0), (5, 1), (40, 7)):
            ratio = get_protocol(
                "PadRR", epsilon=epsilon, domain_size=d, pad=pad
            ).worst_case_ratio()
            assert ratio == pytest.approx(math.exp(epsilon), rel=1e-9)
    code, out = _cli(
        "audit",
        "--protocol",
        "PadRR",
        "--epsilon",
        "1",
        "--domain-size",
        "4",
        "--runs",
        "5000",
        "--seed",
        "2",
        stream="out",
    )
    assert code == 0 and "consistent with ε-LDP" in out


def test_learn_walkthrough(toys: None) -> None:
    steps = walkthrough(
        protocol="PadRR",
        epsilon=0.5,
        values=np.array([0, 1, 2, 2, 1, 0] * 5),
        labels=("a", "b", "c"),
        seed=4,
    )
    assert len(steps.reports) == 30
    decoys = steps.reports["report"].str.startswith("decoy")
    assert (steps.reports.loc[decoys, "supports"] == "(nothing)").all()
    assert steps.support_counts.sum() == (~decoys).sum()
    assert "Shrink" in steps.methods.columns


def test_styles_for_any_number_of_methods(toys: None) -> None:
    styles = {tuple(figures.method_style(name).values()) for name in method_names()}
    assert len(styles) == len(method_names())


@given(values=st.lists(st.floats(-1.0, 1.5), min_size=2, max_size=30))
def test_the_toy_method_keeps_what_its_metadata_says(values: list[float]) -> None:
    estimate = np.array(values)
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=estimate.size)
    out = Shrink()(estimate, protocol=protocol, n=1000)
    assert out.min() >= 0 and abs(out.sum() - 1) <= 1e-12
    order = np.argsort(estimate, kind="stable")
    assert np.all(np.diff(out[order]) >= -1e-12)


def test_the_toy_method_through_the_registry(toys: None) -> None:
    assert get_method("shrink").name == "Shrink"
    config = ExperimentConfig(
        dataset="zipf:d=64,s=1.5",
        n=10**4,
        protocol="OLH",
        epsilon=1.0,
        methods=("Base", "Shrink"),
        trials=8,
    )
    row = run(config).summary.set_index("method").loc["Shrink"]
    assert row["ratio_low"] <= row["mse_ratio_to_base"] <= row["ratio_high"]


def test_the_toy_query_kind_through_experiments_and_the_command_line(toys: None) -> None:
    spec = parse_query_spec("Blocks:size=3.0")
    assert spec == BlocksQuery(3) and str(spec) == "blocks:size=3"
    assert "blocks:size=B" in query_usage()
    config = ExperimentConfig(
        dataset="zipf:d=10,s=1",
        n=5000,
        protocol="GRR",
        epsilon=2.0,
        methods=("Base", "Norm-Sub"),
        query="blocks:size=3",
        trials=4,
    )
    result = run(config)
    truth = config.dataset.build(config.n).frequencies()
    # Independent of the Query machinery: the blocks' sums, written out.
    expected = [truth[0:3].sum(), truth[3:6].sum(), truth[6:9].sum(), truth[9:10].sum()]
    assert result.truth == pytest.approx(expected, abs=1e-15)
    assert result.labels == ("block 1", "block 2", "block 3", "block 4")
    # Not single values: Base's exact single-value MSE (Eq. 3) is not claimed.
    assert result.analytic["base_mse"] is None
    command = (
        "simulate --protocol GRR --epsilon 2 --n 5000 --dataset zipf:d=10,s=1 "
        "--query blocks:size=3 --methods Base,Norm-Sub --trials 4 --format json"
    )
    code, out = _cli(*command.split(), stream="out")
    assert code == 0 and '"query": "blocks:size=3"' in out


def _cli(*argv: str, check: bool = True, stream: str = "err") -> tuple[int, str]:
    """Run the command line in this process (so it sees the temporary registries)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    if check:
        assert code == 0, err.getvalue()
    return code, (out if stream == "out" else err).getvalue()
