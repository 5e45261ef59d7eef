"""Sound decisions: paired comparisons, their error rate, and the ε advice built on them."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from command import ldpcore

from ldpcore.advice import choose_epsilon
from ldpcore.advice.verdicts import verdict
from ldpcore.bounds import EPSILON_RANGE
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.postprocess import METHODS, get_method
from ldpcore.present.epsilon_sentences import epsilon_sentence
from ldpcore.present.sentences import comparison_words, sweep_headline, verdict_headline
from ldpcore.protocols import PROTOCOLS, get_protocol
from ldpcore.stats.compare import Comparison, compare

DEFAULT_METHODS = ("Base", "Base-Cut", "Norm", "Norm-Sub", "MLE-Apx", "PowerNS")


def test_identical_methods_are_called_different_in_at_most_about_5_percent() -> None:
    """The rule's error rate on real simulations: Base against Base on other trials.

    Two samples of the same method's per-trial MSE (disjoint trials of one run) differ
    only by noise; the rule may call them different (either way) in at most α = 5% of
    seeds. 1,000 seeds: 5% expects 50 (σ ≈ 6.9), and 70 is about 3σ above it. (Measured:
    70 of 1,500 seeds, 4.7%; the delta method on log R gave 7% at 10 trials.)
    """
    different = 0
    seeds = 1000
    for seed in range(seeds):
        config = ExperimentConfig(
            dataset="zipf:d=64,s=1.1",
            n=20_000,
            protocol="OLH",
            epsilon=1.0,
            methods=("Base",),
            trials=20,
            seed=seed,
        )
        errors = run(config).trial_errors[0]
        paired = np.vstack([errors[:10], errors[10:]])
        (result,) = compare(paired, ["A", "B"], reference="A")
        different += result.better or result.worse
    assert different <= 70, different


def test_a_real_gain_is_found_with_its_interval() -> None:
    # OLH on the full domain: Norm-Sub's gain over Base is large (NDSS Fig. 1, ~7×).
    config = ExperimentConfig(
        dataset="zipf:d=1024,s=1.5",
        n=100_000,
        protocol="OLH",
        epsilon=1.0,
        methods=("Base", "Norm-Sub"),
        trials=10,
    )
    result = run(config)
    (c,) = compare(result.trial_errors, config.methods, reference="Base")
    assert c.better and not c.worse and c.high < 1
    assert c.low <= c.ratio <= c.high
    assert "lower MSE than Base" in comparison_words(c) and "–" in comparison_words(c)


def test_a_no_op_is_never_credited() -> None:
    # Norm on GRR returns Base's estimate up to rounding: it is declared a no-op.
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=64)
    assert get_method("Norm").is_no_op(protocol)
    config = ExperimentConfig(
        dataset="zipf:d=64,s=1.5",
        n=10_000,
        protocol="GRR",
        epsilon=1.0,
        methods=("Base", "Norm"),
        trials=10,
    )
    errors = run(config).trial_errors
    (c,) = compare(errors, ["Base", "Norm"], reference="Base", no_ops=["Norm"])
    assert c.no_op and not c.better and c.ratio == 1.0
    # Even undeclared, outputs equal to rounding are measured as the same.
    (measured,) = compare(errors, ["Base", "Norm"], reference="Base")
    assert measured.no_op and not measured.better
    assert "1.0×" not in comparison_words(measured)


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_sum_to_one_declaration_matches_the_estimates(name: str) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=100)
    counts = np.random.default_rng(3).integers(0, 500, size=100)
    estimate = protocol.estimate_from_tallies(protocol.sample_tallies(counts, 5), int(counts.sum()))
    sums_to_one = abs(float(estimate.sum()) - 1.0) < 1e-9
    assert sums_to_one == protocol.estimates_sum_to_one
    assert get_method("Norm").is_no_op(protocol) == protocol.estimates_sum_to_one
    # The consistency step has nothing to do on a flat protocol, and only there.
    assert get_method("Consistency").is_no_op(protocol) == (not protocol.composite)
    others = [m for m in METHODS if m not in {"Norm", "Consistency"}]
    assert not any(METHODS[m]().is_no_op(protocol) for m in others)


def test_verdict_without_a_gain_recommends_a_consistent_method_in_words() -> None:
    rng = np.random.default_rng(1)
    base = rng.gamma(30, 1e-5, size=20)
    errors = np.vstack([base, base * rng.uniform(0.98, 1.02, size=20)])
    found = verdict(errors, ["Base", "Norm-Sub"], consistent=["Norm-Sub"], query="the top-10")
    assert not found.helps and found.recommended == "Norm-Sub"
    assert "does not change the accuracy" in verdict_headline(found)


def _config(dataset: str, n: int, query: str, trials: int = 10) -> ExperimentConfig:
    return ExperimentConfig(
        dataset=dataset,
        n=n,
        protocol="OLH",
        epsilon=1.0,
        methods=DEFAULT_METHODS,
        query=query,
        trials=trials,
    )


@pytest.mark.parametrize("protocol", ["GRR", "SS", "HR"])
def test_choose_epsilon_where_post_processing_cannot_help(protocol: str) -> None:
    """Top-10 of countries: no method is credited, and Norm never is for GRR or SS."""
    (answer,) = choose_epsilon(
        _config("countries", 10**6, "topk:k=10"), target_rmse=0.005, protocols=[protocol]
    )
    assert not answer.post_processing_helps
    assert (
        answer.method != "Norm"
        or not get_protocol(protocol, epsilon=1, domain_size=8).estimates_sum_to_one
    )
    assert answer.base_epsilon is not None and answer.epsilon is not None
    assert answer.base_epsilon_low <= answer.base_epsilon <= answer.base_epsilon_high
    assert answer.epsilon_low <= answer.epsilon <= answer.epsilon_high


def test_choose_epsilon_simulates_nothing_above_base_s_exact_epsilon_when_base_wins() -> None:
    """Where Base is exact (Eq. 3) and no method can need less ε, points above Base's ε
    would only extend curves that cannot change the answer: the search stops there
    (words took 6.0 s, 4.6 s without them, the same answers). The one
    exception: a consistent option that misses the target at Base's ε is followed up
    to where it meets it, and no further than one step beyond."""
    (answer,) = choose_epsilon(
        _config("countries", 10**6, "topk:k=10"), target_rmse=0.005, protocols=["OLH"]
    )
    assert answer.method == "Base" and answer.base_exact
    evaluated = {float(row["epsilon"]) for row in answer.curve}
    assert answer.base_epsilon is not None
    option = answer.consistent_option
    limit = float(f"{answer.base_epsilon:.4g}")
    if option is not None and option.meets_target is False:
        assert option.epsilon_for_target is not None
        if option.error > 0.005:  # above the target at Base's ε: it needs more
            assert option.epsilon_for_target > answer.base_epsilon
        limit = max(limit, (option.epsilon_high or option.epsilon_for_target) * 1.2**2)
    assert max(evaluated) <= limit
    # Base alone: its exact crossing needs no bracket at all.
    (alone,) = choose_epsilon(
        dataclasses.replace(_config("countries", 10**6, "topk:k=10"), methods=("Base",)),
        target_rmse=0.005,
        protocols=["OLH"],
    )
    assert max(float(row["epsilon"]) for row in alone.curve) <= float(f"{alone.epsilon:.4g}")


def test_choose_epsilon_where_post_processing_clearly_helps() -> None:
    (answer,) = choose_epsilon(
        _config("zipf:d=1024,s=1.5", 10**5, "full"), target_rmse=0.001, protocols=["OLH"]
    )
    assert answer.post_processing_helps
    assert answer.epsilon_high < answer.base_epsilon_low
    assert answer.comparison is not None and answer.comparison.better


def test_choose_epsilon_base_agrees_with_its_exact_curve() -> None:
    """Base is simulated like the others; its answer must agree with Eq. 3's crossing."""
    from ldpcore.advice import advise_epsilon  # noqa: PLC0415

    config = _config("zipf:d=256,s=1.5", 10**5, "full", trials=20)
    (answer,) = choose_epsilon(config, target_rmse=0.004, protocols=["OUE"])
    (exact,) = advise_epsilon(
        dataclasses.replace(config, protocol="OUE", methods=("Base",)), target_rmse=0.004
    )
    assert answer.base_epsilon_low <= exact.value * 1.02
    assert exact.value <= answer.base_epsilon_high * 1.02


def test_choose_epsilon_in_parallel_gives_the_sequential_answers() -> None:
    """The page searches protocols on a thread pool; each trial has its own seed, so the
    answers (and every evaluated point) must be exactly those of one thread, in order."""
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    config = _config("zipf:d=128,s=1.2", 10**4, "topk:k=5", trials=5)
    protocols = ["SS", "GRR", "OUE"]
    alone = choose_epsilon(config, target_rmse=0.01, protocols=protocols)
    with ThreadPoolExecutor(2) as pool:
        together = choose_epsilon(config, target_rmse=0.01, protocols=protocols, executor=pool)
        # ... and each search's new points on threads of their own, as the page does.
        points_too = choose_epsilon(
            config, target_rmse=0.01, protocols=protocols, executor=pool, point_threads=2
        )
    for found in (together, points_too):
        assert [a.protocol for a in found] == protocols
        assert [a.curve for a in found] == [a.curve for a in alone]
        assert [a.to_json_dict() for a in found] == [a.to_json_dict() for a in alone]
    with pytest.raises(ValueError, match="point_threads"):
        choose_epsilon(config, target_rmse=0.01, protocols=protocols, point_threads=0)


def test_choose_epsilon_command_json_contract() -> None:
    done = ldpcore(
        "choose-epsilon",
        "--protocol",
        "GRR,OLH",
        "--dataset",
        "countries",
        "--n",
        "1000000",
        "--query",
        "topk:k=10",
        "--target-rmse",
        "0.005",
        "--trials",
        "5",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["target_rmse"] == 0.005
    keys = {
        "protocol",
        "method",
        "epsilon",
        "epsilon_low",
        "epsilon_high",
        "base_epsilon",
        "base_epsilon_low",
        "base_epsilon_high",
        "post_processing_helps",
        "consistent_option",
        "base_exact",
    }
    assert [a["protocol"] for a in payload["answers"]] == ["GRR", "OLH"]
    for answer in payload["answers"]:
        assert keys <= set(answer)
        assert answer["post_processing_helps"] is False
        # Without a gain the ε is Base's, and a consistent method is offered at it.
        assert answer["method"] == "Base" and answer["epsilon"] == answer["base_epsilon"]
        option = answer["consistent_option"]
        assert set(option) == {
            "method",
            "rmse_at_epsilon",
            "error_at_epsilon",
            "mse_ratio_to_base",
            "ratio_low",
            "ratio_high",
            "error_high",
            "meets_target",
            "epsilon_for_target",
            "epsilon_for_target_low",
            "epsilon_for_target_high",
            "measured_at_epsilon",
            "searched_up_to_epsilon",
        }
        # The search's reach: every crossing it reports lies within what it evaluated.
        reach = option["searched_up_to_epsilon"]
        assert answer["epsilon"] <= reach <= EPSILON_RANGE[1]
        for key in ("epsilon_for_target", "epsilon_for_target_low", "epsilon_for_target_high"):
            assert option[key] is None or option[key] <= reach * (1 + 1e-9), key
        assert option["rmse_at_epsilon"] > 0
        # An RMSE target's measure is the RMSE.
        assert option["error_at_epsilon"] == option["rmse_at_epsilon"]
        # Whether it surely meets the target (the upper end of its band), and if not
        # from about which ε, with that ε's interval.
        assert option["error_high"] >= option["error_at_epsilon"]
        assert option["meets_target"] == (option["error_high"] <= payload["target_rmse"])
        if option["meets_target"]:
            assert option["epsilon_for_target"] is None
        else:
            low, high = option["epsilon_for_target_low"], option["epsilon_for_target_high"]
            assert low is None or low <= option["epsilon_for_target"]
            assert high is None or option["epsilon_for_target"] <= high
            if option["error_at_epsilon"] > payload["target_rmse"]:
                assert option["epsilon_for_target"] > answer["epsilon"]
        # The ε as every place prints it: rounded up to three significant digits.
        shown = answer["epsilon_as_shown"]
        assert answer["epsilon"] <= shown < answer["epsilon"] * 1.01
        assert f"{shown:.3g}" == f"{shown:g}"
    assert payload["target"] == {"kind": "rmse", "size": 0.005, "level": 0.95, "spec": "rmse:0.005"}


def test_choose_epsilon_takes_a_target_in_people_s_words() -> None:
    """``--target each:X`` and ``all:X``: all at once needs more ε than each,
    which needs more than an RMSE of X; the JSON says which target was searched."""
    found = {}
    for spec in ("rmse:0.005", "each:0.005", "all:0.005"):
        done = ldpcore(
            "choose-epsilon",
            *("--protocol", "GRR", "--dataset", "countries", "--n", "1000000"),
            *("--query", "topk:k=10", "--target", spec, "--trials", "5", "--format", "json"),
        )
        assert done.returncode == 0, done.stderr
        payload = json.loads(done.stdout)
        assert payload["target"]["spec"] == spec
        (answer,) = payload["answers"]
        found[spec] = answer["base_epsilon"]
        option = answer["consistent_option"]
        assert option["meets_target"] == (option["error_high"] <= 0.005)
    assert found["rmse:0.005"] < found["each:0.005"] < found["all:0.005"]
    bad = ldpcore("choose-epsilon", "--dataset", "countries", "--target", "within 0.5")
    assert bad.returncode == 2 and "kind:size" in bad.stderr and "Traceback" not in bad.stderr


def test_n_defaults_to_the_dataset_total_and_is_required_for_synthetic_data() -> None:
    done = ldpcore(
        "simulate",
        "--protocol",
        "GRR",
        "--epsilon",
        "2",
        "--dataset",
        "countries",
        "--methods",
        "Base",
        "--trials",
        "2",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["config"]["n"] > 7 * 10**9
    done = ldpcore("simulate", "--protocol", "GRR", "--epsilon", "2", "--dataset", "zipf:d=8")
    assert done.returncode == 2 and "--n is required" in done.stderr


def test_recommend_json_has_paired_intervals(tmp_path) -> None:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=64)
    counts = np.zeros(64, dtype=np.int64)
    counts[:4] = 5_000
    estimate = protocol.estimate(protocol.sample_support_counts(counts, 1), 20_000)
    path = tmp_path / "estimates.csv"
    path.write_text(
        "value,estimate\n" + "".join(f"{i},{float(x)!r}\n" for i, x in enumerate(estimate))
    )
    done = ldpcore(
        "recommend",
        "--protocol",
        "OLH",
        "--epsilon",
        "1",
        "--n",
        "20000",
        "--input",
        str(path),
        "--methods",
        "Base,Norm,Norm-Sub",
        "--trials",
        "10",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["significant"] is True and payload["recommended"] == "Norm-Sub"
    for row in payload["ranking"]:
        assert row["ratio_low"] <= row["mse_ratio_to_best"] <= row["ratio_high"]
    assert payload["ranking"][0]["mse_ratio_to_best"] == 1.0


def test_an_internal_error_is_reported_as_a_bug_not_bad_input(monkeypatch, capsys) -> None:
    from ldpcore import cli  # noqa: PLC0415
    from ldpcore.cli import audit  # noqa: PLC0415

    def broken(args: object) -> int:
        raise ValueError("an internal invariant")

    monkeypatch.setattr(audit, "run", broken)
    code = cli.main(["audit", "--protocol", "GRR", "--epsilon", "1", "--domain-size", "4"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: internal error") and "bug" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("epsilon", -1.0, "epsilon must be"),
        ("n", -5, "n must be"),
        ("dataset", "nonsense", "unknown dataset"),
        ("query", "bogus", "unknown query"),
        ("query", "set:rho=2", "rho"),
        ("params", {"g": 1}, "g must be"),
        ("params", {"k": 3}, "k applies to SS only, not OLH"),
        ("params", {"r": 3}, "OLH has no parameter 'r'; it takes g"),
        ("params", "g=3", "params must map parameter names to values"),
    ],
)
def test_configs_are_valid_from_birth(field: str, value: object, message: str) -> None:
    fields = {"dataset": "zipf:d=8,s=1", "n": 100, "protocol": "OLH", "epsilon": 1.0}
    with pytest.raises(ValueError, match=message):
        ExperimentConfig(**(fields | {field: value}))  # type: ignore[arg-type]


def test_explicit_counts_are_checked_when_built() -> None:
    with pytest.raises(ValueError, match="at least one user"):
        ExperimentConfig(dataset="x", n=10, protocol="GRR", epsilon=1.0, true_counts=(0, 0))
    with pytest.raises(ValueError, match="labels must have one entry per value"):
        ExperimentConfig(
            dataset="x", n=10, protocol="GRR", epsilon=1.0, true_counts=(3, 4), labels=("a",)
        )


def test_consistent_methods_follow_the_registry_metadata() -> None:
    from ldpcore.advice import consistent_methods  # noqa: PLC0415

    chosen = consistent_methods(tuple(METHODS))
    assert chosen[0] == "Norm-Sub"
    for name in METHODS:
        proper = METHODS[name].nonnegative == "yes" and METHODS[name].sums_to_one == "yes"
        assert (name in chosen) == proper  # Norm-Cut ("almost") and Norm (negatives) are not


def _sweep_frame(points: list[tuple[float, str, float, float, float, str]]):
    import pandas as pd  # noqa: PLC0415

    rows = [
        {
            "rho": x,
            "method": m,
            "mse": r * 1e-3,
            "mse_ratio_to_base": r,
            "ratio_low": lo,
            "ratio_high": hi,
            "mse_vs_base": v,
        }
        for x, m, r, lo, hi, v in points
    ]
    return pd.DataFrame(rows)


def test_sweep_verdicts_name_the_best_significant_method_per_run_of_points() -> None:
    from ldpcore.advice import sweep_verdicts  # noqa: PLC0415

    base = [(x, "Base", 1.0, 1.0, 1.0, "reference") for x in (0.1, 0.2, 0.5)]
    frame = _sweep_frame(
        [
            *base,
            # At 0.1 and 0.2 PowerNS is significantly better (and beats Norm-Sub, also better).
            (0.1, "PowerNS", 0.25, 0.2, 0.3, "lower"),
            (0.1, "Norm-Sub", 0.5, 0.4, 0.6, "lower"),
            (0.2, "PowerNS", 0.5, 0.4, 0.8, "lower"),
            (0.2, "Norm-Sub", 0.9, 0.7, 1.1, "no significant difference"),
            # At 0.5 the lowest mean (0.8) is not significant: nothing is credited.
            (0.5, "PowerNS", 0.8, 0.5, 1.2, "no significant difference"),
            (0.5, "Norm-Sub", 1.0, 1.0, 1.0, "same answers"),
        ]
    )
    found = sweep_verdicts(frame, "rho", "ρ")
    assert found.helps
    assert list(found.table["best method"])[:2] == ["PowerNS", "PowerNS"]
    assert list(found.table["methods better than Base"]) == [2, 1, 0]
    assert found.table["MSE ÷ Base (95%)"].iloc[0] == "0.25 (0.2–0.3)"
    headline = sweep_headline(found)
    assert "PowerNS" in headline and "for ρ from 0.1 to 0.2" in headline
    # Point gains 4× and 2×; the weakest guaranteed gain is 1/0.8 = 1.25×.
    assert "2× to 4× lower mean squared error" in headline and "at least 1.25×" in headline
    assert "no method is significantly more accurate than Base at ρ = 0.5" in headline
    nothing = sweep_verdicts(
        _sweep_frame([*base, (0.5, "Norm", 1.0, 1.0, 1.0, "same answers")]), "rho", "ρ"
    )
    assert not nothing.helps and sweep_headline(nothing).startswith("No post-processing method")


def test_users_saved_follow_the_paired_interval() -> None:
    from ldpcore.experiments.sweeps import sweep  # noqa: PLC0415
    from ldpcore.formats import format_times  # noqa: PLC0415
    from ldpcore.present.sentences import users_saved_sentence  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=128,s=1.5",
        n=10**5,
        protocol="OLH",
        epsilon=1.0,
        methods=("Base", "PowerNS"),
        trials=10,
    )
    frame = sweep(config, "n", [10**5])
    text = users_saved_sentence(frame, 10**5)
    row = frame.set_index("method").loc["PowerNS"]
    assert row["mse_vs_base"] == "lower"
    assert f"{format_times(1 / row['mse_ratio_to_base'])} as many users" in text
    assert f"{format_times(1 / row['ratio_high'])}–" in text
    # Norm is a no-op for GRR: nothing is saved, and the sentence says so.
    grr = sweep(dataclasses.replace(config, protocol="GRR", methods=("Base", "Norm")), "n", [10**5])
    assert "saves no users" in users_saved_sentence(grr, 10**5)


@pytest.mark.parametrize(
    ("dataset", "protocol", "query"),
    [
        ("countries", "OLH", "topk:k=10"),
        ("emoji", "GRR", "topk:k=10"),
        ("countries", "OUE", "full"),
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_epsilon_to_use_never_costs_more_than_bases(
    dataset: str, protocol: str, query: str, seed: int
) -> None:
    """the ε advised is never above Base's, and reachable wherever Base's is."""
    config = dataclasses.replace(_config(dataset, 10**6, query), seed=seed)
    (answer,) = choose_epsilon(config, target_rmse=0.005, protocols=[protocol])
    # Single-value queries: Base's ε is Eq. 3's crossing, exactly (no interval).
    assert answer.base_exact and answer.base_epsilon is not None
    assert answer.base_epsilon_low == answer.base_epsilon == answer.base_epsilon_high
    assert answer.epsilon is not None and answer.epsilon <= answer.base_epsilon
    if answer.post_processing_helps:
        assert answer.epsilon_high is not None and answer.epsilon_high < answer.base_epsilon
    else:
        assert answer.method == "Base" and answer.epsilon == answer.base_epsilon
        option = answer.consistent_option
        assert option is not None and option.method != "Base"
        # The option's interval is the paired one at Base's ε, and the sentence says it.
        c = option.comparison
        assert c.low <= c.ratio <= c.high and option.rmse_at_epsilon > 0
        assert "proper distribution" in epsilon_sentence(answer, config.n)


def test_base_epsilon_is_the_exact_crossing_of_eq_3() -> None:
    """Independent of the search: bisect Eq. 3's RMSE (metrics.analytic_base_mse) here."""
    from ldpcore.experiments.metrics import analytic_base_mse  # noqa: PLC0415

    config = _config("emoji", 10**6, "topk:k=10")
    (answer,) = choose_epsilon(config, target_rmse=0.005, protocols=["GRR"])
    data, _, query = config.build()
    index = np.concatenate(query.members)

    def rmse(epsilon: float) -> float:
        oracle = get_protocol("GRR", epsilon=epsilon, domain_size=data.domain_size)
        return math.sqrt(analytic_base_mse(oracle, data.frequencies(), data.n, values=index))

    low, high = 0.05, 10.0
    for _ in range(60):
        mid = math.sqrt(low * high)
        low, high = (low, mid) if rmse(mid) <= 0.005 else (mid, high)
    assert answer.base_epsilon == pytest.approx(high, rel=1e-4)


def test_recommend_without_base_keeps_the_row_it_recommends() -> None:
    from ldpcore.advice import recommend  # noqa: PLC0415

    protocol = get_protocol("GRR", epsilon=4.0, domain_size=4)
    estimate = np.array([0.25, 0.25, 0.25, 0.25])
    found = recommend(
        estimate, protocol=protocol, n=10**6, methods=["Base-Pos", "Norm-Mul"], trials=5
    )
    assert found.recommended in set(found.ranking["method"])


def _zero_inflated_block(rng: np.random.Generator, trials: int) -> np.ndarray:
    """Paired per-trial errors where the method changes a quarter of the trials only.

    Base's error is Gamma(2, 1); in each trial, with probability 0.26, the method cuts
    it by a uniform share of up to 60% (as Base-Pos does when a clamp happens), else it
    leaves it as it is. True MSE ratio: 1 − 0.26 · 0.6 · ½ = 0.922.
    """
    base = rng.gamma(2.0, 1.0, trials)
    cut = np.where(rng.random(trials) < 0.26, 0.6 * base * rng.random(trials), 0.0)
    return np.vstack([base, base - cut])


@pytest.mark.parametrize(("interval", "covers"), [("bootstrap", True), ("fieller", False)])
def test_ratio_intervals_cover_zero_inflated_differences(interval: str, covers: bool) -> None:
    """a 95% interval must cover 95% of the time on skewed, mostly-zero
    differences. The old Fieller/t interval is run too, to show the check can fail."""
    truth = 1 - 0.26 * 0.6 * 0.5
    rng = np.random.default_rng(7)
    runs = 400
    held = 0
    for _ in range(runs):
        errors = _zero_inflated_block(rng, 30)
        (c,) = compare(errors, ["Base", "M"], reference="Base", interval=interval, margin=0)
        held += c.low <= truth <= c.high
    # 400 runs: the standard error of a 95% rate is 1.1%; ±3 of them.
    assert (0.917 <= held / runs <= 0.983) == covers, held / runs


def test_a_significant_difference_within_the_margin_reads_about_the_same() -> None:
    rng = np.random.default_rng(3)
    base = rng.gamma(50, 1e-4, size=30)
    errors = np.vstack([base, base * rng.uniform(0.975, 0.985, size=30)])  # 2% lower
    (c,) = compare(errors, ["Base", "M"], reference="Base")
    assert c.high < 1 and c.low > 1 / 1.05 and c.negligible
    assert not c.better and c.outcome == "about the same"
    assert "about the same MSE as Base" in comparison_words(c)
    (strict,) = compare(errors, ["Base", "M"], reference="Base", margin=0)
    assert strict.better and not strict.negligible


def test_the_resamples_are_made_once_per_size_and_cannot_be_changed() -> None:
    """Each row draws ``trials`` trials with replacement; the cached matrix is shared by
    every comparison of that size, so it must be read-only."""
    from ldpcore.stats.compare import BOOTSTRAP_RESAMPLES, _resample_weights  # noqa: PLC0415

    weights = _resample_weights(30)
    assert weights is _resample_weights(30)
    assert weights.shape == (BOOTSTRAP_RESAMPLES, 30)
    assert np.all(weights.sum(axis=1) == 30) and weights.min() >= 0
    # Each trial is drawn 1 time per resample on average, with binomial spread.
    assert abs(weights.mean() - 1) < 0.01 and abs(weights.var() - 29 / 30) < 0.02
    with pytest.raises(ValueError, match="read-only"):
        weights[0, 0] = 5.0


def test_a_chain_whose_report_is_a_listed_protocol_s_has_its_answer() -> None:
    """L-GRR beside GRR is answered from GRR's search (one report of L-GRR is one of GRR
    at the same ε), and says so; searched alone it reaches the same ε, so nothing is
    lost by searching once. L-OUE's report is not OUE's: it is searched on its own."""
    config = ExperimentConfig(
        dataset="zipf:d=16", n=10_000, protocol="GRR", epsilon=1.0,
        methods=("Base", "Norm-Sub"), trials=5,
    )  # fmt: skip
    both = choose_epsilon(config, target_rmse=0.02, protocols=["GRR", "L-GRR", "OUE", "L-OUE"])
    by_name = {a.protocol: a for a in both}
    assert by_name["L-GRR"].same_as == "GRR" and by_name["L-OUE"].same_as is None
    (alone,) = choose_epsilon(config, target_rmse=0.02, protocols=["L-GRR"])
    assert alone.same_as is None
    assert by_name["L-GRR"].epsilon == pytest.approx(alone.epsilon, rel=1e-9)
    assert by_name["L-GRR"].epsilon == by_name["GRR"].epsilon
    from ldpcore.present.epsilon_sentences import epsilon_reason  # noqa: PLC0415

    assert epsilon_reason(by_name["L-GRR"]).startswith(
        "One report of L-GRR is one report of GRR at the same ε"
    )


def test_the_recommended_winner_has_the_lowest_mean_mse_whatever_its_ratio_says() -> None:
    # Over drawn truths a comparison's ratio is a median, whose order can differ from the
    # mean MSE's; the ranking orders by mean MSE, so the verdict must name its first.
    rng = np.random.default_rng(3)
    errors = np.vstack([np.full(50, 1.0), np.full(50, 0.30), np.full(50, 0.32)])
    errors = errors * rng.uniform(0.9, 1.1, size=(1, 50))
    names = ["Base", "Norm-Sub", "PowerNS"]
    by_median = [
        Comparison("Norm-Sub", "Base", 0.31, 0.28, 0.33, True, False, False, 20),
        Comparison("PowerNS", "Base", 0.29, 0.11, 0.34, True, False, False, 20),
    ]
    found = verdict(errors, names, against_base=by_median)
    assert found.recommended == "Norm-Sub" and found.helps
