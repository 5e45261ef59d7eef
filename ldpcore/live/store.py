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
A random 144-bit key (``secrets.token_urlsafe(18)``) proves the teacher; only its salted
SHA-256 is stored. A slow password hash would add nothing: the key is random, not
chosen by a person, so it cannot be guessed from a dictionary.
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
"""
#: Columns added since the first schema, with their definitions: an older database
#: gains them when it is opened (its polls take the default class size).
_ADDED_COLUMNS = {"max_reports": f"INTEGER NOT NULL DEFAULT {CLASS_SIZE_DEFAULT}"}
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
                have = {row[1] for row in connection.execute("PRAGMA table_info(polls)")}
                for column, definition in _ADDED_COLUMNS.items():
                    if column not in have:
                        connection.execute(f"ALTER TABLE polls ADD COLUMN {column} {definition}")
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
    ) -> tuple[Poll, str]:
        """Store a new poll; returns it and the teacher's key (shown once, stored hashed).

        ``max_reports`` is the class size: the poll refuses reports beyond it.

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
        if (
            isinstance(max_reports, bool)
            or not isinstance(max_reports, int)
            or not 1 <= max_reports <= CLASS_SIZE_MAX
        ):
            raise PollError(
                f"the class size is the most reports the poll takes: a whole number from 1 "
                f"to {CLASS_SIZE_MAX:,}; got {max_reports!r}"
            )
        key = secrets.token_urlsafe(18)
        salt = secrets.token_bytes(16)
        now = time.time()
        for _ in range(20):  # a collision among 10⁹ codes is rare; retry rather than fail
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self._write() as connection:
                    connection.execute(
                        "INSERT INTO polls (code, question, options, protocol, epsilon, "
                        "key_salt, key_hash, created, max_reports) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                        ),
                    )
            except sqlite3.IntegrityError:
                continue
            poll = Poll(
                code, question, tuple(cleaned), name, float(epsilon), now, False, max_reports
            )
            return poll, key
        raise PollError("could not find a free poll code; try again")  # pragma: no cover

    def check_key(self, code: str, key: str) -> bool:
        """Whether ``key`` is the teacher's key of poll ``code`` (constant-time compare)."""
        with self._connect() as connection:
            row = connection.execute(
                "SELECT key_salt, key_hash FROM polls WHERE code = ?", (normalize_code(code),)
            ).fetchone()
        return row is not None and hmac.compare_digest(_key_hash(row[0], key), row[1])

    def close(self, code: str, key: str) -> None:
        """Take no more reports (the reports already stored stay)."""
        self._require_key(code, key)
        with self._write() as connection:
            connection.execute(
                "UPDATE polls SET closed = 1 WHERE code = ?", (normalize_code(code),)
            )

    def delete(self, code: str, key: str) -> None:
        """Delete the poll and every report it holds."""
        self._require_key(code, key)
        with self._write() as connection:
            connection.execute("DELETE FROM reports WHERE code = ?", (normalize_code(code),))
            connection.execute("DELETE FROM refusals WHERE code = ?", (normalize_code(code),))
            connection.execute("DELETE FROM polls WHERE code = ?", (normalize_code(code),))

    def _require_key(self, code: str, key: str) -> None:
        if not self.check_key(code, key):
            raise PollError(f"the key does not open poll {normalize_code(code)!r}")

    # Everyone --------------------------------------------------------------------------

    def get(self, code: str) -> Poll | None:
        """The poll with this code (any case, spaces ignored), or None."""
        with self._connect() as connection:
            row = connection.execute(
                "SELECT code, question, options, protocol, epsilon, created, closed, "
                "max_reports FROM polls WHERE code = ?",
                (normalize_code(code),),
            ).fetchone()
        return None if row is None else _poll(row)

    def polls(self) -> list[Poll]:
        """Every stored poll, newest first."""
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT code, question, options, protocol, epsilon, created, closed, "
                "max_reports FROM polls ORDER BY created DESC"
            ).fetchall()
        return [_poll(row) for row in rows]

    def count(self, code: str) -> int:
        """Reports stored for the poll."""
        return self._rows_of("reports", code)

    def refused(self, code: str) -> int:
        """Browsers turned away because the poll had its class size of reports."""
        return self._rows_of("refusals", code)

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

    def reports(self, code: str) -> list[dict[str, Any]]:
        """The poll's reports, in the order received (each as its report-file row)."""
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT report FROM reports WHERE code = ? ORDER BY id", (normalize_code(code),)
            ).fetchall()
        return [json.loads(row[0]) for row in rows]

    # Student ---------------------------------------------------------------------------

    def submit(self, code: str, client: str, report: Mapping[str, Any]) -> int:
        """Store one randomized report; returns the poll's count once it is committed.

        Parameters
        ----------
        code : str
        client : str
            A random identifier the browser keeps for this poll: a second report from
            the same browser is refused (answering twice spends 2ε).
        report : mapping
            The report, in the protocol's report-file columns.

        Raises
        ------
        PollError
            An unknown or closed poll, a full one (its class size reached: the browser
            is counted in :meth:`refused`), a browser that already answered with another
            report, or a report outside the protocol's report space. The same report
            from the same browser again is not an error: it is stored once, and its
            count returned (a student whose confirmation was lost can send again).
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
        row = check_report(poll_protocol(poll.protocol, poll.epsilon, len(poll.options)), report)
        text = json.dumps(row)
        full = False
        with self._write() as connection:
            # Inside the transaction: the teacher may close the poll meanwhile, and two
            # students may send the last report the class size allows at once.
            stored = connection.execute(
                "SELECT report FROM reports WHERE code = ? AND client = ?", (poll.code, client)
            ).fetchone()
            if stored is not None:
                if json.loads(stored[0]) != row:
                    raise PollError(
                        "this browser has already answered this poll; a second answer would "
                        "spend your privacy budget twice (2ε), so it is not taken"
                    )
                # The same report again: its first sending committed but the student
                # never saw the confirmation (a dropped connection, a server restart).
                # It is stored once; say "sent" now.
                return self._count(connection, poll.code)
            (closed,) = connection.execute(
                "SELECT closed FROM polls WHERE code = ?", (poll.code,)
            ).fetchone()
            if closed:
                raise PollError(f"poll {poll.code} is closed: your teacher takes no more answers")
            count = self._count(connection, poll.code)
            if count >= poll.max_reports:
                # Counted (once per browser) and committed, then refused below.
                connection.execute(
                    "INSERT OR IGNORE INTO refusals (code, client) VALUES (?, ?)",
                    (poll.code, client),
                )
                full = True
            else:
                connection.execute(
                    "INSERT INTO reports (code, client, report, received) VALUES (?, ?, ?, ?)",
                    (poll.code, client, text, time.time()),
                )
                count += 1
        if full:
            raise PollError(
                f"poll {poll.code} is full: it takes {poll.max_reports:,} reports (the class "
                "size your teacher set), and it has them all. Your answer was not sent; "
                "your teacher sees that someone was turned away."
            )
        return count

    @staticmethod
    def _count(connection: sqlite3.Connection, code: str) -> int:
        (found,) = connection.execute(
            "SELECT COUNT(*) FROM reports WHERE code = ?", (code,)
        ).fetchone()
        return int(found)


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


def _clean(text: object, what: str, limit: int) -> str:
    cleaned = " ".join(str(text).split())
    if not cleaned:
        raise PollError(f"{what} is empty; write some text")
    if len(cleaned) > limit:
        raise PollError(f"{what} is {len(cleaned)} characters long; keep it to {limit}")
    return cleaned


def _poll(row: tuple[Any, ...]) -> Poll:
    code, question, options, protocol, epsilon, created, closed, max_reports = row
    return Poll(
        code,
        question,
        tuple(json.loads(options)),
        protocol,
        epsilon,
        created,
        bool(closed),
        int(max_reports),
    )


__all__ = [
    "DATA_DIR_VARIABLE",
    "PollError",
    "PollStore",
    "default_data_dir",
    "normalize_code",
]
