"""The live class's SQLite file: where it lives, its tables, and how it is opened.

Durability and concurrency
--------------------------
The database is in WAL mode with ``synchronous=FULL``: a report is acknowledged only
after its transaction has committed and reached the disk, so a server killed with
reports in flight loses none that a student saw confirmed. Every call opens its own
connection (Streamlit runs each session in its own thread, and a connection must not be
shared across threads), writes take the write lock at ``BEGIN IMMEDIATE``, and a busy
database is waited for (``busy_timeout``), never reported as an error: a class that
submits at once queues for the lock for milliseconds.

What is stored of a person
--------------------------
Keys and codes only as hashes (:func:`token_hash`, :func:`key_hash`); network addresses
as a hash salted with the poll's own salt (:func:`address_hash`), shown to the teacher
by a six-character label (:func:`address_label`). With only 2³² IPv4 addresses that
keeps them out of sight of a reader of the file, not from a determined one.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ldpcore.live.poll import CLASS_SIZE_DEFAULT, PollError

#: Where polls live unless ``LDPCORE_DATA_DIR`` says otherwise (XDG's data directory).
DATA_DIR_VARIABLE = "LDPCORE_DATA_DIR"
#: The database file's name inside the data directory.
DATABASE_NAME = "polls.sqlite3"
#: Seconds a writer waits for the lock before giving up (a class never waits this long).
BUSY_TIMEOUT_S = 30.0

_SCHEMA = f"""
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
    max_reports INTEGER NOT NULL DEFAULT {CLASS_SIZE_DEFAULT}
);
CREATE TABLE IF NOT EXISTS reports (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
    client TEXT NOT NULL,
    report TEXT NOT NULL,
    received REAL NOT NULL,
    UNIQUE (code, client)
);
CREATE TABLE IF NOT EXISTS held (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
    client TEXT NOT NULL,
    report TEXT NOT NULL,
    received REAL NOT NULL,
    address TEXT NOT NULL,
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
CREATE TABLE IF NOT EXISTS blocked (
    code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
    address TEXT NOT NULL,
    UNIQUE (code, address)
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
        "seats": "INTEGER NOT NULL DEFAULT 1",
        # What the class sees now (the projector view follows the teacher's screen).
        "step": "INTEGER NOT NULL DEFAULT 0",
        "shown_method": "TEXT NOT NULL DEFAULT 'Norm-Sub'",
    },
    "reports": {"address": "TEXT"},
    # Refusals kept before reasons were: all were for a full poll.
    "refusals": {
        "reason": "TEXT NOT NULL DEFAULT 'full'",
        "address": "TEXT",
        "received": "REAL NOT NULL DEFAULT 0",
    },
}
#: What a column added later must hold for the rows already there: a poll that allowed
#: shared addresses before seats were counted had as many seats as its class size.
_FILLED_WHEN_ADDED = {
    ("polls", "seats"): "UPDATE polls SET seats = max_reports WHERE shared_addresses = 1",
}


def default_data_dir() -> Path:
    """``$LDPCORE_DATA_DIR``, else ``$XDG_DATA_HOME/ldpcore``, else ``~/.local/share/ldpcore``."""
    chosen = os.environ.get(DATA_DIR_VARIABLE)
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ldpcore"


class PollDatabase:
    """The poll database file, created (or brought up to the current tables) on opening.

    Parameters
    ----------
    directory : path, optional
        The data directory (:func:`default_data_dir` by default); created if missing.

    Raises
    ------
    PollError
        The folder cannot be created or written, or the file is not a database.
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
                            if (table, column) in _FILLED_WHEN_ADDED:
                                connection.execute(_FILLED_WHEN_ADDED[table, column])
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


def normalize_code(code: str) -> str:
    """A code as typed ("ab c12 3") in its stored form ("ABC123").

    Examples
    --------
    >>> normalize_code(" ab-c12 3 ")
    'ABC123'
    """
    return "".join(ch for ch in str(code).upper() if ch.isalnum())


def key_hash(salt: bytes, key: str) -> bytes:
    """The creator's key as stored: salted with the poll's salt."""
    return hashlib.sha256(salt + key.encode("utf-8")).digest()


def token_hash(key: str) -> bytes:
    """A random key or code as stored.

    It needs no salt: no two people choose the same random key, and none can be guessed
    from a dictionary.
    """
    return hashlib.sha256(b"ldpcore-key:" + str(key).encode("utf-8")).digest()


def address_hash(code: str, salt: bytes, address: str) -> str:
    """A network address as stored for one poll (hex)."""
    return hashlib.sha256(salt + code.encode() + str(address).encode("utf-8")).hexdigest()


def address_label(hashed: str) -> str:
    """The six characters the teacher sees for a stored address."""
    return hashed[:6]


__all__ = [
    "BUSY_TIMEOUT_S",
    "DATABASE_NAME",
    "DATA_DIR_VARIABLE",
    "PollDatabase",
    "address_hash",
    "address_label",
    "default_data_dir",
    "key_hash",
    "normalize_code",
    "token_hash",
]
