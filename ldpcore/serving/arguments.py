"""The launcher's Streamlit options, and its one line about the live class.

``make run`` serves the app with Streamlit's own command line; these are the options it
adds unless the command line sets them, and what it prints for the person running it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ldpcore.live.access import PASSCODE_VARIABLE, teacher_passcode, trusted_proxies
from ldpcore.live.store import default_data_dir

#: Streamlit options a served app always gets unless the command line sets them: nothing
#: leaves the machine and nothing watches the files. The file watcher, on by
#: default, reloads pages a developer edits; serving a class it only filled one log with
#: 21,515 "Inotify queue overflowed" lines in 22 minutes.
SERVING_DEFAULTS = {
    "--server.fileWatcherType": "none",
    "--server.runOnSave": "false",
    "--browser.gatherUsageStats": "false",
    "--server.headless": "true",
}
WILDCARDS = ("0.0.0.0", "::", "[::]")


def serving_arguments(arguments: Sequence[str], addresses: Sequence[str]) -> list[str]:
    """``arguments`` with :data:`SERVING_DEFAULTS` added, and an address to print.

    On every interface (``0.0.0.0``) and headless, Streamlit looks up the machine's
    external address with a request to an outside service, to print it. Naming the
    address to print (``browser.serverAddress``: this machine's first network address,
    else ``localhost``) is Streamlit's own setting that skips that lookup, so nothing
    leaves the room.

    Examples
    --------
    >>> serving_arguments(["--server.address", "0.0.0.0"], ["10.0.0.5"])[-2:]
    ['--browser.serverAddress', '10.0.0.5']
    >>> "--browser.serverAddress" in serving_arguments(["--server.address", "localhost"], [])
    False
    """
    given = {word.split("=", 1)[0] for word in arguments if word.startswith("--")}
    found = list(arguments)
    for option, value in SERVING_DEFAULTS.items():
        if option not in given:
            found += [option, value]
    address = _option(arguments, "--server.address")
    if address in WILDCARDS and "--browser.serverAddress" not in given:
        found += ["--browser.serverAddress", next(iter(addresses), "localhost")]
    return found


def _option(arguments: Sequence[str], name: str) -> str | None:
    for i, word in enumerate(arguments):
        if word == name and i + 1 < len(arguments):
            return arguments[i + 1]
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    return None


def class_settings() -> str:
    """What the person running the server needs to know about the live class, one line.

    Raises
    ------
    ValueError
        A passcode too short, or a trusted proxy that is not an address.
    """
    proxies = trusted_proxies()
    who = (
        "this machine's browsers and those given the passcode"
        if teacher_passcode()
        else f"this machine's browsers only (set {PASSCODE_VARIABLE} for others)"
    )
    behind = f"; addresses forwarded by {', '.join(sorted(proxies))}" if proxies else ""
    return f"  Live class: polls started by {who}; stored in {default_data_dir()}{behind}."


__all__ = ["SERVING_DEFAULTS", "class_settings", "serving_arguments"]
