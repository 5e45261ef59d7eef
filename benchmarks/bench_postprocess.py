"""Post-processing speed per method and domain size, and IBU against plain EM.

Run: ``.venv/bin/python benchmarks/bench_postprocess.py``. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import best_of, zipf_counts

from ldpcore.postprocess import IBU, get_method, method_names
from ldpcore.protocols import get_protocol


def per_method(domains: list[int], n: int, repeat: int) -> None:
    print(f"\n### Time per call (ms), OLH, ε = 1, n = {n:.0e}, Zipf s = 1.5 (best of {repeat})\n")
    print("| method | " + " | ".join(f"d = {d:.0e}" for d in domains) + " |")
    print("|---" * (len(domains) + 1) + "|")
    estimates = {}
    for d in domains:
        protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
        counts = zipf_counts(d, n)
        estimates[d] = (protocol, protocol.estimate(protocol.sample_support_counts(counts, 0), n))
    for name in method_names():
        method = get_method(name)
        cells = []
        for d in domains:
            protocol, estimate = estimates[d]
            if method.max_domain is not None and d > method.max_domain:
                cells.append(f"refused (d > {method.max_domain:,})")
                continue
            reps = repeat if d <= 10**5 else 2
            seconds = best_of(
                lambda m=method, p=protocol, e=estimate: m(e, protocol=p, n=n), repeat=reps
            )
            cells.append(f"{seconds * 1e3:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def ibu_vs_em(n: int, d: int) -> None:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    estimate = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), 0), n)
    mle = get_method("MLE")(estimate, protocol=protocol, n=n)
    print(f"\n### IBU to the MLE, OLH, d = {d}, n = {n:.0e}, ε = 1\n")
    print("| variant | EM steps | seconds | L∞ distance to MLE | converged |")
    print("|---|---|---|---|---|")
    for label, ibu in (
        ("accelerated (default)", IBU()),
        ("plain EM, 10,000 steps", IBU(accelerate=False, max_iterations=10_000)),
        ("plain EM, 100,000 steps", IBU(accelerate=False, max_iterations=100_000)),
    ):
        start = time.perf_counter()
        result = ibu.solve(estimate, protocol=protocol, n=n)
        seconds = time.perf_counter() - start
        gap = float(np.abs(result.frequencies - mle).max())
        print(
            f"| {label} | {result.iterations:,} | {seconds:.3f} | {gap:.1e} | {result.converged} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    per_method([10**3, 10**4, 10**5, 10**6], 10**6, args.repeat)
    ibu_vs_em(10**6, 1024)


if __name__ == "__main__":
    main()
