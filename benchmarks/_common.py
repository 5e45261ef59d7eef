"""Helpers shared by the benchmark scripts (timing, the Zipf workload)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def zipf_counts(d: int, n: int, s: float = 1.5) -> np.ndarray:
    """True counts: largest-remainder rounding of ``n · f`` with ``f_i ∝ i^(−s)``."""
    f = np.arange(1, d + 1, dtype=float) ** -s
    f /= f.sum()
    raw = n * f
    counts = np.floor(raw).astype(np.int64)
    counts[np.argsort(-(raw - counts), kind="stable")[: n - int(counts.sum())]] += 1
    return counts


def best_of(func: Callable[[], object], *, repeat: int, number: int = 1) -> float:
    """Seconds per call: the minimum over ``repeat`` runs of ``number`` calls (least noisy)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func()
        best = min(best, (time.perf_counter() - start) / number)
    return best
