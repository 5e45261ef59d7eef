"""``ldpcore randomize``: the client randomizer, values in, LDP reports out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ldpcore.cli import _args

EXAMPLE = """example:
  ldpcore randomize --protocol OLH --epsilon 1 --domain-size 1024 \\
      --input values.csv --output reports.parquet
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    rnd = _args.add_command(
        commands,
        "randomize",
        help="the client randomizer: values in, LDP reports out",
        description="Randomize each user's value with the protocol's client randomizer and "
        "write one report per user (format per protocol: see "
        "ldpcore.collection.report_files). Randomness "
        "comes from the operating system's secure generator. --seed makes the output "
        "reproducible and therefore NOT private: use it only to simulate.",
        example=EXAMPLE,
    )
    _args.add_protocol_arguments(rnd, population="domain-size")
    rnd.add_argument("--input", required=True, help="CSV with a 'value' column of 0..d-1")
    rnd.add_argument("--output", required=True, help="reports file, .parquet or .csv")
    rnd.add_argument("--seed", help="ONLY for reproducible simulation: makes reports non-private")


def run(args: argparse.Namespace) -> int:
    """Randomize every value of the input file into a reports file."""
    from ldpcore.collection.clients import randomize_file  # noqa: PLC0415 (pandas: only here)
    from ldpcore.rng import SecureRandom  # noqa: PLC0415

    protocol = _args.protocol(args)
    seed = _args.whole(args.seed, "seed", 0)
    rng = SecureRandom() if seed is None else np.random.default_rng(seed)
    users = randomize_file(protocol, Path(args.input), Path(args.output), rng=rng)
    source = "OS secure generator" if seed is None else f"seed {seed} (NOT private)"
    print(f"{users:,} reports -> {args.output} ({protocol}, randomness: {source})", file=sys.stderr)
    return 0
