"""``ldpcore reproduce``: the papers' figures, with each claim checked."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ldpcore.cli import _args
from ldpcore.errors import InputError

EXAMPLE = """examples:
  ldpcore reproduce --list
  ldpcore reproduce all --quick --out reproduction/
  ldpcore reproduce ndss-fig4 ndss-fig10 --full --out reproduction/
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    rep = _args.add_command(
        commands,
        "reproduce",
        help="reproduce the papers' figures and check their claims",
        description="Run paper recipes (NDSS 2020 Figs. 1-10, the MLE paper's Figs. 2-3, the "
        "IBU paper's Table 1, Cao et al.'s attacks, Arcolezi et al.'s memoized chains). "
        "Per figure, DIR/<id>/ gets data.csv, figure.html, figure.png "
        "and report.md (each claim, the measured value, holds or not); DIR/report.md "
        "lists every claim.",
        example=EXAMPLE,
    )
    rep.add_argument("figures", nargs="*", metavar="FIGURE", help="figure ids, or all")
    size = rep.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="few trials and points (default)")
    size.add_argument("--full", action="store_true", help="the papers' trial counts")
    rep.add_argument("--out", help="output folder (required unless --list)")
    rep.add_argument("--list", action="store_true", help="list the figure ids and stop")
    rep.add_argument("--no-png", action="store_true", help="skip PNG export (needs Chromium)")
    rep.add_argument("--dask", help="run the trials on Dask: local:N or tcp://HOST:PORT")


def run(args: argparse.Namespace) -> int:
    """Run the recipes and write their folders."""
    from ldpcore import reproduce  # noqa: PLC0415 (pandas and plotly: only here)

    if args.list:
        for recipe_id in reproduce.recipe_ids():
            recipe = reproduce.get_recipe(recipe_id)
            print(
                f"{recipe_id:12} {recipe.title} (quick ≈ {recipe.quick_seconds:g} s, "
                f"full ≈ {recipe.full_seconds:g} s)"
            )
        return 0
    if not args.figures:
        raise InputError("name the figures to reproduce (or all); --list shows them")
    if not args.out:
        raise InputError("--out DIR is required: where the figures and reports go")
    ids = reproduce.recipe_ids() if args.figures == ["all"] else tuple(args.figures)
    mode = "full" if args.full else "quick"
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {args.out!r} exists and is not a folder")

    line = _args.ProgressLine("reproducing (per cent of the work)")

    def progress(share: float, message: str) -> None:
        line(round(100 * share), 100, message)

    def warn(message: str) -> None:
        print(f"\nwarning: {message}", file=sys.stderr)

    try:
        if args.dask:
            from ldpcore.experiments.cluster import dask_client, where  # noqa: PLC0415

            with dask_client(args.dask) as client:
                print(f"running on {where(client)}", file=sys.stderr)
                workers = max(1, len(client.scheduler_info().get("workers", {})))
                results = reproduce.reproduce(
                    ids,
                    mode,
                    out,
                    png=not args.no_png,
                    progress=progress,
                    executor=client.get_executor(),
                    workers=workers,
                    warn=warn,
                )
        else:
            results = reproduce.reproduce(
                ids, mode, out, png=not args.no_png, progress=progress, warn=warn
            )
    except OSError as exc:
        raise InputError(f"cannot write to --out {args.out!r}: {exc.strerror or exc}") from None
    else:
        line(100, 100, "done")  # the reproduction reports each start, not its end
    finally:
        line.end()
    for result in results:
        print(
            f"{result.recipe:12} {reproduce.tally(result.claims)} "
            f"({result.seconds:.1f} s) -> {out / result.recipe}"
        )
    print(f"summary: {out / 'report.md'}")
    return 0
