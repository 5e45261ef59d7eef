"""Coverage of the paired ratio intervals, measured: how often they hold the true ratio.

One long run per configuration gives a pool of per-trial MSEs for every method (the
trials are independent: trial i has its own spawned seed). The *true* MSE ratio of each
method to Base is the ratio of the pool means; disjoint blocks of ``trials`` consecutive
trials are independent experiments of the size the app runs, and for each block the
intervals of :func:`ldpcore.stats.compare.compare` are checked against the true ratios: each
method's own coverage, and the joint coverage (every method's interval at once, which
the simultaneous intervals claim at 95%).

Usage::

    .venv/bin/python -m benchmarks.bench_coverage            # both configurations, 200 blocks
    .venv/bin/python -m benchmarks.bench_coverage --blocks 50
    .venv/bin/python -m benchmarks.bench_coverage --values   # the per-value intervals
    .venv/bin/python -m benchmarks.bench_coverage --real-values  # value by value, real data
    .venv/bin/python -m benchmarks.bench_coverage --credible --blocks 100  # Bayes's

The two configurations: OLH, ε = 1, n = 1e5, Zipf(1.5) d = 256, the full
query; and GRR, ε = 2, n = 1e4, d = 64, top-10; 30 trials per block (the Explorer's)
and 10 (Choose ε's). The ratio intervals' coverage is stored in
``benchmarks/results/coverage.json``, from which the docs' tables and sentences are made
(``devtools/claims``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from benchmarks._common import store
from devtools.coverage import (
    CONFIGURATIONS,
    FEW_USERS,
    credible_coverage,
    measure,
    pooled_errors,
    real_value_coverage,
    value_coverage,
)
from ldpcore.stats.compare import ALPHA


def print_value_coverage(runs: int) -> None:
    """The per-value interval table of benchmarks/README.md, stored in
    ``benchmarks/results/value_coverage.json``."""
    methods = ("Base", "Norm-Sub", "MLE")
    print(f"\n### Per-value intervals, Zipf(1.5) d = 64, {runs} collections each")
    print("\nCells: frequent (top 10%) / rare (bottom half) values covered.\n")
    print("| protocol | ε | n | level | " + " | ".join(methods) + " |")
    print("|---|---:|---:|---:|" + "---|" * len(methods))
    rows = []
    for protocol in ("GRR", "OLH", "OUE", "SS", "HR"):
        for epsilon in (0.5, 2.0):
            for n in (100, 10_000, 1_000_000):
                for level in (0.9, 0.95):
                    found = value_coverage(
                        protocol, epsilon, n, runs=runs, level=level, methods=methods
                    )
                    cells = " | ".join(
                        f"{100 * found[m][0]:.1f} / {100 * found[m][1]:.1f}" for m in methods
                    )
                    print(f"| {protocol} | {epsilon:g} | {n:,} | {level:g} | {cells} |", flush=True)
                    rows.append(
                        {
                            "protocol": protocol,
                            "epsilon": epsilon,
                            "n": n,
                            "level": level,
                            "covered": {
                                m: [float(found[m][0]), float(found[m][1])] for m in methods
                            },
                        }
                    )
    store(
        "value_coverage",
        {"collections": runs, "d": 64, "data": "zipf s=1.5", "rows": rows},
    )


#: (dataset, protocol, ε, users): bundled real histograms, at survey sizes and at class
#: sizes (n ≤ 500, where the intervals are exact).
REAL_SETTINGS = (
    ("countries", "OUE", 1.0, 73_421),
    ("ages", "GRR", 2.0, 20_000),
    ("emoji", "OLH", 1.0, 73_421),
    ("emoji", "OUE", 4.0, 73_421),
    ("countries", "GRR", 1.0, 400),
    ("ages", "OUE", 0.5, 300),
)


def print_real_value_coverage(runs: int) -> None:
    """Every value's 95% interval on real histograms, stored in
    ``benchmarks/results/value_coverage_real.json``."""
    methods = ("Base", "MLE")
    print(f"\n### Per-value intervals on real histograms, {runs} collections each\n")
    print(
        "| setting | method | frequent | rare | few users | worst value | values < 90% "
        "| zero-width |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    rows = []
    for dataset, protocol, epsilon, n in REAL_SETTINGS:
        found = real_value_coverage(dataset, protocol, epsilon, n, runs=runs, methods=methods)
        for method, c in found.items():
            cells = " | ".join(f"{100 * c.groups[g]:.1f}" for g in ("frequent", "rare", "few"))
            print(
                f"| {dataset}, {protocol}, ε = {epsilon:g}, n = {n:,} | {method} | {cells} | "
                f"{100 * c.worst:.1f} | {100 * c.below:.1f} | {c.points} |",
                flush=True,
            )
            rows.append(
                {
                    "dataset": dataset,
                    "protocol": protocol,
                    "epsilon": epsilon,
                    "n": n,
                    "method": method,
                    "groups": c.groups,
                    "worst": c.worst,
                    "below": c.below,
                    "points": c.points,
                }
            )
    store(
        "value_coverage_real",
        {"collections": runs, "level": 0.95, "few_users": FEW_USERS, "rows": rows},
    )


def print_credible_coverage(runs: int) -> None:
    """The credible-interval table of benchmarks/README.md, stored in
    ``benchmarks/results/credible_coverage.json``."""
    print(f"\n### Bayes's credible intervals, Jeffreys' prior, Zipf(1.5) d = 64, {runs} runs")
    print("\nCells: frequent (top 10%) / rare (bottom half) values covered.\n")
    print("| protocol | ε | n | 90% | 95% | prior pull (median) |")
    print("|---|---:|---:|---|---|---:|")
    rows = []
    for protocol in ("GRR", "OLH", "OUE", "SS", "HR"):
        for epsilon in (0.5, 2.0):
            for n in (100, 10_000, 1_000_000):
                found, pull = credible_coverage(protocol, epsilon, n, runs=runs)
                cells = " | ".join(
                    f"{100 * found[level][0]:.1f} / {100 * found[level][1]:.1f}"
                    for level in (0.9, 0.95)
                )
                print(f"| {protocol} | {epsilon:g} | {n:,} | {cells} | {pull:.2f} |", flush=True)
                rows.append(
                    {
                        "protocol": protocol,
                        "epsilon": epsilon,
                        "n": n,
                        "covered": {str(level): list(found[level]) for level in (0.9, 0.95)},
                        "pull": float(pull),
                    }
                )
    store("credible_coverage", {"runs": runs, "d": 64, "data": "zipf s=1.5", "rows": rows})


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=200)
    parser.add_argument(
        "--trials", type=int, nargs="+", default=[30, 10], help="trials per block, each a run"
    )
    parser.add_argument("--values", action="store_true", help="the per-value intervals only")
    parser.add_argument(
        "--real-values",
        action="store_true",
        help="the per-value intervals on real histograms, value by value, only",
    )
    parser.add_argument(
        "--credible", action="store_true", help="Bayes's credible intervals only (--blocks runs)"
    )
    args = parser.parse_args(argv)
    if args.credible:
        print_credible_coverage(args.blocks)
        return
    if args.values:
        print_value_coverage(args.blocks)
        return
    if args.real_values:
        print_real_value_coverage(args.blocks)
        return
    runs = []
    for trials in args.trials:
        for label, config in CONFIGURATIONS.items():
            start = time.perf_counter()
            # The truth from the whole pool; each block is 1/blocks of it, so its own
            # share of the truth is negligible at 200 blocks.
            pool = pooled_errors(config, args.blocks * trials)
            seconds = time.perf_counter() - start
            print(f"\n### {label} ({args.blocks} blocks of {trials} trials; pool {seconds:.0f} s)")
            found = [
                measure(label, pool, list(config.methods), block=trials, interval=kind)
                for kind in ("fieller", "bootstrap")
            ]
            print("\n| method | true ratio | " + " | ".join(r.interval for r in found) + " |")
            print("|---|---:|" + "---:|" * len(found))
            for name in found[0].per_method:
                cells = " | ".join(f"{100 * r.per_method[name]:.1f}%" for r in found)
                print(f"| {name} | {found[0].true_ratio[name]:.4f} | {cells} |")
            joint = " | ".join(f"**{100 * r.joint:.1f}%**" for r in found)
            print(f"| all at once (claimed ≥ {100 * (1 - ALPHA):.0f}%) | | {joint} |", flush=True)
            runs.append(
                {
                    "configuration": label,
                    "trials": trials,
                    "pool_seconds": seconds,
                    "true_ratio": found[0].true_ratio,
                    "intervals": {
                        r.interval: {"joint": r.joint, "per_method": r.per_method} for r in found
                    },
                }
            )
    store(
        "coverage",
        {
            "blocks": args.blocks,
            "claimed": 1 - ALPHA,
            "methods": len(found[0].per_method),
            "runs": runs,
        },
    )


if __name__ == "__main__":
    main()
