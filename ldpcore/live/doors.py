"""Doors that hold: tries at a secret (the teacher passcode, a handover code), per address.

A passcode of 8 characters is safe only if it cannot be tried at the speed of a browser
(53 tries in 30 s went through before these rules). Per door and client address:

- the first :data:`FREE_FAILURES` wrong tries cost nothing (a teacher mistypes);
- after them each try waits ``2**(k − FREE_FAILURES − 1)`` seconds after the ``k``-th wrong one
  (1, 2, 4, … s, at most :data:`BACKOFF_MAX_S`); a try made sooner is refused unchecked;
- :data:`LOCKOUT_FAILURES` wrong tries lock the door for that address until the
  server's operator lifts it (``ldpcore poll unlock --address A``, :meth:`Doors.unlock`);
- a right one clears the address's wrong tries at that door.

Every wrong try and every refusal is logged with its door and address (the logger
``ldpcore.live.doors``, in the server's log). The counts are kept in the poll database's
file, in a table of their own, so restarting the server does not reset them.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: Wrong tries that cost nothing.
FREE_FAILURES = 3
#: The longest wait between two tries (seconds).
BACKOFF_MAX_S = 300.0
#: Wrong tries after which the address is locked out of that door.
LOCKOUT_FAILURES = 20
#: The doors: what a wrong try was at.
DOORS = ("passcode", "handover")

_LOG = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS door_failures (
    door TEXT NOT NULL,
    address TEXT NOT NULL,
    failures INTEGER NOT NULL,
    last REAL NOT NULL,
    PRIMARY KEY (door, address)
);
"""


@dataclass(frozen=True)
class DoorState:
    """Whether an address may try a door now.

    Attributes
    ----------
    allowed : bool
        A try may be checked now.
    wait_s : float
        Seconds until the next try may be (0 when allowed; inf when locked).
    locked : bool
        Locked out until the operator lifts it.
    failures : int
        Wrong tries counted at this door from this address.
    """

    allowed: bool
    wait_s: float
    locked: bool
    failures: int


def backoff_s(failures: int) -> float:
    """The wait after ``failures`` wrong tries.

    Examples
    --------
    >>> [backoff_s(k) for k in (0, 3, 4, 5, 6, 12)]
    [0.0, 0.0, 1.0, 2.0, 4.0, 256.0]
    >>> backoff_s(19)
    300.0
    """
    if failures <= FREE_FAILURES:
        return 0.0
    return min(2.0 ** (failures - FREE_FAILURES - 1), BACKOFF_MAX_S)


class Doors:
    """Wrong tries per door and address, in the SQLite file at ``path``.

    Parameters
    ----------
    path : path
        The database file (the poll store's: ``PollStore.path``).
    clock : callable, optional
        Seconds now (``time.time``); a test passes its own.
    """

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.clock = clock
        with self._connect() as connection:
            connection.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        connection = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            yield connection
        finally:
            connection.close()

    def state(self, door: str, address: str) -> DoorState:
        """Whether ``address`` may try ``door`` now."""
        failures, last = self._row(door, address)
        if failures >= LOCKOUT_FAILURES:
            return DoorState(False, float("inf"), True, failures)
        wait = max(0.0, last + backoff_s(failures) - self.clock())
        return DoorState(wait == 0.0, wait, False, failures)

    def attempt(self, door: str, address: str) -> DoorState:
        """Before checking a try: its state, with a refusal logged when it may not."""
        found = self.state(door, address)
        if not found.allowed:
            why = "locked out" if found.locked else f"{found.wait_s:.1f} s too soon"
            _LOG.warning("refused a try at the %s from %s: %s", door, address, why)
        return found

    def failed(self, door: str, address: str) -> DoorState:
        """Count a wrong try (logged with its address); the state after it."""
        now = self.clock()
        with self._connect() as connection:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                "INSERT INTO door_failures (door, address, failures, last) VALUES (?, ?, 1, ?) "
                "ON CONFLICT (door, address) DO UPDATE SET failures = failures + 1, last = ?",
                (door, address, now, now),
            )
            connection.execute("COMMIT")
        found = self.state(door, address)
        _LOG.warning(
            "a wrong %s from %s (%d wrong so far%s)",
            door,
            address,
            found.failures,
            ", now locked out" if found.locked else "",
        )
        return found

    def succeeded(self, door: str, address: str) -> None:
        """A right try: the address's wrong tries at this door are forgotten."""
        with self._connect() as connection:
            connection.execute(
                "DELETE FROM door_failures WHERE door = ? AND address = ?", (door, address)
            )

    def unlock(self, address: str) -> int:
        """The operator lifts every door's count for ``address``; how many were lifted."""
        with self._connect() as connection:
            cursor = connection.execute("DELETE FROM door_failures WHERE address = ?", (address,))
            return int(cursor.rowcount)

    def locked(self) -> list[tuple[str, str, int]]:
        """Every (door, address, wrong tries) locked out now, for the operator."""
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT door, address, failures FROM door_failures WHERE failures >= ? "
                "ORDER BY door, address",
                (LOCKOUT_FAILURES,),
            ).fetchall()
        return [(str(d), str(a), int(f)) for d, a, f in rows]

    def _row(self, door: str, address: str) -> tuple[int, float]:
        with self._connect() as connection:
            row = connection.execute(
                "SELECT failures, last FROM door_failures WHERE door = ? AND address = ?",
                (door, address),
            ).fetchone()
        return (0, 0.0) if row is None else (int(row[0]), float(row[1]))


__all__ = [
    "BACKOFF_MAX_S",
    "DOORS",
    "FREE_FAILURES",
    "LOCKOUT_FAILURES",
    "DoorState",
    "Doors",
    "backoff_s",
]
