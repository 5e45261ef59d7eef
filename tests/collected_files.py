"""The kinds of collected file the collected tab takes, made for tests: support counts,
Base estimates, counts of ordered values, and one row per user's report."""

from __future__ import annotations

import io

import numpy as np

from ldpcore.collection.report_files import csv_parameter_line, reports_to_frame
from ldpcore.protocols import get_protocol


def counts_file(protocol: str, n: int, d: int, seed: int) -> tuple[bytes, np.ndarray]:
    oracle = get_protocol(protocol, epsilon=1.0, domain_size=d)
    truth = np.full(d, n // d)
    truth[0] += n - truth.sum()
    support = oracle.sample_support_counts(truth, seed)
    text = "value,count\n" + "".join(f"team{i},{c}\n" for i, c in enumerate(support))
    return text.encode(), support


def estimates_file(d: int) -> tuple[bytes, np.ndarray]:
    estimates = np.random.default_rng(3).normal(1 / d, 0.02, d)
    text = "club,estimate\n" + "".join(f"C{i},{float(e)!r}\n" for i, e in enumerate(estimates))
    return text.encode(), estimates


def reports_file(protocol: str, d: int, epsilon: float) -> bytes:
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
    rng = np.random.default_rng(0)
    reports = oracle.randomize(rng.integers(0, d, 400), rng)
    buffer = io.StringIO()
    buffer.write(csv_parameter_line(oracle) + "\n")
    reports_to_frame(oracle, reports, text=True).to_csv(buffer, index=False)
    return buffer.getvalue().encode()


def ordered_counts_file() -> bytes:
    """Counts per year: a file of ordered values."""
    oracle = get_protocol("OLH", epsilon=1.0, domain_size=16)
    support = oracle.sample_support_counts(np.full(16, 600), 4)
    return ("year,count\n" + "".join(f"{1990 + i},{c}\n" for i, c in enumerate(support))).encode()


#: Every kind of collected file the tab takes: how to upload it and what its form says.
COLLECTED_KINDS = {
    "counts": (lambda: counts_file("OUE", 21_699, 12, seed=1)[0], "counts"),
    "estimates": (lambda: estimates_file(9)[0], "estimates"),
    "ordered": (ordered_counts_file, "counts"),
    "reports": (lambda: reports_file("GRR", 6, 2.0), None),
}
