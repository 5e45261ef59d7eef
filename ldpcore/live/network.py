"""Which address students can open: the join link of a live class.

A teacher's browser often shows the app as ``localhost``: the server runs on the
teacher's own laptop. A phone on the classroom Wi-Fi cannot open that address (on the
phone, ``localhost`` is the phone). So the join link is built, in this order, from

1. ``LDPCORE_PUBLIC_URL``, when the person who runs the server set it (behind a proxy
   or on a hosted service, only they know the public address);
2. the address the teacher's browser used, when it is not a loopback name
   (``localhost``, ``127.0.0.1``, ``[::1]``): students then open what the teacher opened;
3. else this machine's own network address, with words that say why, and, when the
   server listens on loopback only, what to restart it with.

Nothing here imports Streamlit: the page passes in what it knows (the browser's URL, the
server's bind address), so every case is tested without a server.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from urllib.parse import urlsplit

#: Set by whoever runs the server: the address students open (e.g. behind a proxy).
PUBLIC_URL_VARIABLE = "LDPCORE_PUBLIC_URL"
#: Host names that only ever mean "this device": a link with one cannot work on a phone.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "::"})
#: The command that serves a class on every interface (README, "Running a live class").
CLASS_COMMAND = "make run HOST=0.0.0.0"
#: The same without make (a Windows laptop): what ``make run`` runs.
CLASS_COMMAND_PLAIN = "python -m pages.app_layer.serving.launch --server.address 0.0.0.0"


@dataclass(frozen=True)
class JoinOrigin:
    """Where the join link points, and what the teacher must be told about it.

    Attributes
    ----------
    origin : str
        ``scheme://host[:port][/base]``, without a trailing slash.
    source : {"public", "browser", "network", "loopback"}
        Where it came from: ``LDPCORE_PUBLIC_URL``, the teacher's browser address, this
        machine's network address (the browser used a loopback name), or the loopback
        address itself (no network address found: the link works on this machine only).
    warning : str
        Empty when students can open the link; else what is wrong and what to do.
    others : tuple of str
        Further origins students might use (the machine's other network addresses).
    """

    origin: str
    source: str
    warning: str = ""
    others: tuple[str, ...] = ()


def check_public_url(value: str) -> str:
    """``LDPCORE_PUBLIC_URL`` as an origin (no trailing slash), or ValueError saying why.

    Examples
    --------
    >>> check_public_url("https://class.example.org/ldp/")
    'https://class.example.org/ldp'
    >>> check_public_url("class.example.org")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: LDPCORE_PUBLIC_URL is 'class.example.org'; set it to ... https://...
    """
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
        raise ValueError(
            f"{PUBLIC_URL_VARIABLE} is {value!r}; set it to the address students open, "
            "with http:// or https:// (for example https://class.example.org/ldp)"
        )
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def is_loopback_name(host: str) -> bool:
    """Whether a URL's host only means "this device" (a phone cannot open it).

    Exactly the names a browser shows for the server on the same machine. Other
    ``127.x`` addresses are not listed: the tests use ``127.0.0.2`` to stand in for a
    classroom address, and no teacher's browser shows one by accident.

    Examples
    --------
    >>> is_loopback_name("localhost"), is_loopback_name("[::1]"), is_loopback_name("10.0.0.5")
    (True, True, False)
    """
    return host.strip("[]").lower() in LOOPBACK_NAMES


def listens_on_loopback_only(server_address: str | None) -> bool:
    """Whether the server was started on a loopback address (``make run``'s default).

    Streamlit binds every interface when ``server.address`` is unset.

    Examples
    --------
    >>> listens_on_loopback_only("localhost"), listens_on_loopback_only("0.0.0.0")
    (True, False)
    >>> listens_on_loopback_only(None)
    False
    """
    if not server_address:
        return False
    host = server_address.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_origin(
    browser_url: str,
    *,
    public_url: str | None,
    server_address: str | None,
    addresses: tuple[str, ...],
    base_path: str = "",
) -> JoinOrigin:
    """The origin the join link uses, and the words the teacher must read with it.

    Parameters
    ----------
    browser_url : str
        The teacher's page as their browser opened it (``st.context.url``).
    public_url : str or None
        ``LDPCORE_PUBLIC_URL`` (already checked by :func:`check_public_url`).
    server_address : str or None
        Streamlit's ``server.address`` (None: every interface).
    addresses : tuple of str
        This machine's network addresses (:func:`network_addresses`).
    base_path : str
        The app's path under the origin (``/ldp`` behind a proxy), from the browser URL.

    Examples
    --------
    >>> join_origin("http://10.1.2.3:8501/class", public_url=None, server_address=None,
    ...             addresses=("10.1.2.3",)).origin
    'http://10.1.2.3:8501'
    >>> found = join_origin("http://localhost:8501/class", public_url=None,
    ...                     server_address="0.0.0.0", addresses=("192.168.1.20",))
    >>> found.origin, found.source
    ('http://192.168.1.20:8501', 'network')
    """
    if public_url:
        return JoinOrigin(public_url, "public")
    parts = urlsplit(browser_url)
    host = parts.hostname or "localhost"
    if not is_loopback_name(host):
        return JoinOrigin(f"{parts.scheme}://{parts.netloc}{base_path}", "browser")
    port = f":{parts.port}" if parts.port else ""
    origins = tuple(f"{parts.scheme}://{_host(a)}{port}{base_path}" for a in addresses)
    opened = f"{parts.scheme}://{parts.netloc}"
    if not origins:
        return JoinOrigin(
            f"{opened}{base_path}",
            "loopback",
            f"This page is open as {opened}, which only this computer can open, and this "
            "computer has no network address: phones cannot reach it. Connect it to the "
            "classroom network (the same Wi-Fi as the students), then reload this page.",
        )
    restart = ""
    if listens_on_loopback_only(server_address):
        restart = (
            f" The server now listens on this computer only: stop it and start it with "
            f"`{CLASS_COMMAND}` (without make: `{CLASS_COMMAND_PLAIN}`), or the link "
            "below will not open."
        )
    return JoinOrigin(
        origins[0],
        "network",
        f"This page is open as {opened}, which phones cannot open (on a phone, that "
        f"address is the phone). The link and QR code use this computer's network "
        f"address instead, {origins[0]}: students on the same network can open it." + restart,
        origins[1:],
    )


def _host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def network_addresses() -> tuple[str, ...]:
    """The addresses of this machine that other devices may reach: IPv4 first, no loopback.

    From ``ip -o addr`` where it exists (Linux), else from the host name's addresses
    (macOS and Windows list every interface's there). Nothing is sent anywhere: a
    machine's addresses are read, never discovered by a connection.

    Returns
    -------
    tuple of str
        Unique addresses, IPv4 before IPv6; empty when the machine has none.
    """
    found: list[str] = []
    ip = shutil.which("ip")
    if ip:
        try:
            listing = subprocess.run(
                [ip, "-o", "addr", "show", "up"],
                capture_output=True,
                text=True,
                timeout=2,
                check=False,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            listing = ""
        words = listing.split()
        found += [
            words[i + 1].split("/")[0] for i, w in enumerate(words[:-1]) if w in ("inet", "inet6")
        ]
    if not found:
        # Only without ``ip``: where the host name is not in /etc/hosts, looking it up
        # asks the network's name server, and nothing of a class may leave the room.
        with contextlib.suppress(OSError):
            found += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)]
    return reachable_addresses(found)


def reachable_addresses(candidates: list[str]) -> tuple[str, ...]:
    """The candidates another device may reach: unique, IPv4 first, no loopback or link-local.

    Examples
    --------
    >>> reachable_addresses(["127.0.0.1", "fe80::1", "192.168.1.20", "::1", "192.168.1.20"])
    ('192.168.1.20',)
    """
    kept: dict[str, ipaddress.IPv4Address | ipaddress.IPv6Address] = {}
    for text in candidates:
        try:
            address = ipaddress.ip_address(text.split("%")[0])
        except ValueError:
            continue
        if address.is_loopback or address.is_link_local or address.is_unspecified:
            continue
        if address.is_multicast:
            continue
        kept.setdefault(str(address), address)
    return tuple(sorted(kept, key=lambda a: (kept[a].version, kept[a])))


def public_url_setting() -> str:
    """``LDPCORE_PUBLIC_URL`` as set (read on every call: a test may change it)."""
    return os.environ.get(PUBLIC_URL_VARIABLE, "").strip()


__all__ = [
    "CLASS_COMMAND",
    "CLASS_COMMAND_PLAIN",
    "PUBLIC_URL_VARIABLE",
    "JoinOrigin",
    "check_public_url",
    "is_loopback_name",
    "join_origin",
    "listens_on_loopback_only",
    "network_addresses",
    "public_url_setting",
    "reachable_addresses",
]
