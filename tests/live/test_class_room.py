"""A class server that one visitor cannot stall or flood, and that a crash cannot cheat
: the report cap from real browsers, and the Streamlit server itself SIGKILLed
while students send (every report a student saw confirmed is stored exactly once, and a
student whose send never completed can still send, the same report).
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from served import ARTIFACTS, ROOT

from devtools.serving import free_port, streamlit_server
from ldpcore.live.store import PollStore

pytestmark = pytest.mark.browser

SENT = re.compile(r"Your report was sent and stored")
OPTIONS = ("Spring", "Summer", "Autumn", "Winter")


def _open(browser: Browser, url: str, code: str, option: str) -> Page:
    page = browser.new_context().new_page()
    page.goto(f"{url}/join?code={code}")
    page.get_by_label(option).check(timeout=60_000)
    return page


def _wait_until_sent(page: Page, who: str, timeout_s: float = 180.0) -> None:
    """Wait for the page's "sent"; failing, say what the page shows instead (and keep its
    picture), so a failure on a loaded machine names its cause."""
    try:
        page.get_by_text(SENT).wait_for(timeout=timeout_s * 1000)
    except PlaywrightTimeout:
        picture = ARTIFACTS / f"join-stuck-{who.replace(' ', '-')}.png"
        page.screenshot(path=str(picture), full_page=True)
        shown = " | ".join(page.inner_text("body").split("\n"))[-1200:]
        pytest.fail(f"{who} never read 'sent' within {timeout_s:g} s; the page shows: {shown}")


def test_a_full_poll_refuses_in_words_and_the_teacher_sees_it(
    browser: Browser, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    env = {"LDPCORE_DATA_DIR": str(tmp_path)}
    with streamlit_server(ROOT / "app.py", ARTIFACTS / "streamlit-cap.log", env=env) as (url, _):
        teacher = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        teacher.goto(f"{url}/class")
        size = teacher.get_by_label("Class size (most reports taken)", exact=True)
        size.fill("2", timeout=60_000)
        size.press("Enter")
        # The students' browsers are all on this machine: one address, as in a lab.
        seats = teacher.get_by_label("Reports counted per network address", exact=True)
        seats.fill("2")
        seats.press("Enter")
        teacher.get_by_role("button", name="Start the poll").click()
        teacher.get_by_text("options, up to 2 reports").wait_for(timeout=60_000)
        code = re.search(r"poll=([A-Z0-9]+)", teacher.url).group(1)  # type: ignore[union-attr]
        for option in ("Walk", "Car"):
            student = _open(browser, url, code, option)
            student.get_by_role("button", name="Send my answer").click()
            student.get_by_text(SENT).wait_for(timeout=30_000)
        late = _open(browser, url, code, "Other")
        late.get_by_role("button", name="Send my answer").click()
        late.get_by_text(re.compile(r"is full: it takes 2 reports")).wait_for(timeout=30_000)
        assert late.locator("[data-testid='stException']").count() == 0
        store = PollStore(tmp_path)
        assert store.count(code) == 2 and store.refused(code) == 1
        # The teacher's page counts the browser turned away, without a click.
        metric = teacher.get_by_test_id("stMetric").filter(has_text="turned away")
        metric.get_by_text("1", exact=True).wait_for(timeout=15_000)
        teacher.screenshot(path=str(ARTIFACTS / "class-full.png"), full_page=True)


def test_a_server_killed_while_students_send_keeps_each_confirmed_report_once(
    browser: Browser, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    store = PollStore(tmp_path)
    poll, _ = store.create("Season?", OPTIONS, protocol="OUE", epsilon=1.0, seats=8)
    env = {"LDPCORE_DATA_DIR": str(tmp_path)}
    port = free_port()
    students: list[Page] = []
    with streamlit_server(
        ROOT / "app.py", ARTIFACTS / "streamlit-killed.log", env=env, port=port
    ) as (url, process):
        students = [_open(browser, url, poll.code, OPTIONS[i % 4]) for i in range(8)]
        for page in students[:6]:  # six send at once; the server dies under them
            page.get_by_role("button", name="Send my answer").click()
        students[0].get_by_text(SENT).wait_for(timeout=30_000)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        confirmed = [i for i, page in enumerate(students) if page.get_by_text(SENT).count()]
        for page in students[6:]:  # two send while it is down: never confirmed
            page.get_by_role("button", name="Send my answer").click()
    stored_at_kill = PollStore(tmp_path).count(poll.code)
    assert stored_at_kill >= len(confirmed) >= 1
    with streamlit_server(
        ROOT / "app.py", ARTIFACTS / "streamlit-restarted.log", env=env, port=port
    ) as (url, _):
        # Not confirmed: the page reconnects and sends the same randomized report again
        # by itself, never a new one, with no click and no reload.
        for i, page in enumerate(students):
            if i not in confirmed:
                _wait_until_sent(page, f"student {i}")
        for i in confirmed:
            students[i].reload()
            students[i].get_by_text("This browser has answered this poll").wait_for(timeout=60_000)
        students[-1].screenshot(path=str(ARTIFACTS / "join-resent.png"), full_page=True)
    final = PollStore(tmp_path)
    # Every student stored exactly once (one row per browser; no second randomization).
    assert final.count(poll.code) == len(students)
    assert final.refused(poll.code) == 0


def _server_cpu(process: psutil.Process) -> float:
    """CPU seconds the server and its worker processes have used so far."""
    total = 0.0
    for each in [process, *process.children(recursive=True)]:
        try:
            times = each.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def _progress(page: Page) -> int:
    """Trials done, as the page's progress bar says ("Simulating: 3 of 30 trials done")."""
    found = re.search(r"(\d+) of \d+ trials done", page.inner_text("body"))
    return int(found.group(1)) if found else -1


def _complete(page: Page) -> bool:
    """Whether the page draws every trial (its first-trials note has gone)."""
    text = page.inner_text("body")
    return "Showing the first" not in text and page.locator(".js-plotly-plot").count() > 0


def test_a_run_above_the_budget_asks_first_runs_beside_others_and_stops(
    browser: Browser, tmp_path: Path
) -> None:
    """A run above the budget (HR at d = 16,384: 66 s of both cores once, about
    3 s since its row sampler, here with a budget of 1 s) draws its first trials, asks before
    the rest, and leaves the server idle; two visitors' runs above the budget proceed
    side by side; Stop stops."""
    ARTIFACTS.mkdir(exist_ok=True)
    env = {
        "LDPCORE_DATA_DIR": str(tmp_path),
        "LDPCORE_RUN_BUDGET_S": "1",
        "LDPCORE_APP_WORKERS": "2",
    }
    with streamlit_server(ROOT / "app.py", ARTIFACTS / "streamlit-budget.log", env=env) as (
        url,
        process,
    ):
        server = psutil.Process(process.pid)
        stall = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        started = time.monotonic()
        stall.goto(f"{url}/?protocol=HR&d=16384")
        stall.get_by_text("is estimated at about").wait_for(timeout=30_000)
        shown_after = time.monotonic() - started
        # Its first trials are drawn (about a second of computing), then nothing runs
        # until asked: the server and its workers go idle.
        stall.get_by_text(re.compile(r"Drawn from the first \d+ of 30 trials")).first.wait_for(
            timeout=60_000
        )
        stall.screenshot(path=str(ARTIFACTS / "budget-asks.png"), full_page=True)
        time.sleep(0.5)
        before = _server_cpu(server)
        time.sleep(2)
        assert _server_cpu(server) - before < 0.6
        # Two visitors ask for runs above the budget (about 6 s each): side by side.
        # Both pages are opened and shown their button before either is pressed: on a
        # loaded machine the second page can take longer to open than the first run lasts.
        pages = []
        for epsilon in ("1.0", "2.0"):
            page = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
            page.goto(f"{url}/?protocol=SS&d=16384&epsilon={epsilon}")
            page.get_by_role("button", name=re.compile(r"^Run it \(about")).wait_for(timeout=60_000)
            pages.append(page)
        for page in pages:
            page.get_by_role("button", name=re.compile(r"^Run it \(about")).click()
        both = False
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not both:
            done = [_progress(page) for page in pages]
            both = all(0 < k < 30 for k in done)
            if any(_complete(page) for page in pages):
                break  # one finished before both were seen running
            time.sleep(0.2)
        assert both, done
        for page in pages:
            page.wait_for_function(
                "() => !document.body.innerText.includes('Showing the first')"
                " && document.querySelector('.js-plotly-plot') !== null",
                timeout=120_000,
            )
        # The stalled visitor runs it after all, then stops it: no more chunks are sent.
        stall.get_by_role("button", name=re.compile(r"^Run it \(about")).click()
        stall.get_by_text(re.compile(r"\d+ of 30 trials done")).wait_for(timeout=60_000)
        stall.get_by_role("button", name="Stop this run").click()
        stall.get_by_text("Stopped.").wait_for(timeout=30_000)
        idle = False
        deadline = time.monotonic() + 40  # the chunk in flight (3 trials) finishes first
        while time.monotonic() < deadline and not idle:
            before = _server_cpu(server)
            time.sleep(2)
            idle = _server_cpu(server) - before < 0.6
        assert idle, "the server kept computing after Stop"
        print(f"HR at d = 16,384: its estimate shown {shown_after:.2f} s after the page opened")
