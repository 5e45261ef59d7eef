"""A class server that stays in the room: served as the README serves a class,
it opens no connection beyond this machine, at start-up or during a class; its log says
what its operator needs and is not flooded; and nothing it started outlives it, SIGKILL
included.

Every Python process of the server (the server, its fork server, its workers) records
each ``socket.connect`` and ``socket.getaddrinfo`` it makes (``tests/connect_site``): a
lookup of an outside name or a connection to an outside address fails the test, whether
or not the network would have let it through.
"""

from __future__ import annotations

import ast
import ipaddress
import json
import os
import re
import signal
import time
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import Browser
from served import ARTIFACTS, ROOT

from devtools.serving import streamlit_server

pytestmark = pytest.mark.browser

SENT = re.compile(r"Your report was sent and stored")
#: Names a process may look up without asking any other machine.
LOCAL_NAMES = {"localhost", "", "None"}


def _stays_here(where: object) -> bool:
    """Whether a connect or lookup target is on this machine (or a Unix socket)."""
    if isinstance(where, tuple):
        where = where[0]
    if where is None:
        return True
    text = str(where)
    if text.startswith("/") or text.startswith("\x00") or text in LOCAL_NAMES:
        return True  # a Unix socket (the fork server's), or a name that is this machine
    try:
        address = ipaddress.ip_address(text.split("%", maxsplit=1)[0])
    except ValueError:
        return False  # a name another machine would have to answer
    return address.is_loopback or address.is_unspecified


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_the_served_class_stays_in_the_room_and_ends_with_its_server(
    browser: Browser, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    record = tmp_path / "connections.jsonl"
    log = ARTIFACTS / "streamlit-room.log"
    site = str(ROOT / "tests" / "connect_site")
    env = {
        "LDPCORE_DATA_DIR": str(tmp_path),
        "LDPCORE_PUBLIC_URL": "",
        "LDPCORE_APP_WORKERS": "2",
        "LDPCORE_RECORD_CONNECTS": str(record),
        "PYTHONPATH": os.pathsep.join(filter(None, [site, os.environ.get("PYTHONPATH")])),
    }
    with streamlit_server(ROOT / "app.py", log, address="0.0.0.0", env=env) as (url, process):
        teacher = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        teacher.goto(f"{url}/class")
        teacher.get_by_role("button", name="Start the poll").click(timeout=60_000)
        teacher.get_by_text("Students open").wait_for(timeout=60_000)
        code = re.search(r"poll=([A-Z0-9]+)", teacher.url)
        assert code
        student = browser.new_context().new_page()
        student.goto(f"{url}/join?code={code.group(1)}")
        student.get_by_label("Walk").check(timeout=60_000)
        student.get_by_role("button", name="Send my answer").click()
        student.get_by_text(SENT).wait_for(timeout=30_000)
        # A simulation nobody asked for yet starts the worker processes.
        explorer = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        server = psutil.Process(process.pid)
        started: list[psutil.Process] = []
        for epsilon in ("2.0", "3.0", "4.0"):
            explorer.goto(f"{url}/?epsilon={epsilon}")
            explorer.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
            started = server.children(recursive=True)
            # The resource tracker, the fork server and a worker (started on demand).
            if len(started) >= 3:
                break
        assert len(started) >= 3, [p.cmdline() for p in started]
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        killed = time.monotonic()
        deadline = killed + 10
        while time.monotonic() < deadline and any(_alive(p.pid) for p in started):
            time.sleep(0.2)
        left = [p.pid for p in started if _alive(p.pid)]
        for pid in left:  # never leave them behind, even when the test fails
            os.kill(pid, signal.SIGKILL)
        assert not left, f"alive 10 s after the server was killed: {left}"
        print(f"{len(started)} processes gone {time.monotonic() - killed:.2f} s after SIGKILL")
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert events, "the recorder saw nothing: is tests/connect_site on the server's path?"
    outside = [e for e in events if not _stays_here(_target(e["where"]))]
    assert not outside, outside
    said = log.read_text(errors="replace")
    assert "Inotify" not in said and "external IP" not in said
    assert "Live class: polls started by this machine's browsers only" in said
    assert len(said.splitlines()) < 40, said


def _target(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
