"""``ldpcore aggregate``: reports in, support counts out (streamed; optionally on Dask)."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Any

from ldpcore.cli import _args
from ldpcore.errors import InputError

EXAMPLE = """examples:
  ldpcore aggregate --protocol OLH --epsilon 1 --domain-size 1024 \\
      --input reports.parquet --output counts.csv
  ldpcore aggregate --protocol OUE --epsilon 1 --domain-size 1024 \\
      --input partitions/ --dask local:2 --output counts.csv
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    agg = _args.add_command(
        commands,
        "aggregate",
        help="reports in, support counts out (streamed; optionally on Dask)",
        description="Count, for every value, the reports that support it. Streams in chunks "
        "(memory stays bounded); a folder of Parquet/CSV partitions can be aggregated on a "
        "Dask cluster with the same per-chunk function. Output: CSV value,count (and, for "
        "dBitFlipPM, sampled: the users who sampled each value, for Ding et al.'s "
        "estimator), ready for 'ldpcore postprocess --input-kind counts'.",
        example=EXAMPLE,
    )
    _args.add_protocol_arguments(agg, population="domain-size")
    agg.add_argument("--input", required=True, help="a report file or a folder of them")
    agg.add_argument("--output", help="CSV value,count (default: standard output)")
    add_dask_arguments(agg)
    agg.add_argument("--chunk-rows", default=str(1 << 18), help="reports per chunk")


def add_dask_arguments(parser: argparse.ArgumentParser) -> None:
    """``--dask`` and ``--connect-timeout``."""
    parser.add_argument("--dask", help="local:N or tcp://HOST:PORT (default: this process)")
    parser.add_argument(
        "--connect-timeout", default="10", help="seconds to reach a scheduler (0 < T <= 600)"
    )


def connect_timeout(raw: str) -> float:
    """``--connect-timeout`` in (0, 600] seconds."""
    value = _args.number(raw, "connect-timeout")
    if not 0 < value <= 600:
        raise InputError(f"--connect-timeout must be in (0, 600] seconds, got {raw!r}")
    return value


def run(args: argparse.Namespace) -> int:
    """Aggregate the reports and write ``value,count``."""
    from ldpcore.collection.report_files import (  # noqa: PLC0415
        aggregate_file,
        counts_rows,
        empty_tallies,
        report_files,
    )

    protocol = _args.protocol(args)
    chunk_rows = _args.whole(args.chunk_rows, "chunk-rows", 1) or 1
    if not args.input:
        raise InputError("--input must name a report file or a folder of them")
    files = report_files(Path(args.input))
    if args.dask:
        from ldpcore.experiments.cluster import aggregate_on_dask, dask_client, where  # noqa: PLC0415

        with dask_client(args.dask, timeout=connect_timeout(args.connect_timeout)) as client:
            print(f"aggregating {len(files)} file(s) on {where(client)}", file=sys.stderr)
            counts, users = aggregate_on_dask(client, protocol, files, chunk_rows=chunk_rows)
    else:
        counts, users = empty_tallies(protocol), 0
        for file in files:
            part, rows = aggregate_file(protocol, file, chunk_rows=chunk_rows)
            counts += part
            users += rows
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header, table = counts_rows(protocol, counts)
    writer.writerow(header)
    writer.writerows(table)
    _args.write_output(args.output, out.getvalue())
    print(f"{users:,} reports aggregated (n = {users:,})", file=sys.stderr)
    return 0
