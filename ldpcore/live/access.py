"""Who may run a class: the operator's settings, the client's address, the teacher's key.

Streamlit-free, so the rules are tested on their own; the Class and Join pages apply
them (``pages/app_layer/classroom/teacher.py``).

The rules (README, "Running a live class")
------------------------------------------
- **Starting polls** belongs to browsers on the server's own machine (a connection from
  ``127.0.0.1``, ``::1`` or one of the machine's own addresses) and, when the operator
  set ``LDPCORE_TEACHER_PASSCODE``, to any browser that gave it once.
- **Running a poll** (its results, closing, reopening, its class size, its addresses,
  deleting, exporting) belongs to the browser that started it, to any device the teacher
  handed it to (:meth:`ldpcore.live.store.PollStore.handover`) and to the operator.
  Nothing of it is in an address, on the projected screen or in a QR code.
- **The client's address** is the connection's, or behind a proxy the operator names
  (``LDPCORE_TRUSTED_PROXIES``) the last address in ``X-Forwarded-For`` that is not one
  of those proxies: a client can write anything into that header, but only what the
  trusted proxy appended is believed.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Iterable, Mapping

#: The passcode that lets a browser start polls (unset: only this machine's browsers).
PASSCODE_VARIABLE = "LDPCORE_TEACHER_PASSCODE"
#: Addresses of reverse proxies whose ``X-Forwarded-For`` is believed (comma-separated).
PROXIES_VARIABLE = "LDPCORE_TRUSTED_PROXIES"
#: The cookie that holds a teacher's browser key (never in an address).
KEY_COOKIE = "ldpcore_teacher"
#: How long the browser keeps it (seconds): a school year.
KEY_COOKIE_SECONDS = 400 * 24 * 3600
#: A passcode shorter than this is refused at start-up (it would be guessed in class).
PASSCODE_MIN = 8
#: Loopback addresses a connection from this machine itself comes from. Other 127/8
#: addresses come only from a program that binds one on purpose (the tests' students).
LOCAL_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})


def teacher_passcode(environ: Mapping[str, str] | None = None) -> str | None:
    """The operator's passcode, or None; a passcode too short to be safe is an error.

    Raises
    ------
    ValueError
        A passcode of fewer than :data:`PASSCODE_MIN` characters (said at start-up).
    """
    value = (os.environ if environ is None else environ).get(PASSCODE_VARIABLE, "").strip()
    if not value:
        return None
    if len(value) < PASSCODE_MIN:
        raise ValueError(
            f"{PASSCODE_VARIABLE} has {len(value)} characters; give at least {PASSCODE_MIN} "
            "(a short one is guessed by a class), or unset it to let only this machine's "
            "browsers start polls"
        )
    return value


def passcode_matches(given: str, passcode: str | None) -> bool:
    """Whether ``given`` is the passcode (constant time; never with no passcode set)."""
    return passcode is not None and hmac.compare_digest(
        given.strip().encode("utf-8"), passcode.encode("utf-8")
    )


def trusted_proxies(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The proxies the operator named, as normalised addresses.

    Raises
    ------
    ValueError
        An entry that is not an IP address (said at start-up, with the entry).
    """
    value = (os.environ if environ is None else environ).get(PROXIES_VARIABLE, "")
    found = set()
    for entry in filter(None, (part.strip() for part in value.split(","))):
        try:
            found.add(str(ipaddress.ip_address(entry)))
        except ValueError:
            raise ValueError(
                f"{PROXIES_VARIABLE}: {entry!r} is not an IP address; list the proxies' "
                "addresses, separated by commas (for example 127.0.0.1,10.0.0.2)"
            ) from None
    return frozenset(found)


def client_address(remote: str | None, headers: Mapping[str, str], proxies: frozenset[str]) -> str:
    """The address a report is counted against.

    ``remote`` is the connection's address (None: this machine's loopback, as
    Streamlit reports it). Behind a trusted proxy, the last ``X-Forwarded-For`` entry
    that is not a trusted proxy itself.

    Examples
    --------
    >>> client_address("10.0.0.7", {}, frozenset())
    '10.0.0.7'
    >>> client_address(None, {"X-Forwarded-For": "1.2.3.4"}, frozenset())
    '127.0.0.1'
    >>> client_address(None, {"X-Forwarded-For": "6.6.6.6, 1.2.3.4"}, frozenset({"127.0.0.1"}))
    '1.2.3.4'
    """
    address = _normal(remote) if remote else "127.0.0.1"
    if address not in proxies:
        return address
    forwarded = next((v for k, v in headers.items() if k.lower() == "x-forwarded-for"), "")
    for entry in reversed([part.strip() for part in forwarded.split(",") if part.strip()]):
        normal = _normal(entry)
        if normal not in proxies:
            return normal
    return address


def is_this_machine(address: str, own: Iterable[str]) -> bool:
    """Whether a connection from ``address`` comes from the server's own machine.

    Examples
    --------
    >>> is_this_machine("127.0.0.1", ())
    True
    >>> is_this_machine("127.0.0.5", ())  # a program that bound another loopback address
    False
    >>> is_this_machine("10.0.0.4", ("10.0.0.4",))
    True
    """
    normal = _normal(address)
    return normal in LOCAL_ADDRESSES or normal in {_normal(a) for a in own}


def _normal(address: str) -> str:
    try:
        return str(ipaddress.ip_address(address.strip().split("%")[0]))
    except ValueError:
        return address.strip()


__all__ = [
    "KEY_COOKIE",
    "KEY_COOKIE_SECONDS",
    "PASSCODE_VARIABLE",
    "PROXIES_VARIABLE",
    "client_address",
    "is_this_machine",
    "passcode_matches",
    "teacher_passcode",
    "trusted_proxies",
]
