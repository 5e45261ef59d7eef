"""Method recommendation and ε / n advice."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import optimize
from test_cli import ldpcore

from ldpcore.advice import advise_epsilon, advise_users, recommend
from ldpcore.datasets import zipf
from ldpcore.experiment import ExperimentConfig
from ldpcore.protocols import get_protocol


def test_recommend_picks_the_known_best_method_on_sparse_data() -> None:
    # All users hold one value: Base spreads noise over 63 empty values, Base-Pos
    # keeps the positive half of it, Norm-Sub removes nearly all of it.
    d, n = 64, 20_000
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    counts = np.zeros(d, dtype=np.int64)
    counts[5] = n
    estimate = protocol.estimate(protocol.sample_support_counts(counts, 1), n)
    ranking = recommend(
        estimate, protocol=protocol, n=n, methods=["Base", "Base-Pos", "Norm-Sub"], trials=10
    ).ranking
    assert list(ranking["method"]) == ["Norm-Sub", "Base-Pos", "Base"]
    assert list(ranking["rank"]) == [1, 2, 3]


def test_recommend_for_top_k_avoids_norm_mul() -> None:
    data = zipf(256, 100_000)
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=256)
    estimate = protocol.estimate(protocol.sample_support_counts(data.counts, 2), data.n)
    ranking = recommend(
        estimate,
        protocol=protocol,
        n=data.n,
        query="topk:k=5",
        methods=["Norm-Mul", "Base"],
        trials=10,
    )
    assert ranking.ranking.iloc[0]["method"] == "Base"
    assert ranking.recommended == "Base" and not ranking.significant


def test_base_advice_matches_the_analytic_solution() -> None:
    config = ExperimentConfig(
        dataset="zipf:d=256,s=1.5",
        n=100_000,
        protocol="OUE",
        epsilon=1.0,
        methods=("Base",),
        trials=2,
    )
    target = 0.004
    (advice,) = advise_epsilon(config, target_rmse=target)
    f = zipf(256, 100_000).frequencies()

    def rmse(eps: float) -> float:
        protocol = get_protocol("OUE", epsilon=eps, domain_size=256)
        return math.sqrt(float(np.mean(protocol.variance(f, 100_000))))

    exact = optimize.brentq(lambda e: rmse(e) - target, 0.05, 10)
    assert advice.value == pytest.approx(exact, rel=0.01)
    assert advice.value >= exact  # the smallest ε *meeting* the target is on the safe side
    (users,) = advise_users(config, target_rmse=target)
    # Var ∝ 1/n for Base: n = n0 · MSE(n0) / target².
    expected_n = 100_000 * rmse(1.0) ** 2 / target**2
    assert users.value == pytest.approx(expected_n, rel=0.01)


def test_advice_for_a_simulated_method_has_an_interval() -> None:
    config = ExperimentConfig(
        dataset="zipf:d=128,s=1.5",
        n=50_000,
        protocol="GRR",
        epsilon=1.0,
        methods=("Norm-Sub",),
        trials=8,
    )
    (tight,) = advise_epsilon(config, target_rmse=0.003)
    (loose,) = advise_epsilon(config, target_rmse=0.01)
    assert tight.value is not None and loose.value is not None
    assert loose.value < tight.value  # a looser target needs less budget
    assert tight.low <= tight.value <= tight.high
    (impossible,) = advise_epsilon(config, target_rmse=1e-7)
    assert impossible.value is None


def test_bad_target() -> None:
    config = ExperimentConfig(dataset="zipf:d=8", n=100, protocol="GRR", epsilon=1.0)
    for bad in (0, -0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="target_rmse must be in"):
            advise_epsilon(config, target_rmse=bad)


def test_cli_recommend_and_advise(tmp_path) -> None:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=32)
    data = zipf(32, 10_000)
    support = protocol.sample_support_counts(data.counts, 0)
    path = tmp_path / "counts.csv"
    path.write_text("value,count\n" + "".join(f"v{i},{c}\n" for i, c in enumerate(support)))
    done = ldpcore(
        "recommend",
        "--protocol",
        "OLH",
        "--epsilon",
        "1",
        "--n",
        "10000",
        "--input",
        str(path),
        "--methods",
        "Base,Norm-Sub",
        "--trials",
        "4",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    ranking = json.loads(done.stdout)["ranking"]
    assert {r["method"] for r in ranking} == {"Base", "Norm-Sub"}
    done = ldpcore(
        "advise-epsilon",
        "--protocol",
        "GRR",
        "--n",
        "10000",
        "--dataset",
        "zipf:d=16",
        "--target-rmse",
        "0.02",
        "--methods",
        "Base",
        "--trials",
        "2",
    )
    assert done.returncode == 0, done.stderr
    assert "GRR + Base" in done.stdout and "ε ≈" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["advise-epsilon", "--n", "100", "--dataset", "zipf:d=8", "--target-rmse", "0"],
            "target_rmse must be in",
        ),
        (
            ["advise-epsilon", "--n", "100", "--dataset", "zipf:d=8", "--target-rmse", "x"],
            "--target-rmse must be a number",
        ),
        (
            [
                "advise-epsilon",
                "--protocol",
                "XX",
                "--n",
                "100",
                "--dataset",
                "zipf:d=8",
                "--target-rmse",
                "0.1",
            ],
            "unknown protocol",
        ),
        (
            [
                "recommend",
                "--protocol",
                "OLH",
                "--epsilon",
                "1",
                "--n",
                "100",
                "--input",
                "/no/such.csv",
            ],
            "does not exist",
        ),
    ],
)
def test_cli_advice_bad_input(args: list[str], message: str) -> None:
    done = ldpcore(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("error:") and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
