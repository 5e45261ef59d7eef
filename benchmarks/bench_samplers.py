"""Fast sampler cost per trial vs n, and the per-user path at scale.

Run: ``.venv/bin/python benchmarks/bench_samplers.py`` (or ``make bench``).
Prints a Markdown table; paste it into benchmarks/README.md with the date.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
from _common import best_of, zipf_counts

from ldpcore import get_protocol, protocol_names
from ldpcore.protocols.repeated import lifetime_epsilon, sample_rounds

TARGET_MS = {"SS": 20.0, "HR": 20.0}  # the rest: 1 ms


def fast_table(d: int, sizes: list[int], repeat: int) -> None:
    print(f"\n### Fast sampler, d = {d}, ε = 1, Zipf s = 1.5 (ms per trial, best of {repeat})\n")
    header = " | ".join(f"n = {n:.0e}" for n in sizes)
    print(f"| protocol | {header} | n = {sizes[-1]:.0e} / n = {sizes[0]:.0e} | target |")
    print("|---" * (len(sizes) + 3) + "|")
    for name in protocol_names():
        protocol = get_protocol(name, epsilon=1.0, domain_size=d)
        rng = np.random.default_rng(0)
        times = []
        for n in sizes:
            counts = zipf_counts(d, n)
            number = 5 if name in TARGET_MS else 50
            times.append(
                best_of(
                    lambda c=counts, pr=protocol, g=rng: pr.sample_support_counts(c, g),
                    repeat=repeat,
                    number=number,
                )
            )
        cells = " | ".join(f"{t * 1e3:.3f}" for t in times)
        target = TARGET_MS.get(name, 1.0)
        print(f"| {name} | {cells} | {times[-1] / times[0]:.2f}× | ≤ {target:g} ms |")


def ss_table(domain_sizes: list[int], n: int, repeat: int) -> None:
    """SS: the halving sampler against the column sweep it replaced (same run)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_ss_halving import column_sweep  # the old sampler, kept as a test reference

    print(f"\n### SS fast sampler vs the column sweep, ε = 1, n = {n:.0e}, Zipf s = 1.5 (ms)\n")
    print("| d | halving, first trial | halving | column sweep | sweep / halving |")
    print("|---|---|---|---|---|")
    for d in domain_sizes:
        counts = zipf_counts(d, n)
        rng = np.random.default_rng(0)
        protocol = get_protocol("SS", epsilon=1.0, domain_size=d)  # a fresh kernel cache
        start = time.perf_counter()
        protocol.sample_support_counts(counts, rng)
        first = time.perf_counter() - start
        runs = max(1, repeat if d <= 10_000 else 2)
        fast = best_of(
            lambda p=protocol, c=counts, g=rng: p.sample_support_counts(c, g), repeat=runs
        )
        sweep = best_of(lambda p=protocol, c=counts, g=rng: column_sweep(p, c, g), repeat=runs)
        print(
            f"| {d:,} | {first * 1e3:.1f} | {fast * 1e3:.1f} | {sweep * 1e3:.1f} "
            f"| {sweep / fast:.1f}× |"
        )


def rounds_table(d: int, n: int, rounds: int, repeat: int) -> None:
    """A round of a repeated collection, per protocol with a chain, against OUE's trial.

    ``sample_rounds`` draws the memo once and each round from it; a round's cost is the
    call's over ``rounds`` (the target: within 2× the protocol's one-shot trial; OUE's
    is the common yardstick).
    """
    counts = zipf_counts(d, n)
    rng = np.random.default_rng(0)
    oue = get_protocol("OUE", epsilon=1.0, domain_size=d)
    one = best_of(lambda: oue.sample_support_counts(counts, rng), repeat=repeat, number=50)
    print(
        f"\n### A round of {rounds} from the same users, d = {d}, n = {n:.0e}, ε = 1 "
        f"(ε∞ = 2 where memoized; ms per round, best of {repeat})\n"
    )
    print(f"OUE's one-shot trial: {one * 1e3:.3f} ms\n")
    print("| protocol | memoized | ms per round | / its own trial | / OUE's trial | target |")
    print("|---|---|---|---|---|---|")
    for name in protocol_names():
        protocol = get_protocol(name, epsilon=1.0, domain_size=d)
        total = best_of(
            lambda p=protocol: sample_rounds(p, counts, rounds, rng), repeat=repeat, number=1
        )
        per_round = total / rounds
        own = best_of(
            lambda p=protocol: p.sample_support_counts(counts, rng), repeat=repeat, number=1
        )
        memoized = "yes" if np.isfinite(lifetime_epsilon(protocol)) else "no"
        print(
            f"| {name} | {memoized} | {per_round * 1e3:.3f} | {per_round / own:.2f}× "
            f"| {per_round / one:.2f}× | ≤ 2× its own trial |"
        )


def per_user_olh(n: int, d: int) -> None:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    counts = zipf_counts(d, n)
    values = np.repeat(np.arange(d), counts)
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    reports = protocol.randomize(values, rng)
    middle = time.perf_counter()
    protocol.aggregate(reports)
    end = time.perf_counter()
    print(f"\n### Per-user OLH, n = {n:.0e}, d = {d}, ε = 1\n")
    print("| step | seconds |\n|---|---|")
    print(f"| randomize | {middle - start:.2f} |\n| aggregate | {end - middle:.2f} |")
    print(f"| total | {end - start:.2f} (target ≤ 10) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--d", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--per-user-n", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=365)
    parser.add_argument(
        "--tables",
        default="fast,ss,per-user,rounds",
        help="which tables to print (comma-separated; default: all four)",
    )
    args = parser.parse_args()
    tables = set(args.tables.split(","))
    print(f"machine: {platform.machine()}, {platform.python_version()}, numpy {np.__version__}")
    if "fast" in tables:
        fast_table(args.d, [10**3, 10**6, 10**9], args.repeat)
    if "ss" in tables:
        ss_table([64, 1024, 10_000, 100_000], 10**6, args.repeat)
    if "per-user" in tables:
        per_user_olh(args.per_user_n, args.d)
    if "rounds" in tables:
        rounds_table(args.d, 10**6, args.rounds, args.repeat)


if __name__ == "__main__":
    main()
