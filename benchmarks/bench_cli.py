"""Wall time of the `ldpcore simulate` command, interpreter start included,
and of `ldpcore --help`.

Run: ``.venv/bin/python benchmarks/bench_cli.py [--repeat 5]``.
Targets: n = 1e6 within 1.5 s; n = 1e9 no slower than 1.2× that; ``--help`` within 0.3 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

LDPCORE = str(Path(sys.executable).with_name("ldpcore"))


def wall(n: int) -> float:
    command = [
        LDPCORE,
        "simulate",
        "--protocol",
        "OLH",
        "--epsilon",
        "1",
        "--n",
        str(n),
        "--dataset",
        "zipf:d=1024,s=1.5",
        "--trials",
        "30",
        "--format",
        "json",
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def help_wall(arguments: list[str]) -> float:
    """Seconds for ``ldpcore ARGUMENTS`` (help or a usage error), start included."""
    start = time.perf_counter()
    subprocess.run([LDPCORE, *arguments], check=False, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    wall(10**6)  # warm the file cache and .pyc files
    rows = {}
    for n in (10**6, 10**9):
        times = [wall(n) for _ in range(args.repeat)]
        rows[n] = times
    print(f"| n | median (s) | min (s) | max (s) |   ({args.repeat} runs each, all 13 methods)")
    print("|---|---|---|---|")
    for n, times in rows.items():
        print(f"| {n:.0e} | {statistics.median(times):.2f} | {min(times):.2f} | {max(times):.2f} |")
    ratio = statistics.median(rows[10**9]) / statistics.median(rows[10**6])
    print(f"\nmedian n = 1e9 / n = 1e6: {ratio:.2f}x")
    print(f"\n| command | median (s) | min (s) | max (s) |   ({args.repeat} runs each)")
    print("|---|---|---|---|")
    for arguments in (["--help"], ["simulate", "--help"], ["simulate", "--bogus"]):
        times = [help_wall(arguments) for _ in range(args.repeat)]
        print(
            f"| `ldpcore {' '.join(arguments)}` | {statistics.median(times):.2f} | "
            f"{min(times):.2f} | {max(times):.2f} |"
        )


if __name__ == "__main__":
    main()
