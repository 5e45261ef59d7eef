"""The budget's prompt against the wait in a browser, alone and beside two other sessions.

Run: ``.venv/bin/python -m benchmarks.bench_budget_sessions [--rounds 2]``.

The app is served as ``make run`` serves it, with a budget of one second of computing
(``LDPCORE_RUN_BUDGET_S=1``), so a dear run asks first. Headless chromium (Debian's
``/usr/bin/chromium``) opens the Explorer at a dear setting, reads the prompt's
"Run it (about X by the clock)", presses it and times, with the page's own clock, until
the last trials are drawn (the note "Showing the first …" gone and a chart in the page).
With ``others = 2`` two more browser sessions have pressed "Run it" on runs of their own
just before, so three runs share the server's workers, as when a few visitors of a class
ask for dear runs together. Each round uses a seed no earlier round used: nothing is
cached.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from devtools.serving import ROOT, streamlit_server

CHROMIUM = "/usr/bin/chromium"
#: HR at d = 16,384: about 2.9 s of one core for 30 trials (benchmarks/README.md).
SETTINGS = "protocol=HR&d=16384&trials=30"
PROMPT = re.compile(r"about ([\d.]+) (ms|s|min) by the clock")
DONE_JS = """() => !document.body.innerText.includes("Showing the first")
  && !document.body.innerText.includes("Nothing to show yet")
  && document.querySelector(".js-plotly-plot .main-svg") !== null
  && document.querySelector("[data-testid='stProgress']") === null"""


def _seconds(amount: str, unit: str) -> float:
    return float(amount) * {"ms": 0.001, "s": 1.0, "min": 60.0}[unit]


def _ask(context: object, url: str) -> tuple[object, float]:
    """Open ``url`` in a new page; return it and the prompt's seconds by the clock."""
    page = context.new_page()  # type: ignore[attr-defined]
    page.goto(url)
    button = page.get_by_role("button", name=PROMPT)
    button.wait_for(timeout=120_000)
    found = PROMPT.search(button.inner_text())
    assert found, button.inner_text()
    return page, _seconds(*found.groups())


def _run(page: object) -> float:
    """Press the prompt's button; seconds until every trial is drawn."""
    start = time.perf_counter()
    page.get_by_role("button", name=PROMPT).click()  # type: ignore[attr-defined]
    page.wait_for_timeout(500)  # type: ignore[attr-defined]
    page.wait_for_function(DONE_JS, timeout=600_000)  # type: ignore[attr-defined]
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> None:
    """Measure, then print the table for benchmarks/README.md."""
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    seed = 100
    rows = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        log = Path(folder) / "streamlit.log"
        env = {"LDPCORE_RUN_BUDGET_S": "1", "LDPCORE_DATA_DIR": folder}
        with streamlit_server(ROOT / "app.py", log, env=env) as (url, _):
            # A first run warms the workers (their fork server starts at the first run).
            warm = browser.new_context()
            page, _ = _ask(warm, f"{url}/?{SETTINGS}&seed=1")
            _run(page)
            warm.close()
            for _ in range(args.rounds):
                for others in (0, 2):
                    contexts = [browser.new_context() for _ in range(others + 1)]
                    busy = []
                    for context in contexts[1:]:
                        seed += 1
                        other, _ = _ask(context, f"{url}/?{SETTINGS}&seed={seed}")
                        other.get_by_role("button", name=PROMPT).click()
                        busy.append(other)
                    if busy:
                        time.sleep(1.0)  # their chunks are on the workers
                    seed += 1
                    page, said = _ask(contexts[0], f"{url}/?{SETTINGS}&seed={seed}")
                    wall = _run(page)
                    rows.append((others, said, wall))
                    print(f"others {others}: said {said:.2f} s, waited {wall:.2f} s", flush=True)
                    for context in contexts:
                        context.close()
        browser.close()
    print("\n| other sessions running | prompt said (by the clock) | waited | waited / said |")
    print("|---|---|---|---|")
    for others in (0, 2):
        mine = [(s, w) for o, s, w in rows if o == others]
        ratios = [w / s for s, w in mine]
        said = ", ".join(f"{s:.1f}" for s, _ in mine)
        waited = ", ".join(f"{w:.1f}" for _, w in mine)
        print(
            f"| {others} | {said} s | {waited} s | "
            f"{', '.join(f'{r:.2f}' for r in ratios)} (median {statistics.median(ratios):.2f}) |"
        )


if __name__ == "__main__":
    main()
