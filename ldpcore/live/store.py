"""The live class's polls and reports, in SQLite (issue 24).

A teacher creates a poll (a question, its options, a protocol and ε); each student's
browser randomizes the answer and sends only the report, which is stored here. No true
answer ever reaches this module: its only input from a student is a report, checked
against the protocol's report space (:mod:`ldpcore.live.reports`) before it is stored.

Durability and concurrency
--------------------------
The database is in WAL mode with ``synchronous=FULL``: a report is acknowledged only
after its transaction has committed and reached the disk, so a server killed with
reports in flight loses none that a student saw confirmed. Every call opens its own
connection (Streamlit runs each session in its own thread, and a connection must not be
shared across threads), writes take the write lock at ``BEGIN IMMEDIATE``, and a busy
database is waited for (``busy_timeout``), never reported as an error: a class that
submits at once queues for the lock for milliseconds.

The teacher's key
-----------------
A random key proves the teacher: the poll's own (``secrets.token_urlsafe(18)``, 144
bits) or the teacher's browser's (the Class page keeps one in a cookie, never in an
address). Only hashes are stored: the creator's key salted in ``polls``, every key that
may run the poll (the creator's, and each device it was handed over to) in ``owners``.
A slow password hash would add nothing: the keys are random, not chosen by a person, so
they cannot be guessed from a dictionary. A teacher moves to another device with a
*handover code* (:meth:`PollStore.handover`): eight characters, one use, ten minutes.
The server's operator acts on any poll (:data:`OPERATOR`: the command line, which
reads the database file itself).

One student, one report
-----------------------
A server cannot tell a device from a private window, so a poll takes one report per
browser (the identifier the browser keeps) and, unless the teacher allows shared
addresses, one per network address. Addresses are stored as a salted hash (the poll's
own salt), never in plain text; with only 2³² IPv4 addresses that keeps them out of
sight of a reader of the file, not from a determined one. Every refusal is counted with
its reason (:data:`REFUSAL_REASONS`), so the teacher sees a prank as it happens.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ldpcore.errors import InputError
from ldpcore.live.poll import CLASS_SIZE_DEFAULT, CLASS_SIZE_MAX, Poll
from ldpcore.live.reports import check_report, live_protocols, poll_protocol

#: Where polls live unless ``LDPCORE_DATA_DIR`` says otherwise (XDG's data directory).
DATA_DIR_VARIABLE = "LDPCORE_DATA_DIR"
#: The database file's name inside the data directory.
DATABASE_NAME = "polls.sqlite3"
#: Poll codes: 6 characters without look-alikes (no 0/O, 1/I/L), 32⁶ ≈ 10⁹ codes.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
#: A poll has between 2 and 50 options (issue 24).
OPTIONS_MIN, OPTIONS_MAX = 2, 50
#: Longest question and option text kept (a poll is read on a phone).
QUESTION_MAX, OPTION_MAX = 300, 80
#: Seconds a writer waits for the lock before giving up (a class never waits this long).
BUSY_TIMEOUT_S = 30.0
#: Why a report was turned away, as the teacher reads it (in this order).
REFUSAL_REASONS: dict[str, str] = {
    "full": "the poll was full",
    "address": "their network address had already answered",
    "device": "their browser had already answered",
    "closed": "the poll was closed",
    "invalid": "the report was not one the protocol can send",
}
#: Reports (sent or turned away) from one address within this many seconds that make a
#: burst: faster than students pass one phone around, slower than any one click.
BURST_REPORTS, BURST_SECONDS = 5, 60.0
#: A handover code's length and lifetime (seconds).
HANDOVER_LENGTH, HANDOVER_SECONDS = 8, 600.0


class Operator:
    """The server's operator: acts on any poll without its key (the command line)."""

    def __repr__(self) -> str:
        return "OPERATOR"


#: Pass as the key to act as the server's operator.
OPERATOR = Operator()

_SCHEMA = """
CREATE TABLE IF NOT EXISTS polls (
    code TEXT PRIMARY KEY,
    question TEXT NOT NULL,
    options TEXT NOT NULL,
    protocol TEXT NOT NULL,
    epsilon REAL NOT NULL,
    key_salt BLOB NOT NULL,
    key_hash BLOB NOT NULL,
    created REAL NOT NULL,
    closed INTEGER NOT NULL DEFAULT 0,
    max_reports INTEGER NOT NULL DEFAULT {class_size}
);
CREATE TABLE IF NOT EXISTS reports (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
    client TEXT NOT NULL,
    report TEXT NOT NULL,
    received REAL NOT NULL,
    UNIQUE (code, client)
);
CREATE TABLE IF NOT EXISTS refusals (
    code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
    client TEXT NOT NULL,
    UNIQUE (code, client)
);
CREATE TABLE IF NOT EXISTS owners (
    code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
    key_hash BLOB NOT NULL,
    UNIQUE (code, key_hash)
);
CREATE TABLE IF NOT EXISTS handovers (
    code_hash BLOB PRIMARY KEY,
    code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS removed (
    code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
    client TEXT NOT NULL,
    address TEXT
);
CREATE TABLE IF NOT EXISTS teachers (
    key_hash BLOB PRIMARY KEY,
    admitted REAL NOT NULL
);
"""
#: Columns added since the first schema, with their definitions: an older database
#: gains them when it is opened (its polls take the default class size).
_ADDED_COLUMNS = {
    "polls": {
        "max_reports": f"INTEGER NOT NULL DEFAULT {CLASS_SIZE_DEFAULT}",
        "shared_addresses": "INTEGER NOT NULL DEFAULT 0",
    },
    "reports": {"address": "TEXT"},
    # Refusals kept before reasons were: all were for a full poll.
    "refusals": {
        "reason": "TEXT NOT NULL DEFAULT 'full'",
        "address": "TEXT",
        "received": "REAL NOT NULL DEFAULT 0",
    },
}
_SCHEMA = _SCHEMA.format(class_size=CLASS_SIZE_DEFAULT)


def default_data_dir() -> Path:
    """``$LDPCORE_DATA_DIR``, else ``$XDG_DATA_HOME/ldpcore``, else ``~/.local/share/ldpcore``."""
    chosen = os.environ.get(DATA_DIR_VARIABLE)
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ldpcore"


class PollError(InputError):
    """A poll action refused for a reason the person can act on (shown as is)."""


class Refused(PollError):
    """A report turned away, with its reason (a key of ``REFUSAL_REASONS``)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

    @property
    def may_pass(self) -> bool:
        """Whether the teacher can lift it: the same report may then be sent again.

        A full poll made larger, a closed one reopened.
        """
        return self.reason in {"full", "closed"}


class PollStore:
    """Polls and their reports in one SQLite file (created on first use).

    Parameters
    ----------
    directory : path, optional
        The data directory (:func:`default_data_dir` by default); created if missing.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_data_dir()
        self.path = self.directory / DATABASE_NAME
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with self._connect() as connection:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.executescript(_SCHEMA)
                for table, columns in _ADDED_COLUMNS.items():
                    have = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
                    for column, definition in columns.items():
                        if column not in have:
                            connection.execute(
                                f"ALTER TABLE {table} ADD COLUMN {column} {definition}"
                            )
        except (OSError, sqlite3.Error) as exc:
            raise PollError(
                f"cannot open the poll database in {str(self.directory)!r} ({exc}); set "
                f"{DATA_DIR_VARIABLE} to a folder this program may write to"
            ) from None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # Autocommit mode: transactions are opened explicitly where they are needed.
        connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
            yield connection
        finally:
            connection.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed on success (durably), rolled back on error."""
        with self._connect() as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

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
        shared_addresses: bool = False,
    ) -> tuple[Poll, str]:
        """Store a new poll; returns it and the teacher's key (stored hashed).

        ``max_reports`` is the class size: the poll refuses reports beyond it. ``key``
        is the teacher's browser's own key (the Class page's), else a new one is made.
        ``shared_addresses`` lets several students answer from one network address.

        Raises
        ------
        PollError
            An empty question, fewer than 2 or more than 50 options, a repeated option,
            a protocol the browser cannot run, an ε out of range, or a class size that
            is not a whole number from 1 to :data:`~ldpcore.live.poll.CLASS_SIZE_MAX`.
        """
        question = _clean(question, "the question", QUESTION_MAX)
        cleaned = [
            _clean(option, f"option {i + 1}", OPTION_MAX) for i, option in enumerate(options)
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
        _check_size(max_reports)
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
                        "key_salt, key_hash, created, max_reports, shared_addresses) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            code,
                            question,
                            json.dumps(cleaned),
                            name,
                            float(epsilon),
                            salt,
                            _key_hash(salt, key),
                            now,
                            max_reports,
                            int(bool(shared_addresses)),
                        ),
                    )
                    connection.execute(
                        "INSERT INTO owners (code, key_hash) VALUES (?, ?)",
                        (code, _token_hash(key)),
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
                bool(shared_addresses),
            )
            return poll, key
        raise PollError("could not find a free poll code; try again")  # pragma: no cover

    def check_key(self, code: str, key: str | Operator) -> bool:
        """Whether ``key`` runs poll ``code`` (the creator's key, or a device handed it)."""
        if key is OPERATOR:
            return self.get(code) is not None
        if not isinstance(key, str) or not key:
            return False
        with self._connect() as connection:
            row = connection.execute(
                "SELECT key_salt, key_hash FROM polls WHERE code = ?", (normalize_code(code),)
            ).fetchone()
            if row is None:
                return False
            if hmac.compare_digest(_key_hash(row[0], key), row[1]):
                return True
            owned = connection.execute(
                "SELECT 1 FROM owners WHERE code = ? AND key_hash = ?",
                (normalize_code(code), _token_hash(key)),
            ).fetchone()
        return owned is not None

    def owned(self, key: str) -> list[Poll]:
        """The polls this key runs, newest first (a teacher's own list)."""
        if not key:
            return []
        with self._connect() as connection:
            rows = connection.execute(
                f"SELECT {_POLL_COLUMNS} FROM polls WHERE code IN "
                "(SELECT code FROM owners WHERE key_hash = ?) ORDER BY created DESC",
                (_token_hash(key),),
            ).fetchall()
        return [_poll(row) for row in rows]

    def adopt(self, code: str, key: str, new_key: str) -> None:
        """Let ``new_key`` run the poll too (a legacy link's key moved to a browser's)."""
        self._require_key(code, key)
        with self._write() as connection:
            connection.execute(
                "INSERT OR IGNORE INTO owners (code, key_hash) VALUES (?, ?)",
                (normalize_code(code), _token_hash(new_key)),
            )

    def handover(self, code: str, key: str | Operator) -> str:
        """A one-use code that gives another device this poll's controls (ten minutes).

        Shown only when the teacher asks for it; :meth:`redeem` takes it.
        """
        self._require_key(code, key)
        text = "".join(secrets.choice(CODE_ALPHABET) for _ in range(HANDOVER_LENGTH))
        with self._write() as connection:
            connection.execute("DELETE FROM handovers WHERE expires < ?", (time.time(),))
            connection.execute(
                "INSERT INTO handovers (code_hash, code, expires) VALUES (?, ?, ?)",
                (_token_hash(text), normalize_code(code), time.time() + HANDOVER_SECONDS),
            )
        return text

    def redeem(self, handover: str, key: str) -> Poll:
        """Take a handover code: the poll moves to ``key``. The code is used up.

        Every browser that ran the poll before stops running it (the operator still
        can): a code read off a projected screen gives the poll away, not a second pair
        of controls the teacher does not know about.
        """
        text = normalize_code(handover)
        with self._write() as connection:
            row = connection.execute(
                "SELECT code, expires FROM handovers WHERE code_hash = ?", (_token_hash(text),)
            ).fetchone()
            if row is not None:
                connection.execute(
                    "DELETE FROM handovers WHERE code_hash = ?", (_token_hash(text),)
                )
            if row is None or row[1] < time.time():
                raise PollError(
                    "that handover code opens no poll: it was mistyped, used already, or "
                    "older than ten minutes. Ask for a new one on the device that runs the poll"
                )
            # The creator's key too: the poll's own key becomes one nobody holds.
            (salt,) = connection.execute(
                "SELECT key_salt FROM polls WHERE code = ?", (row[0],)
            ).fetchone()
            connection.execute(
                "UPDATE polls SET key_hash = ? WHERE code = ?",
                (_key_hash(salt, secrets.token_urlsafe(24)), row[0]),
            )
            connection.execute("DELETE FROM owners WHERE code = ?", (row[0],))
            connection.execute(
                "INSERT OR IGNORE INTO owners (code, key_hash) VALUES (?, ?)",
                (row[0], _token_hash(key)),
            )
        found = self.get(row[0])
        if found is None:  # pragma: no cover - deleted between the two statements
            raise PollError("that poll has been deleted")
        return found

    def admit_teacher(self, key: str) -> None:
        """Record that this browser's key may start polls (it gave the teacher passcode)."""
        with self._write() as connection:
            connection.execute(
                "INSERT OR IGNORE INTO teachers (key_hash, admitted) VALUES (?, ?)",
                (_token_hash(key), time.time()),
            )

    def is_teacher(self, key: str) -> bool:
        """Whether this browser's key was admitted with the passcode."""
        if not key:
            return False
        with self._connect() as connection:
            row = connection.execute(
                "SELECT 1 FROM teachers WHERE key_hash = ?", (_token_hash(key),)
            ).fetchone()
        return row is not None

    def close(self, code: str, key: str | Operator) -> None:
        """Take no more reports (the reports already stored stay)."""
        self._set(code, key, "closed = 1")

    def reopen(self, code: str, key: str | Operator) -> None:
        """Take reports again."""
        self._set(code, key, "closed = 0")

    def share_addresses(self, code: str, key: str | Operator, shared: bool) -> None:
        """Whether several students may answer from one network address (a lab)."""
        self._set(code, key, f"shared_addresses = {int(bool(shared))}")

    def resize(self, code: str, key: str | Operator, size: int) -> None:
        """Set the class size (the most reports taken); never below the reports stored."""
        _check_size(size)
        self._require_key(code, key)
        with self._write() as connection:
            have = self._count(connection, normalize_code(code))
            if size < have:
                raise PollError(
                    f"the poll already holds {have:,} reports: the class size can go down "
                    f"to {have:,}, not to {size:,}"
                )
            connection.execute(
                "UPDATE polls SET max_reports = ? WHERE code = ?", (size, normalize_code(code))
            )

    def _set(self, code: str, key: str | Operator, assignment: str) -> None:
        # ``assignment`` is one of this class's own fixed strings, never a caller's text.
        self._require_key(code, key)
        with self._write() as connection:
            connection.execute(
                f"UPDATE polls SET {assignment} WHERE code = ?", (normalize_code(code),)
            )

    def remove_address(self, code: str, key: str | Operator, address: str) -> int:
        """Delete every report from one address (its label in :meth:`addresses`).

        Returns how many were deleted. The browsers those reports came from stay
        counted as answered: they cannot send again.
        """
        self._require_key(code, key)
        with self._write() as connection:
            rows = connection.execute(
                "SELECT id, address FROM reports WHERE code = ?", (normalize_code(code),)
            ).fetchall()
            gone = [row_id for row_id, hashed in rows if hashed and _label(hashed) == address]
            # Their browsers and address stay answered: removing a prank must not let
            # the same phone send again.
            connection.executemany(
                "INSERT INTO removed (code, client, address) "
                "SELECT code, client, address FROM reports WHERE id = ?",
                [(i,) for i in gone],
            )
            connection.executemany("DELETE FROM reports WHERE id = ?", [(i,) for i in gone])
        return len(gone)

    def delete(self, code: str, key: str | Operator) -> None:
        """Delete the poll and every report it holds."""
        self._require_key(code, key)
        code = normalize_code(code)
        with self._write() as connection:
            for table in ("reports", "refusals", "removed", "owners", "handovers", "polls"):
                connection.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    def _require_key(self, code: str, key: str | Operator) -> None:
        if not self.check_key(code, key):
            raise PollError(f"the key does not open poll {normalize_code(code)!r}")

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
        with self._connect() as connection:
            sent = connection.execute(
                "SELECT address, received FROM reports WHERE code = ? AND address IS NOT NULL",
                (normalize_code(code),),
            ).fetchall()
            refused = connection.execute(
                "SELECT address, received FROM refusals WHERE code = ? AND address IS NOT NULL",
                (normalize_code(code),),
            ).fetchall()
        times: dict[str, list[float]] = {}
        accepted: dict[str, int] = {}
        away: dict[str, int] = {}
        for hashed, received in sent:
            times.setdefault(_label(hashed), []).append(received)
            accepted[_label(hashed)] = accepted.get(_label(hashed), 0) + 1
        for hashed, received in refused:
            times.setdefault(_label(hashed), []).append(received)
            away[_label(hashed)] = away.get(_label(hashed), 0) + 1
        activity = [
            AddressActivity(label, accepted.get(label, 0), away.get(label, 0), _burst(sorted(when)))
            for label, when in times.items()
        ]
        return sorted(activity, key=lambda a: (-a.reports, -a.turned_away, a.label))

    def _rows_of(self, table: str, code: str) -> int:
        # ``table`` is one of this store's own table names, never a caller's text.
        if table not in {"reports", "refusals"}:
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
            if without is None or not hashed or _label(hashed) != without
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
        client = str(client).strip()
        if not 8 <= len(client) <= 64 or not client.isascii():
            raise PollError("this browser's answer identifier is malformed; reload the page")
        hashed = (
            None if address is None else _address_hash(poll.code, self._salt(poll.code), address)
        )
        try:
            row = check_report(
                poll_protocol(poll.protocol, poll.epsilon, len(poll.options)), report
            )
        except InputError:
            with self._write() as connection:
                self._refuse(connection, poll.code, client, "invalid", hashed)
            raise
        with self._write() as connection:
            # Inside the transaction: the teacher may close the poll meanwhile, and two
            # students may send the last report the class size allows at once.
            reason = self._verdict(connection, poll.code, client, row, hashed)
            if reason == "again":
                # The same report again: its first sending committed but the student
                # never saw the confirmation (a dropped connection, a server restart).
                # It is stored once; say "sent" now.
                return self._count(connection, poll.code)
            if reason:
                # Counted (once per browser) and committed, then refused below.
                self._refuse(connection, poll.code, client, reason, hashed)
            else:
                connection.execute(
                    "INSERT INTO reports (code, client, report, received, address) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (poll.code, client, json.dumps(row), time.time(), hashed),
                )
            count = self._count(connection, poll.code)
            (size,) = connection.execute(
                "SELECT max_reports FROM polls WHERE code = ?", (poll.code,)
            ).fetchone()
        if reason:
            raise Refused(_refusal_message(reason, poll.code, size), reason)
        return count

    def _verdict(
        self,
        connection: sqlite3.Connection,
        code: str,
        client: str,
        row: Mapping[str, Any],
        hashed: str | None,
    ) -> str:
        """Why this report is refused, or what else to do with it.

        A key of :data:`REFUSAL_REASONS`; "again" for the same report from the same
        browser; "" to store it.
        """
        stored = connection.execute(
            "SELECT report FROM reports WHERE code = ? AND client = ?", (code, client)
        ).fetchone()
        if stored is not None:
            return "again" if json.loads(stored[0]) == row else "device"
        if connection.execute(
            "SELECT 1 FROM removed WHERE code = ? AND client = ?", (code, client)
        ).fetchone():
            return "device"  # its reports were removed: it stays answered
        closed, size, shared = connection.execute(
            "SELECT closed, max_reports, shared_addresses FROM polls WHERE code = ?", (code,)
        ).fetchone()
        if closed:
            return "closed"
        if (
            not shared
            and hashed is not None
            and connection.execute(
                "SELECT 1 FROM reports WHERE code = ? AND address = ? UNION ALL "
                "SELECT 1 FROM removed WHERE code = ? AND address = ?",
                (code, hashed, code, hashed),
            ).fetchone()
        ):
            return "address"
        return "full" if self._count(connection, code) >= size else ""

    @staticmethod
    def _refuse(
        connection: sqlite3.Connection, code: str, client: str, reason: str, hashed: str | None
    ) -> None:
        connection.execute(
            "INSERT OR IGNORE INTO refusals (code, client, reason, address, received) "
            "VALUES (?, ?, ?, ?, ?)",
            (code, client, reason, hashed, time.time()),
        )

    def _salt(self, code: str) -> bytes:
        with self._connect() as connection:
            (salt,) = connection.execute(
                "SELECT key_salt FROM polls WHERE code = ?", (code,)
            ).fetchone()
        return bytes(salt)

    @staticmethod
    def _count(connection: sqlite3.Connection, code: str) -> int:
        (found,) = connection.execute(
            "SELECT COUNT(*) FROM reports WHERE code = ?", (code,)
        ).fetchone()
        return int(found)


@dataclass(frozen=True)
class AddressActivity:
    """What one network address sent to a poll (the teacher's view).

    Attributes
    ----------
    label : str
        Six hex characters standing for the address (never the address itself).
    reports, turned_away : int
    burst : bool
        :data:`BURST_REPORTS` or more sendings within :data:`BURST_SECONDS`.
    """

    label: str
    reports: int
    turned_away: int
    burst: bool


def _burst(times: Sequence[float]) -> bool:
    return any(
        times[i + BURST_REPORTS - 1] - times[i] <= BURST_SECONDS
        for i in range(len(times) - BURST_REPORTS + 1)
    )


def _refusal_message(reason: str, code: str, size: int) -> str:
    return {
        "full": f"poll {code} is full: it takes {size:,} reports (the class size your teacher "
        "set), and it has them all. Your answer was not sent; your teacher sees that "
        "someone was turned away.",
        "address": "someone on this network address has already answered this poll, and "
        "it takes one answer per address. Your answer was not sent; if several of you "
        "share one connection (a computer lab), ask your teacher to allow shared addresses.",
        "device": "this browser has already answered this poll; a second answer would "
        "spend your privacy budget twice (2ε), so it is not taken",
        "closed": f"poll {code} is closed: your teacher takes no more answers",
    }[reason]


def normalize_code(code: str) -> str:
    """A code as typed ("ab c12 3") in its stored form ("ABC123").

    Examples
    --------
    >>> normalize_code(" ab-c12 3 ")
    'ABC123'
    """
    return "".join(ch for ch in str(code).upper() if ch.isalnum())


def _key_hash(salt: bytes, key: str) -> bytes:
    return hashlib.sha256(salt + key.encode("utf-8")).digest()


def _token_hash(key: str) -> bytes:
    # A random key needs no salt: no two people choose the same one.
    return hashlib.sha256(b"ldpcore-key:" + str(key).encode("utf-8")).digest()


def _address_hash(code: str, salt: bytes, address: str) -> str:
    return hashlib.sha256(salt + code.encode() + str(address).encode("utf-8")).hexdigest()


def _label(hashed: str) -> str:
    return hashed[:6]


def _check_size(size: object) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= CLASS_SIZE_MAX:
        raise PollError(
            f"the class size is the most reports the poll takes: a whole number from 1 "
            f"to {CLASS_SIZE_MAX:,}; got {size!r}"
        )


def _clean(text: object, what: str, limit: int) -> str:
    cleaned = " ".join(str(text).split())
    if not cleaned:
        raise PollError(f"{what} is empty; write some text")
    if len(cleaned) > limit:
        raise PollError(f"{what} is {len(cleaned)} characters long; keep it to {limit}")
    return cleaned


_POLL_COLUMNS = (
    "code, question, options, protocol, epsilon, created, closed, max_reports, shared_addresses"
)


def _poll(row: tuple[Any, ...]) -> Poll:
    code, question, options, protocol, epsilon, created, closed, max_reports, shared = row
    return Poll(
        code,
        question,
        tuple(json.loads(options)),
        protocol,
        epsilon,
        created,
        bool(closed),
        int(max_reports),
        bool(shared),
    )


__all__ = [
    "BURST_REPORTS",
    "BURST_SECONDS",
    "DATA_DIR_VARIABLE",
    "OPERATOR",
    "REFUSAL_REASONS",
    "AddressActivity",
    "Operator",
    "PollError",
    "PollStore",
    "Refused",
    "default_data_dir",
    "normalize_code",
]
