"""The Explorer's default simulation: the whole run and each method's share.

Target: the default run (OLH, ε = 1, n = 10⁶, Zipf(1.5) d = 1,024, 30 trials, the
default methods) in process within 0.12 s.

Run: ``.venv/bin/python benchmarks/bench_explorer.py [--repeat 5]``. Prints the run's
best time and a per-method table (ms per trial, each method on the same 30 estimates,
after a warm-up call so that lazy imports do not count).
"""

from __future__ import annotations

import argparse
import time

from _common import best_of, zipf_counts

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.postprocess import default_method_names, get_method
from ldpcore.protocols import get_protocol

DEFAULT = ExperimentConfig(
    dataset="zipf:d=1024,s=1.5", n=1_000_000, protocol="OLH", epsilon=1.0, trials=30
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    run(DEFAULT)  # imports and first-call tables
    whole = best_of(lambda: run(DEFAULT), repeat=args.repeat)
    print(f"\nThe default run, in process (best of {args.repeat}): {whole:.3f} s\n")
    oracle = get_protocol("OLH", epsilon=1.0, domain_size=1024)
    counts = zipf_counts(1024, 1_000_000)
    estimates = [
        oracle.estimate(oracle.sample_support_counts(counts, seed), 1_000_000) for seed in range(30)
    ]
    print("| method | ms per trial |")
    print("|---|---:|")
    for name in default_method_names():
        method = get_method(name)
        method(estimates[0], protocol=oracle, n=1_000_000)
        start = time.perf_counter()
        for estimate in estimates:
            method(estimate, protocol=oracle, n=1_000_000)
        print(f"| {name} | {1000 * (time.perf_counter() - start) / len(estimates):.2f} |")


if __name__ == "__main__":
    main()
