"""What the commands share: the parser class, argument groups, number readers, output.

Every reader raises :class:`ldpcore.errors.InputError`, which :func:`ldpcore.cli.main`
turns into one ``error:`` line and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import TYPE_CHECKING, Any, NoReturn

from ldpcore import bounds
from ldpcore._files import replacing
from ldpcore._json import json_default
from ldpcore.errors import InputError

__all__ = ["InputError", "Parser"]
from ldpcore.postprocess import (
    default_method_names,
    method_names,
    resolve_method_name,
)
from ldpcore.protocols import (
    FrequencyOracle,
    get_protocol,
    protocol_names,
    protocol_parameters,
)
from ldpcore.specs import parse_number

if TYPE_CHECKING:
    from ldpcore.data.reading import Reading
    from ldpcore.data.specs import DatasetSpec
    from ldpcore.experiments.config import ExperimentConfig
    from ldpcore.experiments.scope import Scope

#: What ``--dataset`` accepts.
DATASET_HELP = "zipf:d=D,s=S | uniform:d=D | file:PATH | a bundled dataset name"


def _env_seconds(name: str, default: float) -> float:
    """A number of seconds from the environment, or ``default`` if unset or not a number."""
    try:
        return max(0.0, float(os.environ[name]))
    except (KeyError, ValueError):
        return default


class ProgressLine:
    """One self-overwriting progress line on standard error, for runs that take a while.

    ``progress(done, total)`` (or ``progress(done, total, detail)``, naming what runs
    now) redraws ``label: 12 of 30 (40%), about 8 s left`` at most
    every 0.2 s (the last step always); leaving the ``with`` block ends the line, so a
    later message or error never shares it. Nothing is printed for a run that finishes
    before its first redraw is due, so quick runs stay quiet.
    """

    def __init__(self, label: str, *, quiet_seconds: float | None = None) -> None:
        self.label = label
        # LDPCORE_PROGRESS_AFTER (seconds) overrides the 1 s of quiet: 0 shows every line,
        # which is how the tests see each command's progress on a small case.
        if quiet_seconds is None:
            quiet_seconds = _env_seconds("LDPCORE_PROGRESS_AFTER", 1.0)
        self.quiet_seconds = quiet_seconds
        self.started = time.monotonic()
        self.shown = False
        self._last = 0.0

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.end()

    def end(self) -> None:
        """End the line (if one was drawn), so that a later message never shares it."""
        if self.shown:
            print(file=sys.stderr, flush=True)
            self.shown = False

    def __call__(self, done: int, total: int, detail: str = "") -> None:
        now = time.monotonic()
        elapsed = now - self.started
        final = done >= total
        if elapsed < self.quiet_seconds or (now - self._last < 0.2 and not final):
            return
        self._last = now
        share = done / total if total else 1.0
        left = elapsed * (1 - share) / share if share > 0 else math.inf
        eta = "" if final or not math.isfinite(left) else f", about {left:,.0f} s left"
        # ``detail`` (what is running now) is padded, so a shorter one hides a longer.
        what = f"; {detail[:50]:50}" if detail else ""
        print(
            f"\r{self.label}: {done:,} of {total:,} ({100 * share:.0f}%){eta}{what}   ",
            end="",
            file=sys.stderr,
            flush=True,
        )
        self.shown = True


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is an :class:`InputError` (one line, exit code 2)."""

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{message} (see '{self.prog} --help')")


def add_command(
    commands: Any, name: str, *, help: str, description: str, example: str = ""
) -> Parser:
    """A subcommand whose ``--help`` ends with its worked example."""
    parser: Parser = commands.add_parser(
        name,
        help=help,
        description=description,
        epilog=example,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def add_protocol_arguments(
    parser: argparse.ArgumentParser, *, population: str, recorded: bool = False
) -> None:
    """``--protocol --epsilon``, the population (``--n`` or ``--domain-size``), protocol options.

    Commands that simulate or read estimates need the number of users (``population="n"``);
    those that handle single reports need the domain size (``"domain-size"``). With
    ``recorded``, the three may be left out when the input file records them.
    """
    said = " (default: what the input file records)" if recorded else ""
    needed = not recorded
    parser.add_argument("--protocol", required=needed, help=" | ".join(protocol_names()) + said)
    parser.add_argument("--epsilon", required=needed, help="privacy budget ε > 0" + said)
    if population == "n":
        parser.add_argument("--n", required=True, help="number of users")
    else:
        parser.add_argument("--domain-size", required=needed, help="number of values d" + said)
    add_protocol_parameter_arguments(parser)


def add_protocol_parameter_arguments(parser: argparse.ArgumentParser) -> None:
    """One ``--NAME`` per extra parameter the registered protocols declare (``--g``, ``--k``)."""
    for parameter in protocol_parameters().values():
        parser.add_argument(parameter.flag, dest=parameter.name, help=parameter.described())


def protocol_params(args: argparse.Namespace) -> dict[str, int | float]:
    """The declared protocol parameters given on the command line, each of its kind."""
    given: dict[str, int | float] = {}
    for parameter in protocol_parameters().values():
        raw = getattr(args, parameter.name, None)
        if raw is not None:
            flag = parameter.flag
            given[parameter.name] = parameter.check(parse_number(raw, flag), name=flag)
    return given


def add_total_arguments(parser: argparse.ArgumentParser) -> None:
    """``--drop-total`` / ``--keep-total``: what to do with a file's total row.

    Without either, a file with a row that sums the others is refused with a message
    naming both (:mod:`ldpcore.data.totals`), the way the pages ask.
    """
    total = parser.add_mutually_exclusive_group()
    total.add_argument(
        "--drop-total",
        action="store_true",
        help="drop a row whose number is the sum of all the others (a total row) in the "
        "files this command reads",
    )
    total.add_argument(
        "--keep-total",
        action="store_true",
        help="keep such a row as a value (it really is one: held by half of the users)",
    )


def add_reading_arguments(parser: argparse.ArgumentParser, *, histogram: bool = True) -> None:
    """The flags that read a file as a page's upload does (:mod:`ldpcore.data.reading`).

    Its columns, and for a histogram whether the first row names them, whether repeated
    values are summed and whether the values go in numeric order: the command a page
    offers writes them, so it reads the file the way the page did.
    """
    read = parser.add_argument_group("how the file is read (default: guessed, as the pages do)")
    read.add_argument("--value-column", help="the column of the values")
    read.add_argument(
        "--count-column",
        help="the column of the counts" + ("" if histogram else " (or of the estimates)"),
    )
    if not histogram:
        return
    read.add_argument("--group-column", help="the column of each value's group, or none")
    header = read.add_mutually_exclusive_group()
    header.add_argument(
        "--header", action="store_true", default=None, help="the first row names the columns"
    )
    header.add_argument(
        "--no-header",
        dest="header",
        action="store_false",
        help="the first row is a value and its count",
    )
    read.add_argument(
        "--sum-duplicates",
        action="store_true",
        help="sum the counts of a value listed twice (else the file is refused)",
    )
    read.add_argument(
        "--numeric-order",
        action="store_true",
        help="put the values in the order of their numbers (ranges and quantiles read it)",
    )


def reading(args: argparse.Namespace) -> Reading:
    """The :class:`~ldpcore.data.reading.Reading` the flags of :func:`add_reading_arguments` say."""
    from ldpcore.data.reading import NO_GROUP, Reading  # noqa: PLC0415

    group = getattr(args, "group_column", None)
    return Reading(
        value_column=getattr(args, "value_column", None),
        count_column=getattr(args, "count_column", None),
        group_column="" if group is not None and group.strip().lower() == NO_GROUP else group,
        header=getattr(args, "header", None),
        sum_duplicates=bool(getattr(args, "sum_duplicates", False)),
        numeric_order=bool(getattr(args, "numeric_order", False)),
    )


def total_choice(args: argparse.Namespace) -> str:
    """``"drop"``, ``"keep"`` or ``"ask"`` (neither flag) from :func:`add_total_arguments`."""
    if getattr(args, "drop_total", False):
        return "drop"
    return "keep" if getattr(args, "keep_total", False) else "ask"


def say_unused_total(args: argparse.Namespace, found: str | None, source: str) -> None:
    """Say when ``--drop-total``/``--keep-total`` found no total row: never a silent no-op.

    ``found`` is what reading ``source`` did with a total row (None: it had none).
    """
    asked = total_choice(args)
    if asked != "ask" and found is None:
        flag = "--drop-total" if asked == "drop" else "--keep-total"
        print(
            f"note: {source} has no row that sums the others; {flag} changed nothing",
            file=sys.stderr,
        )


def dataset(args: argparse.Namespace) -> DatasetSpec:
    """``--dataset`` as a typed spec, a file read as ``--drop-total``/``--keep-total`` say."""
    import dataclasses  # noqa: PLC0415

    from ldpcore.data.specs import FileData, parse_dataset_spec  # noqa: PLC0415

    spec = parse_dataset_spec(args.dataset)
    if isinstance(spec, FileData):
        spec = dataclasses.replace(spec, total=total_choice(args), reading=reading(args))
        say_unused_total(args, spec.loaded.total, spec.path)
        return spec
    if reading(args).flags():
        raise InputError(
            f"{' '.join(reading(args).flags())}: these say how to read a file; "
            f"--dataset {args.dataset} is not one (use file:PATH)"
        )
    return spec


def with_total(config: ExperimentConfig, args: argparse.Namespace) -> ExperimentConfig:
    """``config`` with its file dataset read as ``--drop-total``/``--keep-total`` say.

    (And the column and order flags, :func:`reading`, when the command takes them.)
    """
    import dataclasses  # noqa: PLC0415

    from ldpcore.data.specs import FileData  # noqa: PLC0415

    if not isinstance(config.dataset, FileData):
        return config
    spec = dataclasses.replace(config.dataset, total=total_choice(args), reading=reading(args))
    return dataclasses.replace(config, dataset=spec)


def number(raw: str, name: str) -> float:
    """A finite number given as ``--name``."""
    return parse_number(raw, f"--{name}")


def whole(raw: str | None, name: str, minimum: int, maximum: int | None = None) -> int | None:
    """A whole number given as ``--name`` in ``[minimum, maximum]`` (None when not given)."""
    if raw is None:
        return None
    value = number(raw, name)
    if value != round(value) or value < minimum or (maximum is not None and value > maximum):
        upper = "" if maximum is None else f" and at most {maximum:,}"
        raise InputError(f"--{name} must be a whole number >= {minimum}{upper}, got {raw!r}")
    return round(value)


def users(raw: str) -> int:
    """The number of users ``--n``."""
    n = whole(raw, "n", bounds.N_USERS_MIN, bounds.N_USERS_MAX)
    assert n is not None
    return n


def trials(raw: str) -> int:
    """``--trials`` within the bounds."""
    return whole(raw, "trials", bounds.TRIALS_MIN, bounds.TRIALS_MAX) or bounds.TRIALS_MIN


def seed(raw: str) -> int:
    """``--seed`` (a whole number >= 0)."""
    return whole(raw, "seed", 0) or 0


def methods_help() -> str:
    """``--methods`` help: what "all" leaves out, from the registry."""
    named_only = [m for m in method_names() if m not in default_method_names()]
    if not named_only:
        return "all, or NAME,NAME,..."
    return (
        f"all (every method but {', '.join(named_only)}: name those to add them), or NAME,NAME,..."
    )


def methods(raw: str, protocol: str | FrequencyOracle | None = None) -> tuple[str, ...]:
    """``all`` or ``NAME,NAME,...`` as canonical method names.

    "all" is the ``protocol``'s (the Square Wave's has EMS and not Power), or the (p, q)
    protocols' without one.
    """
    if raw.strip().lower() == "all":
        return default_method_names(protocol)
    names = tuple(resolve_method_name(m) for m in (p.strip() for p in raw.split(",")) if m)
    if not names:
        raise InputError(f"--methods must be 'all' or NAME,NAME,...; got {raw!r}")
    return names


def scope(
    args: argparse.Namespace, dataset: str | DatasetSpec, n: int, *, methods: str | None = None
) -> Scope:
    """What ``--protocol`` and ``--methods`` (or ``methods``) mean for this data and query.

    The one rule (:func:`ldpcore.experiments.scope.scope_for`): "all" is every protocol
    that takes the domain and, for mechanisms made for ordered values, data with an order
    or a question that reads one; each method runs where it can. What is left out is a
    line each in :attr:`Scope.left_out`; what was named and cannot run is an InputError,
    before any work.
    """
    from ldpcore.data.specs import parse_dataset_spec  # noqa: PLC0415 (pandas for files)
    from ldpcore.experiments.scope import scope_for  # noqa: PLC0415
    from ldpcore.queries.specs import parse_query_spec  # noqa: PLC0415

    spec = parse_dataset_spec(dataset) if isinstance(dataset, str) else dataset
    return scope_for(
        spec.build(n),
        parse_query_spec(args.query),
        protocols=args.protocol,
        methods=args.methods if methods is None else methods,
    )


def protocol(args: argparse.Namespace) -> FrequencyOracle:
    """The protocol named by ``--protocol --epsilon --domain-size`` and its options."""
    return get_protocol(
        args.protocol,
        epsilon=number(args.epsilon, "epsilon"),
        domain_size=whole(args.domain_size, "domain-size", 2) or 2,
        **protocol_params(args),
    )


def write_output(path: str | None, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (standard output when no path)."""
    if not path:
        sys.stdout.write(text)
        return
    with replacing(path, what="--output") as temporary:
        temporary.write_text(text, encoding="utf-8")


def print_json(payload: object) -> None:
    """One JSON object on standard output (numpy scalars as plain numbers; no NaN)."""
    print(json.dumps(payload, allow_nan=False, default=json_default))
