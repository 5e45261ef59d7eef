"""A million-row histogram read by the columnar reader and by the row reader (issue 37).

Run: ``.venv/bin/python benchmarks/bench_read_csv.py [--rows 1000000]``. Both readers
read the same bytes in one process (best of three each); the ratio is of those two
figures. The file is what an analyst uploads: ``value,count`` with one row per value.
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import best_of

from ldpcore.data import tables


def main() -> None:
    """Print the two readers' times and their ratio as a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    rows = parser.parse_args().rows
    body = "".join(f"value {i},{(i * 7919) % 1000}\n" for i in range(rows))
    data = ("value,count\n" + body).encode()
    columnar = best_of(lambda: tables.read_numbers(data), repeat=3)
    fast = tables.read_numbers(data)
    plain = tables._COLUMNAR_FROM_CHARACTERS
    tables._COLUMNAR_FROM_CHARACTERS = 10**15  # the row reader alone
    try:
        by_rows = best_of(lambda: tables.read_numbers(data), repeat=3)
        slow = tables.read_numbers(data)
    finally:
        tables._COLUMNAR_FROM_CHARACTERS = plain
    assert fast.labels == slow.labels and np.array_equal(fast.numbers, slow.numbers)
    print(
        "| rows | MiB | columnar reader (s) | row reader (s) | ratio |\n|---:|---:|---:|---:|---:|"
    )
    print(
        f"| {rows:,} | {len(data) / 2**20:.1f} | {columnar:.2f} | {by_rows:.2f} "
        f"| {by_rows / columnar:.1f}× |"
    )


if __name__ == "__main__":
    main()
