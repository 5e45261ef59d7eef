"""Wall time of the `ldpcore simulate` command, interpreter start included, of
`ldpcore --help`, and of `ldpcore postprocess` on a million-row file.

Run: ``.venv/bin/python benchmarks/bench_cli.py [--repeat 5]``.
Targets: n = 1e6 within 1.5 s; n = 1e9 no slower than 1.2× that; ``--help`` within 0.3 s;
``postprocess`` of a million rows, read, post-processed and written, within 5 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ldpcore.protocols import get_protocol

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


def _million_rows(folder: Path, kind: str) -> Path:
    """A million-value collection's file of ``kind`` (OLH, ε = 1, n = 10⁶, Zipf s = 1.5)."""
    d, n = 10**6, 10**6
    weights = 1 / np.arange(1, d + 1) ** 1.5
    truth = np.random.default_rng(0).multinomial(n, weights / weights.sum())
    oracle = get_protocol("OLH", epsilon=1.0, domain_size=d)
    support = oracle.sample_support_counts(truth, 0)
    numbers = support if kind == "counts" else oracle.estimate(support, n)
    column = "support_count" if kind == "counts" else "estimate"
    path = folder / f"{kind}.csv"
    # Estimates to 5 significant digits, as a spreadsheet exports them: repr's 17 would
    # put a million rows over the 20 MiB an upload may hold.
    cells = (str(int(x)) for x in numbers) if kind == "counts" else (f"{x:.5g}" for x in numbers)
    path.write_text(f"value,{column}\n" + "\n".join(f"{i},{c}" for i, c in enumerate(cells)))
    return path


def postprocess_wall(path: Path, output: Path, interval: bool) -> float:
    """Seconds for ``ldpcore postprocess`` of ``path`` with Norm-Sub, start included."""
    command = [LDPCORE, "postprocess", "--protocol", "OLH", "--epsilon", "1", "--n", "1000000"]
    command += ["--method", "Norm-Sub", "--input", str(path), "--output", str(output)]
    command += ["--interval", "0.95"] if interval else []
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
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
    print("\n| `ldpcore postprocess`, a million rows | median (s) | min (s) | max (s) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("estimates", "counts"):
            path = _million_rows(Path(folder), kind)
            for interval in (False, True):
                times = [
                    postprocess_wall(path, Path(folder) / "out.csv", interval)
                    for _ in range(args.repeat)
                ]
                said = f"{kind}{', --interval 0.95' if interval else ''}"
                print(
                    f"| {said} | {statistics.median(times):.2f} | {min(times):.2f} | "
                    f"{max(times):.2f} |"
                )


if __name__ == "__main__":
    main()
