"""How many fake users lift a value into the top k: the Choose ε answer's time.

Target: the answer at seven ε (the chosen one and the six of ``EPSILON_GRID``) within a
second at d = 10,000.

Run: ``.venv/bin/python benchmarks/bench_top_k.py``. ``top_k_question`` on Zipf 1.5,
n = 10⁶, the value at rank d/2, k = 10, ε = 1, once per protocol and d after scipy is
loaded; prints a Markdown table of seconds and the count at ε = 1.

``--check`` measures what the count means instead: at each of :data:`CHECKS`, the
fewest fake users that put the target in the top k at least half the time (the
attacker at its best), the share of 400 seeded collections in which they do, the same
for the expected-value count and for Cao et al.'s random padding alone. Stored in
``benchmarks/results/top_k.json``, from which the docs' sentences are made
(``devtools/claims``).
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np
from _common import store

from ldpcore.attacks.gains import fake_rate
from ldpcore.attacks.reach import (
    best_support_rate,
    fakes_for_top_k,
    fakes_to_enter_top_k,
    top_k_chance,
    top_k_question,
)
from ldpcore.data.datasets import zipf
from ldpcore.protocols import get_protocol

N = 1_000_000


def main() -> None:
    """Print the table."""
    protocols = ("SS", "OLH", "GRR")
    # A first question loads scipy, as a running page already has it.
    top_k_question("GRR", zipf(20, N).frequencies(), N, labels=list("abcdefghijklmnopqrst"),
                   target=10, k=3, epsilon=1.0)  # fmt: skip
    print("| d | " + " | ".join(protocols) + " |")
    print("|---" * (len(protocols) + 1) + "|")
    for d in (100, 1_024, 10_000):
        frequencies = zipf(d, N).frequencies()
        labels = [str(v) for v in range(d)]
        cells = []
        for protocol in protocols:
            started = time.perf_counter()
            answer = top_k_question(
                protocol, frequencies, N, labels=labels, target=d // 2, k=10, epsilon=1.0
            )
            seconds = time.perf_counter() - started
            count = dict(answer.by_epsilon)[1.0]
            cells.append(f"{seconds:.2f} s ({count:,} at ε = 1)")
        print(f"| {d:,} | " + " | ".join(cells) + " |", flush=True)


#: (protocol, ε, d, n, the target's rank, k) where ``--check`` measures the count.
CHECKS = (
    ("SS", 1.0, 100, 100_000, 80, 10),
    ("GRR", 1.0, 100, 100_000, 80, 10),
    ("OLH", 1.0, 100, 100_000, 80, 10),
    ("OUE", 0.25, 100, 100_000, 80, 10),
    ("SS", 1.0, 64, 1_000_000, 44, 10),
)
COLLECTIONS = 400


def attacker_rate(protocol: Any, f: np.ndarray, n: int, fakes: int, *, target: int, k: int,
                  padded: bool) -> np.ndarray:  # fmt: skip
    """The fake reports' support rate per value the count was found with: Cao et al.'s
    maximal-gain report (``padded``), or the best of it and the attacker's own two
    fillings, as :func:`fakes_for_top_k` tries them."""
    maximal = fake_rate(protocol, "mga", [target])
    if padded:
        return maximal
    rates = [maximal] + [
        rate
        for leaders in (k - 1, 0)
        if (rate := best_support_rate(protocol, f, n, fakes, target=target, k=k, leaders=leaders))
        is not None
    ]
    return max(
        rates, key=lambda rate: top_k_chance(protocol, f, n, fakes, rate=rate, target=target, k=k)
    )


def share_inside(protocol: Any, counts: np.ndarray, rate: np.ndarray, fakes: int, *,
                 target: int, k: int) -> float:  # fmt: skip
    """Of seeded collections, the share with the target in the top k: the honest support
    drawn exactly, the fake users' support ``rate · fakes`` added."""
    fake = np.rint(rate * fakes).astype(np.int64)
    rng = np.random.default_rng(fakes)
    n = int(counts.sum())
    inside = 0
    for _ in range(COLLECTIONS):
        support = protocol.sample_support_counts(counts, rng) + fake
        estimate = protocol.estimate(support, n + fakes)
        inside += int(np.sum(np.delete(estimate, target) > estimate[target]) < k)
    return inside / COLLECTIONS


def inside(protocol: Any, data: Any, fakes: int, *, target: int, k: int, padded: bool) -> float:
    """:func:`share_inside` at ``fakes`` with the rate the count was found with."""
    f, n = data.frequencies(), int(data.n)
    rate = attacker_rate(protocol, f, n, fakes, target=target, k=k, padded=padded)
    return share_inside(protocol, data.counts, rate, fakes, target=target, k=k)


def check() -> None:
    """Measure the counts at :data:`CHECKS` and store them."""
    rows: list[dict[str, Any]] = []
    print(
        "| protocol | ε | d | n | rank | best | inside | expected-value count | inside "
        "| Cao et al. |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, epsilon, d, n, rank, k in CHECKS:
        protocol = get_protocol(name, epsilon=epsilon, domain_size=d)
        data = zipf(d, n)
        f = data.frequencies()
        target = int(np.argsort(-f, kind="stable")[rank])
        best = fakes_for_top_k(protocol, f, n, target=target, k=k)
        padded = fakes_for_top_k(protocol, f, n, target=target, k=k, kind="mga")
        expected = fakes_to_enter_top_k(protocol, f, n, target=target, k=k)
        if best is None or expected is None or padded is None:
            raise SystemExit(f"no count at {name} ε = {epsilon}")

        row = {
            "protocol": name,
            "epsilon": epsilon,
            "d": d,
            "n": n,
            "rank": rank,
            "k": k,
            "best": int(best),
            "best_inside": inside(protocol, data, best, target=target, k=k, padded=False),
            "expected": int(expected),
            "expected_inside": inside(protocol, data, expected, target=target, k=k, padded=True),
            "random_padding": int(padded),
        }
        rows.append(row)
        print(
            f"| {name} | {epsilon:g} | {d} | {n:,} | {rank} | {best:,} | "
            f"{row['best_inside']:.1%} | {expected:,} | {row['expected_inside']:.1%} | "
            f"{padded:,} |",
            flush=True,
        )
    store("top_k", {"collections": COLLECTIONS, "data": "zipf s=1.5", "checks": rows})


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        check()
    else:
        main()
