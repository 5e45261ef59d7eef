"""``ldpcore poll``: the live class's polls, listed, exported and run by the operator.

Whoever can run this command on the server can read and write the
poll database, so it acts on any poll without a teacher's key: the operator's way to
close a poll, reopen it, change its class size, delete it, or give a teacher a handover
code for a device.
"""

from __future__ import annotations

import argparse
import datetime as _dt
from typing import Any

from ldpcore.cli import _args

EXAMPLE = """examples:
  ldpcore poll list
  ldpcore poll export --code ABC234 --output class.csv
  ldpcore aggregate --input class.csv --protocol GRR --epsilon 1 --domain-size 7
  ldpcore poll close --code ABC234
  ldpcore poll set-size --code ABC234 --size 40
  ldpcore poll set-seats --code ABC234 --seats 25   # a lab: 25 students behind one address
  ldpcore poll handover --code ABC234   # a one-use code: type it on the Class page
  ldpcore poll locked                  # addresses locked out after too many wrong tries
  ldpcore poll unlock --address 10.0.0.7
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
    locked = actions.add_parser(
        "locked", help="the addresses locked out of the passcode or handover codes"
    )
    locked.add_argument("--data-dir", help="the data directory (default: LDPCORE_DATA_DIR)")
    unlock = actions.add_parser(
        "unlock", help="let an address try the passcode and handover codes again"
    )
    unlock.add_argument("--address", required=True, help="the address, as 'poll locked' lists it")
    unlock.add_argument("--data-dir", help="the data directory (default: LDPCORE_DATA_DIR)")
    for action, said in OPERATOR_ACTIONS.items():
        command = actions.add_parser(action, help=said)
        command.add_argument("--code", required=True, help="the poll's code")
        if action == "set-size":
            command.add_argument(
                "--size", required=True, type=int, help="the class size: most reports taken"
            )
        if action == "set-seats":
            command.add_argument(
                "--seats",
                required=True,
                type=int,
                help="reports counted per network address (1, or a lab's seats)",
            )
        command.add_argument("--data-dir", help="the data directory (default: LDPCORE_DATA_DIR)")


#: What the server's operator may do to any poll, as the command line offers it.
OPERATOR_ACTIONS = {
    "close": "take no more reports",
    "reopen": "take reports again",
    "set-size": "change the class size (never below the reports stored)",
    "set-seats": "change the reports counted per network address (past them, reports wait)",
    "delete": "delete the poll and its reports",
    "handover": "print a one-use code (ten minutes) that gives a device the poll's controls",
}


def run(args: argparse.Namespace) -> int:
    """List or export."""
    from ldpcore.live.reports import export_reports  # noqa: PLC0415 (pandas: only here)
    from ldpcore.live.store import PollError, PollStore, normalize_code  # noqa: PLC0415

    store = PollStore(args.data_dir)
    if args.action in {"locked", "unlock"}:
        return _doors(store, args)
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
    if args.action in OPERATOR_ACTIONS:
        return _operate(store, found.code, args)
    written = export_reports(found, store.reports(found.code), args.output)
    print(
        f"wrote {written} reports of poll {found.code} to {args.output} "
        f"({found.protocol}, epsilon={found.epsilon:g}, domain size {len(found.options)})"
    )
    return 0


def _doors(store: Any, args: argparse.Namespace) -> int:
    from ldpcore.live.doors import LOCKOUT_FAILURES, Doors  # noqa: PLC0415

    doors = Doors(store.path)
    if args.action == "locked":
        found = doors.locked()
        if not found:
            print(f"no address is locked out (it takes {LOCKOUT_FAILURES} wrong tries)")
        for door, address, failures in found:
            print(f"{address}  locked out of the {door} after {failures} wrong tries")
        return 0
    lifted = doors.unlock(args.address.strip())
    print(
        f"{args.address.strip()} may try again ({lifted} count{'' if lifted == 1 else 's'} lifted)"
        if lifted
        else f"{args.address.strip()} had no wrong tries counted; nothing to lift"
    )
    return 0


def _operate(store: Any, code: str, args: argparse.Namespace) -> int:
    from ldpcore.live.store import OPERATOR  # noqa: PLC0415

    if args.action == "close":
        store.close(code, OPERATOR)
        print(f"poll {code} is closed")
    elif args.action == "reopen":
        store.reopen(code, OPERATOR)
        print(f"poll {code} takes reports again")
    elif args.action == "set-size":
        store.resize(code, OPERATOR, args.size)
        print(f"poll {code} takes up to {args.size:,} reports")
    elif args.action == "set-seats":
        store.set_seats(code, OPERATOR, args.seats)
        print(f"poll {code} counts up to {args.seats:,} reports per network address")
    elif args.action == "delete":
        store.delete(code, OPERATOR)
        print(f"poll {code} and its reports are deleted")
    else:
        handover = store.handover(code, OPERATOR)
        print(
            f"{handover}: on the device, open the Class page and type it under 'Continue a "
            "poll from another device' within ten minutes; it works once"
        )
    return 0
