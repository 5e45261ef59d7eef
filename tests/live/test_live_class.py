"""The live class in real browsers: the JavaScript randomizer against the exact channel,
and a teacher with ten students, end to end, on the app served as `make run` serves it.

The randomizer draws from ``crypto.getRandomValues``, which cannot be seeded: each
distribution test is a chi-square test at level 10⁻⁴ (a correct randomizer fails one run
in 10,000), on 100,000 reports per protocol.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Browser, Page
from scipy import stats

# The browser tests' setup: chromium's path, and a module skip where it is missing.
from served import ARTIFACTS, ROOT, assert_accessible

from devtools.serving import streamlit_server
from ldpcore.live.reports import LESSON_PRESET, PRESETS, browser_parameters, poll_protocol
from ldpcore.live.store import PollStore
from ldpcore.live.web import randomizer_source
from ldpcore.protocols.olh import hash_values

pytestmark = pytest.mark.browser

#: Reports drawn per protocol, and the tests' level (false alarms per run).
DRAWS = 100_000
LEVEL = 1e-4
STUDENTS = 10
#: The Class form's first question's options (the lesson it opens on).
OPTIONS = PRESETS[LESSON_PRESET]


def _draw(page: Page, params: dict[str, Any], value: int, keep: int = 0) -> dict[str, Any]:
    """``DRAWS`` reports of ``value`` from the shipped randomizer, tallied in the page."""
    return page.evaluate(
        """([params, value, draws, keep]) => {
          const tally = {};
          const kept = [];
          for (let i = 0; i < draws; i++) {
            const report = ldpRandomize(params, value);
            let key;
            if (params.protocol === "GRR") key = report.value;
            else if (params.protocol === "OUE") key = report.bits;
            else {
              // The bucket's offset from the true value's hash: 0 when kept.
              const own = ldpHash(BigInt(report.seed_a), BigInt(report.seed_b), value, params.g);
              key = (report.bucket - own + params.g) % params.g;
            }
            tally[key] = (tally[key] || 0) + 1;
            if (i < keep) kept.push(report);
          }
          return { tally, kept };
        }""",
        [params, value, DRAWS, keep],
    )


def _exact(protocol: str, params: dict[str, Any], value: int) -> dict[str, float]:
    """The exact channel's output probabilities for ``value``, from Python's parameters."""
    d, p = params["d"], params["p"]
    if protocol == "GRR":
        return {str(y): p if y == value else (1 - p) / (d - 1) for y in range(d)}
    if protocol == "OLH":
        g = params["g"]
        return {str(k): p if k == 0 else (1 - p) / (g - 1) for k in range(g)}
    q = params["q"]
    out = {}
    for vector in range(2**d):
        bits = [(vector >> i) & 1 for i in range(d)]
        chance = math.prod(
            (p if i == value else q) if bit else (1 - (p if i == value else q))
            for i, bit in enumerate(bits)
        )
        out[bytes(np.packbits(np.array(bits, bool), bitorder="little")).hex()] = chance
    return out


@pytest.mark.parametrize("protocol", ["GRR", "OUE", "OLH"])
def test_the_browser_randomizer_draws_the_exact_channel(browser: Browser, protocol: str) -> None:
    """The JavaScript the app ships, 100,000 reports per input, against the exact channel;
    and the ε-LDP ratio of two inputs' empirical distributions within its sampling error."""
    epsilon, d = 1.0, 5
    chosen = poll_protocol(protocol, epsilon, d)
    params = browser_parameters(chosen)
    page = browser.new_page()
    page.add_script_tag(content=randomizer_source())
    found = {}
    for value in (1, 3):
        drawn = _draw(page, params, value, keep=2000 if protocol == "OLH" else 0)
        exact = _exact(protocol, params, value)
        assert set(drawn["tally"]) <= set(exact), "a report outside the report space"
        observed = np.array([drawn["tally"].get(k, 0) for k in exact], dtype=float)
        expected = DRAWS * np.array(list(exact.values()))
        assert stats.chisquare(observed, expected).pvalue > LEVEL, (protocol, value)
        found[value] = (observed / DRAWS, np.array(list(exact.values())))
        if protocol == "OLH":
            # The seeds are the hash Python evaluates: the same bucket for every report.
            kept = drawn["kept"]
            a = np.array([int(r["seed_a"]) for r in kept], dtype=np.uint64)
            b = np.array([int(r["seed_b"]) for r in kept], dtype=np.uint64)
            js = page.evaluate(
                "([k, v, g]) => k.map(r => ldpHash(BigInt(r.seed_a), BigInt(r.seed_b), v, g))",
                [kept, value, params["g"]],
            )
            np.testing.assert_array_equal(
                hash_values(a, b, np.full(a.size, value), params["g"]), js
            )
    if protocol != "OLH":  # OLH's outputs carry seeds: its channel per seed is GRR's, above
        # ε-LDP: P(y | 1) / P(y | 3) <= e^ε, checked on the draws within 4.5 standard errors.
        (f1, _), (f3, _) = found[1], found[3]
        keep = (f1 > 0.01) & (f3 > 0.01)
        ratio = f1[keep] / f3[keep]
        se = ratio * np.sqrt(
            (1 - f1[keep]) / (DRAWS * f1[keep]) + (1 - f3[keep]) / (DRAWS * f3[keep])
        )
        assert np.all(ratio <= math.exp(epsilon) + 4.5 * se)
        assert np.all(1 / ratio <= math.exp(epsilon) + 4.5 * se / ratio**2)
    page.close()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("class-data")


def _serve(data_dir: Path, log: str):
    os.environ["LDPCORE_DATA_DIR"] = str(data_dir)  # the server inherits it
    return streamlit_server(ROOT / "app.py", ARTIFACTS / log)


def _answer(page: Page, url: str, code: str, option: str, frames: list[bytes]) -> None:
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(
        payload if isinstance(payload, bytes) else payload.encode())))  # fmt: skip
    page.goto(f"{url}/join?code={code.lower()}")
    page.get_by_label(option).check(timeout=60_000)
    page.get_by_role("button", name="Send my answer").click()
    page.get_by_text(re.compile(r"Your report was sent and stored")).wait_for(timeout=30_000)


def test_a_teacher_and_ten_students_end_to_end(browser: Browser, data_dir: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    with _serve(data_dir, "streamlit-class.log") as (url, _process):
        teacher = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        teacher.goto(f"{url}/class")
        # Ten browsers on this one machine: one address, as a computer lab is.
        seats = teacher.get_by_label("Reports counted per network address", exact=True)
        seats.fill("10", timeout=60_000)
        seats.press("Enter")
        teacher.get_by_role("button", name="Start the poll").click(timeout=60_000)
        teacher.get_by_text("Students open").wait_for(timeout=60_000)
        teacher_url = teacher.url
        code = re.search(r"poll=([A-Z0-9]+)", teacher_url).group(1)  # type: ignore[union-attr]
        assert "key=" not in teacher_url  # the teacher's key is in a cookie, not the address
        teacher.get_by_role("img", name=re.compile("QR code of the join link")).wait_for()
        assert_accessible(teacher, "class")
        answers = [OPTIONS[i % len(OPTIONS)] for i in range(STUDENTS)]
        frames: list[bytes] = []
        students = []
        for option in answers:
            student = browser.new_context().new_page()
            _answer(student, url, code, option, frames)
            students.append(student)
        students[0].screenshot(path=str(ARTIFACTS / "join-sent.png"), full_page=True)
        assert_accessible(students[0], "join")
        # Only reports left the students' browsers: no option's name in any frame sent.
        sent = b"".join(frames)
        assert b'"report"' in sent or b"report" in sent
        assert not any(option.encode() in sent for option in OPTIONS)
        # The teacher's page counts them without a click, within a few seconds.
        teacher.get_by_text(re.compile(r"^10$")).first.wait_for(timeout=10_000)
        # The lesson opens on the reports; the teacher reveals the fix.
        teacher.get_by_text("3 · Post-processed: the fix").click()
        teacher.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        teacher.screenshot(path=str(ARTIFACTS / "class.png"), full_page=True)
        assert PollStore(data_dir).count(code) == STUDENTS
        # Simulated lying students: labelled on the page, never stored.
        teacher.get_by_text("4 · If some lied (simulated)").click()
        teacher.get_by_text(re.compile("Simulated, not in the poll: 3 lying students")).wait_for(
            timeout=30_000
        )
        teacher.get_by_text(re.compile("3 fake reports beside 10 real ones")).wait_for()
        teacher.screenshot(path=str(ARTIFACTS / "class-liars.png"), full_page=True)
        assert PollStore(data_dir).count(code) == STUDENTS
        # The same browser again: the form is not shown, and the server refuses too.
        again = students[1]
        again.reload()
        again.get_by_text("This browser has answered this poll").wait_for(timeout=60_000)
        # A student who clears what this page keeps, to answer again with the same
        # browser identifier: a new randomization, refused by the server.
        # The new randomization equals the stored report with real probability (GRR
        # keeps or lands on the same option); the server then rightly takes it as the
        # first report sent again (stored once). Such a resend is tried again, and each
        # time the count must stay at the class's ten.
        outcome = re.compile(r"already answered this poll|Your report was sent and stored")
        for _attempt in range(8):
            again.evaluate(
                f"() => {{ localStorage.removeItem('ldpcore-poll-sent-{code}');"
                f" localStorage.removeItem('ldpcore-poll-pending-{code}'); }}"
            )
            again.reload()
            again.get_by_label(OPTIONS[0]).check(timeout=60_000)
            again.get_by_role("button", name="Send my answer").click()
            again.get_by_text(outcome).first.wait_for(timeout=60_000)
            assert PollStore(data_dir).count(code) == STUDENTS
            if again.get_by_text("already answered this poll").count():
                break
        else:
            pytest.fail("eight new randomizations all equalled the stored report")
        # A wrong code is a message, never an exception.
        stranger = browser.new_context().new_page()
        stranger.goto(f"{url}/join?code=WRONG9")
        stranger.get_by_text("There is no poll with the code 'WRONG9'").wait_for(timeout=60_000)
        assert stranger.locator("[data-testid='stException']").count() == 0
    # A restart: the teacher's browser (its key cookie) brings the poll back.
    with _serve(data_dir, "streamlit-class-restart.log") as (url, _process):
        back = teacher.context.new_page()
        back.goto(re.sub(r"^http://[^/]+", url, teacher_url))
        back.get_by_text("Students open").wait_for(timeout=60_000)
        back.get_by_text(re.compile(r"^10$")).first.wait_for(timeout=30_000)
        back.get_by_text("Run the poll").click()  # the teacher's controls, folded away
        back.get_by_role("button", name="Close the poll").click()
        back.get_by_text("Closed: no more reports are taken").wait_for(timeout=30_000)
        late = browser.new_context().new_page()
        late.goto(f"{url}/join?code={code}")
        late.get_by_text(f"Poll {code} is closed").wait_for(timeout=60_000)
        assert late.locator("[data-testid='stException']").count() == 0


@pytest.mark.parametrize(
    ("protocol", "epsilon", "gives_away"),
    [
        ("GRR", 1.0, False),
        ("GRR", 6.0, True),
        ("OUE", 1.0, False),
        ("OUE", 6.0, True),
        ("OLH", 1.0, False),
        ("OLH", 6.0, True),
    ],
)
def test_the_phone_says_what_a_report_reveals_at_its_epsilon(
    browser: Browser, protocol: str, epsilon: float, gives_away: bool
) -> None:
    """The shipped JavaScript's words after a send follow ε: where what the report points
    at is the student's answer nine times in ten or more (every option equally likely
    beforehand: GRR's p; OUE's p / (p + (d − 1)q); OLH's p / (p + (d − 1)/g)), it says
    the report almost always shows it; below, that no one can tell for sure. At ε = 6 and
    five options those chances are 99%, 98% and 98%; at ε = 1, 40%, 32% and 32%."""
    options = ["Walk", "Bicycle", "Bus or train", "Car", "Other"]
    chosen = poll_protocol(protocol, epsilon, len(options))
    params = browser_parameters(chosen)
    page = browser.new_page()
    page.add_script_tag(content=randomizer_source())
    words = page.evaluate(
        "([params, options]) => ldpDescribe(params, ldpRandomize(params, 0), options)",
        [params, options],
    )
    almost = "almost always" in words
    assert almost == gives_away, words
    if not gives_away:
        assert "no one can tell" in words or "without saying" in words or "not an answer" in words


def test_an_outage_shows_the_app_s_reconnecting_sentence_not_streamlit_s_dialog(
    browser: Browser, data_dir: Path
) -> None:
    """The server goes away after the phone opened the poll: the phone's own sentence
    ("Reconnecting… your report is kept") is what shows, never covered by a modal."""
    poll, _ = PollStore(data_dir).create(
        "How do you come to school?", list(OPTIONS), protocol="GRR", epsilon=1.0
    )
    with _serve(data_dir, "streamlit-outage.log") as (url, _process):
        phone = browser.new_context().new_page()
        phone.goto(f"{url}/join?code={poll.code}")
        phone.get_by_label(OPTIONS[0]).check(timeout=60_000)
    # The server is gone: the tap waits, says so, and nothing covers it.
    phone.get_by_role("button", name="Send my answer").click()
    said = phone.get_by_text(re.compile("Reconnecting to the server"))
    said.wait_for(timeout=30_000)
    phone.wait_for_timeout(10_000)  # long past Streamlit's own connection-error modal
    assert said.is_visible()
    dialogs = phone.locator("[data-testid='stDialog']")
    assert not any(dialog.is_visible() for dialog in dialogs.all())
    assert phone.get_by_text(
        re.compile("connected to the internet|Connection error")
    ).count() == 0 or (
        not phone.get_by_text(
            re.compile("connected to the internet|Connection error")
        ).first.is_visible()
    )
