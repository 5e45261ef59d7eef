"""Datasets, queries, metrics and the experiment engine."""

from __future__ import annotations

import dataclasses
import math
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from ldpcore.data.datasets import (
    bundled_names,
    load_bundled,
    read_histogram,
    round_to_total,
    zipf,
)
from ldpcore.data.specs import parse_dataset
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.metrics import (
    equivalent_users,
    kl_divergence,
    kl_divergence_rows,
    lower_bound,
    summarize_errors,
    total_variation,
    total_variation_rows,
)
from ldpcore.experiments.sweeps import sweep
from ldpcore.experiments.trials import run, trial_generator
from ldpcore.protocols import get_protocol
from ldpcore.queries.query import groups, prefixes, random_sets, top_k
from ldpcore.queries.specs import parse_query

# --- datasets ----------------------------------------------------------------


def test_zipf_is_largest_remainder_rounding() -> None:
    # f ∝ (1, 1/2, 1/3) → 600 · (6/11, 3/11, 2/11) = (327.27, 163.64, 109.09)
    assert zipf(3, 600, s=1.0).counts.tolist() == [327, 164, 109]
    assert round_to_total(np.array([1.0, 1.0, 1.0]), 10).tolist() == [4, 3, 3]
    assert parse_dataset("uniform:d=4", 10).counts.tolist() == [3, 3, 2, 2]


def test_histogram_file_round_trip(tmp_path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("\ufeffvalue,count\napple,5\npear,0\nfig,15\n", encoding="utf-8")
    data = read_histogram(path)
    assert data.labels == ("apple", "pear", "fig") and data.counts.tolist() == [5, 0, 15]
    assert parse_dataset(f"file:{path}", 40).counts.tolist() == [10, 0, 30]


# --- queries, by hand ------------------------------------------------------------

F = np.array([0.1, 0.5, -0.2, 0.6])


def test_full_topk_prefix_by_hand() -> None:
    truth = np.array([0.1, 0.4, 0.2, 0.3])
    assert parse_query("full", true_frequencies=truth).answer(F).tolist() == F.tolist()
    q = top_k(truth, 2)  # the two truly largest: values 1 and 3
    assert q.labels == ("1", "3") and q.answer(F).tolist() == [0.5, 0.6]
    np.testing.assert_allclose(prefixes(4).answer(F), [0.1, 0.6, 0.4, 1.0])
    # Post-Pos clamps answers, not the vector.
    np.testing.assert_allclose(prefixes(4).answer(F - 0.2, clamp=True), [0, 0.2, 0, 0.2])


def test_groups_and_sets_by_hand() -> None:
    q = groups(["a", "b", "a", "b"])
    assert q.labels == ("a", "b")
    np.testing.assert_allclose(q.answer(F), [-0.1, 1.1])
    np.testing.assert_allclose(q.answer(F, clamp=True), [0.0, 1.1])
    sets = random_sets(4, 0.5, samples=5, seed=3)
    assert all(len(m) == 2 for m in sets.members)
    expected = [F[m].sum() for m in sets.members]
    np.testing.assert_allclose(sets.answer(F), expected)
    # Same sets for the same (d, ρ, samples, seed): every trial and method agree.
    again = random_sets(4, 0.5, samples=5, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(sets.members, again.members, strict=True))


# --- metrics, by hand ------------------------------------------------------------


def test_metrics_by_hand() -> None:
    answers = np.array([[1.0, 0.0], [3.0, 0.0]])  # two trials, two answers
    s = summarize_errors(answers, np.array([1.0, 1.0]))
    # errors: [[0, -1], [2, -1]]; per-trial MSE 0.5 and 2.5
    assert s.mse == 1.5 and s.mse_std == pytest.approx(math.sqrt(2.0))
    assert s.bias_sq == 1.0 and s.variance == 0.5
    assert s.mae == 1.0 and s.max_error == 1.5
    assert total_variation(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == 0.5
    assert kl_divergence(np.array([0.5, 0.5]), np.array([0.25, 0.75])) == pytest.approx(
        0.5 * math.log(2) + 0.5 * math.log(2 / 3)
    )
    assert math.isnan(kl_divergence(np.array([0.5, 0.5]), np.array([-0.1, 1.1])))
    assert kl_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == math.inf
    # A subnormal estimate: f/g would overflow; the difference of logs does not.
    tiny = 5e-321
    assert kl_divergence(np.array([0.5, 0.5]), np.array([1.0 - tiny, tiny])) == pytest.approx(
        0.5 * math.log(0.5) + 0.5 * (math.log(0.5) - math.log(tiny))
    )
    assert lower_bound(1.0, 100) == pytest.approx(1 / (100 * (math.e - 1) ** 2))


def test_divergences_of_a_stack_are_each_row_s_by_a_plain_loop() -> None:
    truth = np.array([0.5, 0.3, 0.2, 0.0])
    stack = np.array(
        [
            [0.4, 0.4, 0.2, 0.0],  # a distribution on the support: defined
            [0.5, 0.5, 0.0, 0.0],  # misses a value of the support: inf
            [0.6, 0.5, -0.1, 0.0],  # negative: NaN
            [0.5, 0.3, 0.1, 0.0],  # sums to 0.9: NaN
            [0.1, 0.1, 0.1, 0.7],  # mass off the support is allowed
        ]
    )

    def plain_kl(g: list[float]) -> float:
        if min(g) < 0 or abs(sum(g) - 1.0) > 1e-9:
            return math.nan
        if any(gv == 0 and fv > 0 for fv, gv in zip(truth, g, strict=True)):
            return math.inf
        return sum(fv * math.log(fv / gv) for fv, gv in zip(truth, g, strict=True) if fv > 0)

    kl = kl_divergence_rows(truth, stack)
    for row, value in zip(stack, kl, strict=True):
        expected = plain_kl(row.tolist())
        assert (math.isnan(value) and math.isnan(expected)) or value == pytest.approx(expected)
        assert kl_divergence(truth, row) == value or math.isnan(value)
    tv = total_variation_rows(stack, truth)
    for row, value in zip(stack, tv, strict=True):
        assert value == pytest.approx(
            0.5 * sum(abs(a - b) for a, b in zip(row, truth, strict=True))
        )


@pytest.mark.parametrize("seed", range(5))
def test_mse_is_bias_squared_plus_variance(seed: int) -> None:
    rng = np.random.default_rng(seed)
    answers = rng.normal(size=(17, 9))
    truth = rng.normal(size=9)
    s = summarize_errors(answers, truth)
    assert abs(s.mse - (s.bias_sq + s.variance)) <= 1e-12


def test_equivalent_users_of_base_is_n() -> None:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=100)
    f = np.full(100, 0.01)
    base_mse = float(np.mean(protocol.variance(f, 5000)))
    assert equivalent_users(protocol, base_mse) == pytest.approx(5000)


# --- experiments -------------------------------------------------------------------

SMALL = ExperimentConfig(
    dataset="zipf:d=64,s=1.2", n=20_000, protocol="OLH", epsilon=1.0, trials=12, seed=7
)


def test_run_produces_tidy_tables_and_the_json_contract() -> None:
    result = run(SMALL)
    assert list(result.summary["method"]) == list(SMALL.methods)
    assert len(result.per_item) == len(SMALL.methods) * 64
    assert len(result.trials_frame()) == len(SMALL.methods) * 12 * 64
    payload = result.to_json_dict()
    assert set(payload) == {"config", "analytic", "results"}
    assert set(payload["results"][0]) == {
        "method",
        "mse",
        "mse_std",
        "bias_sq",
        "variance",
        "converged",
    }
    for row in result.summary.itertuples():
        assert abs(row.mse - (row.bias_sq + row.variance)) <= 1e-12
    base = result.summary.set_index("method").loc["Base"]
    # Base's measured MSE is near Eq. 3 (12 trials: a loose band).
    assert abs(base.mse / result.analytic["base_mse"] - 1) < 0.3


def test_trials_are_spawned_children_of_the_seed() -> None:
    expected = np.random.SeedSequence(7).spawn(3)[2]
    assert trial_generator(7, 2).integers(2**62) == np.random.default_rng(expected).integers(2**62)


def test_bit_identical_with_1_2_and_4_processes() -> None:
    reference = run(SMALL).answers
    for workers in (2, 4):
        with ProcessPoolExecutor(workers) as pool:
            parallel = run(SMALL, executor=pool, workers=workers).answers
        assert np.array_equal(reference, parallel)


def test_progress_is_reported() -> None:
    seen: list[tuple[int, int]] = []
    run(SMALL, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (12, 12)


def test_sweep_over_epsilon_and_rho() -> None:
    config = ExperimentConfig(
        dataset="zipf:d=32,s=1.5",
        n=10_000,
        protocol="GRR",
        epsilon=1.0,
        trials=4,
        methods=("Base", "Norm-Sub"),
    )
    frame = sweep(config, "epsilon", [0.5, 2.0, 4.0])
    base = frame[frame["method"] == "Base"]["mse"].to_numpy()
    assert base[0] > base[1] > base[2]  # more budget, less error
    rho = sweep(config, "rho", [0.1, 0.5])
    assert set(rho["rho"]) == {0.1, 0.5} and rho["base_mse"].isna().all()
    with pytest.raises(ValueError, match="cannot sweep 'colour'"):
        sweep(config, "colour", [1])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"protocol": "RAPPOR"}, "unknown protocol"),
        ({"methods": ("Nope",)}, "unknown post-processing method"),
        ({"methods": ()}, "at least one"),
        ({"trials": 0}, "trials must be an integer"),
        ({"sampler": "slow"}, "sampler must be one of"),
        ({"seed": -1}, "seed must be an integer"),
    ],
)
def test_bad_configs(change: dict[str, object], message: str) -> None:
    base = {"dataset": "zipf:d=8", "n": 100, "protocol": "OLH", "epsilon": 1.0}
    with pytest.raises(ValueError, match=message):
        ExperimentConfig(**(base | change))  # type: ignore[arg-type]


def test_intervals_by_hand() -> None:
    q = parse_query("interval:samples=4", true_frequencies=np.full(4, 0.25), seed=1)
    for members, label in zip(q.members, q.labels, strict=True):
        a, b = members[0], members[-1]
        assert label == f"[{a}, {b}]" and members.tolist() == list(range(a, b + 1))
    np.testing.assert_allclose(q.answer(F), [F[m].sum() for m in q.members])


def test_groups_query_from_a_file_with_groups(tmp_path) -> None:
    path = tmp_path / "g.csv"
    path.write_text("value,count,group\na,10,x\nb,30,y\nc,60,x\n")
    config = ExperimentConfig(
        dataset=f"file:{path}",
        n=100,
        protocol="GRR",
        epsilon=2.0,
        query="groups",
        methods=("Base",),
        trials=3,
    )
    result = run(config)
    assert result.labels == ("x", "y")
    np.testing.assert_allclose(result.truth, [0.7, 0.3])


def test_bundled_zipf_sample_matches_its_generator() -> None:
    assert "zipf" in bundled_names()
    data = load_bundled("zipf")
    assert data.n == 1_000_000 and data.domain_size == 1024
    assert data.counts.tolist() == zipf(1024, 1_000_000, s=1.5).counts.tolist()
    top = load_bundled("zipf", top_d=10, n=1000)
    assert top.domain_size == 10 and top.n == 1000
    assert parse_dataset("zipf", 500).n == 500
    with pytest.raises(ValueError, match="unknown bundled dataset 'nonexistent'"):
        load_bundled("nonexistent")


def test_groups_from_a_file(tmp_path) -> None:
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.experiments.trials import run  # noqa: PLC0415
    from ldpcore.queries.query import groups_from_file  # noqa: PLC0415

    path = tmp_path / "groups.csv"
    path.write_text("value,group\n0,head\n1,head\n5,tail\n")
    query = groups_from_file(str(path), tuple(str(i) for i in range(8)))
    assert query.labels == ("head", "tail")
    f = np.arange(8) / 28
    np.testing.assert_allclose(query.answer(f), [f[0] + f[1], f[5]])
    config = ExperimentConfig(
        dataset="zipf:d=8,s=1",
        n=1000,
        protocol="GRR",
        epsilon=2.0,
        methods=("Base",),
        query=f"groups:file={path}",
        trials=3,
    )
    assert list(run(config).per_item["item"]) == ["head", "tail"]
    path.write_text("value,group\n0,head\n99,tail\n")
    with pytest.raises(ValueError, match="names 1 value\\(s\\) the dataset does not have: '99'"):
        groups_from_file(str(path), tuple(str(i) for i in range(8)))
    path.write_text("value,colour\n0,red\n")
    with pytest.raises(ValueError, match="needs a header with 'value' and 'group'"):
        groups_from_file(str(path), ("0", "1"))
    with pytest.raises(ValueError, match="does not exist"):
        groups_from_file(str(tmp_path / "none.csv"), ("0", "1"))


def test_fingerprint_changes_with_every_field_and_only_then() -> None:
    base = ExperimentConfig(
        dataset="mine",
        n=10,
        protocol="OLH",
        epsilon=1.0,
        true_counts=(3, 7),
        labels=("a", "b"),
        groups=("g", "h"),
    )
    assert base.fingerprint == dataclasses.replace(base).fingerprint
    changes = {
        "dataset": "other",
        "n": 11,
        "protocol": "GRR",
        "epsilon": 1.5,
        "methods": ("Base",),
        "query": "topk:k=1",
        "trials": 3,
        "seed": 1,
        "sampler": "per-user",
        "params": {"g": 3},
        "true_counts": (7, 3),
        "labels": ("b", "a"),
        "groups": ("g", "g"),
    }
    assert set(changes) == {f.name for f in dataclasses.fields(ExperimentConfig)}
    prints = {
        dataclasses.replace(base, **{name: value}).fingerprint for name, value in changes.items()
    }
    assert len(prints) == len(changes) and base.fingerprint not in prints
    # Labels holding separators do not merge into other labels.
    one = dataclasses.replace(base, labels=("a\x1fb", "c"), true_counts=(1, 2))
    two = dataclasses.replace(base, labels=("a", "b\x1fc"), true_counts=(1, 2))
    assert one.fingerprint != two.fingerprint
