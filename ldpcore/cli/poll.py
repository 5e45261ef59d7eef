"""``ldpcore poll``: the live class's stored polls, listed and exported (issue 24)."""

from __future__ import annotations

import argparse
import datetime as _dt
from typing import Any

from ldpcore.cli import _args

EXAMPLE = """examples:
  ldpcore poll list
  ldpcore poll export --code ABC234 --output class.csv
  ldpcore aggregate --input class.csv --protocol GRR --epsilon 1 --domain-size 7
"""


def add_parser(commands: Any) -> None:
    """Declare ``poll list`` and ``poll export``."""
    poll = _args.add_command(
        commands,
        "poll",
        help="list the live class's polls, or export one's reports",
        description="The polls the Class page stores (SQLite, in LDPCORE_DATA_DIR or the "
        "user's data directory). An export is a CSV report file with its '# ldpcore' "
        "parameter line: `ldpcore aggregate` and every post-processing method take it.",
        example=EXAMPLE,
    )
    actions = poll.add_subparsers(dest="action", metavar="ACTION", parser_class=_args.Parser)
    actions.required = True
    listing = actions.add_parser("list", help="the stored polls, newest first")
    listing.add_argument("--data-dir", help="the data directory (default: LDPCORE_DATA_DIR)")
    export = actions.add_parser("export", help="write a poll's reports as a report file")
    export.add_argument("--code", required=True, help="the poll's code")
    export.add_argument("--output", required=True, help="the CSV file to write")
    export.add_argument("--data-dir", help="the data directory (default: LDPCORE_DATA_DIR)")


def run(args: argparse.Namespace) -> int:
    """List or export."""
    from ldpcore.live.reports import export_reports  # noqa: PLC0415 (pandas: only here)
    from ldpcore.live.store import PollError, PollStore, normalize_code  # noqa: PLC0415

    store = PollStore(args.data_dir)
    if args.action == "list":
        polls = store.polls()
        if not polls:
            print(f"no polls stored in {store.directory}")
            return 0
        print("code    reports  protocol  epsilon  state   created           question")
        for poll in polls:
            when = _dt.datetime.fromtimestamp(poll.created).strftime("%Y-%m-%d %H:%M")
            state = "closed" if poll.closed else "open"
            print(
                f"{poll.code:<7} {store.count(poll.code):>7}  {poll.protocol:<8}  "
                f"{poll.epsilon:>7g}  {state:<6}  {when}  {poll.question}"
            )
        return 0
    found = store.get(args.code)
    if found is None:
        raise PollError(
            f"there is no poll {normalize_code(args.code)!r} in {store.directory} "
            "(see 'ldpcore poll list')"
        )
    written = export_reports(found, store.reports(found.code), args.output)
    print(
        f"wrote {written} reports of poll {found.code} to {args.output} "
        f"({found.protocol}, epsilon={found.epsilon:g}, domain size {len(found.options)})"
    )
    return 0
