"""The live class's polls and reports, in SQLite.

A teacher creates a poll (a question, its options, a protocol and ε); each student's
browser randomizes the answer and sends only the report, which is stored here. No true
answer ever reaches this module: its only input from a student is a report, checked
against the protocol's report space (:mod:`ldpcore.live.reports`) before it is stored.

The file, its tables and what is stored of a person are
:mod:`ldpcore.live.database`'s; who is counted, held or refused is
:mod:`ldpcore.live.admission`'s rule, and who runs a poll is :mod:`ldpcore.live.keys`'s.
This module is what a teacher, a student and the server's operator do with a poll.

"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ldpcore.errors import InputError
from ldpcore.live import admission
from ldpcore.live.admission import REFUSAL_REASONS, AddressActivity
from ldpcore.live.database import (
    DATA_DIR_VARIABLE,
    address_hash,
    address_label,
    default_data_dir,
    key_hash,
    normalize_code,
    token_hash,
)
from ldpcore.live.keys import CODE_ALPHABET, HANDOVER_SECONDS, OPERATOR, Operator, TeacherKeys
from ldpcore.live.poll import (
    CLASS_SIZE_DEFAULT,
    Held,
    Poll,
    PollError,
    Refused,
    check_seats,
    check_size,
    clean_text,
)
from ldpcore.live.reports import check_report, live_protocols, poll_protocol

#: Poll codes: 6 characters of :data:`~ldpcore.live.keys.CODE_ALPHABET`, 32⁶ ≈ 10⁹ codes.
CODE_LENGTH = 6
#: The operator's log (:mod:`ldpcore.serving.logs` formats it).
_LOG = logging.getLogger(__name__)
#: A poll has between 2 and 50 options.
OPTIONS_MIN, OPTIONS_MAX = 2, 50
#: Longest question and option text kept (a poll is read on a phone).
QUESTION_MAX, OPTION_MAX = 300, 80


class PollStore(TeacherKeys):
    """Polls and their reports in one SQLite file (created on first use).

    Parameters
    ----------
    directory : path, optional
        The data directory (:func:`~ldpcore.live.database.default_data_dir` by default);
        created if missing.
    """

    # Teacher ---------------------------------------------------------------------------

    def create(
        self,
        question: str,
        options: Sequence[str],
        *,
        protocol: str,
        epsilon: float,
        max_reports: int = CLASS_SIZE_DEFAULT,
        key: str | None = None,
        seats: int = 1,
    ) -> tuple[Poll, str]:
        """Store a new poll; returns it and the teacher's key (stored hashed).

        ``max_reports`` is the class size: the poll refuses reports beyond it. ``key``
        is the teacher's browser's own key (the Class page's), else a new one is made.
        ``seats``: the reports counted from one network address (several in a lab);
        reports past them wait for the teacher (:mod:`ldpcore.live.admission`).

        Raises
        ------
        PollError
            An empty question, fewer than 2 or more than 50 options, a repeated option,
            a protocol the browser cannot run, an ε out of range, or a class size that
            is not a whole number from 1 to :data:`~ldpcore.live.poll.CLASS_SIZE_MAX`;
            seats that are not a whole number from 1 to the class size.
        """
        question = clean_text(question, "the question", QUESTION_MAX)
        cleaned = [
            clean_text(option, f"option {i + 1}", OPTION_MAX) for i, option in enumerate(options)
        ]
        if not OPTIONS_MIN <= len(cleaned) <= OPTIONS_MAX:
            raise PollError(
                f"a poll needs {OPTIONS_MIN} to {OPTIONS_MAX} options; got {len(cleaned)}"
            )
        repeated = sorted({o for o in cleaned if cleaned.count(o) > 1})
        if repeated:
            raise PollError(f"each option must differ; repeated: {', '.join(repeated)}")
        name = protocol.upper()
        if name not in live_protocols():
            raise PollError(
                f"a live poll runs {', '.join(live_protocols())} in the browser; got {protocol!r}"
            )
        poll_protocol(name, epsilon, len(cleaned))  # checks ε (InputError with the reason)
        check_size(max_reports)
        check_seats(seats, max_reports)
        if key is not None and len(str(key)) < 16:
            raise PollError("a teacher's key has at least 16 characters")  # a page's bug
        key = secrets.token_urlsafe(18) if key is None else str(key)
        salt = secrets.token_bytes(16)
        now = time.time()
        for _ in range(20):  # a collision among 10⁹ codes is rare; retry rather than fail
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self._write() as connection:
                    connection.execute(
                        "INSERT INTO polls (code, question, options, protocol, epsilon, "
                        "key_salt, key_hash, created, max_reports, seats) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            code,
                            question,
                            json.dumps(cleaned),
                            name,
                            float(epsilon),
                            salt,
                            key_hash(salt, key),
                            now,
                            max_reports,
                            seats,
                        ),
                    )
                    connection.execute(
                        "INSERT INTO owners (code, key_hash) VALUES (?, ?)",
                        (code, token_hash(key)),
                    )
            except sqlite3.IntegrityError:
                continue
            poll = Poll(
                code,
                question,
                tuple(cleaned),
                name,
                float(epsilon),
                now,
                False,
                max_reports,
                seats,
            )
            _LOG.info("poll %s started: %s at ε = %g, %d seats", poll.code, name, epsilon, seats)
            return poll, key
        raise PollError("could not find a free poll code; try again")  # pragma: no cover

    def owned(self, key: str) -> list[Poll]:
        """The polls this key runs, newest first (a teacher's own list)."""
        if not key:
            return []
        with self._connect() as connection:
            rows = connection.execute(
                f"SELECT {_POLL_COLUMNS} FROM polls WHERE code IN "
                "(SELECT code FROM owners WHERE key_hash = ?) ORDER BY created DESC",
                (token_hash(key),),
            ).fetchall()
        return [_poll(row) for row in rows]

    def close(self, code: str, key: str | Operator) -> None:
        """Take no more reports (the reports already stored stay)."""
        self._set(code, key, "closed = 1")
        _LOG.info("poll %s closed", normalize_code(code))

    def reopen(self, code: str, key: str | Operator) -> None:
        """Take reports again."""
        self._set(code, key, "closed = 0")
        admission.log_teacher(normalize_code(code), "reopened the poll")

    def set_seats(self, code: str, key: str | Operator, seats: int) -> None:
        """The reports counted from one network address (several in a lab)."""
        check_seats(seats)
        self._require_key(code, key)
        with self._write() as connection:
            connection.execute(
                "UPDATE polls SET seats = ? WHERE code = ?", (seats, normalize_code(code))
            )
        admission.log_teacher(normalize_code(code), f"set {seats} seats per address")

    def show(self, code: str, key: str | Operator, step: int, method: str) -> None:
        """What the class sees now: the lesson's step and the method drawn at the fix.

        The projector view follows it; nothing a student sees depends on it.
        """
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < 10:
            raise PollError(f"a lesson step is a whole number from 0 to 9; got {step!r}")
        self._require_key(code, key)
        with self._write() as connection:
            connection.execute(
                "UPDATE polls SET step = ?, shown_method = ? WHERE code = ?",
                (step, str(method), normalize_code(code)),
            )
        admission.log_teacher(normalize_code(code), f"showed step {step + 1} ({method})")

    def resize(self, code: str, key: str | Operator, size: int) -> None:
        """Set the class size (the most reports taken); never below the reports stored."""
        check_size(size)
        self._require_key(code, key)
        with self._write() as connection:
            have = admission.count_reports(connection, normalize_code(code))
            if size < have:
                raise PollError(
                    f"the poll already holds {have:,} report{'' if have == 1 else 's'}: the "
                    "class size can go down "
                    f"to {have:,}, not to {size:,}"
                )
            connection.execute(
                "UPDATE polls SET max_reports = ? WHERE code = ?", (size, normalize_code(code))
            )
        admission.log_teacher(normalize_code(code), f"set the class size to {size:,}")

    def _set(self, code: str, key: str | Operator, assignment: str) -> None:
        # ``assignment`` is one of this class's own fixed strings, never a caller's text.
        self._require_key(code, key)
        with self._write() as connection:
            connection.execute(
                f"UPDATE polls SET {assignment} WHERE code = ?", (normalize_code(code),)
            )

    def remove_address(self, code: str, key: str | Operator, address: str) -> int:
        """Delete every report from one address, counted or waiting, and refuse it after.

        ``address`` is its label in :meth:`addresses`; it is refused in a lab too.
        Returns how many reports were deleted. The browsers they came from stay
        answered: removing a prank must not let the same phone send again.
        """
        self._require_key(code, key)
        code = normalize_code(code)
        with self._write() as connection:
            gone = self._move_to_removed(connection, code, address, ("reports", "held"))
            hashed = self._hash_of(connection, code, address)
            if hashed is not None:
                connection.execute(
                    "INSERT OR IGNORE INTO blocked (code, address) VALUES (?, ?)", (code, hashed)
                )
        admission.log_teacher(code, f"removed {gone} reports and refused the address", hashed)
        return gone

    def count_waiting(self, code: str, key: str | Operator, address: str) -> tuple[int, int]:
        """Count the reports waiting from one address, as many as the class size allows.

        Returns how many were counted and how many still wait (the poll was full).
        """
        self._require_key(code, key)
        code = normalize_code(code)
        with self._write() as connection:
            waiting = [
                row
                for row in connection.execute(
                    "SELECT id, client, report, received, address FROM held WHERE code = ? "
                    "ORDER BY id",
                    (code,),
                ).fetchall()
                if address_label(row[4]) == address
            ]
            (size,) = connection.execute(
                "SELECT max_reports FROM polls WHERE code = ?", (code,)
            ).fetchone()
            room = max(0, size - admission.count_reports(connection, code))
            taken = waiting[:room]
            connection.executemany(
                "INSERT INTO reports (code, client, report, received, address) "
                "VALUES (?, ?, ?, ?, ?)",
                [(code, *row[1:]) for row in taken],
            )
            connection.executemany("DELETE FROM held WHERE id = ?", [(row[0],) for row in taken])
        admission.log_teacher(code, f"counted {len(taken)} waiting reports of address {address}")
        return len(taken), len(waiting) - len(taken)

    def discard_waiting(self, code: str, key: str | Operator, address: str) -> int:
        """Discard the reports waiting from one address; returns how many.

        Their browsers stay answered; the address may still send up to its seats.
        """
        self._require_key(code, key)
        with self._write() as connection:
            gone = self._move_to_removed(connection, normalize_code(code), address, ("held",))
        admission.log_teacher(
            normalize_code(code), f"discarded {gone} waiting reports of {address}"
        )
        return gone

    @staticmethod
    def _move_to_removed(
        connection: sqlite3.Connection, code: str, address: str, tables: Sequence[str]
    ) -> int:
        gone = 0
        for table in tables:
            if table not in {"reports", "held"}:  # this class's own names, never a caller's
                raise ValueError(f"not a table of reports: {table!r}")
            rows = connection.execute(
                f"SELECT id, address FROM {table} WHERE code = ?", (code,)
            ).fetchall()
            ids = [(i,) for i, hashed in rows if hashed and address_label(hashed) == address]
            connection.executemany(
                "INSERT INTO removed (code, client, address) "
                f"SELECT code, client, address FROM {table} WHERE id = ?",
                ids,
            )
            connection.executemany(f"DELETE FROM {table} WHERE id = ?", ids)
            gone += len(ids)
        return gone

    @staticmethod
    def _hash_of(connection: sqlite3.Connection, code: str, address: str) -> str | None:
        """The stored address behind a label, from anything that address sent."""
        for table in ("removed", "reports", "held", "refusals"):
            for (hashed,) in connection.execute(
                f"SELECT DISTINCT address FROM {table} WHERE code = ? AND address IS NOT NULL",
                (code,),
            ):
                if address_label(hashed) == address:
                    return str(hashed)
        return None

    def delete(self, code: str, key: str | Operator) -> None:
        """Delete the poll and every report it holds."""
        self._require_key(code, key)
        code = normalize_code(code)
        with self._write() as connection:
            for table in (
                "reports",
                "held",
                "refusals",
                "removed",
                "blocked",
                "owners",
                "handovers",
                "polls",
            ):
                connection.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
        _LOG.info("poll %s deleted with its reports", code)

    # Everyone --------------------------------------------------------------------------

    def get(self, code: str) -> Poll | None:
        """The poll with this code (any case, spaces ignored), or None."""
        with self._connect() as connection:
            row = connection.execute(
                f"SELECT {_POLL_COLUMNS} FROM polls WHERE code = ?", (normalize_code(code),)
            ).fetchone()
        return None if row is None else _poll(row)

    def polls(self) -> list[Poll]:
        """Every stored poll, newest first."""
        with self._connect() as connection:
            rows = connection.execute(
                f"SELECT {_POLL_COLUMNS} FROM polls ORDER BY created DESC"
            ).fetchall()
        return [_poll(row) for row in rows]

    def count(self, code: str) -> int:
        """Reports stored for the poll."""
        return self._rows_of("reports", code)

    def refused(self, code: str) -> int:
        """Browsers turned away, for any reason (:meth:`turned_away` says which)."""
        return self._rows_of("refusals", code)

    def turned_away(self, code: str) -> dict[str, int]:
        """Browsers turned away per reason (every key of :data:`REFUSAL_REASONS`)."""
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT reason, COUNT(*) FROM refusals WHERE code = ? GROUP BY reason",
                (normalize_code(code),),
            ).fetchall()
        found = dict.fromkeys(REFUSAL_REASONS, 0)
        found.update({reason: int(n) for reason, n in rows})
        return found

    def addresses(self, code: str) -> list[AddressActivity]:
        """What each network address sent, most reports first (labels, never addresses)."""
        code = normalize_code(code)
        with self._connect() as connection:
            rows = [
                connection.execute(
                    f"SELECT address, received FROM {table} WHERE code = ? AND address IS NOT NULL",
                    (code,),
                ).fetchall()
                for table in ("reports", "held", "refusals")
            ]
            removed = [
                hashed
                for (hashed,) in connection.execute(
                    "SELECT address FROM blocked WHERE code = ?", (code,)
                )
            ]
        return admission.address_activity(rows[0], rows[1], rows[2], removed)

    def waiting(self, code: str) -> int:
        """Reports stored but not counted: their addresses had used their seats."""
        return self._rows_of("held", code)

    def _rows_of(self, table: str, code: str) -> int:
        # ``table`` is one of this store's own table names, never a caller's text.
        if table not in {"reports", "refusals", "held"}:
            raise ValueError(f"not a table of the poll store: {table!r}")
        with self._connect() as connection:
            (found,) = connection.execute(
                f"SELECT COUNT(*) FROM {table} WHERE code = ?",
                (normalize_code(code),),
            ).fetchone()
        return int(found)

    def reports(self, code: str, *, without: str | None = None) -> list[dict[str, Any]]:
        """The poll's reports, in the order received (each as its report-file row).

        ``without``: leave out one address's reports (its label), to see what removing
        them would do.
        """
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT report, address FROM reports WHERE code = ? ORDER BY id",
                (normalize_code(code),),
            ).fetchall()
        return [
            json.loads(report)
            for report, hashed in rows
            if without is None or not hashed or address_label(hashed) != without
        ]

    # Student ---------------------------------------------------------------------------

    def submit(
        self,
        code: str,
        client: str,
        report: Mapping[str, Any],
        *,
        address: str | None = None,
    ) -> int:
        """Store one randomized report; returns the poll's count once it is committed.

        Parameters
        ----------
        code : str
        client : str
            A random identifier the browser keeps for this poll: a second report from
            the same browser is refused (answering twice spends 2ε).
        report : mapping
            The report, in the protocol's report-file columns.
        address : str, optional
            The network address the report came from (the server's view). Unless the
            poll allows shared addresses, one report per address; None: not known (a
            script), not checked.

        Raises
        ------
        PollError
            An unknown or closed poll, a full one (its class size reached), an address
            or a browser that already answered with another report, or a report outside
            the protocol's report space; each is counted with its reason
            (:meth:`turned_away`). The same report from the same browser again is not
            an error: it is stored once, and its count returned (a student whose
            confirmation was lost can send again).
        """
        poll = self.get(code)
        if poll is None:
            raise PollError(
                f"there is no poll with the code {normalize_code(code)!r}; check the code "
                "your teacher shows"
            )
        hashed = (
            None if address is None else address_hash(poll.code, self._salt(poll.code), address)
        )
        client = str(client).strip()
        low, high = admission.CLIENT_CHARS
        if not low <= len(client) <= high or not client.isascii():
            self.refuse_unreadable(poll.code, client, hashed=hashed)
            raise PollError("this browser's answer identifier is malformed; reload the page")
        try:
            row = check_report(
                poll_protocol(poll.protocol, poll.epsilon, len(poll.options)), report
            )
        except InputError:
            with self._write() as connection:
                admission.refuse(connection, poll.code, client, "invalid", hashed)
            admission.log_decision(poll.code, "invalid", hashed)
            raise
        with self._write() as connection:
            verdict = admission.verdict(connection, poll.code, client, row, hashed)
            if verdict == admission.AGAIN:
                # The same report again: its first sending committed but the student
                # never saw the confirmation (a dropped connection, a server restart).
                # It is stored once; say "sent" now.
                admission.log_decision(poll.code, verdict, hashed)
                return admission.count_reports(connection, poll.code)
            if verdict == admission.HOLD:
                connection.execute(
                    "INSERT INTO held (code, client, report, received, address) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (poll.code, client, json.dumps(row), time.time(), hashed),
                )
            elif verdict in REFUSAL_REASONS:
                # Counted (once per browser) and committed, then refused below.
                admission.refuse(connection, poll.code, client, verdict, hashed)
            elif verdict == admission.COUNT:
                connection.execute(
                    "INSERT INTO reports (code, client, report, received, address) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (poll.code, client, json.dumps(row), time.time(), hashed),
                )
            admission.log_decision(poll.code, verdict, hashed)
            count = admission.count_reports(connection, poll.code)
            (size,) = connection.execute(
                "SELECT max_reports FROM polls WHERE code = ?", (poll.code,)
            ).fetchone()
        if verdict in (admission.HOLD, admission.HELD_AGAIN):
            raise Held(admission.HELD_MESSAGE)
        if verdict in REFUSAL_REASONS:
            raise Refused(admission.refusal_message(verdict, poll.code, size), verdict)
        return count

    def refuse_unreadable(
        self, code: str, sent: object, *, address: str | None = None, hashed: str | None = None
    ) -> None:
        """Count a send that is no report, or names no usable browser, as turned away.

        Under "invalid", by a digest of what was sent (never the send itself), once per
        distinct send: the teacher's "turned away" accounts for every refused send.
        """
        if hashed is None and address is not None:
            hashed = address_hash(code, self._salt(code), address)
        with self._write() as connection:
            admission.refuse(connection, code, admission.unreadable_client(sent), "invalid", hashed)
        admission.log_decision(code, "invalid", hashed)

    def _salt(self, code: str) -> bytes:
        with self._connect() as connection:
            (salt,) = connection.execute(
                "SELECT key_salt FROM polls WHERE code = ?", (code,)
            ).fetchone()
        return bytes(salt)


_POLL_COLUMNS = (
    "code, question, options, protocol, epsilon, created, closed, max_reports, seats, step, "
    "shown_method"
)


def _poll(row: tuple[Any, ...]) -> Poll:
    code, question, options, protocol, epsilon, created, closed, max_reports, seats = row[:9]
    return Poll(
        code,
        question,
        tuple(json.loads(options)),
        protocol,
        epsilon,
        created,
        bool(closed),
        int(max_reports),
        int(seats),
        int(row[9]),
        str(row[10]),
    )


__all__ = [
    "DATA_DIR_VARIABLE",
    "HANDOVER_SECONDS",
    "OPERATOR",
    "REFUSAL_REASONS",
    "AddressActivity",
    "Held",
    "Operator",
    "PollError",
    "PollStore",
    "Refused",
    "default_data_dir",
    "normalize_code",
]
