"""`ldpcore choose-epsilon` with its defaults (every protocol that applies) per dataset.

The command as a person runs it (a whole process: `--protocol all`, its six methods,
10 trials, top-10 within ±0.5 percentage points, n = 1e6), timed ``--repeats`` times, with
how many protocols applied and how many were left out (the mechanisms for ordered values
join only for ordered data or a range question, the memoized ones only for collecting
again), and the seconds per protocol searched:
how the time grows as the registry grows.

    .venv/bin/python benchmarks/bench_choose_epsilon_all.py [--repeats 3] [emoji words ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from ldpcore.protocols import PROTOCOLS

COMMAND = [sys.executable, "-m", "ldpcore.cli", "choose-epsilon"]
DEFAULTS = ["--n", "1000000", "--query", "topk:k=10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("datasets", nargs="*", default=["emoji", "words", "countries", "ages"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--target", default="each:0.005", help="the target (default: the command's own)"
    )
    args = parser.parse_args()
    print(
        "| dataset | protocols searched | protocols left out | seconds (min–max) | s per protocol |"
    )
    print("| --- | ---: | ---: | ---: | ---: |")
    for dataset in args.datasets:
        seconds = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            done = subprocess.run(
                [
                    *COMMAND,
                    "--dataset",
                    dataset,
                    *DEFAULTS,
                    "--target",
                    args.target,
                    "--format",
                    "json",
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            seconds.append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"{dataset}: {done.stderr.strip()}")
        answer = json.loads(done.stdout)
        searched = len(answer["answers"])
        # Protocols left out ("A, B: why" names them); the other lines name a method.
        left = sum(
            name in PROTOCOLS
            for line in answer.get("left_out", [])
            for name in line.split(": ")[0].split(", ")
        )
        middle = statistics.median(seconds)
        print(
            f"| {dataset} | {searched} | {left} | {middle:.2f} "
            f"({min(seconds):.2f}–{max(seconds):.2f}) | {middle / searched:.2f} |"
        )


if __name__ == "__main__":
    main()
