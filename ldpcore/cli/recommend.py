"""``ldpcore recommend``: rank methods for collected estimates, with paired intervals."""

from __future__ import annotations

import argparse
from typing import Any

from ldpcore.cli import _args
from ldpcore.cli.postprocess import add_input_arguments, read_input
from ldpcore.queries.specs import query_usage

EXAMPLE = """example:
  ldpcore recommend --protocol OLH --epsilon 1 --n 1000000 --input estimates.csv --query topk:k=10
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    rec = _args.add_command(
        commands,
        "recommend",
        help="rank post-processing methods for your collected estimates",
        description="Simulate on truths drawn from the posterior given your collection and "
        "rank the methods for the query that matters. Every method is compared with Base "
        "over those truths: a method is called better only when its whole interval says "
        "so, and one whose answers to the values asked are off by more than half in total "
        "is not recommended.",
        example=EXAMPLE,
    )
    _args.add_protocol_arguments(rec, population="n")
    add_input_arguments(rec)
    rec.add_argument("--query", default="full", help=query_usage())
    rec.add_argument("--methods", default="all", help=_args.methods_help())
    rec.add_argument("--trials", default="20")
    rec.add_argument("--seed", default="0")
    rec.add_argument(
        "--truth-from",
        default="posterior",
        help="where the simulated truths come from: posterior (the default: drawn from the "
        "posterior given your collection; the intervals are the spread over those truths), "
        "or Norm-Sub or PowerNS (the one stand-in that method makes of your estimate; its "
        "intervals hold for the stand-in, not for the unknown truth)",
    )
    rec.add_argument("--format", default="table", choices=["table", "json"])


def run(args: argparse.Namespace) -> int:
    """Rank and print."""
    from ldpcore.advice import recommend  # noqa: PLC0415 (pandas: only here)
    from ldpcore.present.sentences import (  # noqa: PLC0415
        method_caveat,
        ranking_note,
        verdict_headline,
    )

    n = _args.users(args.n)
    collected = read_input(args, n)
    with _args.ProgressLine("simulating trials") as progress:
        found = recommend(
            collected.estimate,
            protocol=collected.protocol,
            n=n,
            query=args.query,
            methods=_args.methods(args.methods, collected.protocol),
            trials=_args.trials(args.trials),
            seed=_args.seed(args.seed),
            truth_from=args.truth_from,
            progress=progress,
        )
    note = ranking_note(found.verdict, found.ranks())
    caveat = method_caveat(found.recommended)
    if args.format == "json":
        record = found.to_json_dict(args.query, verdict_headline(found.verdict), note)
        _args.print_json({**record, "caveat": caveat})
        return 0
    print(f"recommended for query {args.query}: {found.recommended}")
    print(verdict_headline(found.verdict))
    for said in (caveat, note):
        if said:
            print(said)
    print(found.ranking.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0
