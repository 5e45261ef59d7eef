"""Who runs a poll: the teacher's key, handing a poll to another device, the operator.

The teacher's key
-----------------
A random key proves the teacher: the poll's own (``secrets.token_urlsafe(18)``, 144
bits) or the teacher's browser's (the Class page keeps one in a cookie, never in an
address). Only hashes are stored: the creator's key salted in ``polls``, every key that
may run the poll (the creator's, and each device it was handed over to) in ``owners``.
A slow password hash would add nothing: the keys are random, not chosen by a person, so
they cannot be guessed from a dictionary. A teacher moves to another device with a
*handover code* (:meth:`TeacherKeys.handover`): eight characters, one use, ten minutes.
The server's operator acts on any poll (:data:`OPERATOR`: the command line, which
reads the database file itself).

"""

from __future__ import annotations

import hmac
import logging
import secrets
import time

from ldpcore.live.database import PollDatabase, key_hash, normalize_code, token_hash
from ldpcore.live.poll import PollError

#: The operator's log (:mod:`ldpcore.serving.logs` formats it).
_LOG = logging.getLogger(__name__)

#: Codes without look-alikes (no 0/O, 1/I/L): poll codes and handover codes.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: A handover code's length and lifetime (seconds).
HANDOVER_LENGTH, HANDOVER_SECONDS = 8, 600.0


class Operator:
    """The server's operator: acts on any poll without its key (the command line)."""

    def __repr__(self) -> str:
        return "OPERATOR"


#: Pass as the key to act as the server's operator.
OPERATOR = Operator()


class TeacherKeys(PollDatabase):
    """The keys that run polls, in the poll database.

    The base of :class:`~ldpcore.live.store.PollStore`.
    """

    def check_key(self, code: str, key: str | Operator) -> bool:
        """Whether ``key`` runs poll ``code`` (the creator's key, or a device handed it)."""
        if key is OPERATOR:
            with self._connect() as connection:
                found = connection.execute(
                    "SELECT 1 FROM polls WHERE code = ?", (normalize_code(code),)
                ).fetchone()
            return found is not None
        if not isinstance(key, str) or not key:
            return False
        with self._connect() as connection:
            row = connection.execute(
                "SELECT key_salt, key_hash FROM polls WHERE code = ?", (normalize_code(code),)
            ).fetchone()
            if row is None:
                return False
            if hmac.compare_digest(key_hash(row[0], key), row[1]):
                return True
            owned = connection.execute(
                "SELECT 1 FROM owners WHERE code = ? AND key_hash = ?",
                (normalize_code(code), token_hash(key)),
            ).fetchone()
        return owned is not None

    def adopt(self, code: str, key: str, new_key: str) -> None:
        """Let ``new_key`` run the poll too (a legacy link's key moved to a browser's)."""
        self._require_key(code, key)
        with self._write() as connection:
            connection.execute(
                "INSERT OR IGNORE INTO owners (code, key_hash) VALUES (?, ?)",
                (normalize_code(code), token_hash(new_key)),
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
                (token_hash(text), normalize_code(code), time.time() + HANDOVER_SECONDS),
            )
        return text

    def redeem(self, handover: str, key: str) -> str:
        """Take a handover code: the poll moves to ``key``. Returns the poll's code.

        The handover code is used up.

        Every browser that ran the poll before stops running it (the operator still
        can): a code read off a projected screen gives the poll away, not a second pair
        of controls the teacher does not know about.
        """
        text = normalize_code(handover)
        with self._write() as connection:
            row = connection.execute(
                "SELECT code, expires FROM handovers WHERE code_hash = ?", (token_hash(text),)
            ).fetchone()
            if row is not None:
                connection.execute("DELETE FROM handovers WHERE code_hash = ?", (token_hash(text),))
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
                (key_hash(salt, secrets.token_urlsafe(24)), row[0]),
            )
            connection.execute("DELETE FROM owners WHERE code = ?", (row[0],))
            connection.execute(
                "INSERT OR IGNORE INTO owners (code, key_hash) VALUES (?, ?)",
                (row[0], token_hash(key)),
            )
        _LOG.info("poll %s moved to another device by a handover code", row[0])
        return str(row[0])

    def admit_teacher(self, key: str) -> None:
        """Record that this browser's key may start polls (it gave the teacher passcode)."""
        with self._write() as connection:
            connection.execute(
                "INSERT OR IGNORE INTO teachers (key_hash, admitted) VALUES (?, ?)",
                (token_hash(key), time.time()),
            )

    def is_teacher(self, key: str) -> bool:
        """Whether this browser's key was admitted with the passcode."""
        if not key:
            return False
        with self._connect() as connection:
            row = connection.execute(
                "SELECT 1 FROM teachers WHERE key_hash = ?", (token_hash(key),)
            ).fetchone()
        return row is not None

    def _require_key(self, code: str, key: str | Operator) -> None:
        if not self.check_key(code, key):
            raise PollError(f"the key does not open poll {normalize_code(code)!r}")


__all__ = [
    "CODE_ALPHABET",
    "HANDOVER_LENGTH",
    "HANDOVER_SECONDS",
    "OPERATOR",
    "Operator",
    "TeacherKeys",
]
