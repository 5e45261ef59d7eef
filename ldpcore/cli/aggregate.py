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
  ldpcore aggregate --input poll-ABC234.csv --output counts.csv   # a class's export
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
        "estimator), ready for 'ldpcore postprocess --input-kind counts'. A file that "
        "records its protocol, ε and d (every file ldpcore writes, a class's export too) "
        "needs none of them named; a class's export also names each option, and the "
        "output's values are those names.",
        example=EXAMPLE,
    )
    _args.add_protocol_arguments(agg, population="domain-size", recorded=True)
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


def fill_recorded(args: argparse.Namespace, recorded: dict[str, str], source: Path) -> None:
    """The protocol, ε and d left out of the command, from what the file records.

    And the protocol's own options; a refusal naming the flag when the file records
    none. What is named is kept: the aggregation then checks it against the record.
    """
    for flag, key in (
        ("protocol", "protocol"),
        ("epsilon", "epsilon"),
        ("domain_size", "domain_size"),
    ):
        if getattr(args, flag, None) is None:
            if key not in recorded:
                raise InputError(
                    f"{source} records no {key.replace('_', ' ')}: name it "
                    f"(--{flag.replace('_', '-')})"
                )
            setattr(args, flag, recorded[key])
    from ldpcore.protocols import protocol_class  # noqa: PLC0415

    for parameter in protocol_class(args.protocol).extra_parameters:
        if getattr(args, parameter.name, None) is None and parameter.name in recorded:
            setattr(args, parameter.name, recorded[parameter.name])


def run(args: argparse.Namespace) -> int:
    """Aggregate the reports and write ``value,count``."""
    from ldpcore.collection.report_files import (  # noqa: PLC0415
        aggregate_file,
        counts_rows,
        empty_tallies,
        file_parameters,
        recorded_options,
        report_files,
    )

    chunk_rows = _args.whole(args.chunk_rows, "chunk-rows", 1) or 1
    if not args.input:
        raise InputError("--input must name a report file or a folder of them")
    files = report_files(Path(args.input))
    fill_recorded(args, file_parameters(files[0]), files[0])
    protocol = _args.protocol(args)
    names = recorded_options(files[0]) if len(files) == 1 else None
    if names is not None and len(names) != protocol.domain_size:
        raise InputError(
            f"{files[0]} names {len(names)} options, but d = {protocol.domain_size}: leave "
            "--domain-size out to use the file's own"
        )
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
    if names is not None:  # a class's export: each value by its option's name
        table = [[names[row[0]], *row[1:]] for row in table]
    writer.writerow(header)
    writer.writerows(table)
    _args.write_output(args.output, out.getvalue())
    print(f"{users:,} reports aggregated (n = {users:,})", file=sys.stderr)
    return 0
