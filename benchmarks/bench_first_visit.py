"""A first visit: seconds from opening the page to the first chart, on a fresh server.

Run: ``.venv/bin/python -m benchmarks.bench_first_visit [--rounds 6] [--query Q]``.
With ``--query "?protocol=OUE&d=100000"`` the app is opened at that address (the
slider's edge): the minimal app is then skipped and the table gives the
app's seconds alone.

For each round it starts two fresh ``streamlit run`` servers in turn (127.0.0.1, free
ports, nothing cached): a minimal app that draws one Plotly chart, and this app (the
Explorer at its defaults, served as ``make run`` serves it). Headless chromium (Debian's
``/usr/bin/chromium``) opens each as soon as its health route answers. The clock is the
page's own: milliseconds from the start of its navigation (``performance.now()``) until
the first chart's SVG is in the page, recorded by a MutationObserver. (A clock started
around Playwright's ``goto`` also counts Playwright making the page, which varied by up
to 0.5 s between rounds here and blurred the ratio.) It also records every menu painted
on the way (it must only ever be the app's own). Target: the app's median within 1.5×
of the minimal app's.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path

from devtools.serving import ROOT, streamlit_server

CHROMIUM = "/usr/bin/chromium"
MINIMAL_APP = """import plotly.graph_objects as go
import streamlit as st

st.plotly_chart(go.Figure(go.Bar(y=[3, 1, 2])))
"""
MENU_JS = """() => {
  window.__menus = [];
  window.__chart = null;
  new MutationObserver(() => {
    if (window.__chart === null && document.querySelector(".js-plotly-plot .main-svg")) {
      window.__chart = performance.now();
    }
    for (const id of ["stSidebarNav", "stTopNav"]) {
      const nav = document.querySelector(`[data-testid='${id}']`);
      const text = nav ? nav.innerText.trim().split("\\n").filter(Boolean).join(" ") : "";
      const entry = `${id}: ${text}`;
      if (text && window.__menus[window.__menus.length - 1] !== entry) window.__menus.push(entry);
    }
  }).observe(document, {childList: true, subtree: true, characterData: true});
}"""


def _visit(browser: object, url: str) -> tuple[float, list[str]]:
    """Open ``url`` in a new browser context: seconds to its first chart, and the menus."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    try:
        page = context.new_page()
        page.add_init_script(f"({MENU_JS})()")
        page.goto(url)
        page.wait_for_function("() => window.__chart !== null", timeout=120_000)
        return page.evaluate("window.__chart") / 1000, page.evaluate("window.__menus")
    finally:
        context.close()


def first_chart_seconds(
    browser: object, script: Path, log: Path, query: str = ""
) -> tuple[float, float, list[str]]:
    """Start a fresh server for ``script``: seconds to its first chart for the first
    visitor, then for a second one (the server warm: what the browser alone costs)."""
    with streamlit_server(script, log, cwd=script.parent) as (url, _):
        seconds, menus = _visit(browser, f"{url}/{query}")
        warm, _ = _visit(browser, f"{url}/{query}")
    return seconds, warm, menus


def main(argv: Sequence[str] | None = None) -> None:
    """Measure, then print the table for benchmarks/README.md."""
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--query", default="", help='e.g. "?protocol=OUE&d=100000"')
    args = parser.parse_args(argv)
    logs = ROOT / "test-artifacts"
    minimal_times: list[float] = []
    app_times: list[float] = []
    minimal_warm: list[float] = []
    app_warm: list[float] = []
    menus_seen: list[list[str]] = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        minimal = Path(folder) / "minimal.py"
        minimal.write_text(MINIMAL_APP)
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        for _ in range(args.rounds):
            if args.query:
                seconds, warm, _ = first_chart_seconds(
                    browser, ROOT / "app.py", logs / "first-visit-app.log", args.query
                )
                print(f"{args.query}: first visitor {seconds:.2f} s, second {warm:.2f} s")
                continue
            seconds, warm, _menus = first_chart_seconds(
                browser, minimal, logs / "first-visit-minimal.log"
            )
            minimal_times.append(seconds)
            minimal_warm.append(warm)
            seconds, warm, menus = first_chart_seconds(
                browser, ROOT / "app.py", logs / "first-visit-app.log"
            )
            app_times.append(seconds)
            app_warm.append(warm)
            menus_seen.append(menus)
        browser.close()
    if args.query:
        return
    ratio = statistics.median(app_times) / statistics.median(minimal_times)
    print(
        "| server | first chart on a fresh server, each round (s) | median (s) | "
        "second visitor, median (s) |\n| --- | --- | ---: | ---: |"
    )
    for name, times, seconds_warm in (
        ("minimal one-chart app", minimal_times, minimal_warm),
        ("this app (Explorer)", app_times, app_warm),
    ):
        rounds = ", ".join(f"{t:.2f}" for t in times)
        print(
            f"| {name} | {rounds} | {statistics.median(times):.2f} | "
            f"{statistics.median(seconds_warm):.2f} |"
        )
    warm_ratio = statistics.median(app_warm) / statistics.median(minimal_warm)
    print(f"\nratio of medians: {ratio:.2f} (target ≤ 1.5); second visitor: {warm_ratio:.2f}")
    first = {tuple(m[:1]) for m in menus_seen}
    print(f"first menus painted: {sorted(first)}")


if __name__ == "__main__":
    main()
