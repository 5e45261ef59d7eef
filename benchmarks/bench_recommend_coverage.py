"""How often a recommendation's intervals hold the true MSE ratio, the truth unknown.

For real histograms bundled with the tool, a collection is drawn from the true counts, a
recommendation is made from its estimate alone, and each method's interval for its MSE
ratio to Base is checked against the ratio on the true counts (measured on ``--truth-trials``
trials). Two ways of making it are compared on the same collections: truths drawn from
the posterior given the collection (:mod:`ldpcore.advice.unknown_truth`, the default), and
the single stand-in of NDSS Sec. V-D (Norm-Sub of the estimate, as
:func:`ldpcore.advice.ranking.recommend` simulates).

    .venv/bin/python -m benchmarks.bench_recommend_coverage [--collections 20]
"""

from __future__ import annotations

import argparse
import math

from ldpcore.advice.ranking import recommend_on_stand_in
from ldpcore.advice.unknown_truth import recommend_for_collection
from ldpcore.data.datasets import Dataset
from ldpcore.data.specs import parse_dataset_spec
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.protocols import get_protocol

METHODS = ("Norm-Sub", "Norm-Mul", "Base-Cut", "PowerNS", "MLE")
#: (dataset, protocol, ε, users, query): real histograms at a survey's size.
SETTINGS = (
    ("countries", "OUE", 1.0, 73_421, "topk:k=10"),
    ("countries", "OUE", 1.0, 73_421, "full"),
    ("ages", "OUE", 1.0, 73_421, "topk:k=10"),
    ("ages", "GRR", 2.0, 20_000, "full"),
    ("emoji", "OUE", 1.0, 73_421, "topk:k=10"),
    ("emoji", "OLH", 1.0, 73_421, "full"),
)


def _true_ratios(
    setting: tuple[str, str, float, int, str], trials: int
) -> tuple[Dataset, dict[str, float]]:
    dataset, protocol, epsilon, n, query = setting
    data = parse_dataset_spec(dataset).build(n)
    config = ExperimentConfig(
        dataset=dataset,
        n=n,
        protocol=protocol,
        epsilon=epsilon,
        query=query,
        trials=trials,
        methods=("Base", *METHODS),
        true_counts=tuple(int(c) for c in data.counts),
        seed=10_000,
    )
    mse = run(config).trial_errors.mean(axis=1)
    return data, dict(zip(METHODS, mse[1:] / mse[0], strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", type=int, default=20)
    parser.add_argument("--truth-trials", type=int, default=400)
    args = parser.parse_args()
    print("| setting | posterior truths: held | stand-in (Norm-Sub): held |\n| --- | ---: | ---: |")
    totals = {"posterior": [0, 0], "stand-in": [0, 0]}
    for dataset, protocol, epsilon, n, query in SETTINGS:
        data, truth = _true_ratios((dataset, protocol, epsilon, n, query), args.truth_trials)
        oracle = get_protocol(protocol, epsilon=epsilon, domain_size=data.domain_size)
        held = {"posterior": 0, "stand-in": 0}
        for seed in range(args.collections):
            tallies = oracle.sample_support_counts(data.counts, 1_000 + seed)
            estimate = oracle.estimate(tallies, n)
            made = {
                "posterior": recommend_for_collection(
                    estimate, protocol=oracle, n=n, query=query, methods=METHODS, seed=seed
                ),
                "stand-in": recommend_on_stand_in(
                    estimate, protocol=oracle, n=n, query=query, methods=METHODS, seed=seed
                ),
            }
            for way, found in made.items():
                rows = found.ranking.set_index("method")
                for method in METHODS:
                    low = rows.loc[method, "base_ratio_low"]
                    high = rows.loc[method, "base_ratio_high"]
                    held[way] += int(low <= truth[method] <= high)
        count = args.collections * len(METHODS)
        cells = []
        for way in ("posterior", "stand-in"):
            share = held[way] / count
            half = 1.96 * math.sqrt(share * (1 - share) / count) if 0 < share < 1 else 0.0
            cells.append(f"{share:.1%} ± {half:.1%}")
            totals[way][0] += held[way]
            totals[way][1] += count
        name = f"{dataset}, {protocol}, ε = {epsilon:g}, n = {n:,}, {query}"
        print(f"| {name} | {cells[0]} | {cells[1]} |", flush=True)
    overall = [f"{h / c:.1%} of {c:,}" for h, c in totals.values()]
    print(f"| all | {overall[0]} | {overall[1]} |")
    print(
        f"\n{args.collections} collections a setting, methods {', '.join(METHODS)}; a method's "
        f"true ratio from {args.truth_trials} trials on the true counts; intervals at 95%."
    )


if __name__ == "__main__":
    main()
