"""Bayes: time, effective sample size and split R̂ per protocol.

Targets: countries (d = 248, n = 10⁶) within 1 s and Zipf(1.5) at d = 1,024 (n = 10⁶)
within 3 s, each with an effective sample size of at least 400 for every value.

Run: ``.venv/bin/python benchmarks/bench_bayes.py [--seeds 3] [--prior Jeffreys] [--tails]``
(``--tails``: the draws serve intervals, so every value's tail ESS must reach 400 too, as
``Bayes.with_intervals`` asks; the draws per chain are left as they are). Prints a
Markdown table: per protocol and workload, the median and the largest time over the seeds
(each its own collection), the smallest ESS and the largest R̂ seen, the gradient
evaluations (HMC, at the fixed α it sampled) or α's posterior median and ESS.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

from ldpcore.data.datasets import load_bundled, zipf
from ldpcore.postprocess import Bayes
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.postprocess.prior import JEFFREYS, LEARNED
from ldpcore.protocols import get_protocol, protocol_names

N = 1_000_000
WORKLOADS = {
    "countries d=248": lambda: load_bundled("countries", n=N),
    "Zipf d=1,024": lambda: zipf(1024, N, 1.5),
}
TARGETS = {"countries d=248": 1.0, "Zipf d=1,024": 3.0}


def measure(
    protocol: str, workload: str, seeds: int, sampler: Bayes
) -> tuple[list[float], float, float, str]:
    """Times (s), the smallest ESS, the largest R̂, and the gradients or the learned α."""
    data = WORKLOADS[workload]()
    oracle = get_protocol(protocol, epsilon=1.0, domain_size=data.domain_size)
    times, smallest, largest, extra = [], np.inf, 0.0, "—"
    for seed in range(seeds):
        tallies = oracle.sample_tallies(data.counts, np.random.default_rng(seed))
        estimate = oracle.estimate(oracle.support_from_tallies(tallies), N)
        rows = tallies if protocol == "HR" else None  # HR's exact likelihood (its rows)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotConverged)  # reported in the table instead
            posterior = sampler.posterior(estimate, protocol=oracle, n=N, tallies=rows)
        times.append(time.perf_counter() - start)
        smallest = min(smallest, posterior.min_ess)
        largest = max(largest, posterior.max_rhat)
        if posterior.concentration is not None:
            extra = f"α {posterior.concentration.median:.3f} ESS {posterior.concentration.ess:.0f}"
        elif posterior.chains is not None:  # the last collection's
            fixed = "" if posterior.sampled_alpha is None else f"α {posterior.sampled_alpha:g} · "
            extra = f"{fixed}{posterior.chains.gradient_evaluations:,} gradients"
    return times, float(smallest), largest, extra


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--prior", choices=("learned", "Jeffreys"), default="learned")
    parser.add_argument("--tails", action="store_true", help="the tail ESS must pass too")
    args = parser.parse_args()
    prior = LEARNED if args.prior == "learned" else JEFFREYS
    sampler = Bayes(prior=prior, for_intervals=args.tails)
    what = ", tail ESS too" if args.tails else ""
    print(f"\n### Bayes, ε = 1, n = 1e6, {args.prior} prior{what} ({args.seeds} collections)\n")
    print(
        "| workload | protocol | median s | slowest s | target | min ESS | max R̂ | α̂, gradients |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for workload in WORKLOADS:
        for protocol in protocol_names():
            times, ess, rhat, extra = measure(protocol, workload, args.seeds, sampler)
            print(
                f"| {workload} | {protocol} | {statistics.median(times):.2f} | "
                f"{max(times):.2f} | ≤ {TARGETS[workload]:g} | {ess:,.0f} | {rhat:.3f} | "
                f"{extra} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
