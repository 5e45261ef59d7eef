"""A run's estimate by the clock beside busy processes, against its wall time.

Run: ``.venv/bin/python benchmarks/bench_clock.py``.

With 0, 1, 2 and 3 other processes spinning on the cores, a real simulation whose
seconds of one core were measured alone runs again; the table gives the estimate
(:func:`ldpcore.experiments.clock.clock_seconds` from the machine as it is just before
the run) and the wall time, and what the page said before (the quiet estimate).
"""

from __future__ import annotations

import multiprocessing
import time

from ldpcore.experiments.clock import busy_now, clock_seconds
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run

CONFIG = ExperimentConfig(
    dataset="zipf:d=100000,s=1.5", n=10**6, protocol="OUE", epsilon=1.0, trials=20
)


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def _timed() -> tuple[float, float]:
    start, used = time.monotonic(), time.process_time()
    run(CONFIG)
    return time.monotonic() - start, time.process_time() - used


def main() -> None:
    run(CONFIG)  # warm: imports and caches
    alone, cpu = _timed()
    print(f"alone: {alone:.2f} s wall, {cpu:.2f} s of one core\n")
    print("| busy processes | load read | estimate by the clock | wall | wall / estimate |")
    print("|---|---|---|---|---|")
    context = multiprocessing.get_context("spawn")
    for count in (0, 1, 2, 3):
        others = [context.Process(target=_spin, args=(8 + 4 * cpu,)) for _ in range(count)]
        for other in others:
            other.start()
        time.sleep(1.5)
        busy = busy_now()
        estimate = clock_seconds(cpu, busy)
        wall, _ = _timed()
        for other in others:
            other.join()
        print(
            f"| {count} | {busy.load:.2f} on {busy.cores} cores | {estimate:.2f} s | "
            f"{wall:.2f} s | {wall / estimate:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
