"""A million-row upload read by the tool's one reader, against Python's ``csv`` module.

Run: ``.venv/bin/python -m benchmarks.bench_read_csv [--rows 1000000]``. Two files of
the same rows, as an analyst uploads them (``value,count``, one row per value): a plain
one, and one with a single quoted value (which the old product sent to its row-by-row
reader). Each is read by ``read_numbers`` (pandas' C parser, then the checks on whole
columns) and by the old product's reader, ``csv.reader`` row by row with the same checks
and messages (``devtools/csv_reference.py``, the tests' slow path), best of three in one
process; the ratio is of those two figures.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._common import best_of
from devtools import csv_reference
from ldpcore.data import tables


def main() -> None:
    """Print the reader's and the baseline's times, per file, as a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    rows = parser.parse_args().rows
    body = "".join(f"value {i},{(i * 7919) % 1000}\n" for i in range(rows - 1))
    files = {
        "plain": ("value,count\nvalue x,3\n" + body).encode(),
        "one quoted value": ('value,count\n"value, x",3\n' + body).encode(),
    }
    print("| file | rows | MiB | reader (s) | row-by-row csv (s) | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, data in files.items():
        ours, theirs = tables.read_numbers(data), csv_reference.read_numbers(data)
        assert ours.labels == theirs.labels and len(ours.labels) == rows
        assert np.array_equal(ours.numbers, theirs.numbers)
        reader = best_of(lambda data=data: tables.read_numbers(data), repeat=3)
        baseline = best_of(lambda data=data: csv_reference.read_numbers(data), repeat=3)
        print(
            f"| {name} | {rows:,} | {len(data) / 2**20:.1f} | {reader:.2f} | {baseline:.2f} "
            f"| {baseline / reader:.1f}× |"
        )


if __name__ == "__main__":
    main()
