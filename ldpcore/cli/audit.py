"""``ldpcore audit``: whether a protocol's randomizer satisfies ε-LDP."""

from __future__ import annotations

import argparse
from typing import Any

from ldpcore.cli import _args

EXAMPLE = """example:
  ldpcore audit --protocol OUE --epsilon 1 --domain-size 1024
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    aud = _args.add_command(
        commands,
        "audit",
        help="check that a protocol's randomizer satisfies ε-LDP",
        description="The exact worst-case output-probability ratio from the channel, and an "
        "empirical audit of the real randomizer on the two most distinguishable inputs with "
        "a one-sided confidence bound; exit code 1 if either finds a violation.",
        example=EXAMPLE,
    )
    _args.add_protocol_arguments(aud, population="domain-size")
    aud.add_argument(
        "--runs",
        help="randomizer runs per input (default 200,000, fewer where a report is large "
        "so that the audit keeps to about 20 s)",
    )
    aud.add_argument(
        "--confidence", default="0.99", help="of the one-sided bound, in [0.9, 1) (default: 0.99)"
    )
    aud.add_argument("--seed", help="seed the randomizer (default: OS secure generator)")


def run(args: argparse.Namespace) -> int:
    """Audit; exit code 1 on a violation."""
    from ldpcore.collection.audit import audit  # noqa: PLC0415

    protocol = _args.protocol(args)
    with _args.ProgressLine("randomizing reports") as line:
        result = audit(
            protocol,
            runs=None if args.runs is None else (_args.whole(args.runs, "runs", 1000) or 1000),
            confidence=_args.number(args.confidence, "confidence"),
            rng=_args.whole(args.seed, "seed", 0),
            progress=line,
        )
    print(f"{protocol}: {result.verdict}")
    return 0 if result.passed else 1
