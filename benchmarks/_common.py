"""Helpers shared by the benchmark scripts (timing, the Zipf workload, stored results)."""

from __future__ import annotations

import datetime
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


#: Where a benchmark keeps the results the docs' claims are made from.
RESULTS = Path(__file__).resolve().parent / "results"


def store(name: str, record: dict[str, Any], *, argv: list[str] | None = None) -> Path:
    """Write ``benchmarks/results/NAME.json``: the record with its command and date.

    The docs' comparisons (``devtools/claims``) are made from these files, never typed, so
    a run that changes a number changes the sentence that states it.
    """
    args = sys.argv if argv is None else argv
    main = sys.modules["__main__"]
    spec = getattr(main, "__spec__", None)
    ran = f"-m {spec.name}" if spec is not None else f"benchmarks/{Path(args[0]).name}"
    command = " ".join([f".venv/bin/python {ran}", *args[1:]])
    stamped = {"command": command, "date": datetime.date.today().isoformat(), **record}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(stamped, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nStored {path.relative_to(RESULTS.parent.parent)}", file=sys.stderr)
    return path
