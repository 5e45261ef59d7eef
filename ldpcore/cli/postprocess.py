"""``ldpcore postprocess``: estimates or support counts in, consistent frequencies out."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ldpcore import bounds
from ldpcore.cli import _args
from ldpcore.errors import InputError
from ldpcore.postprocess import (
    JEFFREYS,
    LEARNED,
    UNIFORM,
    PostProcessor,
    check_level,
    estimates_with_intervals,
    get_method,
    method_names,
    resolve_method_name,
)
from ldpcore.postprocess.ibu import said_not_converged
from ldpcore.present.run_sentences import caveats_note, not_converged_words

if TYPE_CHECKING:  # pandas and scipy load when a command runs, not for --help
    from ldpcore.collection.estimates import Collected

EXAMPLE = """example (a CSV with header value,estimate or value,count):
  ldpcore postprocess --protocol OLH --epsilon 1 --n 1000000 --method Norm-Sub \\
      --input estimates.csv --output consistent.csv --interval 0.95
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    post = _args.add_command(
        commands,
        "postprocess",
        help="post-process LDP estimates or support counts from a CSV",
        description="Read Base estimates or support counts and write consistent frequencies.",
        example=EXAMPLE,
    )
    _args.add_protocol_arguments(post, population="n")
    post.add_argument("--method", required=True, help=", ".join(method_names()))
    add_input_arguments(post)
    post.add_argument(
        "--output", help="where to write value,frequency[,low,high] (default: stdout)"
    )
    post.add_argument(
        "--interval",
        metavar="LEVEL",
        help=(
            "add low,high: an interval for each true frequency at this level (e.g. 0.95): "
            "Bayes's credible intervals (up to 0.99), for the other methods a confidence "
            "interval (exact up to 500 users, else from the Base estimate's exact "
            "variance), holding the method's estimate"
        ),
    )
    post.add_argument(
        "--simultaneous",
        action="store_true",
        help=(
            "with --interval: intervals that hold for every value at once (Bonferroni), "
            "as the live class shows them; each is wider"
        ),
    )
    post.add_argument(
        "--prior",
        default="learned",
        help=(
            "Bayes's prior: learned (default: a symmetric Dirichlet whose concentration "
            "the reports choose), jeffreys, uniform, or a histogram file value,count "
            "(an earlier survey) matched to the input's values"
        ),
    )
    post.add_argument(
        "--prior-weight",
        metavar="USERS",
        help="how many users' true values the prior histogram counts as (default: its total)",
    )


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """``--input`` and ``--input-kind``: collected output to read."""
    parser.add_argument(
        "--input", required=True, help="CSV with header value,estimate or value,count"
    )
    parser.add_argument(
        "--input-kind",
        choices=["estimates", "counts"],
        help="what the input holds (default: read from its header)",
    )
    _args.add_total_arguments(parser)
    _args.add_reading_arguments(parser, histogram=False)


def read_input(args: argparse.Namespace, n: int) -> Collected:
    """Collected output (estimates or support counts) from ``--input``."""
    from ldpcore.collection.estimates import read_collected  # noqa: PLC0415 (pandas)

    epsilon = _args.number(args.epsilon, "epsilon")
    path = Path(args.input)
    if not args.input or not path.exists():
        raise InputError(f"--input {args.input!r} does not exist")
    if not path.is_file():
        raise InputError(f"--input {args.input!r} is a folder, not a CSV file")
    if path.stat().st_size > bounds.UPLOAD_BYTES_MAX:  # before reading it into memory
        raise InputError(f"--input {args.input!r} is over {bounds.UPLOAD_BYTES_MAX // 2**20} MiB")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read --input {args.input!r}: {exc.strerror}") from None
    with _args.ProgressLine("reading the input (characters)") as line:
        collected = read_collected(
            data,
            protocol=args.protocol,
            epsilon=epsilon,
            n=n,
            kind=args.input_kind,
            source=args.input,
            params=_args.protocol_params(args),
            progress=line,
            total=_args.total_choice(args),
            value_column=args.value_column,
            number_column=args.count_column,
        )
    _args.say_unused_total(args, collected.total, args.input)
    # What the file looks like where the protocol and n could not have made it: said,
    # and the command goes on (the person may know better).
    for note in collected.notes:
        print(f"warning: {args.input}: {note}", file=sys.stderr)
    return collected


def _with_prior(
    method: PostProcessor, args: argparse.Namespace, collected: Collected
) -> PostProcessor:
    """Bayes with the prior ``--prior`` names; any other method as it is (the flags unused)."""
    from ldpcore.collection.estimates import prior_for  # noqa: PLC0415 (pandas)
    from ldpcore.data.datasets import read_histogram  # noqa: PLC0415

    chosen = args.prior.strip()
    if not method.takes_prior:
        if chosen.lower() != "learned" or args.prior_weight is not None:
            raise InputError(
                f"--prior and --prior-weight are for --method Bayes, not {method.name}"
            )
        return method
    weight = None if args.prior_weight is None else _args.number(args.prior_weight, "prior-weight")
    named = {"jeffreys": JEFFREYS, "uniform": UNIFORM, "learned": LEARNED}
    if chosen.lower() in named:
        if weight is not None:
            raise InputError("--prior-weight goes with a histogram file as --prior")
        return method.configured(prior=named[chosen.lower()])
    if not Path(chosen).exists():
        raise InputError(
            f"--prior {chosen!r}: give learned, jeffreys, uniform, or a histogram file "
            "(value,count) that exists"
        )
    return method.configured(
        prior=prior_for(
            collected, read_histogram(chosen, total=_args.total_choice(args)), weight=weight
        )
    )


def run(args: argparse.Namespace) -> int:
    """Post-process and write ``value,frequency[,low,high]`` at full double precision."""
    n = _args.users(args.n)
    method = get_method(resolve_method_name(args.method))
    level = None if args.interval is None else check_level(_args.number(args.interval, "interval"))
    if args.simultaneous and level is None:
        raise InputError("--simultaneous widens the intervals of --interval; add --interval 0.95")
    collected = read_input(args, n)
    method = _with_prior(method, args, collected)
    with _args.ProgressLine("sampling the posterior") as line:
        method = method.configured(progress=line)
        warning = _write(args, method, collected, n, level)
    if warning:  # after the progress line has ended, so it stands on its own
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _exact(column: np.ndarray) -> Iterator[str]:
    """Each number of ``column`` at full double precision (``repr``).

    A whole column at a time: a million rows written row by row took most of the
    command's time.
    """
    return map(repr, np.asarray(column, dtype=np.float64).tolist())


def _write(
    args: argparse.Namespace,
    method: PostProcessor,
    collected: Collected,
    n: int,
    level: float | None,
) -> str:
    """Post-process and write the output; return a warning to print, or ""."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    warning = ""
    if level is None:
        # Said after the progress line has ended, as with --interval (where it is the note).
        frequencies, said = said_not_converged(
            lambda: method(collected.estimate, protocol=collected.protocol, n=n)
        )
        warning = " ".join(not_converged_words(w) for w in said)
        writer.writerow(["value", "frequency"])
        writer.writerows(zip(collected.labels, _exact(frequencies), strict=True))
    else:
        found = estimates_with_intervals(
            collected.estimate,
            method=method,
            protocol=collected.protocol,
            n=n,
            level=level,
            simultaneous=args.simultaneous,
        )
        warning = caveats_note(found.caveats)
        writer.writerow(["value", "frequency", "low", "high"])
        columns = (_exact(c) for c in (found.point, found.low, found.high))
        writer.writerows(zip(collected.labels, *columns, strict=True))
    _args.write_output(args.output, out.getvalue())
    return warning
