"""Aggregation and sweep throughput: one process against a 2-worker Dask LocalCluster.

Run: ``.venv/bin/python benchmarks/bench_cluster.py`` (also ``make bench``). Prints a
markdown table for benchmarks/README.md. Reports are written once to a temporary
folder as 4 Parquet partitions; each measurement is the best of 3.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ldpcore.collection.report_files import aggregate_file, protocol_metadata, reports_to_frame
from ldpcore.experiments.cluster import aggregate_on_dask, dask_client
from ldpcore.experiments.sweeps import grid, run_sweep
from ldpcore.protocols import get_protocol

REPORTS = 2_000_000
PARTS = 4
D = 1024


def _write_partitions(protocol, folder: Path) -> list[Path]:
    generator = np.random.default_rng(0)
    paths = []
    meta = {k.encode(): v.encode() for k, v in protocol_metadata(protocol).items()}
    for part in range(PARTS):
        values = generator.integers(0, D, size=REPORTS // PARTS)
        frame = reports_to_frame(protocol, protocol.randomize(values, generator), text=False)
        table = pa.Table.from_pandas(frame, preserve_index=False)
        path = folder / f"part-{part}.parquet"
        pq.write_table(table.replace_schema_metadata(meta), path)
        paths.append(path)
    return paths


def _best(func, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    rows = []
    sweep_points = grid(
        {
            "dataset": "zipf:d=1024,s=1.5",
            "protocols": ["OLH", "OUE", "HR"],
            "epsilons": [0.5, 1.0, 2.0, 4.0],
            "ns": [1_000_000],
            "methods": ["Base", "Norm-Sub", "Base-Cut"],
            "trials": 30,
        }
    )
    trials = sum(p.trials for p in sweep_points)
    with tempfile.TemporaryDirectory() as tmp, dask_client("local:2") as client:
        for name in ("OLH", "OUE"):
            protocol = get_protocol(name, epsilon=1.0, domain_size=D)
            folder = Path(tmp) / name
            folder.mkdir()
            paths = _write_partitions(protocol, folder)
            local = _best(lambda p=protocol, f=paths: [aggregate_file(p, x) for x in f])
            remote = _best(lambda p=protocol, f=paths: aggregate_on_dask(client, p, f))
            rows.append(
                (
                    f"aggregate {name}, d = {D}, {REPORTS:,} reports",
                    f"{REPORTS / local:,.0f} reports/s",
                    f"{REPORTS / remote:,.0f} reports/s",
                    f"{local / remote:.2f}×",
                )
            )
        local = _best(lambda: run_sweep(sweep_points), repeat=2)
        remote = _best(lambda: run_sweep(sweep_points, executor=client.get_executor()), repeat=2)
        rows.append(
            (
                f"sweep, {len(sweep_points)} points × 30 trials (Zipf d = 1024, n = 1e6)",
                f"{trials / local:,.0f} trials/s",
                f"{trials / remote:,.0f} trials/s",
                f"{local / remote:.2f}×",
            )
        )
    print("| workload | one process | 2-worker LocalCluster | speed-up |")
    print("| --- | ---: | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\n(python {sys.version.split()[0]}, best of 3 for aggregation, 2 for the sweep)")


if __name__ == "__main__":
    main()
