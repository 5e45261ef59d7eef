"""Who is counted: the live class's rule for each report that arrives.

A server cannot tell a device from a private window, so a poll counts one report per
browser (the identifier the browser keeps) and, from each network address, as many as
the address has *seats*: one unless the teacher says a lab or a school proxy puts
several students behind one address. The rule, in order:

1. the same report again from a browser already stored (counted or waiting) is not an
   error: a student whose confirmation was lost may send again; another report from
   that browser, or from one whose reports the teacher removed, is refused ("device");
2. a closed poll takes nothing ("closed");
3. an address the teacher removed is refused from then on, in a lab too ("removed");
4. a full poll (its class size reached) refuses ("full"): the teacher may make room,
   and the same report may then be sent again;
5. a report from an address that has used its seats *waits*, stored but uncounted,
   until the teacher counts or discards it: a prankster's private windows and a lab the
   teacher did not announce look the same to a server, and only the teacher can tell
   them apart. An address may keep at most a class size of reports waiting; past that
   it is refused ("address").

Every refusal is counted with its reason (:data:`REFUSAL_REASONS`), and an address that
sends :data:`BURST_REPORTS` or more within :data:`BURST_SECONDS` is flagged, so the
teacher sees a prank as it happens.

The sentences a refused student reads are here, beside the rule they explain: they are
the error messages of :class:`~ldpcore.live.poll.Refused` and
:class:`~ldpcore.live.poll.Held`, like every other input error the core raises. What the
teacher reads about refusals (a summary per reason) is :mod:`ldpcore.present`'s.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ldpcore.live.database import address_label

_LOG = logging.getLogger(__name__)

#: Why a report can be turned away, in the order the teacher reads them (the words are
#: :data:`ldpcore.present.class_sentences.REFUSAL_WORDS`).
REFUSAL_REASONS: tuple[str, ...] = ("full", "address", "removed", "device", "closed", "invalid")
#: Reports (sent, waiting or turned away) from one address within this many seconds that
#: make a burst: faster than students pass one phone around, slower than any one click.
BURST_REPORTS, BURST_SECONDS = 5, 60.0

#: What :func:`verdict` returns besides a refusal reason.
COUNT, AGAIN, HOLD, HELD_AGAIN = "", "again", "hold", "held again"


def verdict(
    connection: sqlite3.Connection,
    code: str,
    client: str,
    row: Mapping[str, Any],
    hashed: str | None,
) -> str:
    """What to do with one checked report (the rule in this module's docstring).

    Parameters
    ----------
    connection : sqlite3.Connection
        Inside the submitting transaction: the teacher may close the poll meanwhile,
        and two students may send the last report the class size allows at once.
    code, client : str
    row : mapping
        The report, checked against the protocol.
    hashed : str or None
        The sender's address as stored; None: not known (a script), not checked.

    Returns
    -------
    str
        :data:`COUNT`, :data:`AGAIN`, :data:`HOLD`, :data:`HELD_AGAIN`, or a key of
        :data:`REFUSAL_REASONS`.
    """
    answered = _browser_verdict(connection, code, client, row)
    if answered:
        return answered
    closed, size, seats = connection.execute(
        "SELECT closed, max_reports, seats FROM polls WHERE code = ?", (code,)
    ).fetchone()
    if closed:
        return "closed"
    if (
        hashed is not None
        and connection.execute(
            "SELECT 1 FROM blocked WHERE code = ? AND address = ?", (code, hashed)
        ).fetchone()
    ):
        return "removed"
    if count_reports(connection, code) >= size:
        return "full"
    if hashed is None or _rows_from(connection, "reports", code, hashed) < seats:
        return COUNT
    return "address" if _rows_from(connection, "held", code, hashed) >= size else HOLD


def _browser_verdict(
    connection: sqlite3.Connection, code: str, client: str, row: Mapping[str, Any]
) -> str:
    """What the browser's earlier answer decides: "" when it has none."""
    for table, same in (("reports", AGAIN), ("held", HELD_AGAIN)):
        stored = connection.execute(
            f"SELECT report FROM {table} WHERE code = ? AND client = ?", (code, client)
        ).fetchone()
        if stored is not None:
            return same if json.loads(stored[0]) == row else "device"
    removed = connection.execute(
        "SELECT 1 FROM removed WHERE code = ? AND client = ?", (code, client)
    ).fetchone()
    # Its reports were removed or discarded: it stays answered.
    return "device" if removed else ""


def _rows_from(connection: sqlite3.Connection, table: str, code: str, hashed: str) -> int:
    # ``table`` is one of this module's own table names, never a caller's text.
    (found,) = connection.execute(
        f"SELECT COUNT(*) FROM {table} WHERE code = ? AND address = ?", (code, hashed)
    ).fetchone()
    return int(found)


def count_reports(connection: sqlite3.Connection, code: str) -> int:
    """Reports counted for the poll (waiting ones are not)."""
    (found,) = connection.execute("SELECT COUNT(*) FROM reports WHERE code = ?", (code,)).fetchone()
    return int(found)


#: The longest client identifier a browser's answer form makes (a UUID is 36).
CLIENT_CHARS = (8, 64)


def refuse(
    connection: sqlite3.Connection, code: str, client: str, reason: str, hashed: str | None
) -> None:
    """Count one browser turned away for ``reason`` (once per browser and poll)."""
    connection.execute(
        "INSERT OR IGNORE INTO refusals (code, client, reason, address, received) "
        "VALUES (?, ?, ?, ?, ?)",
        (code, client, reason, hashed, time.time()),
    )


def unreadable_client(sent: object) -> str:
    """The stand-in client of a send that names no usable browser, as a short digest.

    A malformed identifier, or a message that is no report: the digest of what was sent
    makes the same send count once, and nothing a phone sends is stored beyond 20
    characters.

    Examples
    --------
    >>> unreadable_client("ab"), len(unreadable_client("x" * 500))
    ('unreadable-fb8e20fc', 19)
    """
    text = sent if isinstance(sent, str) else repr(sent)
    digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
    return f"unreadable-{digest[:8]}"


def refusal_message(reason: str, code: str, size: int) -> str:
    """What a student turned away reads: why, and whether anything can change it."""
    return {
        "full": f"poll {code} is full: it takes {size:,} report{'' if size == 1 else 's'} "
        "(the class size your teacher set), and has no room left. Your answer was not "
        "sent; your teacher sees that "
        "someone was turned away.",
        "address": "too many answers from this network address are already waiting for "
        "your teacher. Your answer was not sent.",
        "removed": "your teacher removed the answers from this network address, and it "
        "takes no more. Your answer was not sent.",
        "device": "this browser has already answered this poll; a second answer would "
        "spend your privacy budget twice (2ε), so it is not taken",
        "closed": f"poll {code} is closed: your teacher takes no more answers",
    }[reason]


#: What a student whose report waits reads.
HELD_MESSAGE = (
    "Your report is stored, and waits for your teacher: someone on this network address "
    "has already answered, so your teacher decides whether to count it (several of you "
    "may share one connection, as in a computer lab). There is nothing more to do here."
)


@dataclass(frozen=True)
class AddressActivity:
    """What one network address sent to a poll (the teacher's view).

    Attributes
    ----------
    label : str
        Six hex characters standing for the address (never the address itself).
    reports, waiting, turned_away : int
        Counted, waiting for the teacher, refused.
    burst : bool
        :data:`BURST_REPORTS` or more sendings within :data:`BURST_SECONDS`.
    removed : bool
        The teacher removed it: it is refused from then on.
    """

    label: str
    reports: int
    waiting: int
    turned_away: int
    burst: bool
    removed: bool = False


def address_activity(
    sent: Iterable[tuple[str, float]],
    waiting: Iterable[tuple[str, float]],
    refused: Iterable[tuple[str, float]],
    removed: Iterable[str] = (),
) -> list[AddressActivity]:
    """Each address's reports, most counted first, from (stored address, time) rows.

    Examples
    --------
    >>> rows = [("ab12cd99", t) for t in (0.0, 1.0, 2.0, 3.0)]
    >>> [a.label for a in address_activity(rows[:1], rows[1:], [("ffee00", 9.0)])]
    ['ab12cd', 'ffee00']
    """
    times: dict[str, list[float]] = {}
    tallies: dict[str, list[int]] = {}
    for column, rows in enumerate((sent, waiting, refused)):
        for hashed, received in rows:
            label = address_label(hashed)
            times.setdefault(label, []).append(received)
            tallies.setdefault(label, [0, 0, 0])[column] += 1
    gone = {address_label(h) for h in removed}
    activity = [
        AddressActivity(
            label,
            reports=tallies[label][0],
            waiting=tallies[label][1],
            turned_away=tallies[label][2],
            burst=is_burst(sorted(when)),
            removed=label in gone,
        )
        for label, when in times.items()
    ]
    return sorted(activity, key=lambda a: (-a.reports, -a.waiting, -a.turned_away, a.label))


def most_suspect(activity: Sequence[AddressActivity]) -> int:
    """The index of the address a teacher removing one most likely means.

    A flagged one (a burst, or reports waiting), the most reports first; else the first.
    A teacher acting fast then removes the prank, not whichever address has the most
    reports (an honest lab's).

    Examples
    --------
    >>> lab = AddressActivity("aaaaaa", reports=20, waiting=0, turned_away=0, burst=False)
    >>> prank = AddressActivity("bbbbbb", reports=1, waiting=5, turned_away=0, burst=True)
    >>> most_suspect([lab, prank]), most_suspect([lab])
    (1, 0)
    """
    flagged = [i for i, a in enumerate(activity) if a.burst or a.waiting]
    return max(flagged, key=lambda i: activity[i].reports + activity[i].waiting, default=0)


def is_burst(times: Sequence[float]) -> bool:
    """:data:`BURST_REPORTS` or more of the sorted ``times`` within :data:`BURST_SECONDS`.

    Examples
    --------
    >>> is_burst([0.0, 10.0, 20.0, 30.0, 40.0]), is_burst([0.0, 61.0, 122.0, 183.0, 244.0])
    (True, False)
    """
    return any(
        times[i + BURST_REPORTS - 1] - times[i] <= BURST_SECONDS
        for i in range(len(times) - BURST_REPORTS + 1)
    )


#: How the operator's log names each decision about a report.
_DECIDED = {COUNT: "counted", AGAIN: "sent again (stored once)", HOLD: "held for the teacher"}


def log_decision(code: str, verdict: str, hashed: str | None) -> None:
    """One line in the operator's log for every decision about a report.

    With the address's digest as the teacher sees it, never the address.
    """
    said = _DECIDED.get(verdict) or (
        "held again" if verdict == HELD_AGAIN else f"refused ({verdict})"
    )
    _LOG.info("poll %s: a report %s, address %s", code, said, _label(hashed))


def log_teacher(code: str, change: str, hashed: str | None = None) -> None:
    """One line in the operator's log for a change the teacher makes."""
    where = "" if hashed is None else f", address {_label(hashed)}"
    _LOG.info("poll %s: the teacher %s%s", code, change, where)


def _label(hashed: str | None) -> str:
    return "unknown" if hashed is None else address_label(hashed)


__all__ = [
    "AGAIN",
    "BURST_REPORTS",
    "BURST_SECONDS",
    "COUNT",
    "HELD_AGAIN",
    "HELD_MESSAGE",
    "HOLD",
    "REFUSAL_REASONS",
    "AddressActivity",
    "address_activity",
    "count_reports",
    "is_burst",
    "log_decision",
    "log_teacher",
    "most_suspect",
    "refusal_message",
    "verdict",
]
