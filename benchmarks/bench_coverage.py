"""Coverage of the paired ratio intervals, measured: how often they hold the true ratio.

One long run per configuration gives a pool of per-trial MSEs for every method (the
trials are independent: trial i has its own spawned seed). The *true* MSE ratio of each
method to Base is the ratio of the pool means; disjoint blocks of ``trials`` consecutive
trials are independent experiments of the size the app runs, and for each block the
intervals of :func:`ldpcore.stats.compare.compare` are checked against the true ratios: each
method's own coverage, and the joint coverage (every method's interval at once, which
the simultaneous intervals claim at 95%).

Usage::

    .venv/bin/python benchmarks/bench_coverage.py            # both configurations, 200 blocks
    .venv/bin/python benchmarks/bench_coverage.py --blocks 50
    .venv/bin/python benchmarks/bench_coverage.py --values   # the per-value intervals
    .venv/bin/python benchmarks/bench_coverage.py --credible --blocks 100  # Bayes's

The two configurations are issue 23's: OLH, ε = 1, n = 1e5, Zipf(1.5) d = 256, the full
query; and GRR, ε = 2, n = 1e4, d = 64, top-10; 30 trials per block (the Explorer's).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
import warnings
from collections.abc import Sequence

import numpy as np

from ldpcore.data.datasets import zipf
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.postprocess import Bayes, get_method
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.postprocess.intervals import frequency_intervals
from ldpcore.protocols import get_protocol
from ldpcore.stats.compare import ALPHA, compare

CONFIGURATIONS = {
    "OLH ε=1 n=1e5 zipf d=256 full": ExperimentConfig(
        dataset="zipf:d=256,s=1.5", n=100_000, protocol="OLH", epsilon=1.0, query="full"
    ),
    "GRR ε=2 n=1e4 zipf d=64 top-10": ExperimentConfig(
        dataset="zipf:d=64,s=1.5", n=10_000, protocol="GRR", epsilon=2.0, query="topk:k=10"
    ),
}


@dataclasses.dataclass(frozen=True)
class Coverage:
    """Measured coverage of one interval kind on one configuration."""

    label: str
    interval: str
    blocks: int
    joint: float
    per_method: dict[str, float]
    true_ratio: dict[str, float]


def pooled_errors(config: ExperimentConfig, trials: int) -> np.ndarray:
    """Per-trial MSE of every method over ``trials`` trials, shape (methods, trials)."""
    chunks = []
    done = 0
    step = 500  # in chunks: a run keeps every answer of every trial in memory
    while done < trials:
        size = min(step, trials - done)
        part = run(dataclasses.replace(config, trials=size, seed=config.seed + done))
        chunks.append(part.trial_errors)
        done += size
    return np.concatenate(chunks, axis=1)


def measure(
    label: str,
    pool: np.ndarray,
    names: Sequence[str],
    *,
    block: int,
    interval: str,
    no_ops: Sequence[str] = (),
    alpha: float = ALPHA,
) -> Coverage:
    """Coverage of ``interval`` over disjoint blocks of ``block`` trials of ``pool``.

    Methods whose errors equal Base's in every trial of the pool are left out (their
    comparison is "same answers", with no interval to cover anything).
    """
    base = pool[names.index("Base")]
    truth = pool.mean(axis=1) / base.mean()
    blocks = pool.shape[1] // block
    checked = [
        i for i, name in enumerate(names) if name != "Base" and not np.array_equal(pool[i], base)
    ]
    held = np.zeros((blocks, len(checked)), dtype=bool)
    for b in range(blocks):
        part = pool[:, b * block : (b + 1) * block]
        found = compare(
            part, names, reference="Base", no_ops=no_ops, interval=interval, alpha=alpha
        )
        by_name = {c.method: c for c in found}
        for k, i in enumerate(checked):
            c = by_name[names[i]]
            held[b, k] = c.no_op or (c.low <= truth[i] <= c.high)
    return Coverage(
        label,
        interval,
        blocks,
        float(held.all(axis=1).mean()),
        {names[i]: float(held[:, k].mean()) for k, i in enumerate(checked)},
        {names[i]: float(truth[i]) for i in checked},
    )


def value_coverage(
    protocol: str,
    epsilon: float,
    n: int,
    *,
    d: int = 64,
    runs: int = 200,
    level: float = 0.95,
    methods: Sequence[str] = ("Base", "Norm-Sub", "MLE"),
) -> dict[str, tuple[float, float]]:
    """How often each method's per-value interval holds the true frequency.

    Zipf(1.5) over ``d`` values; ``runs`` collections (each its own seed). Returns, per
    method, the rate for frequent values (the top 10%) and for rare ones (bottom half).
    """
    data = zipf(d, n, 1.5)
    truth = data.frequencies()
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
    order = np.argsort(-truth, kind="stable")
    frequent, rare = order[: max(1, d // 10)], order[d // 2 :]
    held = {name: [] for name in methods}
    for seed in range(runs):
        support = oracle.sample_support_counts(data.counts, np.random.default_rng(seed))
        estimate = oracle.estimate(support, n)
        for name in methods:
            point = get_method(name)(estimate, protocol=oracle, n=n)
            low, high = frequency_intervals(
                estimate, protocol=oracle, n=n, level=level, point=point
            )
            held[name].append((low <= truth) & (truth <= high))
    return {
        name: (float(np.mean(np.array(rows)[:, frequent])), float(np.mean(np.array(rows)[:, rare])))
        for name, rows in held.items()
    }


def print_value_coverage(runs: int) -> None:
    """The per-value interval table of benchmarks/README.md."""
    methods = ("Base", "Norm-Sub", "MLE")
    print(f"\n### Per-value intervals, Zipf(1.5) d = 64, {runs} collections each")
    print("\nCells: frequent (top 10%) / rare (bottom half) values covered.\n")
    print("| protocol | ε | n | level | " + " | ".join(methods) + " |")
    print("|---|---:|---:|---:|" + "---|" * len(methods))
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
                    print(f"| {protocol} | {epsilon:g} | {n:,} | {level:g} | {cells} |")


def credible_coverage(
    protocol: str, epsilon: float, n: int, *, d: int = 64, runs: int = 100
) -> tuple[dict[float, tuple[float, float]], float]:
    """How often Bayes's credible intervals (Jeffreys' prior) hold the true frequency.

    As :func:`value_coverage`, at levels 0.9 and 0.95 from one posterior per collection.
    The truth is fixed (Zipf), not drawn from the prior: this is the frequentist coverage
    a person relying on the interval gets, which a prior can raise or lower. Also the
    median :attr:`~ldpcore.postprocess.bayes.Posterior.prior_pull`.
    """
    data = zipf(d, n, 1.5)
    truth = data.frequencies()
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
    order = np.argsort(-truth, kind="stable")
    frequent, rare = order[: max(1, d // 10)], order[d // 2 :]
    held: dict[float, list[np.ndarray]] = {0.9: [], 0.95: []}
    pulls = []
    sampler = Bayes()
    for seed in range(runs):
        support = oracle.sample_support_counts(data.counts, np.random.default_rng(seed))
        estimate = oracle.estimate(support, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotConverged)  # counted in bench_bayes.py
            posterior = sampler.posterior(estimate, protocol=oracle, n=n)
        pulls.append(posterior.prior_pull)
        for level, rows in held.items():
            low, high = posterior.interval(level)
            rows.append((low <= truth) & (truth <= high))
    found = {
        level: (
            float(np.mean(np.array(rows)[:, frequent])),
            float(np.mean(np.array(rows)[:, rare])),
        )
        for level, rows in held.items()
    }
    return found, float(np.median(pulls))


def print_credible_coverage(runs: int) -> None:
    """The credible-interval table of benchmarks/README.md."""
    print(f"\n### Bayes's credible intervals, Jeffreys' prior, Zipf(1.5) d = 64, {runs} runs")
    print("\nCells: frequent (top 10%) / rare (bottom half) values covered.\n")
    print("| protocol | ε | n | 90% | 95% | prior pull (median) |")
    print("|---|---:|---:|---|---|---:|")
    for protocol in ("GRR", "OLH", "OUE", "SS", "HR"):
        for epsilon in (0.5, 2.0):
            for n in (100, 10_000, 1_000_000):
                found, pull = credible_coverage(protocol, epsilon, n, runs=runs)
                cells = " | ".join(
                    f"{100 * found[level][0]:.1f} / {100 * found[level][1]:.1f}"
                    for level in (0.9, 0.95)
                )
                print(f"| {protocol} | {epsilon:g} | {n:,} | {cells} | {pull:.2f} |", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=200)
    parser.add_argument("--trials", type=int, default=30, help="trials per block")
    parser.add_argument("--values", action="store_true", help="the per-value intervals only")
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
    for label, config in CONFIGURATIONS.items():
        start = time.perf_counter()
        # The truth from the whole pool; each block is 1/blocks of it, so its own share
        # of the truth is negligible at 200 blocks.
        pool = pooled_errors(config, args.blocks * args.trials)
        seconds = time.perf_counter() - start
        print(f"\n### {label} ({args.blocks} blocks of {args.trials} trials; pool {seconds:.0f} s)")
        results = [
            measure(label, pool, list(config.methods), block=args.trials, interval=kind)
            for kind in ("fieller", "bootstrap")
        ]
        print("\n| method | true ratio | " + " | ".join(r.interval for r in results) + " |")
        print("|---|---:|" + "---:|" * len(results))
        for name in results[0].per_method:
            cells = " | ".join(f"{100 * r.per_method[name]:.1f}%" for r in results)
            print(f"| {name} | {results[0].true_ratio[name]:.4f} | {cells} |")
        joint = " | ".join(f"**{100 * r.joint:.1f}%**" for r in results)
        print(f"| all at once (claimed ≥ {100 * (1 - ALPHA):.0f}%) | | {joint} |")


if __name__ == "__main__":
    main()
