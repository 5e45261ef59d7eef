"""Pictures of the real app for the documentation site: ``make screenshots``.

The app is served as ``make run`` serves it (:func:`devtools.serving.streamlit_server`),
Debian's chromium opens each page at a state worth showing, and each picture is written
to ``docs/assets/screens/NAME.png``. Beside them, ``shots.json`` records what each
picture shows: its page's title and the headings on screen when it was taken (the
captions are :data:`SHOTS`', so rewording one needs no new picture). The
browser tier draws the pictures again into a temporary folder and compares those records
(``tests/app/test_screenshots.py``): a page whose title or headings changed fails there
until ``make screenshots`` draws it anew. The pictures are kept in git because drawing
them needs a browser and a server, which building the site should not.

Run: ``python -m devtools.screenshots [FOLDER]`` (default: the site's assets).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from devtools.serving import ROOT, streamlit_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

SCREENS = ROOT / "docs" / "assets" / "screens"
MANIFEST = "shots.json"
CHROMIUM = "/usr/bin/chromium"
#: A laptop's window, and a phone's (a 390 × 844 CSS-pixel screen at twice the density).
WIDE: dict[str, int] = {"width": 1400, "height": 950}
PHONE: dict[str, int] = {"width": 390, "height": 844}
#: Students who answer the poll before the class's pictures are taken.
STUDENTS = 9
#: The settings every simulated page is shown at: the app's defaults, with fewer trials
#: so that a picture is quick to draw (the page looks the same at any number).
SETTINGS = "trials=10&seed=7"

_WAIT_MS = 180_000


def _idle(page: Page) -> None:
    """Wait until the page's script has finished and the charts have laid themselves out."""
    page.wait_for_timeout(800)
    page.wait_for_selector("[data-testid='stStatusWidget']", state="detached", timeout=_WAIT_MS)
    page.wait_for_timeout(1_200)


def _chart(page: Page) -> None:
    page.locator(".js-plotly-plot").locator("visible=true").first.wait_for(timeout=_WAIT_MS)
    _idle(page)


def _upload(page: Page) -> None:
    """Your data with the bundled ages histogram uploaded, as an analyst's own file."""
    page.get_by_text("Upload a file").first.click()
    page.locator("input[type='file']").first.wait_for(state="attached", timeout=_WAIT_MS)
    page.locator("input[type='file']").first.set_input_files(str(ROOT / "sample_data" / "ages.csv"))
    # The file's chip can be drawn hidden for a moment while the page reruns; what shows
    # that the file was read is its count of users (944 respondents).
    page.get_by_text("ages.csv").first.wait_for(state="attached", timeout=_WAIT_MS)
    users = page.locator("[data-testid='stMetricValue']", has_text=re.compile(r"^944$"))
    users.locator("visible=true").first.wait_for(timeout=_WAIT_MS)
    _chart(page)


def _answer_table(page: Page) -> None:
    page.locator("[data-testid='stDataFrame'], [data-testid='stTable']").first.wait_for(
        timeout=_WAIT_MS
    )
    _idle(page)


def _picker(page: Page) -> None:
    page.locator("[data-testid='stSelectbox']").first.wait_for(timeout=_WAIT_MS)
    _idle(page)


def _last_section(page: Page) -> None:
    """The Learn page is drawn section by section: wait for its last one, then idle (on a
    loaded machine the status widget could come and go before the later sections did)."""
    page.get_by_text("When some users lie").first.wait_for(timeout=_WAIT_MS)
    _idle(page)


@dataclass(frozen=True)
class Shot:
    """One picture: which page, at which address, and what to do before taking it."""

    name: str
    title: str  # the page's title in the app's menu (navigation.PAGES)
    path: str  # the address after the server's, query included
    caption: str  # what the picture shows, said under it in the site
    ready: Callable[[Page], None] = _chart
    viewport: dict[str, int] = field(default_factory=lambda: dict(WIDE))


#: The pictures of the pages that need no class; the class's are drawn after them.
PAGE_SHOTS: tuple[Shot, ...] = (
    Shot(
        "explorer",
        "Explorer",
        f"/?{SETTINGS}",
        "The Explorer: the settings in the sidebar, the recommended method, and every "
        "method's error split into bias and variance.",
    ),
    Shot(
        "tradeoffs",
        "ε trade-offs",
        f"/tradeoffs?{SETTINGS}",
        "ε trade-offs: each method's error as ε grows, at the sidebar's n and d.",
    ),
    Shot(
        "queries",
        "Queries",
        f"/queries?{SETTINGS}&query=Ranges+by+length",
        "Queries, on ranges: the error of a range's frequency by its length.",
    ),
    Shot(
        "fake_users",
        "Fake users",
        f"/fake_users?{SETTINGS}",
        "Fake users: how much an attacker's fake reports lift their targets, per method.",
    ),
    Shot(
        "your_data",
        "Your data",
        "/your_data",
        "Your data, with a histogram uploaded (the bundled ages): the best method for it, "
        "and the command that gives the same numbers.",
        ready=_upload,
        viewport={"width": WIDE["width"], "height": 1500},
    ),
    Shot(
        "choose_epsilon",
        "Choose ε",
        "/choose_epsilon",
        "Choose ε: the smallest ε that meets an accuracy target, per protocol, with and "
        "without post-processing.",
        ready=_answer_table,
        viewport={"width": WIDE["width"], "height": 1500},
    ),
    Shot(
        "rounds",
        "Collecting again",
        f"/rounds?{SETTINGS}",
        "Collecting again: what repeated collection costs in ε, and what memoized protocols save.",
    ),
    Shot(
        "learn",
        "Learn",
        "/learn",
        "Learn: one user's value randomized, step by step, for a class or a first visit.",
        ready=_last_section,
    ),
    Shot(
        "paper",
        "Paper",
        "/paper",
        "Paper: each figure of the papers reproduced on request, beside its claim.",
        ready=_picker,
    ),
)


#: The class's pictures: its form, the running poll, the projector and a phone.
CLASS_SHOTS: tuple[Shot, ...] = (
    Shot("class_form", "Class", "/class", "The Class page before a poll: the question and ε."),
    Shot(
        "class_live",
        "Class",
        "/class",
        f"A poll running with {STUDENTS} answers and the lesson's second step, Base's noise. "
        "The answers came from one computer, so the page flags them as a burst from one "
        "address, as it would a lab (its reports can be removed below).",
    ),
    Shot(
        "projector",
        "Class",
        "/class?view=projector",
        "The projector view: the question, the link and the step the teacher shows, large "
        "enough for the back row, with no control and no secret.",
    ),
    Shot(
        "join",
        "Join a poll",
        "/join",
        "A student's phone on the Join page: the answer is randomized on the phone, and "
        "only the report is sent.",
        viewport=dict(PHONE),
    ),
)

SHOTS: tuple[Shot, ...] = PAGE_SHOTS + CLASS_SHOTS

HEADINGS_JS = """() => [...document.querySelectorAll(
  "[data-testid='stMain'] h1, [data-testid='stMain'] h2, [data-testid='stMain'] h3")]
  .filter(h => h.offsetParent !== null)
  .map(h => h.innerText.trim()).filter(t => t.length > 0)"""


#: A poll's code as the Class page spells it out ("5 X 9 V X 5"): new with every poll.
_CODE = re.compile(r"^(?:[A-Z0-9] ){5}[A-Z0-9]$")


def headings(page: Page) -> list[str]:
    """The headings on screen, in order: what a picture's record says it shows (a poll's
    code, new every time, is recorded as such)."""
    return [
        "(the poll's code)" if _CODE.match(str(text)) else str(text)
        for text in page.evaluate(HEADINGS_JS)
    ]


@contextmanager
def _browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
        )
        try:
            yield browser
        finally:
            browser.close()


def _take(page: Page, shot: Shot, folder: Path) -> dict[str, Any]:
    page.wait_for_timeout(300)
    page.screenshot(path=str(folder / f"{shot.name}.png"))
    print(f"  {shot.name}.png", flush=True)
    errors = page.locator("[data-testid='stException']").count()
    if errors:
        raise RuntimeError(f"the {shot.title} page showed an exception; see {shot.name}.png")
    return {"title": shot.title, "headings": headings(page)}


def _pages(browser: Browser, url: str, folder: Path) -> dict[str, dict[str, Any]]:
    from playwright.sync_api import Error as PlaywrightError

    taken = {}
    for shot in PAGE_SHOTS:
        context = browser.new_context(viewport=shot.viewport)  # type: ignore[arg-type]
        page = context.new_page()
        page.goto(f"{url}{shot.path}")
        try:
            page.get_by_role("heading", name=shot.title).first.wait_for(timeout=_WAIT_MS)
            shot.ready(page)
        except PlaywrightError as error:
            # What the stuck page shows names the cause: its picture and its words.
            page.screenshot(path=str(folder / f"stuck-{shot.name}.png"), full_page=True)
            words = page.locator("body").inner_text()[-2000:]
            raise RuntimeError(
                f"the {shot.title} page never became ready ({error.message.splitlines()[0]}); "
                f"see stuck-{shot.name}.png. It showed:\n{words}"
            ) from None
        taken[shot.name] = _take(page, shot, folder)
        context.close()
    return taken


def _class(browser: Browser, url: str, folder: Path) -> dict[str, dict[str, Any]]:
    form, live, wall, phone = CLASS_SHOTS
    taken = {}
    context = browser.new_context(viewport=form.viewport)  # type: ignore[arg-type]
    teacher = context.new_page()
    teacher.goto(f"{url}{form.path}")
    teacher.get_by_role("button", name="Start the poll").wait_for(timeout=_WAIT_MS)
    # The pictures' students share this machine's one address, as a computer lab does.
    seats = teacher.get_by_label("Reports counted per network address", exact=True)
    seats.fill(str(STUDENTS + 1))
    seats.press("Enter")
    _idle(teacher)
    taken[form.name] = _take(teacher, form, folder)
    teacher.get_by_role("button", name="Start the poll").click()
    teacher.get_by_text("Students open").wait_for(timeout=_WAIT_MS)
    code = re.search(r"poll=([A-Z0-9]+)", teacher.url).group(1)  # type: ignore[union-attr]
    student = browser.new_context(
        viewport=phone.viewport,  # type: ignore[arg-type]
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    ).new_page()
    student.goto(f"{url}/join?code={code.lower()}")
    student.get_by_role("button", name="Send my answer").wait_for(timeout=_WAIT_MS)
    options = student.get_by_role("radio")
    options.first.wait_for(timeout=_WAIT_MS)
    _idle(student)
    taken[phone.name] = _take(student, phone, folder)
    for i in range(STUDENTS):
        page = browser.new_context().new_page()
        page.goto(f"{url}/join?code={code.lower()}")
        choices = page.get_by_role("radio")
        choices.first.wait_for(timeout=_WAIT_MS)
        # Most of the class picks the first options: a poll with a clear answer.
        choices.nth([0, 0, 1, 0, 2, 1, 0, 3, 0][i % 9] % choices.count()).check(force=True)
        page.get_by_role("button", name="Send my answer").click()
        page.get_by_text(re.compile("Your report was sent")).wait_for(timeout=_WAIT_MS)
        page.context.close()
    teacher.get_by_text(re.compile(rf"^{STUDENTS}$")).first.wait_for(timeout=60_000)
    teacher.get_by_text("2 · Base: the noise").click()
    teacher.locator(".js-plotly-plot").first.wait_for(timeout=_WAIT_MS)
    _idle(teacher)
    taken[live.name] = _take(teacher, live, folder)
    projector = context.new_page()
    projector.goto(f"{url}/class?poll={code}&view=projector")
    projector.locator(".js-plotly-plot").first.wait_for(timeout=_WAIT_MS)
    _idle(projector)
    taken[wall.name] = _take(projector, wall, folder)
    context.close()
    return taken


def draw(folder: Path = SCREENS, log: Path | None = None) -> dict[str, dict[str, Any]]:
    """Serve the app, take every picture into ``folder`` and write its record there.

    The class's polls go to a fresh data folder of their own, never the person's.
    """
    folder.mkdir(parents=True, exist_ok=True)
    log = log or Path(tempfile.gettempdir()) / "ldpcore-screenshots.log"
    with tempfile.TemporaryDirectory(prefix="ldpcore-screens-") as data:
        env = {"LDPCORE_DATA_DIR": data}
        with streamlit_server(ROOT / "app.py", log, env=env) as (url, _), _browser() as browser:
            taken = _pages(browser, url, folder)
            taken.update(_class(browser, url, folder))
    record = {shot.name: taken[shot.name] for shot in SHOTS}
    (folder / MANIFEST).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return record


def recorded(folder: Path = SCREENS) -> dict[str, dict[str, Any]]:
    """The record written with the pictures in ``folder`` (empty if there is none)."""
    path = folder / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def main(argv: list[str] | None = None) -> int:
    """Draw the pictures into the folder named (default: the site's assets)."""
    args = sys.argv[1:] if argv is None else argv
    if not os.path.exists(CHROMIUM):
        print(f"error: {CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 1
    folder = Path(args[0]) if args else SCREENS
    record = draw(folder)
    print(f"{len(record)} pictures in {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
