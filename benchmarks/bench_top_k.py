"""How many fake users lift a value into the top k: the Choose ε answer's time.

Target: the answer at seven ε (the chosen one and the six of ``EPSILON_GRID``) within a
second at d = 10,000.

Run: ``.venv/bin/python benchmarks/bench_top_k.py``. ``top_k_question`` on Zipf 1.5,
n = 10⁶, the value at rank d/2, k = 10, ε = 1, once per protocol and d after scipy is
loaded; prints a Markdown table of seconds and the count at ε = 1.
"""

from __future__ import annotations

import time

from ldpcore.attacks.reach import top_k_question
from ldpcore.data.datasets import zipf

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


if __name__ == "__main__":
    main()
