"""Method recommendation and ε / n advice."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from command import ldpcore
from scipy import optimize

from ldpcore.advice import advise_epsilon, advise_users, recommend
from ldpcore.data.datasets import zipf
from ldpcore.experiments.config import ExperimentConfig
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


def test_base_advice_for_single_values_runs_no_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Eq. 3 gives Base's error exactly: the ε and n searches never simulate it (at
    words' d = 10,000 with Subset Selection they took 10 s of Choose ε's page)."""
    from ldpcore.advice import bisection  # noqa: PLC0415

    def no_run(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("Base was simulated although Eq. 3 is exact")

    monkeypatch.setattr(bisection, "run", no_run)
    config = ExperimentConfig(
        dataset="zipf:d=256,s=1.5", n=100_000, protocol="SS", epsilon=1.0, methods=("Base",)
    )
    (users,) = advise_users(config, target_rmse=0.004)
    (budget,) = advise_epsilon(config, target_rmse=0.004)
    assert users.value is not None and budget.value is not None
    assert users.low == users.value == users.high  # no noise: no interval


def test_error_curve_has_base_exact_and_the_others_as_the_sweep_simulates_them() -> None:
    from ldpcore.advice import error_curve  # noqa: PLC0415
    from ldpcore.experiments.sweeps import sweep  # noqa: PLC0415
    from ldpcore.experiments.trials import run  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=128,s=1.5",
        n=50_000,
        protocol="OLH",
        epsilon=1.0,
        methods=("Base", "Norm-Sub"),
        query="topk:k=5",
        trials=4,
    )
    grid = (0.5, 1.0, 2.0)
    curve = error_curve(config, grid)
    assert list(curve["method"]) == ["Base"] * 3 + ["Norm-Sub"] * 3
    base = curve[curve["method"] == "Base"]
    assert base["exact"].all() and not curve[curve["method"] == "Norm-Sub"]["exact"].any()
    for epsilon, mse in zip(base["epsilon"], base["mse"], strict=True):
        reported = run(dataclasses.replace(config, epsilon=epsilon))
        assert mse == reported.analytic["base_mse"]
    simulated = sweep(config, "epsilon", list(grid))
    np.testing.assert_array_equal(
        curve[curve["method"] == "Norm-Sub"]["mse"].to_numpy(),
        simulated[simulated["method"] == "Norm-Sub"]["mse"].to_numpy(),
    )
    # A set query's answer has no exact Base error here: Base is simulated too.
    sets = error_curve(dataclasses.replace(config, query="set:rho=0.1"), grid)
    assert not sets["exact"].any() and set(sets["method"]) == {"Base", "Norm-Sub"}


def test_search_time_guide_names_every_protocol_alone_or_on_threads() -> None:
    """The Choose ε page times one trial per protocol before searching (to warn first);
    on the search's threads the probes run at once and still give one guide each."""
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    from ldpcore.advice import estimate_choose_epsilon_seconds  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=64,s=1.5", n=10_000, protocol="GRR", epsilon=1.0, trials=10
    )
    protocols = ("GRR", "OUE", "SS")
    alone = estimate_choose_epsilon_seconds(config, protocols)
    with ThreadPoolExecutor(2) as pool:
        together = estimate_choose_epsilon_seconds(config, protocols, pool)
    for guide in (alone, together):
        assert list(guide) == list(protocols)
        assert all(0 < seconds < 60 for seconds in guide.values())
