"""Post-processing speed per method and domain size, and IBU against plain EM.

Run: ``.venv/bin/python benchmarks/bench_postprocess.py``. Prints Markdown tables and
stores the numbers in ``benchmarks/results/postprocess.json``, from which the docs' tables
and sentences are made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from _common import best_of, store, zipf_counts

from ldpcore.postprocess import IBU, get_method, method_names
from ldpcore.protocols import get_protocol


def per_method(domains: list[int], n: int, repeat: int) -> dict[str, dict[str, float | None]]:
    print(f"\n### Time per call (ms), OLH, ε = 1, n = {n:.0e}, Zipf s = 1.5 (best of {repeat})\n")
    print("| method | " + " | ".join(f"d = {d:.0e}" for d in domains) + " |")
    print("|---" * (len(domains) + 1) + "|")
    estimates = {}
    for d in domains:
        protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
        counts = zipf_counts(d, n)
        estimates[d] = (protocol, protocol.estimate(protocol.sample_support_counts(counts, 0), n))
    found: dict[str, dict[str, float | None]] = {}
    for name in method_names():
        method = get_method(name)
        cells = []
        found[name] = {}
        for d in domains:
            protocol, estimate = estimates[d]
            if method.max_domain is not None and d > method.max_domain:
                cells.append(f"refused (d > {method.max_domain:,})")
                found[name][str(d)] = None
                continue
            reps = repeat if d <= 10**5 else 2
            # A fresh method each call: Power's posterior table is kept by its instance for
            # the next call with the same (p, q, n), which a first call must build.
            seconds = best_of(
                lambda name=name, p=protocol, e=estimate: get_method(name)(e, protocol=p, n=n),
                repeat=reps,
            )
            cells.append(f"{seconds * 1e3:.2f}")
            found[name][str(d)] = seconds
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return found


def ibu_vs_em(n: int, d: int) -> list[dict[str, Any]]:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    estimate = protocol.estimate(protocol.sample_support_counts(zipf_counts(d, n), 0), n)
    mle = get_method("MLE")(estimate, protocol=protocol, n=n)
    print(f"\n### IBU to the MLE, OLH, d = {d}, n = {n:.0e}, ε = 1\n")
    print("| variant | EM steps | seconds | L∞ distance to MLE | converged |")
    print("|---|---|---|---|---|")
    found = []
    for label, ibu in (
        # The default starts at the exact maximiser where one exists (here it does); the
        # EM itself is compared from the uniform start, where it must do the work.
        ("the default (warm start at the exact MLE)", IBU()),
        ("accelerated EM, from uniform", IBU(warm_start=False)),
        (
            "plain EM, from uniform, 10,000 steps",
            IBU(warm_start=False, accelerate=False, max_iterations=10_000),
        ),
        (
            "plain EM, from uniform, 100,000 steps",
            IBU(warm_start=False, accelerate=False, max_iterations=100_000),
        ),
    ):
        start = time.perf_counter()
        result = ibu.solve(estimate, protocol=protocol, n=n)
        seconds = time.perf_counter() - start
        gap = float(np.abs(result.frequencies - mle).max())
        print(
            f"| {label} | {result.iterations:,} | {seconds:.3f} | {gap:.1e} | {result.converged} |"
        )
        found.append(
            {
                "variant": label,
                "steps": int(result.iterations),
                "seconds": seconds,
                "distance": gap,
                "converged": bool(result.converged),
            }
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    timings = per_method([10**3, 10**4, 10**5, 10**6], 10**6, args.repeat)
    ibu = ibu_vs_em(10**6, 1024)
    store(
        "postprocess",
        {
            "setting": {"protocol": "OLH", "epsilon": 1.0, "n": 10**6, "data": "zipf s=1.5"},
            "repeat": args.repeat,
            "seconds_per_call": timings,
            "ibu": {"d": 1024, "variants": ibu},
        },
    )


if __name__ == "__main__":
    main()
