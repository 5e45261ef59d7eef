"""A live class answering a poll at once: N students submit within ten seconds.

Run: ``.venv/bin/python -m benchmarks.bench_live_class [--students 30 100] [--browsers 3]``.

It serves the app as ``make run`` does (a free port of 127.0.0.1, a fresh data folder),
creates a GRR poll of 7 options, opens the teacher's Class page in a real browser, then
for each N: ``--browsers`` students in real chromium pages (the shipped JavaScript
randomizer, clicking "Send my answer") and the rest as protocol clients (a websocket
session of the join page that sends the component's trigger, as the browser does, with a
report drawn by the Python protocol), each starting at a uniform random moment of a
10-second window.

- **Send → sent**: from the click (or the trigger sent) until the page says the report
  was "sent and stored" (the store has committed it).
- **teacher count**: from the last confirmation until the teacher's page, which reads
  the count every second by itself, shows N reports.
- **stored**: the reports in the database at the end (every confirmed one must be).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from devtools.serving import ROOT, streamlit_server

CHROMIUM = "/usr/bin/chromium"
WINDOW_S = 10.0
SENT = "sent and stored"  # as the page shows it
SENT_MARKDOWN = "**sent** and stored"  # as the alert's markdown body carries it


async def protocol_student(url: str, code: str, index: int, delay: float) -> float:
    """One student as a websocket session of the join page; returns Send → sent seconds."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    from ldpcore.collection.report_files import reports_to_frame
    from ldpcore.live.reports import poll_protocol

    stream = url.replace("http://", "ws://") + "/_stcore/stream"
    async with websockets.connect(
        stream,
        subprotocols=["streamlit"],
        max_size=None,
        origin=url,  # type: ignore[list-item,arg-type]
    ) as socket:

        async def run(states: Sequence[Any], until: str | None) -> tuple[str, str]:
            request = BackMsg()
            request.rerun_script.query_string = f"code={code}"
            request.rerun_script.page_name = "join"
            request.rerun_script.widget_states.widgets.extend(states)
            await socket.send(request.SerializeToString())
            component, texts = "", ""
            while True:
                message = ForwardMsg()
                message.ParseFromString(await socket.recv())
                kind = message.WhichOneof("type")
                if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                    element = message.delta.new_element
                    if element.WhichOneof("type") == "bidi_component":
                        component = element.bidi_component.id
                    elif element.WhichOneof("type") == "alert":
                        texts += element.alert.body
                        if until and until in texts:
                            return component, texts
                elif kind == "script_finished":
                    # A run that ends in st.rerun() is followed by the next one: wait for it.
                    if message.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        continue
                    if until is None or until in texts or message.script_finished == 0:
                        return component, texts

        component, _ = await run([], None)
        await asyncio.sleep(delay)
        rng = np.random.default_rng(index)
        protocol = poll_protocol("GRR", 1.0, 7)
        reports = protocol.randomize(np.array([index % 7]), rng=rng)
        report = {"value": int(reports_to_frame(protocol, reports, text=True)["value"].iloc[0])}
        trigger = WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{component}__events")
        trigger.json_trigger_value = json.dumps(
            [{"event": "report", "value": {"client": f"bench-{index:06d}", "report": report}}]
        )
        start = time.perf_counter()
        _, texts = await run([trigger], SENT_MARKDOWN)
        if SENT_MARKDOWN not in texts:
            raise RuntimeError(f"student {index} was not confirmed: {texts[:200]}")
        return time.perf_counter() - start


def browser_students(
    url: str,
    code: str,
    count: int,
    out: list[float],
    *,
    ready: threading.Event,
    go: threading.Event,
) -> None:
    """``count`` real chromium students, each clicking at a random moment of the window.

    They open the join page first (``ready``), then wait for the window to open (``go``).
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        pages = []
        for _ in range(count):
            page = browser.new_context().new_page()
            page.goto(f"{url}/join?code={code}")
            page.get_by_label("Monday").check(timeout=60_000)
            pages.append(page)
        moments = sorted(random.uniform(0, WINDOW_S) for _ in pages)
        ready.set()
        go.wait()
        begin = time.perf_counter()
        for page, moment in zip(pages, moments, strict=True):
            time.sleep(max(0.0, begin + moment - time.perf_counter()))
            start = time.perf_counter()
            page.get_by_role("button", name="Send my answer").click()
            page.get_by_text(re.compile(SENT)).wait_for(timeout=60_000)
            out.append(time.perf_counter() - start)
        browser.close()


def measure(url: str, data_dir: Path, students: int, browsers: int) -> dict[str, Any]:
    """One class of ``students``; returns its row."""
    from playwright.sync_api import sync_playwright

    from ldpcore.live.store import PollStore

    store = PollStore(data_dir)
    poll, key = store.create(
        "Which day of the week were you born?",
        ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
        protocol="GRR",
        epsilon=1.0,
        # Every simulated phone connects from this machine: one address, a seat each.
        max_reports=max(students, 30),
        seats=max(students, 1),
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        teacher = browser.new_page()
        teacher.goto(f"{url}/class?poll={poll.code}&key={key}")
        teacher.get_by_text("Waiting for the first report").wait_for(timeout=60_000)
        in_browsers: list[float] = []
        ready, go = threading.Event(), threading.Event()
        thread = threading.Thread(
            target=browser_students,
            args=(url, poll.code, browsers, in_browsers),
            kwargs={"ready": ready, "go": go},
        )
        thread.start()
        while not ready.is_set():  # the browsers load the join page before the window
            teacher.wait_for_timeout(100)

        async def clients() -> list[float]:
            delays = [random.uniform(0, WINDOW_S) for _ in range(students - browsers)]
            return list(
                await asyncio.gather(
                    *(protocol_student(url, poll.code, i, d) for i, d in enumerate(delays))
                )
            )

        protocol_times: list[float] = []
        # Its own thread and event loop: Playwright's sync API owns this thread's loop.
        clients_thread = threading.Thread(
            target=lambda: protocol_times.extend(asyncio.run(clients()))
        )
        begin = time.perf_counter()
        go.set()
        clients_thread.start()
        # Keep this thread's Playwright loop turning while the class answers: a driver
        # left unread stalls the teacher's page (its refreshes stopped at 3 of 6).
        while clients_thread.is_alive() or thread.is_alive():
            teacher.wait_for_timeout(100)
        last = time.perf_counter()
        try:
            teacher.get_by_text(re.compile(rf"^{students}$")).first.wait_for(timeout=60_000)
        finally:
            teacher.screenshot(path=str(ROOT / "test-artifacts" / "bench-live-class-teacher.png"))
        counted = time.perf_counter() - last
        browser.close()
    times = np.array(protocol_times + in_browsers)
    return {
        "students": students,
        "browsers": len(in_browsers),
        "window_s": round(last - begin, 1),
        "p50_s": round(float(np.percentile(times, 50)), 3),
        "p95_s": round(float(np.percentile(times, 95)), 3),
        "max_s": round(float(times.max()), 3),
        "browser_p95_s": round(float(np.percentile(in_browsers, 95)), 3) if in_browsers else None,
        "teacher_count_s": round(counted, 1),
        "stored": store.count(poll.code),
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Run each class size on one server and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[30, 100])
    parser.add_argument("--browsers", type=int, default=3)
    args = parser.parse_args(argv)
    random.seed(24)
    data_dir = Path(tempfile.mkdtemp(prefix="ldpcore-bench-class-"))
    os.environ["LDPCORE_DATA_DIR"] = str(data_dir)
    rows = []
    log = ROOT / "test-artifacts" / "streamlit-bench-live-class.log"
    with streamlit_server(ROOT / "app.py", log) as (url, _process):
        for students in args.students:
            row = measure(url, data_dir, students, min(args.browsers, students))
            print(json.dumps(row), flush=True)
            rows.append(row)
    print()
    print("| students | of them browsers | window (s) | p50 send→sent (s) | p95 (s) | max (s) "
          "| browsers' p95 (s) | teacher shows N after (s) | stored |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['students']} | {r['browsers']} | {r['window_s']} | {r['p50_s']} | "
            f"{r['p95_s']} | {r['max_s']} | {r['browser_p95_s']} | {r['teacher_count_s']} | "
            f"{r['stored']} |"
        )


if __name__ == "__main__":
    main()
