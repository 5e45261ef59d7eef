"""``ldpcore sweep``: a parameter grid from a TOML file (optionally on Dask)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ldpcore.cli import _args
from ldpcore.cli.aggregate import add_dask_arguments, connect_timeout
from ldpcore.errors import InputError

EXAMPLE = """example sweep.toml:
  dataset = "zipf:d=1024,s=1.5"
  protocols = ["OLH", "OUE"]
  epsilons = [0.5, 1.0, 2.0]
  ns = [1000000]
  methods = ["Base", "Norm-Sub"]
  trials = 30
then:
  ldpcore sweep --config sweep.toml --dask local:2 --out results.parquet
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    swp = _args.add_command(
        commands,
        "sweep",
        help="run a parameter grid from a TOML file (optionally on Dask)",
        description="Cross the lists of a sweep file (see ldpcore.experiments.sweeps) and run "
        "every "
        "point through the experiment engine; identical results locally and on a cluster. "
        "Every point is checked before any runs.",
        example=EXAMPLE,
    )
    swp.add_argument("--config", required=True, help="sweep file (TOML)")
    swp.add_argument("--out", required=True, help="results, .parquet or .csv")
    _args.add_total_arguments(swp)
    _args.add_reading_arguments(swp)
    add_dask_arguments(swp)


def run(args: argparse.Namespace) -> int:
    """Run the grid and write the table whole (or not at all)."""
    from ldpcore.data.specs import FileData  # noqa: PLC0415
    from ldpcore.experiments.sweeps import read_sweep, run_sweep, write_table  # noqa: PLC0415

    points = read_sweep(Path(args.config))  # builds every point's config: all checked here
    points = [_args.with_total(point, args) for point in points]
    for spec in dict.fromkeys(point.dataset for point in points):  # each file once
        if isinstance(spec, FileData):
            _args.say_unused_total(args, spec.loaded.total, spec.path)
    out = Path(args.out)
    if out.suffix.lower() not in {".parquet", ".csv"}:
        raise InputError(f"--out {args.out!r} must end in .parquet or .csv")
    if not out.parent.is_dir():
        raise InputError(
            f"cannot write --out {args.out!r}: the folder {str(out.parent)!r} does not exist"
        )
    for point in points:  # every point's data, protocol and query, before any runs
        point.build()
    progress = _args.ProgressLine("grid points")
    try:
        if args.dask:
            from ldpcore.experiments.cluster import dask_client, where  # noqa: PLC0415

            with dask_client(args.dask, timeout=connect_timeout(args.connect_timeout)) as client:
                print(f"running {len(points)} grid points on {where(client)}", file=sys.stderr)
                frame = run_sweep(points, executor=client.get_executor(), progress=progress)
        else:
            frame = run_sweep(points, progress=progress)
    finally:
        progress.end()
    try:
        write_table(frame, out)
    except OSError as exc:
        raise InputError(f"cannot write --out {args.out!r}: {exc.strerror or exc}") from None
    print(f"{len(points)} grid points, {len(frame)} rows -> {out}")
    return 0
