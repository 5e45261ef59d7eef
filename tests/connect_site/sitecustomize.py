"""Every outgoing connection and name lookup of a process, recorded.

On ``PYTHONPATH`` with ``LDPCORE_RECORD_CONNECTS=FILE``, each Python process started
(the server, its fork server and workers) appends one JSON line per ``socket.connect``
and ``socket.getaddrinfo`` audit event to ``FILE``. ``tests/live/test_class_server.py`` then
checks that none went beyond this machine.
"""

from __future__ import annotations

import json
import os
import sys

_RECORD = os.environ.get("LDPCORE_RECORD_CONNECTS")


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event == "socket.connect":
        where = args[1]
    elif event == "socket.getaddrinfo":
        where = args[0]
    else:
        return
    line = json.dumps({"event": event, "where": repr(where), "pid": os.getpid()})
    with open(_RECORD, "a", encoding="utf-8") as sink:  # type: ignore[arg-type]
        sink.write(line + "\n")


if _RECORD:
    sys.addaudithook(_hook)
